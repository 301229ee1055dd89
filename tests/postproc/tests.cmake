# postproc/ (the `postproc` command, postproc/fgpost/): each subcommand on the outputs of small
# cases; the pictures are checked (PNG size, not blank) and the numbers they show are compared
# with the files they come from. Data (fixtures):
#   build/tests/body_cylinder_re100/            a shedding cylinder (tests/body; fixture body_cylinder_re100)
#   build/tests/optim_shape_np1/                a shape optimization (tests/optim; fixture fg_optim_shape1)
#   build/tests/postproc_data/adjoint/          flowgrad adjoint of tests/adjoint/cylinder.yaml (fg_post_adjoint)
#   build/tests/postproc_data/campaign/...      a 3-point local campaign (fg_post_campaign)
#
#   ctest -L postproc --output-on-failure
set(FG_POST_DIR ${FG_TEST_DIR}/postproc)
set(FG_POST_DATA ${CMAKE_CURRENT_BINARY_DIR}/postproc_data)
set(FG_POSTPROC ${FG_PYTHON} ${PROJECT_SOURCE_DIR}/postproc/postproc)

add_test(NAME postproc_setup_adjoint
         COMMAND $<TARGET_FILE:flowgrad> adjoint ${FG_TEST_DIR}/adjoint/cylinder.yaml --set output.dir=${FG_POST_DATA}/adjoint)
set_tests_properties(postproc_setup_adjoint PROPERTIES FIXTURES_SETUP fg_post_adjoint TIMEOUT 120 LABELS postproc)
add_test(NAME postproc_setup_campaign
         COMMAND ${CMAKE_COMMAND} -E env FLOWGRAD=$<TARGET_FILE:flowgrad> FG_PYTHON=${FG_PYTHON}
                 ${FG_PYTHON} ${PROJECT_SOURCE_DIR}/jobs/campaign ${PROJECT_SOURCE_DIR}/cases/cavity/cavity.yaml
                 --sweep flow.re=100,200,400 --set time.steps=20 --set grid.cells=[32,32] --local --name post
                 --runs ${FG_POST_DATA}/campaign)
set_tests_properties(postproc_setup_campaign PROPERTIES FIXTURES_SETUP fg_post_campaign TIMEOUT 120 LABELS postproc)

# --format png,svg,pdf: all three, each a well-formed file of its kind
add_test(NAME postproc_formats COMMAND ${FG_PYTHON} ${FG_POST_DIR}/test_formats.py ${PROJECT_SOURCE_DIR}/postproc/postproc
         ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re100 ${FG_POST_DATA}/formats)
set_tests_properties(postproc_formats PROPERTIES FIXTURES_REQUIRED body_cylinder_re100 TIMEOUT 120 LABELS postproc)

# damaged and odd input: exit 2, one message, no traceback, no temporary file
add_test(NAME postproc_bad_input COMMAND ${FG_PYTHON} ${FG_POST_DIR}/test_bad_input.py ${PROJECT_SOURCE_DIR}/postproc/postproc
         ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re100 ${FG_POST_DATA}/bad_input)
set_tests_properties(postproc_bad_input PROPERTIES FIXTURES_REQUIRED body_cylinder_re100 TIMEOUT 120 LABELS postproc)

# compare_optima.py (two optimize runs at the same design? issue 21's h against h/2) on synthetic runs
add_test(NAME postproc_compare_optima COMMAND ${FG_PYTHON} ${FG_POST_DIR}/test_compare_optima.py ${PROJECT_SOURCE_DIR}/postproc/compare_optima.py)
set_tests_properties(postproc_compare_optima PROPERTIES TIMEOUT 60 LABELS postproc)

foreach(part fields plots report)
  if(EXISTS ${FG_POST_DIR}/${part}.cmake)
    include(${FG_POST_DIR}/${part}.cmake)
  endif()
endforeach()
