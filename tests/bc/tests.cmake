# Boundary data in time (modulated inflow) and the body force, through the flowgrad executable.
set(FG_CHANNEL_CASE ${PROJECT_SOURCE_DIR}/cases/channel/channel.yaml)
foreach(np 1 2)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/bc_inflow_np${np})
  fg_add_mpi_test(NAME bc_inflow_run NP ${np} COMMAND flowgrad run ${FG_CHANNEL_CASE}
    --set grid.cells=[64,16] --set boundary.x_lo.profile=uniform --set boundary.x_lo.velocity=[1,0]
    --set boundary.x_lo.modulation_amplitude=0.5 --set boundary.x_lo.modulation_frequency=1.3
    --set time.dt=0.005 --set time.steps=77 --set output.dir=${dir}
    LABELS bc)
  add_test(NAME bc_inflow_flux_np${np} COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/bc/check_bc.py flux ${dir} 77 0.5 1.3 1 1)
  set_tests_properties(bc_inflow_flux_np${np} PROPERTIES DEPENDS bc_inflow_run_np${np} LABELS bc)

  set(dir ${CMAKE_CURRENT_BINARY_DIR}/bc_poiseuille_np${np})
  fg_add_mpi_test(NAME bc_poiseuille_run NP ${np} COMMAND flowgrad run ${FG_TEST_DIR}/bc/poiseuille.yaml
    --set output.dir=${dir} LABELS bc)
  add_test(NAME bc_poiseuille_check_np${np} COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/bc/check_bc.py poiseuille ${dir} 4000 1 0.1 1)
  set_tests_properties(bc_poiseuille_check_np${np} PROPERTIES DEPENDS bc_poiseuille_run_np${np} LABELS bc)
endforeach()
