# The structure of src/ (issue 19), checked on the sources; each checker has a self-test that
# shows it fails when its rule is broken.
#
# tests/arch/check_includes.py: the #include graph between the directories of src/ (and the
# public headers' modules) has no cycle and no edge upwards (main -> app -> optim -> adjoint ->
# objective -> design -> step -> solver -> body -> ops/pressure/io/case -> grid -> sys), and no
# HDF5 call outside src/io/.
#
#   arch_includes           the repository's tree
#   arch_includes_selftest  the checker on synthetic trees: passes a clean one, fails one with a
#                           cycle and one with an upward edge (so the first test can fail)
add_test(NAME arch_includes COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/arch/check_includes.py ${PROJECT_SOURCE_DIR})
add_test(NAME arch_includes_selftest COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/arch/check_includes.py --self-test)
set_tests_properties(arch_includes arch_includes_selftest PROPERTIES LABELS arch TIMEOUT 60)

# The step is pure (tests/arch/check_step.py): the solver has no tape member and nothing outside
# src/step/ assigns one (the tape is FGStepForward_RK3's argument); src/step/rk3.c calls no
# diagnostic (control volume, monitor, probes) and reads no option. The self-test shows that each
# rule fails when broken. (On the tree before issue 19 it reports 8 problems.)
add_test(NAME arch_step COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/arch/check_step.py ${PROJECT_SOURCE_DIR})
add_test(NAME arch_step_selftest COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/arch/check_step.py --self-test)
set_tests_properties(arch_step arch_step_selftest PROPERTIES LABELS arch TIMEOUT 60)

# No file under src/ longer than 800 lines (tests/arch/check_length.py).
add_test(NAME arch_file_length COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/arch/check_length.py ${PROJECT_SOURCE_DIR} 800)
set_tests_properties(arch_file_length PROPERTIES LABELS arch TIMEOUT 60)
