# Operator properties of the forward solver (projection consistency, energy conservation).
fg_add_test_exe(NAME test_ops SOURCES ${FG_TEST_DIR}/unit/test_ops.c)
fg_add_mpi_test(NAME ops NP 1 3 COMMAND test_ops LABELS unit TIMEOUT 120)
# The implicit viscous term's Helmholtz solves: the direct path's residual, the direct and KSP
# paths against each other, the approximately factored path's residual against its own factors,
# the three transposes and the derivative in s (tests/unit/test_viscous.c), on 1, 2 and 3 ranks;
# with every direction stretched (the factored and the KSP paths only) on 1 and 2.
fg_add_test_exe(NAME test_viscous SOURCES ${FG_TEST_DIR}/unit/test_viscous.c)
fg_add_mpi_test(NAME viscous NP 1 2 3 COMMAND test_viscous LABELS unit TIMEOUT 120)
fg_add_mpi_test(NAME viscous_stretched NP 1 2 COMMAND test_viscous -stretch_all LABELS unit TIMEOUT 120)
# The KSP stall test (src/sys/ksp.c): a singular system with an inconsistent right-hand side ends
# by it within 100 iterations (refused or accepted), a regular one is untouched, its options.
fg_add_test_exe(NAME test_ksp_stall SOURCES ${FG_TEST_DIR}/unit/test_ksp_stall.c)
fg_add_mpi_test(NAME ksp_stall NP 1 2 COMMAND test_ksp_stall LABELS unit TIMEOUT 60)
