# Hostile input (issue 23): each finding of the sweep of hostile inputs in a scenario of its own
# (tests/fuzz/hostile.py: long paths, special files, probes outside the domain, bad options), the
# generated sweep (tests/fuzz/fuzz_inputs.py) and random damage to checkpoints
# (tests/fuzz/damage_checkpoint.py). Every refusal: exit 2 or 4, one line, no traceback.
#
#   ctest -L fuzz --output-on-failure
set(FG_FUZZ_TESTS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
string(REPLACE ";" "," _fg_fuzz_mpiflags "${FLOWGRAD_MPIEXEC_FLAGS}")
foreach(scenario long_path:2 special_files:1 probes:1 options:2)
  string(REPLACE ":" ";" s ${scenario})
  list(GET s 0 name)
  list(GET s 1 np)
  add_test(NAME hostile_${name}
           COMMAND ${FG_PYTHON} ${FG_FUZZ_TESTS}/hostile.py --flowgrad $<TARGET_FILE:flowgrad>
                   --mpiexec ${MPIEXEC_EXECUTABLE} "--mpiflags=${_fg_fuzz_mpiflags}" --repo ${PROJECT_SOURCE_DIR}
                   --work ${CMAKE_CURRENT_BINARY_DIR}/hostile_${name} ${name})
  set_tests_properties(hostile_${name} PROPERTIES TIMEOUT 300 PROCESSORS ${np} LABELS "mpi;fuzz")
endforeach()
