# Hostile input (issue 23): each finding of the sweep of hostile inputs in a scenario of its own
# (tests/fuzz/hostile.py: long paths, special files, probes outside the domain, bad options), the
# generated sweep (tests/fuzz/fuzz_inputs.py) and random damage to checkpoints
# (tests/fuzz/damage_checkpoint.py). Every refusal: exit 2 or 4, one line, no traceback.
#
#   ctest -L fuzz --output-on-failure
set(FG_FUZZ_TESTS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
string(REPLACE ";" "," _fg_fuzz_mpiflags "${FLOWGRAD_MPIEXEC_FLAGS}")
foreach(scenario long_path:2 special_files:1 probes:1 options:2 memory:1 late_errors:1 yaml:1 postproc:1 state_damage:1)
  string(REPLACE ":" ";" s ${scenario})
  list(GET s 0 name)
  list(GET s 1 np)
  add_test(NAME hostile_${name}
           COMMAND ${FG_PYTHON} ${FG_FUZZ_TESTS}/hostile.py --flowgrad $<TARGET_FILE:flowgrad>
                   --mpiexec ${MPIEXEC_EXECUTABLE} "--mpiflags=${_fg_fuzz_mpiflags}" --repo ${PROJECT_SOURCE_DIR}
                   --work ${CMAKE_CURRENT_BINARY_DIR}/hostile_${name} ${name})
  set_tests_properties(hostile_${name} PROPERTIES TIMEOUT 300 PROCESSORS ${np} LABELS "mpi;fuzz")
endforeach()

# The generated sweep: 742 hostile case files and command lines (seed 1; mostly info, some run,
# adjoint and check, four at a time: they mostly wait); every one refused with exit 2 or 4 and one
# line naming a key, file or option, or accepted where it is valid; no signal, hang or traceback,
# nothing written outside the work directory. With FLOWGRAD_SANITIZE the parser part (info) runs
# under AddressSanitizer/UBSan.
if(FLOWGRAD_SANITIZE)
  set(_fg_fuzz_cmds --commands info)
endif()
add_test(NAME fuzz_inputs
         COMMAND ${FG_PYTHON} ${FG_FUZZ_TESTS}/fuzz_inputs.py --flowgrad $<TARGET_FILE:flowgrad> --repo ${PROJECT_SOURCE_DIR}
                 --work ${CMAKE_CURRENT_BINARY_DIR}/fuzz_inputs ${_fg_fuzz_cmds})
set_tests_properties(fuzz_inputs PROPERTIES TIMEOUT 900 PROCESSORS 2 LABELS fuzz)
# Random damage to a checkpoint (150 single-bit flips anywhere in the file, 22 targeted edits):
# every resume is refused with exit 4 naming the file, or ends bit for bit as the undamaged one.
add_test(NAME fuzz_damage_checkpoint
         COMMAND ${FG_PYTHON} ${FG_FUZZ_TESTS}/damage_checkpoint.py --flowgrad $<TARGET_FILE:flowgrad> --repo ${PROJECT_SOURCE_DIR}
                 --work ${CMAKE_CURRENT_BINARY_DIR}/fuzz_damage --flips 150)
set_tests_properties(fuzz_damage_checkpoint PROPERTIES TIMEOUT 600 PROCESSORS 2 LABELS fuzz)
if(FLOWGRAD_SANITIZE)
  set_tests_properties(fuzz_inputs fuzz_damage_checkpoint PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
