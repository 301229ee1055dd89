# postproc history, optimization, control, campaign (postproc/fgpost/{history,optimization,control,
# campaign}.py), tested by tests/postproc/test_plots.py: the pictures (PNG 480 x 320 = 6 x 4 in at
# 80 dpi, not blank) and the plotted arrays against the files they come from; bad input exits 2.
# Included from tests/postproc/tests.cmake (FG_POST_DIR, FG_POST_DATA, FG_POSTPROC set there).
set(FG_PLOTS_TEST ${FG_PYTHON} ${FG_POST_DIR}/test_plots.py)
set(_fg_plots_re100 ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re100)
set(_fg_plots_shape ${CMAKE_CURRENT_BINARY_DIR}/optim_shape_np1)
set(_fg_plots_campaign ${FG_POST_DATA}/campaign/cavity/post)

# A control in time: tests/postproc/plots_control.yaml (rotation rate and two jet amplitudes through
# 5 values each, a control cost), 100 steps on 96 x 64 (~1 s).
add_test(NAME postproc_setup_plots_control
         COMMAND $<TARGET_FILE:flowgrad> adjoint ${FG_POST_DIR}/plots_control.yaml
                 --set output.dir=${FG_POST_DATA}/plots_control -fg_fftw_planner estimate)
set_tests_properties(postproc_setup_plots_control PROPERTIES FIXTURES_SETUP fg_post_plots_control TIMEOUT 120 LABELS postproc)

# history: the Cd/Cl/Cm/control-volume lines equal history.csv's columns; the spectrum peak equals
# numpy's FFT of cyl_cl over the second half (measured St 0.1700; flowgrad's cyl_st 0.1692).
add_test(NAME postproc_history_cylinder COMMAND ${FG_PLOTS_TEST} history ${_fg_plots_re100} cyl 0.155 0.18)
set_tests_properties(postproc_history_cylinder PROPERTIES FIXTURES_REQUIRED body_cylinder_re100 LABELS postproc TIMEOUT 60)
# history of a run without bodies (a cavity point of the campaign data): the run's health only
add_test(NAME postproc_history_nobody COMMAND ${FG_PLOTS_TEST} history_nobody ${_fg_plots_campaign}/p0-re100)
set_tests_properties(postproc_history_nobody PROPERTIES FIXTURES_REQUIRED fg_post_campaign LABELS postproc TIMEOUT 60)
add_test(NAME postproc_history_errors COMMAND ${FG_PLOTS_TEST} errors history ${_fg_plots_re100})
set_tests_properties(postproc_history_errors PROPERTIES FIXTURES_REQUIRED body_cylinder_re100 LABELS postproc TIMEOUT 60)

# optimization: J, J/J0, |g| and the constraint row equal optimization.csv; the outlines at
# iterations 0, 3 and the last equal the outline points (phi = 0) of their iter files.
add_test(NAME postproc_optimization_shape COMMAND ${FG_PLOTS_TEST} optimization ${_fg_plots_shape} 0,3,last)
set_tests_properties(postproc_optimization_shape PROPERTIES FIXTURES_REQUIRED fg_optim_shape1 LABELS postproc TIMEOUT 60)
add_test(NAME postproc_optimization_errors COMMAND ${FG_PLOTS_TEST} errors optimization ${_fg_plots_shape})
set_tests_properties(postproc_optimization_errors PROPERTIES FIXTURES_REQUIRED fg_optim_shape1 LABELS postproc TIMEOUT 60)

# control: the gradient line equals the sum of gradient_time.csv's basis columns (= flowgrad's
# NAME(t) column for jets); per design value gradient.csv = the sum over the steps + the control
# cost's weight*T*theta; the control line passes through the design values (constant without a
# time basis: the fg_post_adjoint data).
add_test(NAME postproc_control_basis COMMAND ${FG_PLOTS_TEST} control ${FG_POST_DATA}/plots_control)
set_tests_properties(postproc_control_basis PROPERTIES FIXTURES_REQUIRED fg_post_plots_control LABELS postproc TIMEOUT 60)
add_test(NAME postproc_control_constant COMMAND ${FG_PLOTS_TEST} control ${FG_POST_DATA}/adjoint)
set_tests_properties(postproc_control_constant PROPERTIES FIXTURES_REQUIRED fg_post_adjoint LABELS postproc TIMEOUT 60)
add_test(NAME postproc_control_errors COMMAND ${FG_PLOTS_TEST} errors control ${_fg_plots_shape})
set_tests_properties(postproc_control_errors PROPERTIES FIXTURES_REQUIRED fg_optim_shape1 LABELS postproc TIMEOUT 60)

# campaign: the plotted points equal summary.csv; a missing summary.csv is regenerated (in a copy).
add_test(NAME postproc_campaign_sweep COMMAND ${FG_PLOTS_TEST} campaign ${_fg_plots_campaign})
set_tests_properties(postproc_campaign_sweep PROPERTIES FIXTURES_REQUIRED fg_post_campaign LABELS postproc TIMEOUT 60)
add_test(NAME postproc_campaign_errors COMMAND ${FG_PLOTS_TEST} errors campaign ${_fg_plots_campaign})
set_tests_properties(postproc_campaign_errors PROPERTIES FIXTURES_REQUIRED fg_post_campaign LABELS postproc TIMEOUT 60)
