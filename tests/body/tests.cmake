# Parameterized shapes (src/body/shape.c, shape_geometry.c): derivatives vs finite differences, zero contours,
# geometric functionals, bad input.
fg_add_test_exe(NAME test_shape SOURCES ${FG_TEST_DIR}/body/test_shape.c)
fg_add_mpi_test(NAME body_shape NP 1 COMMAND test_shape LABELS body TIMEOUT 120)
# The soft skin's calibration against an independent implementation of its model (test_skin.c).
fg_add_test_exe(NAME test_skin SOURCES ${FG_TEST_DIR}/body/test_skin.c)
fg_add_mpi_test(NAME body_skin NP 1 COMMAND test_skin LABELS body TIMEOUT 60)

# The bodies' box from the case's keys (grid.stretch.<axis> type bodies) holds each shape's box.
fg_add_test_exe(NAME test_body_box SOURCES ${FG_TEST_DIR}/body/test_body_box.c)
fg_add_mpi_test(NAME body_box NP 1 COMMAND test_body_box ${FG_TEST_DIR}/case/bodies.yaml ${FG_TEST_DIR}/case/bodies3d.yaml LABELS body TIMEOUT 60)

# Density-field bodies (src/body/density.c): chi = P(F rho) at cells and faces; Jacobian-transpose
# products vs central FD (1e-6), filter symmetry/conservation/variance, np ranks = 1 rank (1e-13),
# FGDensityRead() of good and bad files (FG_ERR_INPUT with the `where` prefix). Files are written
# to <build>/tests as density_np<n>_*.h5.
fg_add_test_exe(NAME test_density SOURCES ${FG_TEST_DIR}/body/test_density.c)
fg_add_mpi_test(NAME body_density NP 1 3 COMMAND test_density LABELS body TIMEOUT 120)

# Body forces on 1 rank and on np ranks (penalty force, moment, control-volume force after every
# step, and the fields at the end) agree to 1e-12: a rotating cylinder with jets and an actuator,
# a heaving NACA 2412 next to an ellipse, a 3D sphere.
fg_add_test_exe(NAME test_body_ranks SOURCES ${FG_TEST_DIR}/body/test_body_ranks.c)
fg_add_mpi_test(NAME body_ranks NP 2 4 COMMAND test_body_ranks -fg_fftw_planner estimate LABELS body TIMEOUT 300)

# Bad body input: exit 2 with the file:line of the body entry and what is wrong (1 and 2 ranks).
set(_fg_body_bad ${FG_TEST_DIR}/body/bad)
add_test(NAME body_bad_density_file_setup
         COMMAND ${FG_PYTHON} -c "import h5py, numpy; h5py.File('density_32x16.h5', 'w').create_dataset('rho', data=numpy.full((16, 32), 0.5))"
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(body_bad_density_file_setup PROPERTIES FIXTURES_SETUP fg_body_density_file LABELS body)
fg_case_expect(NAME body_outside NP "1;2" CODE 2 ARGS run ${_fg_body_bad}/outside.yaml
               REGEX [=[outside\.yaml:8: body\.cyl: the body spans x in \[7\.26875, 8\.33125\] with its mask band, not inside the domain \[0\.?, 8\.?\]]=])
fg_case_expect(NAME body_bspline_crossing NP "1;2" CODE 2 ARGS run ${_fg_body_bad}/bspline_crossing.yaml
               REGEX [=[bspline_crossing\.yaml:8: body\.blob: shape 'blob' \(bspline\): the closed B-spline curve intersects itself]=])
fg_case_expect(NAME body_naca_range NP "1;2" CODE 2 ARGS run ${_fg_body_bad}/naca_range.yaml
               REGEX [=[naca_range\.yaml:10: body\.wing\.naca: "0050": the thickness TT = 50 % of the chord must be in 01\.\.40]=])
fg_case_expect(NAME body_density_size NP "1;2" CODE 2 ARGS run ${_fg_body_bad}/density_size.yaml
               REGEX [=[density_size\.yaml:9: body\.topo: density file density_32x16\.h5: dataset /rho has shape \(16, 32\), but the grid needs \(ny, nx\) = \(32, 64\)]=])
foreach(np 1 2)
  set_tests_properties(case_body_density_size_np${np} PROPERTIES FIXTURES_REQUIRED fg_body_density_file)
endforeach()

# Reduced cylinder validations (the full ones: tests/body/validate_cylinder.py, README): the case
# files on coarse grids, 2 ranks, with bands for those grids (measured: Re 40, h = D/8: Cd 1.525,
# L/D 1.79, control volume vs penalty 1.4e-3; Re 100, h = D/12: St 0.169, mean Cd 1.398, cv 1.7e-3):
#   Re = 40, t = 40: steady (Cd drift <= 1 % over t >= 30), Cd in [1.45, 1.62], L/D in [1.5, 2.5],
#                    control-volume drag = penalty drag to 0.5 %                        (~15 s)
#   Re = 100, t = 100: shedding (St over t >= 60 in [0.155, 0.18]), mean Cd in [1.25, 1.5],
#                    control-volume drag = penalty drag to 1 % (means)                  (~1 min)
#                    (the Cl amplitude is 0.347 at t = 60-70 and 0.349 from t = 70 to 150,
#                    St 0.166-0.169, mean Cd 1.396-1.399: t = 150 measured nothing more)
set(_fg_body_dir ${FG_TEST_DIR}/body)
set(_fg_body_re40 ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re40)
fg_add_mpi_test(NAME body_cylinder_re40_run NP 2
                COMMAND flowgrad run ${PROJECT_SOURCE_DIR}/cases/cylinder_re40/cylinder_re40.yaml
                        --set grid.cells=[256,320] --set time.dt=0.04 --set time.steps=1000
                        --set output.monitor_every=250 --set output.dir=${_fg_body_re40}
                LABELS body TIMEOUT 300 FIXTURES_SETUP body_cylinder_re40)
add_test(NAME body_cylinder_re40_check
         COMMAND ${FG_PYTHON} ${_fg_body_dir}/check_cylinder.py ${_fg_body_re40} --from 30 --steady 1e-2
                 --cd 1.45 1.62 --ld 1.5 2.5 --cv 0.005)
set_tests_properties(body_cylinder_re40_check PROPERTIES FIXTURES_REQUIRED body_cylinder_re40 LABELS body TIMEOUT 60)
# The same Re 40 flow on a grid stretched in y: h = D/8 in a band [18, 22] around the cylinder,
# growing by at most 8 % per cell to h = D at the slip walls (100 cells in y instead of 320; FFTW
# in x, Thomas in y). The same bands, and Cd and L/D within 0.1 % of the uniform run's (measured:
# Cd 1.52538 vs 1.52526, L/D 1.78675 vs 1.78689, 8e-5 both; 3.3 s against 9.4 s on 2 ranks).
set(_fg_body_re40s ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re40_stretched)
fg_add_mpi_test(NAME body_cylinder_re40_stretched_run NP 2
                COMMAND flowgrad run ${PROJECT_SOURCE_DIR}/cases/cylinder_re40/cylinder_re40.yaml
                        --set grid.cells=[256,0] --set grid.stretch.y.type=band --set grid.stretch.y.band=[18,22]
                        --set grid.stretch.y.h_min=0.125 --set grid.stretch.y.h_max=1 --set grid.stretch.y.growth=1.08
                        --set time.dt=0.04 --set time.steps=1000
                        --set output.monitor_every=250 --set output.dir=${_fg_body_re40s}
                LABELS body TIMEOUT 300 FIXTURES_SETUP body_cylinder_re40_stretched)
add_test(NAME body_cylinder_re40_stretched_check
         COMMAND ${FG_PYTHON} ${_fg_body_dir}/check_cylinder.py ${_fg_body_re40s} --from 30 --steady 1e-2
                 --cd 1.45 1.62 --ld 1.5 2.5 --cv 0.005 --like ${_fg_body_re40} 0.001)
set_tests_properties(body_cylinder_re40_stretched_check PROPERTIES FIXTURES_REQUIRED "body_cylinder_re40;body_cylinder_re40_stretched" LABELS body TIMEOUT 60)
# The same flow with the implicit viscous term (time.viscous: implicit) at dt 0.0625 (CFL ~1.2):
# the steady state is the explicit run's (Cd and L/D to 1e-4; measured 2e-6 and 0): the
# penalization acts on the predictor with the whole explicit viscous term and the implicit solve
# on the increment, so the fixed point does not depend on dt (with the solve before the
# penalization Cd moved by -0.37 % at dt 0.04 and -0.19 % at 0.02, measured).
set(_fg_body_re40i ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re40_implicit)
fg_add_mpi_test(NAME body_cylinder_re40_implicit_run NP 2
                COMMAND flowgrad run ${PROJECT_SOURCE_DIR}/cases/cylinder_re40/cylinder_re40.yaml
                        --set grid.cells=[256,320] --set time.dt=0.0625 --set time.steps=640 --set time.viscous=implicit
                        --set output.monitor_every=320 --set output.dir=${_fg_body_re40i}
                LABELS body TIMEOUT 300 FIXTURES_SETUP body_cylinder_re40_implicit)
add_test(NAME body_cylinder_re40_implicit_check
         COMMAND ${FG_PYTHON} ${_fg_body_dir}/check_cylinder.py ${_fg_body_re40i} --from 30 --steady 1e-2
                 --cd 1.45 1.62 --ld 1.5 2.5 --cv 0.005 --like ${_fg_body_re40} 1e-4)
set_tests_properties(body_cylinder_re40_implicit_check PROPERTIES FIXTURES_REQUIRED "body_cylinder_re40;body_cylinder_re40_implicit" LABELS body TIMEOUT 60)
set(_fg_body_re100 ${CMAKE_CURRENT_BINARY_DIR}/body_cylinder_re100)
fg_add_mpi_test(NAME body_cylinder_re100_run NP 2
                COMMAND flowgrad run ${PROJECT_SOURCE_DIR}/cases/cylinder_re100/cylinder_re100.yaml
                        --set grid.cells=[384,480] --set time.dt=0.025 --set time.steps=4000
                        --set output.monitor_every=1000 --set output.dir=${_fg_body_re100}
                LABELS body TIMEOUT 900 FIXTURES_SETUP body_cylinder_re100)
add_test(NAME body_cylinder_re100_check
         COMMAND ${FG_PYTHON} ${_fg_body_dir}/check_cylinder.py ${_fg_body_re100} --from 60
                 --st 0.155 0.18 --cdmean 1.25 1.5 --cv 0.01)
set_tests_properties(body_cylinder_re100_check PROPERTIES FIXTURES_REQUIRED body_cylinder_re100 LABELS body TIMEOUT 60)
# The soft skin's keys (issue 21): info warns when the band is too narrow for the layer (the 1D
# model's ripple above 0.01 cells); mask_offset is refused with a skin, skin_offset without one,
# and a skin_offset that is neither auto nor a depth in [-3, 3] cells (exit 2, naming the key).
set(_fg_skin_case ${FG_TEST_DIR}/adjoint/steady_confined.yaml --set body.cyl.mask_profile=bspline)
fg_case_expect(NAME body_skin_narrow_warns NP 1 CODE 0 REGEX "cyl: warning: the soft skin leaves a ripple of 0.078 cells"
               ARGS info ${_fg_skin_case} --set body.cyl.skin_layer=0.75)
# info prints the skin's error scale Re_h h/L (measured: 2D-1's drag error 0.72-0.77 times it on
# D/20, D/40, D/80; docs/bodies.md): Schaefer-Turek 2D-1 at D/20, u_ref 0.2, nu 1e-3: Re_h 1, 5 %.
fg_case_expect(NAME body_skin_error_scale NP 1 CODE 0 REGEX "cyl: soft skin: cell Reynolds number Re_h = ref_speed h/nu = 1: the skin's error in the forces scales as Re_h h/ref_length = 5 %"
               ARGS info ${FG_TEST_DIR}/validation/schafer_turek_re20.yaml)
# A body thin against the skin's layers (NACA 0012 at c/32: 3.8 cells thick, the core 4 cells deep)
# is warned about: its stiff core covers 0 % of it (the lift of such a run fell 200-fold).
fg_case_expect(NAME body_skin_thin_warns NP 1 CODE 0 REGEX "wing: warning: the body is thin against the soft skin's layers: its stiff core covers 0 % of it"
               ARGS info ${PROJECT_SOURCE_DIR}/cases/naca0012/naca0012.yaml --set grid.cells=[512,384] --set body.wing.mask_profile=bspline
                    --set body.wing.skin_layer=0.75 --set body.wing.mask_width=4.5)
fg_case_expect(NAME body_skin_mask_offset NP 1 CODE 2 REGEX "--set body.cyl.mask_offset=0.5: mask_offset does not apply with a soft skin"
               ARGS info ${_fg_skin_case} --set body.cyl.skin_layer=0.75 --set body.cyl.mask_offset=0.5)
fg_case_expect(NAME body_skin_offset_no_skin NP 1 CODE 2 REGEX "--set body.cyl.skin_offset=0.5: skin_offset applies with a soft skin only"
               ARGS info ${_fg_skin_case} --set body.cyl.skin_offset=0.5)
fg_case_expect(NAME body_skin_offset_bad NP 1 CODE 2 REGEX "--set body.cyl.skin_offset=9: '9': expected auto or a depth in cells in \\[-3, 3\\]"
               ARGS info ${_fg_skin_case} --set body.cyl.skin_layer=1 --set body.cyl.skin_offset=9)
# The skin's normal penalization (skin_normal; src/body/normal.c) applies with a soft skin to bodies
# whose surface does not move (no translation, no jets; a circle or a sphere may rotate): a turning
# NACA body, the rotation rate of a non-round one as a design parameter, a cylinder with jets, no
# skin, a value in (0, 1) (stiffer than the core) and a depth out of [0, 4] cells each exit 2 naming
# the body or the key.
fg_case_expect(NAME body_skin_normal_turning NP 1 CODE 2 REGEX "naca0012.yaml:[0-9]+: body.wing: skin_normal applies to a rotating body only if it is a circle or a sphere"
               ARGS info ${PROJECT_SOURCE_DIR}/cases/naca0012/naca0012.yaml --set body.wing.mask_profile=bspline
                    --set body.wing.skin_layer=0.75 --set body.wing.skin_normal=10 --set body.wing.rotation_rate=0.5)
fg_case_expect(NAME body_skin_normal_turning_design NP 1 CODE 2 REGEX "'body.oval.rotation_rate': not differentiable for body 'oval' \\(shape ellipse, skin_normal: a rotation moves its surface\\)"
               ARGS info ${FG_TEST_DIR}/adjoint/shapes_normal.yaml "--set" "design.parameters=[body.oval.rotation_rate]")
fg_case_expect(NAME body_skin_normal_jets NP 1 CODE 2 REGEX "cylinder.yaml:[0-9]+: body.cyl: skin_normal applies to bodies that do not translate and have no jets"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder.yaml --set body.cyl.skin_layer=0.75 --set body.cyl.skin_normal=10)
fg_case_expect(NAME body_skin_normal_no_skin NP 1 CODE 2 REGEX "--set body.cyl.skin_normal=10: skin_normal applies with a soft skin only"
               ARGS info ${_fg_skin_case} --set body.cyl.skin_normal=10)
fg_case_expect(NAME body_skin_normal_small NP 1 CODE 2 REGEX "steady_confined.yaml:[0-9]+: body.cyl: skin_normal 0.5: expected 0 \\(none\\) or >= 1"
               ARGS info ${_fg_skin_case} --set body.cyl.skin_layer=0.75 --set body.cyl.skin_normal=0.5)
fg_case_expect(NAME body_skin_normal_depth_bad NP 1 CODE 2 REGEX "--set body.cyl.skin_normal_depth=5: 5 is out of range \\(must be in \\[0, 4\\]\\)"
               ARGS info ${_fg_skin_case} --set body.cyl.skin_layer=0.75 --set body.cyl.skin_normal_depth=5)
# flowgrad info says the normal band is on, with eta_n and its depth.
fg_case_expect(NAME body_skin_normal_info NP 1 CODE 0 REGEX "cyl: soft skin: the normal velocity penalized too, with eta_n = 0.1 \\(skin_normal 10\\.?\\) over a band 2\\.? cells below"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_normal.yaml)
# A sharp wall (wall: sharp; src/body/mask.c) has no band: the band's keys do not apply; it needs a
# surface that does not move (a translating cylinder, a turning NACA body and the rotation rate of a
# non-round one as a design parameter exit 2), and its penalty holds the case's nu (flow.nu is not a
# design parameter with it). flowgrad info names it.
fg_case_expect(NAME body_sharp_band_key NP 1 CODE 2 REGEX "--set body.cyl.mask_width=4: mask_width does not apply with a sharp wall"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set body.cyl.mask_width=4)
fg_case_expect(NAME body_sharp_moving NP 1 CODE 2 REGEX "cylinder_sharp.yaml:[0-9]+: body.cyl: wall: sharp applies to bodies whose surface does not move"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml "--set" "body.cyl.velocity=[0.1, 0]")
fg_case_expect(NAME body_sharp_turning NP 1 CODE 2 REGEX "naca0012.yaml:[0-9]+: body.wing: wall: sharp applies to bodies whose surface does not move"
               ARGS info ${PROJECT_SOURCE_DIR}/cases/naca0012/naca0012.yaml --set body.wing.wall=sharp --set body.wing.rotation_rate=0.5)
fg_case_expect(NAME body_sharp_turning_design NP 1 CODE 2 REGEX "'body.oval.rotation_rate': not differentiable for body 'oval' \\(shape ellipse, a sharp wall: a rotation moves its surface\\)"
               ARGS info ${FG_TEST_DIR}/adjoint/shapes_sharp.yaml "--set" "design.parameters=[body.oval.rotation_rate]")
fg_case_expect(NAME body_sharp_nu_design NP 1 CODE 2 REGEX "design.parameters=\\[flow.nu\\]: flow.nu is not a design parameter with a sharp wall \\(body.cyl.wall: sharp"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml "--set" "design.parameters=[flow.nu]")
fg_case_expect(NAME body_sharp_info NP 1 CODE 0 REGEX "cyl: circle, sharp wall \\(the faces inside penalized with eta = 0.01"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml)
# Its cut-cell continuity (apertures) weights the Poisson operator face by face: the KSP solver only;
# it applies to a sharp wall only; info says it is on.
fg_case_expect(NAME body_apertures_fftw NP 1 CODE 2 REGEX "--set body.cyl.apertures=true: true needs poisson.type: ksp"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set body.cyl.apertures=true)
fg_case_expect(NAME body_apertures_band NP 1 CODE 2 REGEX "apertures applies with a sharp wall only \\(body.cyl.wall: sharp\\)"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder.yaml --set body.cyl.apertures=true --set poisson.type=ksp)
fg_case_expect(NAME body_apertures_info NP 1 CODE 0 REGEX "cyl: circle, sharp wall with apertures \\(the cut-cell continuity"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set body.cyl.apertures=true --set poisson.type=ksp)
# The line-flux continuity (line_flux; src/body/lineflux.c) replaces the apertures in the
# projection: it needs them (its grazing lines blend into them), every body with apertures has it,
# 2D, a body at rest whose rotation and jets are not designed either; info says it is on.
fg_case_expect(NAME body_lineflux_no_apertures NP 1 CODE 2 REGEX "--set body.cyl.line_flux=true: true needs body.cyl.apertures: true"
               ARGS info ${FG_TEST_DIR}/validation/schafer_turek_re20_sharp.yaml --set body.cyl.line_flux=true --set poisson.type=ksp)
fg_case_expect(NAME body_lineflux_rotating NP 1 CODE 2 REGEX "--set body.cyl.line_flux=true: true needs a body at rest"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set body.cyl.apertures=true --set body.cyl.line_flux=true --set poisson.type=ksp)
fg_case_expect(NAME body_lineflux_design NP 1 CODE 2 REGEX "design.parameters=\\[body.oval.rotation_rate\\]: body.oval.rotation_rate: body.oval.line_flux needs a body at rest; design its shape only"
               ARGS info ${FG_TEST_DIR}/adjoint/shapes_sharp.yaml --set body.oval.apertures=true --set body.blob.apertures=true --set body.oval.line_flux=true --set body.blob.line_flux=true --set poisson.type=ksp
                    "--set" "design.parameters=[body.oval.rotation_rate]")
fg_case_expect(NAME body_lineflux_3d NP 1 CODE 2 REGEX "--set body.s.line_flux=true: true is 2D only"
               ARGS info ${FG_TEST_DIR}/adjoint/sphere_sharp.yaml --set body.s.apertures=true --set body.s.line_flux=true --set poisson.type=ksp)
fg_case_expect(NAME body_lineflux_mixed NP 1 CODE 2 REGEX "--set body.oval.line_flux=true: true with body.blob.apertures: true but not its line_flux"
               ARGS info ${FG_TEST_DIR}/adjoint/shapes_sharp.yaml --set body.oval.apertures=true --set body.blob.apertures=true --set body.oval.line_flux=true --set poisson.type=ksp "--set" "design.parameters=[flow.inflow_speed]")
fg_case_expect(NAME body_lineflux_info NP 1 CODE 0 REGEX "cyl: circle, sharp wall with the line-flux continuity \\(the cut-cell continuity"
               ARGS info ${FG_TEST_DIR}/validation/schafer_turek_re20_sharp.yaml --set body.cyl.apertures=true --set body.cyl.line_flux=true --set poisson.type=ksp "--set" "design.parameters=[flow.inflow_speed]")
# The shared ghost (shared_ghost; src/body/ghost.c) goes with the lines (and so with their
# restrictions) and replaces the quadratic ghosts; info names it.
fg_case_expect(NAME body_shared_no_lines NP 1 CODE 2 REGEX "--set body.cyl.shared_ghost=true: true needs body.cyl.line_flux: true"
               ARGS info ${FG_TEST_DIR}/validation/schafer_turek_re20_sharp.yaml --set body.cyl.apertures=true --set body.cyl.shared_ghost=true --set poisson.type=ksp)
fg_case_expect(NAME body_shared_quadratic NP 1 CODE 2 REGEX "--set body.cyl.shared_ghost=true: true replaces body.cyl.quadratic_ghost: set one of them"
               ARGS info ${FG_TEST_DIR}/validation/schafer_turek_re20_sharp.yaml --set body.cyl.apertures=true --set body.cyl.line_flux=true --set body.cyl.shared_ghost=true
                    --set body.cyl.quadratic_ghost=true --set poisson.type=ksp "--set" "design.parameters=[flow.inflow_speed]")
fg_case_expect(NAME body_shared_info NP 1 CODE 0 REGEX "the faces outside next to them by the shared \\(one quadratic profile per inside node"
               ARGS info ${FG_TEST_DIR}/validation/schafer_turek_re20_sharp.yaml --set body.cyl.apertures=true --set body.cyl.line_flux=true --set body.cyl.shared_ghost=true
                    --set poisson.type=ksp "--set" "design.parameters=[flow.inflow_speed]")
# ... and a body too close to the domain's boundary for the lines (a face's line would read faces
# outside) or for the shared ghost (its profiles would): exit 2 naming the case file's line and the body.
fg_case_expect(NAME body_lineflux_edge NP 1 CODE 2 REGEX "cylinder_sharp.yaml:15: body.cyl: line_flux: the body lies within 2 cells of the domain's boundary"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set body.cyl.apertures=true --set body.cyl.line_flux=true --set body.cyl.rotation_rate=0
                    "--set" "body.cyl.position=[0.7, 4.05]" --set poisson.type=ksp "--set" "design.parameters=[flow.inflow_speed]")
fg_case_expect(NAME body_shared_edge NP 1 CODE 2 REGEX "cylinder_sharp.yaml:15: body.cyl: shared_ghost: the body lies within 4 cells of the domain's boundary"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set body.cyl.apertures=true --set body.cyl.line_flux=true --set body.cyl.shared_ghost=true
                    --set body.cyl.rotation_rate=0 "--set" "body.cyl.position=[0.8, 4.05]" --set poisson.type=ksp "--set" "design.parameters=[flow.inflow_speed]")
# ... and a body with a waist 1.7 cells thick (an optimizer's trial design of
# cases/shape_drag/shape_drag_sharp.yaml: r0 at its lower bound, a2 at its upper): the axis a
# profile is left with runs nearly along the wall, and its coefficients (2-norm 2030) made an
# explicit term 10^3 times the viscous stencil's weight, CFL 440 after the first step (measured).
# The profiles' fade and cap keep it bounded: 40 steps run.
fg_case_expect(NAME body_shared_waist NP 1 CODE 0 REGEX "^flowgrad run: 40 steps in"
               ARGS run ${PROJECT_SOURCE_DIR}/cases/shape_drag/shape_drag_sharp.yaml --set output.dir=body_shared_waist
                    --set body.cyl.radius=0.3 "--set" "body.cyl.fourier_cos=[0, 0.2, -0.0184, -0.046]" --set time.steps=40
                    -fg_fftw_planner estimate)
# quadratic ghosts: a sharp wall's key (refused with the band), named by info
fg_case_expect(NAME body_quadratic_band NP 1 CODE 2 REGEX "quadratic_ghost applies with a sharp wall only \\(body.cyl.wall: sharp\\)"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder.yaml --set body.cyl.quadratic_ghost=true)
fg_case_expect(NAME body_quadratic_info NP 1 CODE 0 REGEX "the faces outside next to them by the quadratic \\(through the next face out\\) extrapolation"
               ARGS info ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set body.cyl.quadratic_ghost=true)
# A sharp-walled body thinner than a cell somewhere (a NACA 0012's trailing edge at c/32, 5 degrees)
# has gaps in its wall: info, run and optimize warn, with the count and the box of the faces (the same on 2
# ranks: the count is reduced); a convex body whose edge a pair of faces merely clips has none
# (the cylinder above, the sphere).
fg_case_expect(NAME body_sharp_gaps NP "1;2" CODE 0 REGEX "wing: warning: the sharp wall has gaps: 5 pairs of neighbouring faces lie outside the body with the body between them \\(x in \\[2.891, 2.984\\], y in \\[1.891, 1.906\\]\\), where it is thinner than a cell"
               ARGS info ${FG_TEST_DIR}/validation/naca_aoa.yaml --set body.wing.wall=sharp)
fg_case_expect(NAME body_sharp_gaps_run NP 1 CODE 0 REGEX "wing: warning: the sharp wall has gaps: 5 pairs"
               ARGS run ${FG_TEST_DIR}/validation/naca_aoa.yaml --set body.wing.wall=sharp --set time.steps=1 --set output.dir=body_sharp_gaps_run)
fg_case_expect(NAME body_sharp_gaps_optimize NP 1 CODE 0 REGEX "wing: warning: the sharp wall has gaps: 3 pairs"
               ARGS optimize ${FG_TEST_DIR}/validation/naca_aoa.yaml --set body.wing.wall=sharp "--set" "grid.cells=[128, 64]" --set time.steps=2
                    --set optimizer.max_iterations=0 --set output.dir=body_sharp_gaps_optimize)
fg_case_expect(NAME body_sharp_info_sphere NP 1 CODE 0 REGEX "s: sphere, sharp wall"
               ARGS info ${FG_TEST_DIR}/adjoint/sphere_sharp.yaml)
set_tests_properties(case_body_sharp_info_np1 case_body_sharp_info_sphere_np1 PROPERTIES FAIL_REGULAR_EXPRESSION "has gaps|turns faster")
# A sharp wall that turns within 2 cells of radius (FGBodiesGetSharpestTurn) is warned about, with
# the radius in cells and where (the same on 2 ranks): the confined ellipse's tips (b^2/a = 0.625
# cells, estimated 0.76 from the faces within half a cell), turned 20 to 22 degrees 0.21 % off a
# smooth fit; the same ellipse with 3.3 cells at its tips (0.15 x 0.05 on 400 x 100), 0.008 %, not.
fg_case_expect(NAME body_sharp_turn NP "1;2" CODE 0 REGEX "plate: warning: the sharp wall turns faster than the grid resolves: its smallest radius of curvature is 0\\.76 cells \\(near \\(1\\.18, 0\\.385\\)\\)"
               ARGS info ${FG_TEST_DIR}/validation/confined_ellipse.yaml)
fg_case_expect(NAME body_sharp_turn_resolved NP 1 CODE 0 REGEX "plate: ellipse"
               ARGS info ${FG_TEST_DIR}/validation/confined_ellipse.yaml "--set" "grid.cells=[400, 100]" "--set" "body.plate.semi_axes=[0.15, 0.05]")
set_tests_properties(case_body_sharp_turn_resolved_np1 PROPERTIES FAIL_REGULAR_EXPRESSION "turns faster")
