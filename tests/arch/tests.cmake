# The module structure of src/ (tests/arch/check_includes.py): the #include graph between the
# directories of src/ (and the public headers' modules) has no cycle and no edge upwards
# (DESIGN.md: main -> app -> optim -> adjoint -> objective -> design -> step -> solver -> body ->
# ops/pressure/io/case -> grid -> sys).
#
#   arch_includes           the repository's tree
#   arch_includes_selftest  the checker on synthetic trees: passes a clean one, fails one with a
#                           cycle and one with an upward edge (so the first test can fail)
add_test(NAME arch_includes COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/arch/check_includes.py ${PROJECT_SOURCE_DIR})
add_test(NAME arch_includes_selftest COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/arch/check_includes.py --self-test)
set_tests_properties(arch_includes arch_includes_selftest PROPERTIES LABELS arch TIMEOUT 60)
