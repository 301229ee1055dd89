# Kovasznay flow (steady, exact velocity on every face): second-order convergence of the forward
# solver on three grids, through the flowgrad executable; divergence-free to round-off.
string(REPLACE ";" " " _fg_mpiexec_flags "${FLOWGRAD_MPIEXEC_FLAGS}")
add_test(NAME kovasznay_order_np2
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/kovasznay/kovasznay_order.py $<TARGET_FILE:flowgrad>
                 ${PROJECT_SOURCE_DIR}/cases/kovasznay/kovasznay.yaml ${CMAKE_CURRENT_BINARY_DIR} 2
                 --mpiexec "${MPIEXEC_EXECUTABLE} ${_fg_mpiexec_flags}")
set_tests_properties(kovasznay_order_np2 PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS "forward;validation")
# The same on a grid stretched in y (a tanh map, beta 1.5: growth ratio <= 1.09 on the coarsest
# grid), FFTW with the Thomas algorithm along y, on 12 x 16 .. 48 x 64 (measured: rms orders
# 2.05/2.31, 2.02/2.10). Both directions stretched (the KSP solver) is the on-demand run
#   python3 tests/kovasznay/kovasznay_order.py build/flowgrad cases/kovasznay/kovasznay.yaml OUT 2 4 8 16 --stretch 1.5
# (measured: 2.04/2.29, 2.01/2.06; 90 s on a loaded machine; docs/discretization.md, "Grid and discretization").
add_test(NAME kovasznay_order_stretched_np2
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/kovasznay/kovasznay_order.py $<TARGET_FILE:flowgrad>
                 ${PROJECT_SOURCE_DIR}/cases/kovasznay/kovasznay.yaml ${CMAKE_CURRENT_BINARY_DIR} 2 4 8 16
                 --stretch 1.5 --axes y --mpiexec "${MPIEXEC_EXECUTABLE} ${_fg_mpiexec_flags}")
set_tests_properties(kovasznay_order_stretched_np2 PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS "forward;validation")
