# Operator properties of the forward solver (projection consistency, energy conservation).
fg_add_test_exe(NAME test_ops SOURCES ${FG_TEST_DIR}/unit/test_ops.c)
fg_add_mpi_test(NAME ops NP 1 3 COMMAND test_ops LABELS unit TIMEOUT 120)
