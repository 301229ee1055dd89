# Discrete adjoint (issue 5). Dot-product tests of every operator and of the whole step, and the
# tangent step against central differences of the forward step, in 2D and 3D, with bodies,
# jets, a moving mask and actuators, at 1 and 3 ranks (tests/adjoint/test_step_adjoint.c).
fg_add_test_exe(NAME test_step_adjoint SOURCES ${FG_TEST_DIR}/adjoint/test_step_adjoint.c)
fg_add_mpi_test(NAME adjoint_step NP 1 3 COMMAND test_step_adjoint -fg_fftw_planner estimate LABELS adjoint TIMEOUT 300)
