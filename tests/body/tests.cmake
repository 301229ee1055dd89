# Parameterized shapes (src/body/shape.c): derivatives vs finite differences, zero contours,
# geometric functionals, bad input.
fg_add_test_exe(NAME test_shape SOURCES ${FG_TEST_DIR}/body/test_shape.c)
fg_add_mpi_test(NAME body_shape NP 1 COMMAND test_shape LABELS body TIMEOUT 120)
