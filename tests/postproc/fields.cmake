# postproc fields / sensitivity / extract (tests/postproc/test_fields.py), included from
# tests/postproc/tests.cmake. Data: the shedding cylinder (fixture body_cylinder_re100), the 2D
# adjoint (fg_post_adjoint), and a small 3D sphere run + its adjoint made here (fg_post_sphere):
#   build/tests/postproc_data/sphere/           flowgrad run, 32x24x24 over 4x3x3, 20 steps, fields every 10
#   build/tests/postproc_data/sphere_adjoint/   flowgrad adjoint of the same, 10 steps (gradient.h5)
set(FG_POST_SPHERE_ARGS ${PROJECT_SOURCE_DIR}/cases/sphere/sphere.yaml
    --set grid.cells=[32,24,24] --set grid.lengths=[4,3,3] --set body.ball.position=[1.5,1.5,1.5])
add_test(NAME postproc_setup_sphere
         COMMAND $<TARGET_FILE:flowgrad> run ${FG_POST_SPHERE_ARGS} --set time.steps=20
                 --set output.fields_every=10 --set output.dir=${FG_POST_DATA}/sphere)
add_test(NAME postproc_setup_sphere_adjoint
         COMMAND $<TARGET_FILE:flowgrad> adjoint ${FG_POST_SPHERE_ARGS} --set time.steps=10
                 --set output.dir=${FG_POST_DATA}/sphere_adjoint)
set_tests_properties(postproc_setup_sphere postproc_setup_sphere_adjoint
                     PROPERTIES FIXTURES_SETUP fg_post_sphere TIMEOUT 120 LABELS postproc)

set(_fg_pf ${FG_PYTHON} ${FG_POST_DIR}/test_fields.py)
set(_fg_pf_cyl ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re100)
add_test(NAME postproc_fields_pictures
         COMMAND ${_fg_pf} fields ${_fg_pf_cyl} ${FG_POST_DATA}/sphere ${CMAKE_CURRENT_BINARY_DIR}/postproc_fields_pictures)
add_test(NAME postproc_fields_vorticity
         COMMAND ${_fg_pf} vorticity ${_fg_pf_cyl} ${FG_POST_DATA}/sphere ${CMAKE_CURRENT_BINARY_DIR}/postproc_fields_vorticity)
add_test(NAME postproc_sensitivity_pictures
         COMMAND ${_fg_pf} sensitivity ${FG_POST_DATA}/adjoint ${FG_POST_DATA}/sphere_adjoint ${CMAKE_CURRENT_BINARY_DIR}/postproc_fields_sensitivity)
add_test(NAME postproc_extract_csv
         COMMAND ${_fg_pf} extract ${_fg_pf_cyl} ${FG_POST_DATA}/sphere ${CMAKE_CURRENT_BINARY_DIR}/postproc_fields_extract)
add_test(NAME postproc_fields_errors
         COMMAND ${_fg_pf} errors ${_fg_pf_cyl} ${FG_POST_DATA}/adjoint ${CMAKE_CURRENT_BINARY_DIR}/postproc_fields_errors)
set_tests_properties(postproc_fields_pictures postproc_fields_vorticity postproc_extract_csv
                     PROPERTIES FIXTURES_REQUIRED "body_cylinder_re100;fg_post_sphere" LABELS postproc TIMEOUT 60)
set_tests_properties(postproc_sensitivity_pictures
                     PROPERTIES FIXTURES_REQUIRED "fg_post_adjoint;fg_post_sphere" LABELS postproc TIMEOUT 60)
set_tests_properties(postproc_fields_errors
                     PROPERTIES FIXTURES_REQUIRED "body_cylinder_re100;fg_post_adjoint" LABELS postproc TIMEOUT 60)
# colour ranges (--vmin/--vmax, arrows where the data pass them, diverging maps about 0), zoom
# (--xlim/--ylim), axes wall to wall, --all with one range over every time (fields, sensitivity)
add_test(NAME postproc_fields_view
         COMMAND ${_fg_pf} view ${_fg_pf_cyl} ${FG_POST_DATA}/sphere ${CMAKE_CURRENT_BINARY_DIR}/postproc_fields_view)
set_tests_properties(postproc_fields_view
                     PROPERTIES FIXTURES_REQUIRED "body_cylinder_re100;fg_post_sphere;fg_post_adjoint" LABELS postproc TIMEOUT 120)
# sensitivity on an optimization's iteration files (the shape optimization fixture)
add_test(NAME postproc_sensitivity_iterations
         COMMAND ${_fg_pf} sensitivity_iterations ${CMAKE_CURRENT_BINARY_DIR}/optim_shape_np1 - ${CMAKE_CURRENT_BINARY_DIR}/postproc_fields_sensitivity_iterations)
set_tests_properties(postproc_sensitivity_iterations PROPERTIES FIXTURES_REQUIRED fg_optim_shape1 LABELS postproc TIMEOUT 60)
# The same tools on a grid stretched in y (the Re 40 cylinder of tests/body, stretched).
add_test(NAME postproc_fields_stretched
         COMMAND ${_fg_pf} stretched ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re40_stretched - ${CMAKE_CURRENT_BINARY_DIR}/postproc_fields_stretched)
set_tests_properties(postproc_fields_stretched PROPERTIES FIXTURES_REQUIRED body_cylinder_re40_stretched LABELS postproc TIMEOUT 60)
# The outline drawn is the design's surface phi = 0 (issue 21): a 2D run with a circle, an ellipse
# and a NACA 0012 made here, and the sphere fixture's planes; largest distance <= h/10 both ways.
add_test(NAME postproc_outline
         COMMAND ${FG_PYTHON} ${FG_POST_DIR}/test_outline.py $<TARGET_FILE:flowgrad> ${FG_POST_DATA}/sphere
                 ${CMAKE_CURRENT_BINARY_DIR}/postproc_outline)
set_tests_properties(postproc_outline PROPERTIES FIXTURES_REQUIRED fg_post_sphere LABELS postproc TIMEOUT 60)
