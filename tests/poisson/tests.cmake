# Poisson solvers (src/pressure): manufactured solutions, rank independence, transpose/dot-product
# tests and error paths. Each test checks itself (nonzero exit = failure). FFTW plans are made
# with FFTW_ESTIMATE here (-fg_fftw_planner estimate) to keep the tests fast, except in
# poisson_ranks_measure, which uses the production default (FFTW_MEASURE).
set(_fg_poisson_dir ${CMAKE_CURRENT_LIST_DIR})
foreach(_t mms ranks adjoint errors dct)
  fg_add_test_exe(NAME test_poisson_${_t} SOURCES ${_fg_poisson_dir}/test_poisson_${_t}.c)
endforeach()

# Order >= 1.9 on three grids, FFT vs KSP to 1e-9, residuals <= 1e-10; 2D and 3D, all BC kinds.
fg_add_mpi_test(NAME poisson_mms NP 1 2 COMMAND test_poisson_mms -fg_fftw_planner estimate
                LABELS poisson TIMEOUT 120)
# The same answer on 1, 2, 3 and 4 ranks to 1e-12 (PETSC_COMM_WORLD against PETSC_COMM_SELF).
fg_add_mpi_test(NAME poisson_ranks NP 1 2 3 4 COMMAND test_poisson_ranks -fg_fftw_planner estimate
                LABELS poisson TIMEOUT 120)
fg_add_mpi_test(NAME poisson_ranks_measure NP 3 COMMAND test_poisson_ranks
                LABELS poisson TIMEOUT 120)
# <S b1, b2> = <b1, S^T b2> to 1e-12 for both solvers, and operator identities.
fg_add_mpi_test(NAME poisson_adjoint NP 1 2 COMMAND test_poisson_adjoint -fg_fftw_planner estimate
                LABELS poisson TIMEOUT 120)
# KSP not converged -> FG_ERR_NUMERIC; bad input -> FG_ERR_INPUT; FGPoissonBCFromCase.
fg_add_mpi_test(NAME poisson_errors NP 1 2 COMMAND test_poisson_errors -fg_fftw_planner estimate
                LABELS poisson TIMEOUT 120)
# The same three with every direction transformed (-fg_fftw_tridiagonal 0): the default solves a
# non-periodic slab direction by the Thomas algorithm, and these keep the other path tested.
fg_add_mpi_test(NAME poisson_mms_transform NP 1 2 COMMAND test_poisson_mms -fg_fftw_planner estimate -fg_fftw_tridiagonal 0
                LABELS poisson TIMEOUT 120)
fg_add_mpi_test(NAME poisson_ranks_transform NP 1 3 COMMAND test_poisson_ranks -fg_fftw_planner estimate -fg_fftw_tridiagonal 0
                LABELS poisson TIMEOUT 120)
fg_add_mpi_test(NAME poisson_adjoint_transform NP 1 2 COMMAND test_poisson_adjoint -fg_fftw_planner estimate -fg_fftw_tridiagonal 0
                LABELS poisson TIMEOUT 120)
# The r2c-based REDFT10/REDFT01 of the Neumann directions (src/pressure/dct.c) against FFTW's kinds.
fg_add_mpi_test(NAME poisson_dct NP 1 COMMAND test_poisson_dct LABELS poisson unit TIMEOUT 60)
