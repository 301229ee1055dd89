# postproc report: the HTML page of each kind of directory (key numbers from the files, valid
# self-contained HTML5, the <img> files exist), bad input (exit 2), a failing plotting subcommand
# (a visible note, the page still written), and the optimization page in headless Chromium
# (skipped, exit 77, where Chromium is not installed). Included from tests/postproc/tests.cmake.
set(FG_REPORT_TEST ${FG_PYTHON} ${FG_POST_DIR}/test_report.py ${PROJECT_SOURCE_DIR}/postproc/postproc)

add_test(NAME postproc_report_optimization
         COMMAND ${FG_REPORT_TEST} optimization ${CMAKE_CURRENT_BINARY_DIR}/optim_shape_np1)
set_tests_properties(postproc_report_optimization PROPERTIES FIXTURES_REQUIRED fg_optim_shape1)
add_test(NAME postproc_report_adjoint COMMAND ${FG_REPORT_TEST} adjoint ${FG_POST_DATA}/adjoint)
set_tests_properties(postproc_report_adjoint PROPERTIES FIXTURES_REQUIRED fg_post_adjoint)
add_test(NAME postproc_report_run COMMAND ${FG_REPORT_TEST} run ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re100)
set_tests_properties(postproc_report_run PROPERTIES FIXTURES_REQUIRED body_cylinder_re100)
add_test(NAME postproc_report_campaign COMMAND ${FG_REPORT_TEST} campaign ${FG_POST_DATA}/campaign/cavity/post)
set_tests_properties(postproc_report_campaign PROPERTIES FIXTURES_REQUIRED fg_post_campaign)
add_test(NAME postproc_report_bad COMMAND ${FG_REPORT_TEST} bad)
add_test(NAME postproc_report_failing COMMAND ${FG_REPORT_TEST} failing ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re100)
set_tests_properties(postproc_report_failing PROPERTIES FIXTURES_REQUIRED body_cylinder_re100)
add_test(NAME postproc_report_chromium
         COMMAND ${FG_PYTHON} ${FG_POST_DIR}/test_report_chromium.py ${PROJECT_SOURCE_DIR}/postproc/postproc
                 ${CMAKE_CURRENT_BINARY_DIR}/optim_shape_np1)
set_tests_properties(postproc_report_chromium PROPERTIES FIXTURES_REQUIRED fg_optim_shape1
                     SKIP_RETURN_CODE 77 TIMEOUT 300)
set_tests_properties(postproc_report_optimization postproc_report_adjoint postproc_report_run
                     postproc_report_campaign postproc_report_bad postproc_report_failing
                     postproc_report_chromium PROPERTIES LABELS postproc)
set_tests_properties(postproc_report_optimization postproc_report_adjoint postproc_report_run
                     postproc_report_campaign postproc_report_bad postproc_report_failing
                     PROPERTIES TIMEOUT 120)
