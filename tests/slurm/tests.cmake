# Job scripts (jobs/) and campaigns: without SLURM (dry run, local campaign, bad input), and under
# a real single-node SLURM that the fixture slurm_up starts (tests/slurm/cluster.sh: private
# config, ports and state in the build tree; munged shared) and slurm_down stops by PID. Where it
# cannot start (not root, no cgroup file system, SLURM not installed) slurm_up says why and the
# SLURM tests are skipped (exit 77) with that reason; the rest of the suite runs.
#
#   ctest -R slurm --output-on-failure
if(FLOWGRAD_SANITIZE)
  return() # integration tests of shell scripts: nothing for the sanitizers to see
endif()
set(FG_SLURM_DIR ${CMAKE_CURRENT_BINARY_DIR}/slurm_cluster)
string(REPLACE ";" "," _fg_slurm_mpiflags "${FLOWGRAD_MPIEXEC_FLAGS}")
set(FG_JOBS_DRIVER ${FG_PYTHON} ${FG_TEST_DIR}/slurm/jobs.py --repo ${PROJECT_SOURCE_DIR}
    --flowgrad $<TARGET_FILE:flowgrad> --cluster ${FG_SLURM_DIR} --mpiexec ${MPIEXEC_EXECUTABLE}
    "--mpiexec-flags=${_fg_slurm_mpiflags}")

foreach(s dryrun local local_errors help_hook)
  add_test(NAME jobs_${s} COMMAND ${FG_JOBS_DRIVER} --work ${CMAKE_CURRENT_BINARY_DIR}/jobs_${s} ${s})
  set_tests_properties(jobs_${s} PROPERTIES TIMEOUT 180 PROCESSORS 2 LABELS jobs)
endforeach()

# the skip path: not root -> "skip: not root", and a SLURM test exits 77 with the reason
add_test(NAME slurm_skip_message COMMAND bash ${FG_TEST_DIR}/slurm/skip_check.sh ${FG_PYTHON}
         ${FG_TEST_DIR}/slurm/jobs.py ${PROJECT_SOURCE_DIR} $<TARGET_FILE:flowgrad>)
set_tests_properties(slurm_skip_message PROPERTIES TIMEOUT 60 LABELS jobs)

add_test(NAME slurm_up COMMAND bash ${FG_TEST_DIR}/slurm/cluster.sh up ${FG_SLURM_DIR})
add_test(NAME slurm_down COMMAND bash ${FG_TEST_DIR}/slurm/cluster.sh down ${FG_SLURM_DIR})
set_tests_properties(slurm_up PROPERTIES FIXTURES_SETUP fg_slurm TIMEOUT 120 LABELS "jobs;slurm" RESOURCE_LOCK fg_slurm)
set_tests_properties(slurm_down PROPERTIES FIXTURES_CLEANUP fg_slurm TIMEOUT 120 LABELS "jobs;slurm" RESOURCE_LOCK fg_slurm)
foreach(s forward campaign campaign_failure preempt preempt_forward preempt_adjoint cancel missing launch_failure paths)
  add_test(NAME slurm_${s} COMMAND ${FG_JOBS_DRIVER} --work ${CMAKE_CURRENT_BINARY_DIR}/slurm_${s} ${s}
                                   --reference ${CMAKE_CURRENT_BINARY_DIR}/optim_shape_np2)
  set_tests_properties(slurm_${s} PROPERTIES FIXTURES_REQUIRED fg_slurm SKIP_RETURN_CODE 77 TIMEOUT 600
                       PROCESSORS 2 RESOURCE_LOCK fg_slurm LABELS "jobs;slurm")
endforeach()
# the preempted optimization ends at the design of the uninterrupted run optim_shape_np2
set_tests_properties(slurm_preempt PROPERTIES FIXTURES_REQUIRED "fg_slurm;fg_optim_shape2")
