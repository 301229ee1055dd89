# Checkpoints, restart and signals (src/io/checkpoint.c, src/sys/signal.c, src/app/run.c), end to
# end through mpiexec: restart equivalence (bit for bit on the same ranks, 1e-12 on others, 2D and
# 3D), checkpoint cadence and pruning, SIGUSR1/SIGTERM (test hook and real kill), blow-up, the
# SLURM automatic resume (tests/restart/restart.py), and refused checkpoints (fg_case_expect:
# exit code + a message printed once).
#
#   ctest -R restart --output-on-failure
set(FG_RESTART_TESTS ${CMAKE_CURRENT_SOURCE_DIR}/restart)
set(FG_RESTART_CASE ${PROJECT_SOURCE_DIR}/cases/cavity/cavity.yaml)
string(REPLACE ";" "," _fg_mpiflags "${FLOWGRAD_MPIEXEC_FLAGS}") # one argument, split again by restart.py
set(FG_RESTART_DRIVER ${FG_PYTHON} ${FG_RESTART_TESTS}/restart.py --mpiexec ${MPIEXEC_EXECUTABLE}
    "--npflag=${MPIEXEC_NUMPROC_FLAG}" "--mpiflags=${_fg_mpiflags}"
    --flowgrad $<TARGET_FILE:flowgrad> --case ${FG_RESTART_CASE})

# scenario;ranks it uses at most
foreach(scenario equivalence_2d:3 equivalence_3d:3 checkpoint_every:2 signal_hook:3 signal_kill:2 signal_edges:2 blowup:2 slurm:2)
  string(REPLACE ":" ";" s ${scenario})
  list(GET s 0 name)
  list(GET s 1 np)
  add_test(NAME restart_${name}
           COMMAND ${FG_RESTART_DRIVER} --work ${CMAKE_CURRENT_BINARY_DIR}/restart_${name} ${name})
  set_tests_properties(restart_${name} PROPERTIES TIMEOUT 120 PROCESSORS ${np} LABELS "mpi;restart")
  if(FLOWGRAD_SANITIZE)
    set_tests_properties(restart_${name} PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  endif()
endforeach()

# The same restart equivalence with a body (rotating cylinder: penalization, incremental pressure,
# forces in history.csv every step).
add_test(NAME restart_equivalence_body
         COMMAND ${FG_PYTHON} ${FG_RESTART_TESTS}/restart.py --mpiexec ${MPIEXEC_EXECUTABLE}
                 "--npflag=${MPIEXEC_NUMPROC_FLAG}" "--mpiflags=${_fg_mpiflags}" --flowgrad $<TARGET_FILE:flowgrad>
                 --case ${PROJECT_SOURCE_DIR}/cases/rotating_cylinder/rotating_cylinder.yaml
                 --work ${CMAKE_CURRENT_BINARY_DIR}/restart_equivalence_body equivalence_body)
set_tests_properties(restart_equivalence_body PROPERTIES TIMEOUT 120 PROCESSORS 3 LABELS "mpi;restart;body")

# ... and on a grid stretched in y (tests/restart/rotating_cylinder_stretched.yaml): bit for bit
# 2 -> 2 ranks, 1e-12 for 3 -> 2 (measured: 0 and 0 for the fields, 1e-15 for the forces).
add_test(NAME restart_equivalence_body_stretched
         COMMAND ${FG_PYTHON} ${FG_RESTART_TESTS}/restart.py --mpiexec ${MPIEXEC_EXECUTABLE}
                 "--npflag=${MPIEXEC_NUMPROC_FLAG}" "--mpiflags=${_fg_mpiflags}" --flowgrad $<TARGET_FILE:flowgrad>
                 --case ${FG_RESTART_TESTS}/rotating_cylinder_stretched.yaml --cells [128,0]
                 --work ${CMAKE_CURRENT_BINARY_DIR}/restart_equivalence_body_stretched equivalence_body)
set_tests_properties(restart_equivalence_body_stretched PROPERTIES TIMEOUT 120 PROCESSORS 3 LABELS "mpi;restart;body")
# ... and with the implicit viscous term (its direct Helmholtz solves; the incremental pressure
# in the checkpoint): the same bounds.
add_test(NAME restart_equivalence_body_implicit
         COMMAND ${FG_PYTHON} ${FG_RESTART_TESTS}/restart.py --mpiexec ${MPIEXEC_EXECUTABLE}
                 "--npflag=${MPIEXEC_NUMPROC_FLAG}" "--mpiflags=${_fg_mpiflags}" --flowgrad $<TARGET_FILE:flowgrad>
                 --case ${FG_RESTART_TESTS}/rotating_cylinder_stretched.yaml --cells [128,0] --viscous implicit
                 --work ${CMAKE_CURRENT_BINARY_DIR}/restart_equivalence_body_implicit equivalence_body)
set_tests_properties(restart_equivalence_body_implicit PROPERTIES TIMEOUT 120 PROCESSORS 3 LABELS "mpi;restart;body")

# Refused checkpoints. restart_damaged_setup writes good/ (checkpoints 15 and 20 of a 16 x 16
# cavity) and copies whose newest checkpoint is truncated, text, without /v, or with a NaN.
set(FG_RESTART_DAMAGED ${CMAKE_CURRENT_BINARY_DIR}/restart_damaged)
add_test(NAME restart_damaged_setup COMMAND ${FG_RESTART_DRIVER} --work ${FG_RESTART_DAMAGED} damaged_setup)
set_tests_properties(restart_damaged_setup PROPERTIES TIMEOUT 60 PROCESSORS 2 LABELS "mpi;restart"
                     FIXTURES_SETUP restart_damaged)
if(FLOWGRAD_SANITIZE) # Open MPI's own allocations make LeakSanitizer noisy
  set_tests_properties(restart_damaged_setup restart_equivalence_body PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()

# fg_restart_expect(NAME <name> NP <n...> CODE <code> REGEX <regex> DIR <subdir> [ARGS <more...>])
#   `flowgrad run cavity --resume` on restart_damaged/<subdir> (16 x 16, 30 steps) and ARGS.
function(fg_restart_expect)
  cmake_parse_arguments(A "" "NAME;CODE;REGEX;DIR" "NP;ARGS" ${ARGN})
  fg_case_expect(NAME restart_${A_NAME} NP ${A_NP} CODE ${A_CODE} REGEX "${A_REGEX}"
                 ARGS run ${FG_RESTART_CASE} --resume --set grid.cells=[16,16] --set time.steps=30
                      --set output.dir=${FG_RESTART_DAMAGED}/${A_DIR} ${A_ARGS})
  foreach(np IN LISTS A_NP)
    set_tests_properties(case_restart_${A_NAME}_np${np} PROPERTIES FIXTURES_REQUIRED restart_damaged
                         LABELS "mpi;case;restart")
  endforeach()
endfunction()

set(_ck [=[checkpoint .*restart_damaged/]=])
set(_prev [=[; the checkpoint before it is intact: rerun with --resume-from .*checkpoint_000015\.h5 to continue from it$]=])
fg_restart_expect(NAME damaged_truncated NP 1 2 CODE 4 DIR trunc
  REGEX "${_ck}trunc/checkpoints/checkpoint_000020\\.h5 is damaged or not a flowgrad checkpoint: HDF5 cannot open it: truncated file.*${_prev}")
fg_restart_expect(NAME damaged_text NP 2 CODE 4 DIR text
  REGEX "${_ck}text/checkpoints/checkpoint_000020\\.h5 is damaged or not a flowgrad checkpoint: not an HDF5 file${_prev}")
fg_restart_expect(NAME damaged_no_dataset NP 2 CODE 4 DIR nodset
  REGEX "${_ck}nodset/checkpoints/checkpoint_000020\\.h5 is damaged or not a flowgrad checkpoint: no dataset /v${_prev}")
fg_restart_expect(NAME damaged_nan NP 2 CODE 4 DIR nan
  REGEX "nan/checkpoints/checkpoint_000020\\.h5: dataset /u does not match its checksum \\(the file is damaged\\)${_prev}")
fg_restart_expect(NAME other_case NP 1 2 CODE 2 DIR good ARGS --set flow.re=200
  REGEX "${_ck}good/checkpoints/checkpoint_000020\\.h5 was written by another case: flow\\.nu = 0\\.01 in the checkpoint, 0\\.005 now. flow\\.re = 100 in the checkpoint, 200 now \\(a resume may change only")
fg_restart_expect(NAME other_boundary NP 2 CODE 2 DIR good ARGS --set boundary.y_hi.velocity=[2,0]
  REGEX "was written by another case: boundary\\.y_hi\\.velocity = \\[1, 0\\] in the checkpoint, \\[2, 0\\] now \\(")
fg_restart_expect(NAME other_grid NP 2 CODE 2 DIR good ARGS --set grid.cells=[16,24]
  REGEX "${_ck}good/checkpoints/checkpoint_000020\\.h5 belongs to another grid: 16 x 16 cells, lengths 1 x 1, origin \\(0, 0\\). this case has 16 x 24 cells")
fg_restart_expect(NAME other_dim NP 2 CODE 2 DIR good
  ARGS --set grid.cells=[16,16,16] --set grid.lengths=[1,1,1] --set boundary.y_hi.velocity=[1,0,0]
  REGEX "belongs to another grid: 16 x 16 cells, lengths 1 x 1, origin \\(0, 0\\). this case has 16 x 16 x 16 cells")
fg_restart_expect(NAME past_steps NP 2 CODE 2 DIR good ARGS --set time.steps=10
  REGEX "checkpoint_000020\\.h5 is at step 20, after time\\.steps = 10. to continue, raise it")
fg_restart_expect(NAME no_checkpoint NP 1 2 CODE 2 DIR empty
  REGEX "^flowgrad: error: --resume: no checkpoint in .*restart_damaged/empty/checkpoints to resume from \\(run without --resume to start from t = 0\\)$")
fg_case_expect(NAME restart_resume_not_run NP 1 CODE 2 REGEX "--resume applies to flowgrad run, adjoint and optimize only"
               ARGS info ${FG_RESTART_CASE} --resume)

# FFTW wisdom: with the default planner (measure), a resumed run reuses the plans of the run it
# continues (<output.dir>/fftw.wisdom): straight = split + resume, bit for bit.
string(REPLACE ";" " " _fg_wisdom_mpiexec "${MPIEXEC_EXECUTABLE} ${FLOWGRAD_MPIEXEC_FLAGS}")
add_test(NAME restart_fftw_wisdom
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/restart/wisdom.py $<TARGET_FILE:flowgrad>
                 ${PROJECT_SOURCE_DIR}/cases/cavity/cavity.yaml ${CMAKE_CURRENT_BINARY_DIR}
                 --mpiexec "${_fg_wisdom_mpiexec}")
set_tests_properties(restart_fftw_wisdom PROPERTIES TIMEOUT 120 PROCESSORS 2 LABELS "restart")
