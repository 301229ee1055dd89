# Kovasznay flow (steady, exact velocity on every face): second-order convergence of the forward
# solver on three grids, through the flowgrad executable; divergence-free to round-off.
string(REPLACE ";" " " _fg_mpiexec_flags "${FLOWGRAD_MPIEXEC_FLAGS}")
add_test(NAME kovasznay_order_np2
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/kovasznay/kovasznay_order.py $<TARGET_FILE:flowgrad>
                 ${PROJECT_SOURCE_DIR}/cases/kovasznay/kovasznay.yaml ${CMAKE_CURRENT_BINARY_DIR} 2
                 --mpiexec "${MPIEXEC_EXECUTABLE} ${_fg_mpiexec_flags}")
set_tests_properties(kovasznay_order_np2 PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS "forward;validation")
