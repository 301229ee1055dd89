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

  # the same on a stretched wall-normal grid, with the FFTW solver (Thomas along the stretched y)
  # and with KSP
  foreach(ptype fftw ksp)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/bc_poiseuille_stretched_${ptype}_np${np})
    fg_add_mpi_test(NAME bc_poiseuille_stretched_${ptype}_run NP ${np} COMMAND flowgrad run ${FG_TEST_DIR}/bc/poiseuille_stretched.yaml
      --set poisson.type=${ptype} --set output.dir=${dir} LABELS bc)
    add_test(NAME bc_poiseuille_stretched_${ptype}_check_np${np} COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/bc/check_bc.py poiseuille_stretched ${dir} 20000 1 0.1 1)
    set_tests_properties(bc_poiseuille_stretched_${ptype}_check_np${np} PROPERTIES DEPENDS bc_poiseuille_stretched_${ptype}_run_np${np} LABELS bc)
  endforeach()
endforeach()

# grid.stretch: bad input is exit 2 naming the key, before anything is allocated
set(FG_PS ${FG_TEST_DIR}/bc/poiseuille.yaml)
fg_case_expect(NAME stretch_bad_band NP 1 CODE 2 REGEX "grid\\.stretch\\.y\\.band=\\[0\\.2,1\\.5\\]: the band \\[0\\.2, 1\\.5\\] is not an interval inside the domain"
               ARGS info ${FG_PS} --set grid.stretch.y.type=band --set grid.stretch.y.band=[0.2,1.5] --set grid.stretch.y.h_min=0.01 --set grid.stretch.y.h_max=0.05 --set grid.cells=[8,0])
fg_case_expect(NAME stretch_bad_faces NP 1 CODE 2 REGEX "grid\\.stretch\\.y\\.faces=\\[0,0\\.5,0\\.4,1\\]: faces 1 and 2 \\(0\\.5, 0\\.4[0-9]*\\) are not increasing"
               ARGS info ${FG_PS} --set grid.stretch.y.type=faces --set grid.stretch.y.faces=[0,0.5,0.4,1] --set grid.cells=[8,0])
fg_case_expect(NAME stretch_bad_count NP 1 CODE 2 REGEX "grid\\.cells=\\[8,5\\]: 5 cells along y, but grid\\.stretch\\.y \\(faces\\) makes 3. give 3 or 0"
               ARGS info ${FG_PS} --set grid.stretch.y.type=faces --set grid.stretch.y.faces=[0,0.3,0.6,1] --set grid.cells=[8,5])
fg_case_expect(NAME stretch_bad_fftw_x NP 1 CODE 2 REGEX "grid\\.stretch\\.x\\.type=tanh: tanh, but poisson\\.type fftw transforms x"
               ARGS info ${FG_PS} --set grid.stretch.x.type=tanh --set grid.stretch.x.beta=2)
fg_case_expect(NAME stretch_bad_file NP 1 CODE 2 REGEX "grid\\.stretch\\.y\\.file=/nonexistent/faces\\.txt: cannot read /nonexistent/faces\\.txt"
               ARGS info ${FG_PS} --set grid.stretch.y.type=file --set grid.stretch.y.file=/nonexistent/faces.txt --set grid.cells=[8,0])
# type bodies: the band from the bodies' box (cases/cylinder_re40/stretched.yaml: the cylinder's box
# widened by its diameter on either side); none without a body; no band key beside it
fg_case_expect(NAME stretch_bodies_info NP 1 CODE 0 REGEX "  y: the band around the bodies \\(margin 1\\.\\): \\[18\\.5, 21\\.5\\]"
               ARGS info ${PROJECT_SOURCE_DIR}/cases/cylinder_re40/stretched.yaml)
fg_case_expect(NAME stretch_bodies_cells NP 1 CODE 0 REGEX "  y stretched: 156 cells, h_min 0\\.0416667, h_max 1\\., largest growth ratio 1\\.0970"
               ARGS info ${PROJECT_SOURCE_DIR}/cases/cylinder_re40/stretched.yaml)
fg_case_expect(NAME stretch_bodies_no_body NP 1 CODE 2 REGEX "grid\\.stretch\\.y\\.type=bodies: bodies: no body bounds y \\(the case has no body\\)"
               ARGS info ${FG_PS} --set grid.stretch.y.type=bodies --set grid.stretch.y.h_min=0.01 --set grid.stretch.y.h_max=0.05 --set grid.cells=[8,0])
fg_case_expect(NAME stretch_bodies_band NP 1 CODE 2 REGEX "grid\\.stretch\\.y\\.band=\\[1,2\\]: only a band stretching has a band \\(type bodies derives it from the bodies\\). grid\\.stretch\\.y\\.type is bodies"
               ARGS info ${PROJECT_SOURCE_DIR}/cases/cylinder_re40/stretched.yaml --set grid.stretch.y.band=[1,2])
fg_case_expect(NAME stretch_info NP 1 CODE 0 REGEX "  y stretched: 88 cells, h_min 0\\.01, h_max 0\\.018865, largest growth ratio 1\\.0464"
               ARGS info ${FG_PS} --set grid.stretch.y.type=band --set grid.stretch.y.band=[0.2,0.8] --set grid.stretch.y.h_min=0.01 --set grid.stretch.y.h_max=0.05 --set grid.cells=[8,0])
