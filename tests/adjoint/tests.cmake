# Discrete adjoint (issue 5). Dot-product tests of every operator and of the whole step, and the
# tangent step against central differences of the forward step, in 2D and 3D, with bodies,
# jets, a moving mask and actuators, at 1 and 3 ranks (tests/adjoint/test_step_adjoint.c).
fg_add_test_exe(NAME test_step_adjoint SOURCES ${FG_TEST_DIR}/adjoint/test_step_adjoint.c)
fg_add_mpi_test(NAME adjoint_step NP 1 3 COMMAND test_step_adjoint -fg_fftw_planner estimate LABELS adjoint TIMEOUT 300)

# flowgrad check on the adjoint test cylinder (96x64, 200 steps, Re 100, rotating, two jets;
# mean drag and lift; 9 design scalars): dot-product tests at 1e-12, Taylor order >= 1.9, central
# differences at 1e-6 relative for every shape parameter, the rotation rate, both jet amplitudes,
# the viscosity and the inflow speed. At 1 and 3 ranks.
set(FG_ADJ_CYL ${FG_TEST_DIR}/adjoint/cylinder.yaml)
fg_case_expect(NAME adjoint_check_cylinder NP 1 3 CODE 0 REGEX "^flowgrad check: 20 checks, 0 failed"
               ARGS check ${FG_ADJ_CYL} --set output.dir=adjoint_check_cylinder -fg_fftw_planner estimate)
# ... with the soft skin (issue 21: the cubic B-spline profile, the band centred outside the surface
# where skin_offset auto puts it, eta_s from skin_layer, the stiff core): every derivative as exact, the viscosity's included
# (eta_s is frozen at the case's nu). At 1 and 2 ranks.
fg_case_expect(NAME adjoint_check_cylinder_skin NP 1 2 CODE 0 REGEX "^flowgrad check: 20 checks, 0 failed"
               ARGS check ${FG_ADJ_CYL} --set output.dir=adjoint_check_cylinder_skin -fg_fftw_planner estimate
                    --set body.cyl.mask_profile=bspline --set body.cyl.skin_layer=0.75 --set body.cyl.mask_width=4.5)
set_tests_properties(case_adjoint_check_cylinder_skin_np1 case_adjoint_check_cylinder_skin_np2 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint")
# ... with the skin's normal penalization (skin_normal; src/body/normal.c): the coupled implicit
# update, its forces and every derivative exact, at 1, 2 and 3 ranks (on 2 the band crosses the
# slabs' boundary at y = 4 and the sweeps exchange ghosts; on 3 it lies inside one slab and the
# ranks solve alone: -info says which). No jets: 18 checks.
fg_case_expect(NAME adjoint_check_cylinder_normal NP 1 2 3 CODE 0 REGEX "^flowgrad check: 18 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_normal.yaml --set output.dir=adjoint_check_cylinder_normal -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_check_cylinder_normal_np1 case_adjoint_check_cylinder_normal_np2 case_adjoint_check_cylinder_normal_np3 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... with a sharp wall (wall: sharp; src/body/mask.c): the penalty of the faces next to the surface
# depends on the level set at the face and at its neighbours inside; a rotating cylinder (17
# checks) at 1 and 2 ranks (on 2 the body crosses the slabs' boundary at y = 4), an ellipse and a B-spline (27) at 1 and 2, and a sphere in 3D at 2.
fg_case_expect(NAME adjoint_check_cylinder_sharp NP 1 2 CODE 0 REGEX "^flowgrad check: 17 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set output.dir=adjoint_check_cylinder_sharp -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_check_shapes_sharp NP 1 2 CODE 0 REGEX "^flowgrad check: 27 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/shapes_sharp.yaml --set output.dir=adjoint_check_shapes_sharp -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_check_sphere_sharp NP 2 CODE 0 REGEX "^flowgrad check: 18 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/sphere_sharp.yaml --set output.dir=adjoint_check_sphere_sharp -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_check_cylinder_sharp_np1 case_adjoint_check_cylinder_sharp_np2 case_adjoint_check_shapes_sharp_np1
                     case_adjoint_check_shapes_sharp_np2 case_adjoint_check_sphere_sharp_np2 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... with the cut-cell continuity (body.<body>.apertures, src/body/aperture.c): the projection's
# face weights and its Poisson operator depend on the level set at each face and at its neighbours
# across its span (poisson.type: ksp): the rotating cylinder at 2 ranks (the slabs' boundary crosses
# the body: the apertures' ghosts and their adjoint's sum; it passes at 1 too), the ellipse and the B-spline at 1
# (their central differences with a step of 1e-6 and the Poisson solve to 1e-12: with the default
# 3e-6 the ellipse's small dJ/dy0, 0.027, is off by 1.06e-6 relative, and by 4.6e-8 with 1e-6: the
# central difference's own error, 23x smaller for a 3x smaller step; measured).
# The 1-rank checks of the cut-cell continuities below solve their Poisson equation directly
# (FG_POISSON_DIRECT: KSP preonly, Cholesky; the operator is the same sparse matrix A0 + ..., only its
# solve differs): the checks compare the tangent's and the adjoint's solves and central differences of
# J, which an exact solve serves at least as well as CG to 1e-12, 3-10x faster here (the shapes with
# lines 47 s -> 17 s, the cylinder with lines 20 s -> 2 s; measured). The 2-rank checks keep CG + GAMG.
set(FG_POISSON_DIRECT -poisson_ksp_type preonly -poisson_pc_type cholesky)
fg_case_expect(NAME adjoint_check_cylinder_apertures NP 2 CODE 0 REGEX "^flowgrad check: 17 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set output.dir=adjoint_check_cylinder_apertures --set body.cyl.apertures=true --set poisson.type=ksp -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_check_shapes_apertures NP 1 CODE 0 REGEX "^flowgrad check: 27 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/shapes_sharp.yaml --set output.dir=adjoint_check_shapes_apertures --set body.oval.apertures=true --set body.blob.apertures=true --set poisson.type=ksp
                    --set poisson.rtol=1e-12 -fg_check_fd_step 1e-6 -fg_fftw_planner estimate ${FG_POISSON_DIRECT})
# ... and the sphere in 3D at 2 ranks (a face's aperture the product over its two tangential axes;
# the Poisson solve to 1e-12: the whole step's dot product compares the tangent's and the adjoint's
# iterative solves, 1.1e-10 apart at the default 1e-10, 3.8e-12 at 1e-12; measured).
fg_case_expect(NAME adjoint_check_sphere_apertures NP 2 CODE 0 REGEX "^flowgrad check: 18 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/sphere_sharp.yaml --set output.dir=adjoint_check_sphere_apertures --set body.s.apertures=true
                    --set poisson.type=ksp --set poisson.rtol=1e-12 -fg_fftw_planner estimate)
# ... and with the implicit viscous term, whose pressure update holds D (A u*) too (the tape keeps the
# projections' inputs): the rotating cylinder at 1 rank (18 checks).
fg_case_expect(NAME adjoint_check_cylinder_apertures_implicit NP 1 CODE 0 REGEX "^flowgrad check: 18 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set output.dir=adjoint_check_cylinder_apertures_implicit --set body.cyl.apertures=true
                    --set poisson.type=ksp --set time.viscous=implicit -fg_fftw_planner estimate ${FG_POISSON_DIRECT})
set_tests_properties(case_adjoint_check_cylinder_apertures_implicit_np1 case_adjoint_check_cylinder_apertures_np2 case_adjoint_check_shapes_apertures_np1 case_adjoint_check_sphere_apertures_np2
                     PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... with the line-flux continuity (body.<body>.line_flux, src/body/lineflux.c and
# src/solver/continuity.c: D W u = 0, the correction M^-1 W^T M G phi, its Poisson operator by
# sparse products; W's design derivative through the level set at each row's wall root, the four
# points of its differenced normal and its aperture's five): the cylinder at rest, its shape and the
# inflow speed designed, at 1 and 2 ranks (the slabs' boundary at y = 4 crosses the body, so a
# face's line reads the other rank's faces), and with the implicit viscous term at 1. The Poisson
# solve to 1e-12 (at the default 1e-10 the whole step's dot product is 1e-9 apart on the Re 20
# cylinder, 8e-15 with LU); the central differences with a step of 1e-6 and the Taylor test from
# 1e-4: W's coefficients move steeply where lines graze the wall, so dJ/dr's central difference
# converges to the adjoint as the step squared from far out (1.9e-5, 1.7e-6, 1.9e-7, 1.4e-8 at
# steps 1e-5, 3e-6, 1e-6, 3e-7) and the Taylor remainder from 1e-3 is order 1.87-1.98 in its
# pairs, 1.95-2.00 from 1e-4 (measured).
fg_case_expect(NAME adjoint_check_cylinder_lineflux NP 1 CODE 0 REGEX "^flowgrad check: 16 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set output.dir=adjoint_check_cylinder_lineflux --set body.cyl.apertures=true --set body.cyl.line_flux=true
                    --set body.cyl.rotation_rate=0 "--set" "design.parameters=[body.cyl.shape, flow.inflow_speed]" --set poisson.type=ksp --set poisson.rtol=1e-12
                    -fg_check_fd_step 1e-6 -fg_check_taylor_eps 1e-4 -fg_fftw_planner estimate ${FG_POISSON_DIRECT})
fg_case_expect(NAME adjoint_check_cylinder_lineflux NP 2 CODE 0 REGEX "^flowgrad check: 16 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set output.dir=adjoint_check_cylinder_lineflux --set body.cyl.apertures=true --set body.cyl.line_flux=true
                    --set body.cyl.rotation_rate=0 "--set" "design.parameters=[body.cyl.shape, flow.inflow_speed]" --set poisson.type=ksp --set poisson.rtol=1e-12
                    -fg_check_fd_step 1e-6 -fg_check_taylor_eps 1e-4 -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_check_cylinder_lineflux_implicit NP 1 CODE 0 REGEX "^flowgrad check: 17 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set output.dir=adjoint_check_cylinder_lineflux_implicit --set body.cyl.apertures=true --set body.cyl.line_flux=true
                    --set body.cyl.rotation_rate=0 "--set" "design.parameters=[body.cyl.shape, flow.inflow_speed]" --set poisson.type=ksp --set poisson.rtol=1e-12 --set time.viscous=implicit
                    -fg_check_fd_step 1e-6 -fg_check_taylor_eps 1e-4 -fg_fftw_planner estimate ${FG_POISSON_DIRECT})
# ... and the ellipse and the B-spline at 1 (27 checks; two bodies' rows in one W).
fg_case_expect(NAME adjoint_check_shapes_lineflux NP 1 CODE 0 REGEX "^flowgrad check: 27 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/shapes_sharp.yaml --set output.dir=adjoint_check_shapes_lineflux --set body.oval.apertures=true --set body.blob.apertures=true
                    --set body.oval.line_flux=true --set body.blob.line_flux=true --set poisson.type=ksp --set poisson.rtol=1e-12
                    -fg_check_fd_step 1e-6 -fg_check_taylor_eps 1e-4 -fg_fftw_planner estimate ${FG_POISSON_DIRECT})
set_tests_properties(case_adjoint_check_cylinder_lineflux_np1 case_adjoint_check_cylinder_lineflux_np2 case_adjoint_check_cylinder_lineflux_implicit_np1
                     case_adjoint_check_shapes_lineflux_np1 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... and with the shared ghost as well (body.<body>.shared_ghost, src/body/ghost.c: each face's
# explicit term X u_l from the stage's start, X a parallel AIJ matrix whose rows read faces three away
# along an axis and one across, on any rank; chi and X through the level set at up to 64 points per
# face, in dual numbers): the cylinder at rest, its shape and the inflow speed designed, at 1 rank,
# at 2 (the slabs' boundary crosses the body) with CG + GAMG to 1e-12, with the implicit viscous
# term at 1, and the ellipse and the B-spline at 1 (16, 16, 17 and 27 checks). The central
# differences of fourth order (-fg_check_fd_order 4, J at +-h and +-2h) with the default step: the
# faces within a cell of the surface are relaxed at a rate that grows as (h/phi)^2, and a first
# face within half a cell of the wall fades into the next pair, so J curves strongly in r and the
# second-order difference of dJ/dr meets its round-off near the tolerance (1.2e-4, 1.3e-5, 1.2e-6,
# 7e-7 at steps 3e-6, 1e-6, 3e-7, 1e-7: the step squared, then round-off); the fourth-order one
# gives 7e-10 at 3e-6 (measured).
fg_case_expect(NAME adjoint_check_cylinder_shared NP 1 CODE 0 REGEX "^flowgrad check: 16 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set output.dir=adjoint_check_cylinder_shared --set body.cyl.apertures=true --set body.cyl.line_flux=true
                    --set body.cyl.shared_ghost=true --set body.cyl.rotation_rate=0 "--set" "design.parameters=[body.cyl.shape, flow.inflow_speed]" --set poisson.type=ksp
                    -fg_check_fd_order 4 -fg_check_taylor_eps 1e-4 -fg_fftw_planner estimate ${FG_POISSON_DIRECT})
fg_case_expect(NAME adjoint_check_cylinder_shared NP 2 CODE 0 REGEX "^flowgrad check: 16 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set output.dir=adjoint_check_cylinder_shared --set body.cyl.apertures=true --set body.cyl.line_flux=true
                    --set body.cyl.shared_ghost=true --set body.cyl.rotation_rate=0 "--set" "design.parameters=[body.cyl.shape, flow.inflow_speed]" --set poisson.type=ksp
                    --set poisson.rtol=1e-12 -fg_check_fd_order 4 -fg_check_taylor_eps 1e-4 -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_check_cylinder_shared_implicit NP 1 CODE 0 REGEX "^flowgrad check: 17 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set output.dir=adjoint_check_cylinder_shared_implicit --set body.cyl.apertures=true --set body.cyl.line_flux=true
                    --set body.cyl.shared_ghost=true --set body.cyl.rotation_rate=0 "--set" "design.parameters=[body.cyl.shape, flow.inflow_speed]" --set poisson.type=ksp
                    --set time.viscous=implicit -fg_check_fd_order 4 -fg_check_taylor_eps 1e-4 -fg_fftw_planner estimate ${FG_POISSON_DIRECT})
fg_case_expect(NAME adjoint_check_shapes_shared NP 1 CODE 0 REGEX "^flowgrad check: 27 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/shapes_sharp.yaml --set output.dir=adjoint_check_shapes_shared --set body.oval.apertures=true --set body.blob.apertures=true
                    --set body.oval.line_flux=true --set body.blob.line_flux=true --set body.oval.shared_ghost=true --set body.blob.shared_ghost=true --set poisson.type=ksp
                    -fg_check_fd_order 4 -fg_check_taylor_eps 1e-4 -fg_fftw_planner estimate ${FG_POISSON_DIRECT})
set_tests_properties(case_adjoint_check_cylinder_shared_np1 case_adjoint_check_cylinder_shared_np2 case_adjoint_check_cylinder_shared_implicit_np1
                     case_adjoint_check_shapes_shared_np1 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... with quadratic ghosts (body.<body>.quadratic_ghost: the ghost through the next face out, whose
# explicit part reads the stage's start velocity there, its weight depending on the level set at
# the face and at its neighbour inside): the rotating cylinder at 1 and 2 ranks (the next face can
# be the other rank's), the sphere at 2, the ellipse and the B-spline with apertures at 1 (with
# the capped penalty of the plain sharp wall and eta 0.01 the ellipse's Taylor test meets the cap's
# kink inside its steps; at eta 0.005 and 0.02 it passes: measured). (With the implicit viscous
# term and apertures the cylinder's 18 checks pass too: measured, not in the suite for its time.)
fg_case_expect(NAME adjoint_check_cylinder_quadratic NP "1;2" CODE 0 REGEX "^flowgrad check: 17 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_sharp.yaml --set output.dir=adjoint_check_cylinder_quadratic --set body.cyl.quadratic_ghost=true -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_check_sphere_quadratic NP 2 CODE 0 REGEX "^flowgrad check: 18 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/sphere_sharp.yaml --set output.dir=adjoint_check_sphere_quadratic --set body.s.quadratic_ghost=true -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_check_shapes_quadratic NP 1 CODE 0 REGEX "^flowgrad check: 27 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/shapes_sharp.yaml --set output.dir=adjoint_check_shapes_quadratic --set body.oval.apertures=true --set body.blob.apertures=true
                    --set body.oval.quadratic_ghost=true --set body.blob.quadratic_ghost=true --set poisson.type=ksp --set poisson.rtol=1e-12 -fg_check_fd_step 1e-6 -fg_fftw_planner estimate ${FG_POISSON_DIRECT})
set_tests_properties(case_adjoint_check_cylinder_quadratic_np1 case_adjoint_check_cylinder_quadratic_np2 case_adjoint_check_sphere_quadratic_np2 case_adjoint_check_shapes_quadratic_np1
                     PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... on non-round bodies (tests/adjoint/shapes_normal.yaml): an ellipse (the unit central difference
# of phi) and a B-spline (the difference itself, fading at the medial axis), every shape parameter:
# 27 checks, at 1 and 2 ranks (on 2 the ellipse's band crosses the slabs' boundary at y = 2).
fg_case_expect(NAME adjoint_check_shapes_normal NP 1 2 CODE 0 REGEX "^flowgrad check: 27 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/shapes_normal.yaml --set output.dir=adjoint_check_shapes_normal -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_check_shapes_normal_np1 case_adjoint_check_shapes_normal_np2 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... and in 3D: a sphere in a duct with drag and lift (tests/adjoint/sphere_normal.yaml), 2 ranks
# (the band crosses the slabs' boundary at z = 1: ghosts exchanged).
fg_case_expect(NAME adjoint_check_sphere_normal NP 2 CODE 0 REGEX "^flowgrad check: 19 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/sphere_normal.yaml --set output.dir=adjoint_check_sphere_normal -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_check_sphere_normal_np2 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... and an ellipsoid (tests/adjoint/ellipsoid_normal.yaml: the differenced normal in 3D), 21 checks.
fg_case_expect(NAME adjoint_check_ellipsoid_normal NP 2 CODE 0 REGEX "^flowgrad check: 21 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/ellipsoid_normal.yaml --set output.dir=adjoint_check_ellipsoid_normal -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_check_ellipsoid_normal_np2 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... and the check fails (exit 3) when the adjoint step is deliberately wrong (a test-only option).
fg_case_expect(NAME adjoint_check_broken NP 1 CODE 3 REGEX "flowgrad check: [0-9]+ of 20 checks failed"
               ARGS check ${FG_ADJ_CYL} --set time.steps=20 --set output.dir=adjoint_check_broken
                    --set objective.drag.window=[0.2,0.8] --set objective.drag.ramp=0.2 --set objective.lift.window=[0.2,0.8]
                    -fg_fftw_planner estimate -fg_test_break_adjoint)
foreach(t case_adjoint_check_cylinder_np1 case_adjoint_check_cylinder_np3 case_adjoint_check_broken_np1)
  set_tests_properties(${t} PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint")
endforeach()

# The same on stretched grids (issue 20): y stretched (FFTW + Thomas along y) at 1 and 3 ranks;
# x and y stretched with the KSP solver (at rtol 1e-14: the dot-product test of the whole step
# needs the solve converged further than a run does) at 2 ranks, in 20 steps of 0.08 (CFL ~0.9).
set(FG_ADJ_CYL_S ${FG_TEST_DIR}/adjoint/cylinder_stretched.yaml)
fg_case_expect(NAME adjoint_check_cylinder_stretched NP 1 3 CODE 0 REGEX "^flowgrad check: 20 checks, 0 failed"
               ARGS check ${FG_ADJ_CYL_S} --set output.dir=adjoint_check_cylinder_stretched -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_check_cylinder_stretched_ksp NP 2 CODE 0 REGEX "^flowgrad check: 20 checks, 0 failed"
               ARGS check ${FG_ADJ_CYL_S} --set output.dir=adjoint_check_cylinder_stretched_ksp --set grid.cells=[0,0]
                    --set poisson.type=ksp --set poisson.rtol=1e-14 --set grid.stretch.x.type=band --set grid.stretch.x.band=[2.2,4.5]
                    --set grid.stretch.x.h_min=0.1 --set grid.stretch.x.h_max=0.3 --set time.dt=0.08 --set time.steps=20)
# With the implicit viscous term (time.viscous: implicit; 21 checks: the Helmholtz solves'
# dot-product test too): at Re 100 on 1 and 3 ranks, and at Re 5 on 2 ranks, where dt = 0.04 is
# 2.1 times the explicit term's stability limit.
fg_case_expect(NAME adjoint_check_cylinder_implicit NP 1 3 CODE 0 REGEX "^flowgrad check: 21 checks, 0 failed"
               ARGS check ${FG_ADJ_CYL_S} --set output.dir=adjoint_check_cylinder_implicit --set time.viscous=implicit -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_check_cylinder_implicit_re5 NP 2 CODE 0 REGEX "^flowgrad check: 21 checks, 0 failed"
               ARGS check ${FG_ADJ_CYL_S} --set output.dir=adjoint_check_cylinder_implicit_re5 --set time.viscous=implicit --set flow.re=5
                    -fg_fftw_planner estimate)
# Steady mode with the implicit viscous term (its incremental pressure is part of the steady
# state also without a body): the channel without a body, 13 checks (tests/adjoint/dissipation_channel.yaml).
fg_case_expect(NAME adjoint_check_steady_implicit NP 2 CODE 0 REGEX "^flowgrad check: 13 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/dissipation_channel.yaml --set time.viscous=implicit
                    --set output.dir=adjoint_check_steady_implicit -fg_fftw_planner estimate)
# ... and unsteady on 13 y cells over 4 ranks: FFTW's slabs 4, 4, 4, 1, so the third rank's ghost
# plane holds the last rank's boundary faces of v, and the viscous stage takes its ghost-exchange
# path (FGViscousBoundaryFacesInGhosts).
fg_case_expect(NAME adjoint_check_implicit_last_plane NP 4 CODE 0 REGEX "^flowgrad check: 13 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/dissipation_channel.yaml --set time.viscous=implicit --set adjoint.mode=unsteady
                    --set grid.cells=[32,13] --set time.steps=20 --set output.dir=adjoint_check_implicit_last_plane -fg_fftw_planner estimate)
foreach(t cylinder_stretched_np1 cylinder_stretched_np3 cylinder_stretched_ksp_np2 cylinder_implicit_np1 cylinder_implicit_np3 cylinder_implicit_re5_np2 steady_implicit_np2 implicit_last_plane_np4)
  set_tests_properties(case_adjoint_check_${t} PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint")
endforeach()

# The gradient on 1, 2 and 4 ranks (1e-10), the files flowgrad adjoint writes, and the shape
# sensitivity field against dJ/dr (tests/adjoint/adjoint_ranks.py).
add_test(NAME adjoint_ranks
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/adjoint/adjoint_ranks.py --flowgrad $<TARGET_FILE:flowgrad>
                 --mpiexec ${MPIEXEC_EXECUTABLE} "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}"
                 --case ${FG_ADJ_CYL} --workdir ${CMAKE_CURRENT_BINARY_DIR}
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(adjoint_ranks PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS "mpi;adjoint")

# No objective: flowgrad adjoint and check exit 2 and say so.
fg_case_expect(NAME adjoint_no_objective NP 1 2 CODE 2 REGEX "the case has no objective"
               ARGS adjoint ${PROJECT_SOURCE_DIR}/cases/channel/channel.yaml --set output.dir=adjoint_no_objective)

# A density body: flowgrad check with the rho field, the viscosity and the initial velocity as
# the design (field blocks checked at their largest-gradient entry). The fixture writes rho.
add_test(NAME adjoint_density_file_setup
         COMMAND ${FG_PYTHON} -c "import h5py, numpy as np; y, x = np.mgrid[0:32, 0:64] + 0.5; r2 = ((x - 20) / 5) ** 2 + ((y - 16.3) / 4) ** 2; h5py.File('density_blob.h5', 'w').create_dataset('rho', data=np.exp(-r2 ** 2))"
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(adjoint_density_file_setup PROPERTIES FIXTURES_SETUP fg_adjoint_density LABELS adjoint)
fg_case_expect(NAME adjoint_check_density NP 1 2 CODE 0 REGEX "^flowgrad check: [0-9]+ checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/density.yaml --set output.dir=adjoint_check_density -fg_fftw_planner estimate)
foreach(np 1 2)
  set_tests_properties(case_adjoint_check_density_np${np} PROPERTIES FIXTURES_REQUIRED fg_adjoint_density TIMEOUT 300 LABELS "mpi;adjoint")
endforeach()

# flowgrad check on the shipped example cases that define an objective, cut to 3 steps (the full
# grids; 2 ranks).
foreach(ex cylinder_re40 cylinder_re100 naca0012 rotating_cylinder sphere cavity)
  fg_case_expect(NAME adjoint_example_${ex} NP 2 CODE 0 REGEX "^flowgrad check: [0-9]+ checks, 0 failed"
                 ARGS check ${PROJECT_SOURCE_DIR}/cases/${ex}/${ex}.yaml --set time.steps=3
                      --set output.dir=adjoint_example_${ex} -fg_fftw_planner estimate)
  set_tests_properties(case_adjoint_example_${ex}_np2 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint")
endforeach()
# ... the soft-skin shape example (cases/shape_drag/shape_drag_skin.yaml: a Fourier body at the
# circle, with skin_normal; unsteady adjoint over its 3 steps: the steady one needs the transient);
# at the circle a face sits at the body's centre, where D phi = 0 (the normal band's fading vector);
# and the stretched example (cases/cylinder_re40/stretched.yaml); the stretched channel runs.
fg_case_expect(NAME adjoint_example_shape_drag_skin NP 2 CODE 0 REGEX "^flowgrad check: [0-9]+ checks, 0 failed"
               ARGS check ${PROJECT_SOURCE_DIR}/cases/shape_drag/shape_drag_skin.yaml --set time.steps=3 --set adjoint.mode=unsteady
                    --set output.dir=adjoint_example_shape_drag_skin -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_example_shape_drag_skin_np2 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... the sharp shape example (cases/shape_drag/shape_drag_sharp.yaml: apertures, lines and the
# shared ghost; unsteady over 3 steps, 1 rank with the direct Poisson solve): J, the 4 shape
# scalars and the area row, the central differences of fourth order and the Taylor test from
# 1e-4 as the other sharp-wall checks (from 1e-3 the pair 5e-4, 2.5e-4 gives order 1.68: a face
# crossing in the range; measured 19 checks, 3.5 s).
fg_case_expect(NAME adjoint_example_shape_drag_sharp NP 1 CODE 0 REGEX "^flowgrad check: 19 checks, 0 failed"
               ARGS check ${PROJECT_SOURCE_DIR}/cases/shape_drag/shape_drag_sharp.yaml --set time.steps=3 --set adjoint.mode=unsteady
                    --set output.dir=adjoint_example_shape_drag_sharp -fg_check_fd_order 4 -fg_check_taylor_eps 1e-4
                    -fg_fftw_planner estimate ${FG_POISSON_DIRECT})
set_tests_properties(case_adjoint_example_shape_drag_sharp_np1 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
# ... the airfoil examples (cases/naca_lift: the CST section with the stiff mask, and with the soft
# skin and its normal band for the grid study), likewise unsteady over 3 steps: J, the 10 CST
# coefficients and the thickness rows (measured: 51 checks each; 4 s and 21 s on 2 ranks).
foreach(ex naca_lift naca_lift_skin)
  fg_case_expect(NAME adjoint_example_${ex} NP 2 CODE 0 REGEX "^flowgrad check: [0-9]+ checks, 0 failed"
                 ARGS check ${PROJECT_SOURCE_DIR}/cases/naca_lift/${ex}.yaml --set time.steps=3 --set adjoint.mode=unsteady
                      --set output.dir=adjoint_example_${ex} -fg_fftw_planner estimate)
  set_tests_properties(case_adjoint_example_${ex}_np2 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint;body")
endforeach()
fg_case_expect(NAME adjoint_example_cylinder_re40_stretched NP 2 CODE 0 REGEX "^flowgrad check: [0-9]+ checks, 0 failed"
               ARGS check ${PROJECT_SOURCE_DIR}/cases/cylinder_re40/stretched.yaml --set time.steps=3
                    --set output.dir=adjoint_example_cylinder_re40_stretched -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_example_cylinder_re40_stretched_np2 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint")
fg_case_expect(NAME example_channel_stretched NP 2 CODE 0 REGEX "^flowgrad run: 20 steps in"
               ARGS run ${PROJECT_SOURCE_DIR}/cases/channel/stretched.yaml --set time.steps=20
                    --set output.dir=example_channel_stretched -fg_fftw_planner estimate)

# Every objective kind in one case (drag with a smooth window, moment at an instant, -lift/drag,
# pressure drop, kinetic energy and enstrophy in a region, probe tracking of a target and of
# observations from another run's history.csv, tracking of another run's final field, control
# cost): flowgrad check at 1 and 2 ranks.
# (the case names the observations file, so a placeholder exists until the run replaces it)
add_test(NAME adjoint_objectives_setup
         COMMAND /bin/sh -c "mkdir -p objectives_obs/fields && echo time,wake_u,wake_v > objectives_obs/history.csv && echo placeholder > objectives_obs/fields/fields_000060.h5 && \"$0\" run \"$1\" --set flow.re=120 --set output.dir=objectives_obs -fg_fftw_planner estimate"
                 $<TARGET_FILE:flowgrad> ${FG_TEST_DIR}/adjoint/objectives.yaml
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(adjoint_objectives_setup PROPERTIES FIXTURES_SETUP fg_adjoint_obs LABELS adjoint)
fg_case_expect(NAME adjoint_check_objectives NP 1 2 CODE 0 REGEX "^flowgrad check: [0-9]+ checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/objectives.yaml --set output.dir=adjoint_check_objectives -fg_fftw_planner estimate)
foreach(np 1 2)
  set_tests_properties(case_adjoint_check_objectives_np${np} PROPERTIES FIXTURES_REQUIRED fg_adjoint_obs TIMEOUT 300 LABELS "mpi;adjoint")
endforeach()

# Every objective kind on a grid stretched in y (tanh): its own observations and target field,
# written on that grid by its fixture on 3 ranks, read on 2 (its coordinates checked against the
# grid's); the uniform grid's target field is refused there (exit 2,
# "another grid": a field file's face coordinates must be the grid's).
set(_fg_obj_s --set grid.stretch.y.type=tanh --set grid.stretch.y.beta=1.2 --set objective.track.observations=objectives_obs_s/history.csv)
add_test(NAME adjoint_objectives_stretched_setup
         COMMAND /bin/sh -c "mkdir -p objectives_obs_s/fields && echo time,wake_u,wake_v > objectives_obs_s/history.csv && echo placeholder > objectives_obs_s/fields/fields_000060.h5 && \"$0\" \"$@\""
                 ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 ${FLOWGRAD_MPIEXEC_FLAGS} $<TARGET_FILE:flowgrad> run ${FG_TEST_DIR}/adjoint/objectives.yaml ${_fg_obj_s} --set objective.field.target_file=objectives_obs_s/fields/fields_000060.h5
                 --set flow.re=120 --set output.dir=objectives_obs_s -fg_fftw_planner estimate
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(adjoint_objectives_stretched_setup PROPERTIES FIXTURES_SETUP fg_adjoint_obs_s PROCESSORS 3 LABELS adjoint)
fg_case_expect(NAME adjoint_check_objectives_stretched NP 2 CODE 0 REGEX "^flowgrad check: [0-9]+ checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/objectives.yaml ${_fg_obj_s} --set objective.field.target_file=objectives_obs_s/fields/fields_000060.h5
                    --set output.dir=adjoint_check_objectives_stretched -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_objectives_stretched_other_grid NP 1 CODE 2
               REGEX [=[field file objectives_obs/fields/fields_000060\.h5: its y face 1 lies at 0\.125, the grid's at 0\.1[0-9]* \(another grid\)]=]
               ARGS check ${FG_TEST_DIR}/adjoint/objectives.yaml ${_fg_obj_s} --set output.dir=adjoint_objectives_stretched_other_grid)
set_tests_properties(case_adjoint_check_objectives_stretched_np2 PROPERTIES FIXTURES_REQUIRED "fg_adjoint_obs_s;fg_adjoint_obs" TIMEOUT 300 LABELS "mpi;adjoint")
set_tests_properties(case_adjoint_objectives_stretched_other_grid_np1 PROPERTIES FIXTURES_REQUIRED "fg_adjoint_obs_s;fg_adjoint_obs" LABELS "mpi;adjoint")

# The same check on 200 steps of vortex shedding: the cylinder run to t = 100 first (the fixture,
# ~6 s), then flowgrad check from that state (2 ranks).
add_test(NAME adjoint_shedding_setup
         COMMAND $<TARGET_FILE:flowgrad> run ${FG_ADJ_CYL} --set time.steps=2500 --set output.dir=cyl_shedding
                 --set output.monitor_every=500 -fg_fftw_planner estimate
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(adjoint_shedding_setup PROPERTIES FIXTURES_SETUP fg_adjoint_shedding TIMEOUT 300 LABELS adjoint)
fg_case_expect(NAME adjoint_check_shedding NP 2 CODE 0 REGEX "^flowgrad check: 20 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_shedding.yaml --set output.dir=adjoint_check_shedding -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_check_shedding_np2 PROPERTIES FIXTURES_REQUIRED fg_adjoint_shedding TIMEOUT 300 LABELS "mpi;adjoint")

# The controls piecewise linear in time (design.time_basis 3: three values each for the
# actuator's force components and the rotation rate): flowgrad check at 2 ranks.
fg_case_expect(NAME adjoint_check_time_basis NP 2 CODE 0 REGEX "^flowgrad check: 24 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/objectives.yaml --set design.time_basis=3
                    --set output.dir=adjoint_check_time_basis -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_check_time_basis_np2 PROPERTIES FIXTURES_REQUIRED fg_adjoint_obs TIMEOUT 300 LABELS "mpi;adjoint")

# Issue 6: every checkpoint schedule gives the same gradient (1e-13), the recomputed steps are as
# planned and as theory says, and interrupted sweeps (SIGUSR1 in the forward run and in the
# reverse sweep, SIGKILL) resume to the same gradient (tests/adjoint/schedules.py).
foreach(np 1 3)
  add_test(NAME adjoint_schedules_np${np}
           COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/adjoint/schedules.py --flowgrad $<TARGET_FILE:flowgrad> --np ${np}
                   --mpiexec ${MPIEXEC_EXECUTABLE} "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}" --python ${FG_PYTHON}
                   --case ${FG_TEST_DIR}/adjoint/cylinder.yaml --workdir ${CMAKE_CURRENT_BINARY_DIR}/adjoint_schedules_np${np})
  set_tests_properties(adjoint_schedules_np${np} PROPERTIES TIMEOUT 600 PROCESSORS 2 LABELS "mpi;adjoint")
endforeach()
# ... and a sweep killed while run by an earlier release (its resume.h5 in that release's format) is
# resumed by this one. Only where FLOWGRAD_OLD_EXE names that release's binary (tests/optim/tests.cmake).
if(FLOWGRAD_OLD_EXE)
  add_test(NAME adjoint_resume_oldfile_np1
           COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/adjoint/schedules.py --flowgrad $<TARGET_FILE:flowgrad> --np 1
                   --python ${FG_PYTHON} --part resume_old --killed-flowgrad ${FLOWGRAD_OLD_EXE}
                   --case ${FG_TEST_DIR}/adjoint/cylinder.yaml --workdir ${CMAKE_CURRENT_BINARY_DIR}/adjoint_resume_oldfile_np1)
  set_tests_properties(adjoint_resume_oldfile_np1 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint")
endif()
fg_case_expect(NAME adjoint_memory_unit NP 1 CODE 2 REGEX "--set adjoint.memory=3Q: '3Q': unknown unit 'Q'" ARGS adjoint ${FG_TEST_DIR}/adjoint/cylinder.yaml --set output.dir=adjoint_keys --set adjoint.memory=3Q)
fg_case_expect(NAME adjoint_memory_word NP 1 CODE 2 REGEX "'lots' is not a memory size" ARGS adjoint ${FG_TEST_DIR}/adjoint/cylinder.yaml --set output.dir=adjoint_keys --set adjoint.memory=lots)
fg_case_expect(NAME adjoint_memory_tiny NP 1 CODE 2 REGEX "adjoint.memory: 1K holds no state" ARGS adjoint ${FG_TEST_DIR}/adjoint/cylinder.yaml --set output.dir=adjoint_keys --set adjoint.memory=1K)
fg_case_expect(NAME adjoint_steady_dt_word NP 1 CODE 2 REGEX "--set adjoint.steady_dt=fast: .fast.: expected auto or a time step > 0" ARGS adjoint ${FG_TEST_DIR}/adjoint/steady.yaml --set output.dir=adjoint_keys --set adjoint.steady_dt=fast)
fg_case_expect(NAME adjoint_steady_dt_negative NP 1 CODE 2 REGEX "--set adjoint.steady_dt=-1e-3: .-1e-3.: expected auto or a time step > 0" ARGS adjoint ${FG_TEST_DIR}/adjoint/steady.yaml --set output.dir=adjoint_keys --set adjoint.steady_dt=-1e-3)
# A forward run that blows up stops at the step it does, naming the CFL number (FGSolverCheckFlow):
# before, the unsteady one ran its 200 steps and said "the objective is nan", the steady one's
# Newton "|F(x) - x| is 0".
fg_case_expect(NAME adjoint_blowup NP "1;2" CODE 3 REGEX "the flow blew up: CFL number [0-9.]+ exceeds 3.? .twice time.cfl_max. at step 1, t = 1" ARGS adjoint ${FG_TEST_DIR}/adjoint/cylinder.yaml --set output.dir=adjoint_blowup --set time.dt=1)
fg_case_expect(NAME adjoint_steady_blowup NP 1 CODE 3 REGEX "the flow blew up: CFL number [0-9.]+ exceeds 3.? .twice time.cfl_max. at step 1, t = 3" ARGS adjoint ${FG_TEST_DIR}/adjoint/steady.yaml --set output.dir=adjoint_blowup --set time.dt=3)
fg_case_expect(NAME adjoint_storage_bad NP 1 CODE 2 REGEX "adjoint.storage" ARGS adjoint ${FG_TEST_DIR}/adjoint/cylinder.yaml --set output.dir=adjoint_keys --set adjoint.storage=tape)
fg_case_expect(NAME adjoint_checkpoints_negative NP 1 CODE 2 REGEX "adjoint.checkpoints" ARGS adjoint ${FG_TEST_DIR}/adjoint/cylinder.yaml --set output.dir=adjoint_keys --set adjoint.checkpoints=-1)
fg_case_expect(NAME adjoint_resume_check NP 1 CODE 2 REGEX "--resume applies to flowgrad run, adjoint and optimize only" ARGS check ${FG_TEST_DIR}/adjoint/cylinder.yaml --resume)
include(${FG_TEST_DIR}/adjoint/steady.cmake)

# FGObjectiveCreateTerms: a lift term filled in memory (as a constraint would be) gives the case's
# lift term and the same gradient; a term without its body is an input error naming its `where`
# (tests/adjoint/test_objective_terms.c). At 1 and 2 ranks.
fg_add_test_exe(NAME test_objective_terms SOURCES ${FG_TEST_DIR}/adjoint/test_objective_terms.c)
fg_add_mpi_test(NAME adjoint_objective_terms NP 1 2 COMMAND test_objective_terms -fg_fftw_planner estimate LABELS adjoint TIMEOUT 120)

# objective.<name>.statistic on the shedding cylinder (the fixture above): the variance of the
# lift over [0.5, 8] with ramps (Cl swings between -0.25 and 0.34; measured J_lift = 0.5 var =
# 0.02047, equal to the windowed variance of history.csv's cyl_cl to 1e-15) and the mean square
# drag: flowgrad check, 20 checks (measured: central differences <= 3.0e-8, Taylor orders 1.998-2.000).
set(FG_ADJ_STAT --set objective.lift.statistic=variance --set objective.lift.window=[0.5,8] --set objective.lift.ramp=0.5
                --set objective.drag.statistic=square)
fg_case_expect(NAME adjoint_check_statistic NP 2 CODE 0 REGEX "^flowgrad check: 20 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/cylinder_shedding.yaml ${FG_ADJ_STAT} --set output.dir=adjoint_check_statistic -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_check_statistic_np2 PROPERTIES FIXTURES_REQUIRED fg_adjoint_shedding TIMEOUT 300 LABELS "mpi;adjoint")
# ... and the resumable sweep keeps its record: stopped by SIGUSR1 at step 100 of the reverse sweep
# (disk storage), resumed, the same gradient.csv as the straight run (byte for byte).
add_test(NAME adjoint_statistic_resume
         COMMAND /bin/sh -c "set -ef; \"$0\" adjoint \"$1\" $2 --set output.dir=statistic_resume_a >/dev/null; \
                             rc=0; \"$0\" adjoint \"$1\" $2 --set output.dir=statistic_resume_b -fg_test_adjoint_signal_at 100 >/dev/null || rc=$?; \
                             test $rc -eq 75; \"$0\" adjoint \"$1\" $2 --set output.dir=statistic_resume_b --resume >/dev/null; \
                             cmp statistic_resume_a/gradient.csv statistic_resume_b/gradient.csv"
                 $<TARGET_FILE:flowgrad> ${FG_TEST_DIR}/adjoint/cylinder_shedding.yaml
                 "--set objective.lift.statistic=variance --set objective.lift.window=[0.5,8] --set objective.lift.ramp=0.5 --set objective.drag.statistic=square --set adjoint.storage=disk --set adjoint.segment=40 -fg_fftw_planner estimate"
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(adjoint_statistic_resume PROPERTIES FIXTURES_REQUIRED fg_adjoint_shedding TIMEOUT 300 LABELS adjoint)
# bad statistics: exit 2 naming file:line:key (variance of a final value; a statistic of
# neg_lift_drag; variance in steady mode, where it is 0)
fg_case_expect(NAME adjoint_bad_variance_final NP 1 2 CODE 2
               REGEX [=[objective_variance_final\.yaml:11: objective\.cl\.statistic: variance is T\(q\^2\) - T\(q\)\^2 over a time average, and objective\.cl has time final]=]
               ARGS info ${FG_TEST_DIR}/case/bad/objective_variance_final.yaml)
fg_case_expect(NAME adjoint_bad_statistic_ratio NP 1 2 CODE 2
               REGEX [=[objective_statistic_ratio\.yaml:8: objective\.glide\.statistic: statistic applies to all but neg_lift_drag and control_cost objectives; objective\.glide is a neg_lift_drag objective]=]
               ARGS info ${FG_TEST_DIR}/case/bad/objective_statistic_ratio.yaml)
fg_case_expect(NAME adjoint_bad_variance_steady NP 1 CODE 2
               REGEX [=[--set objective\.drag\.statistic=variance: variance with adjoint\.mode steady: the objective is evaluated at the steady state, where its variance is identically 0]=]
               ARGS info ${FG_TEST_DIR}/adjoint/steady.yaml --set objective.drag.time=average --set objective.drag.statistic=variance --set output.dir=adjoint_bad_variance_steady)

# The dissipation objective (the net inflow of mechanical energy, -sum (p + |u|^2/2) u.n dA over
# the inflow and outflow faces). flowgrad check (dot products, Taylor, central differences at
# 1e-6) on:
#  - tests/adjoint/dissipation.yaml, unsteady: the density blob in a channel with a modulated
#    parabolic inflow (a tangential component too), its mean over a ramped window, its value at an
#    instant and its mean square; rho, nu, the inflow speed and the initial velocity as the design
#    (15 checks; measured: central differences <= 2.1e-8, Taylor orders 2.000), at 1 and 3 ranks;
set(FG_ADJ_DISS ${FG_TEST_DIR}/adjoint/dissipation)
fg_case_expect(NAME adjoint_check_dissipation NP 1 3 CODE 0 REGEX "^flowgrad check: 15 checks, 0 failed"
               ARGS check ${FG_ADJ_DISS}.yaml --set output.dir=adjoint_check_dissipation -fg_fftw_planner estimate)
#  - tests/adjoint/dissipation_channel.yaml, steady, no body (the pressure is the step's output):
#    plane Poiseuille flow; nu and the inflow speed (12 checks; measured <= 7.1e-10), 1 and 3 ranks;
fg_case_expect(NAME adjoint_check_dissipation_channel NP 1 3 CODE 0 REGEX "^flowgrad check: 12 checks, 0 failed"
               ARGS check ${FG_ADJ_DISS}_channel.yaml --set output.dir=adjoint_check_dissipation_channel -fg_fftw_planner estimate)
#  - tests/adjoint/dissipation_cylinder.yaml, steady with a body (the pressure is a state): the
#    cylinder's shape, nu and the inflow speed (17 checks; measured <= 3.4e-8), 1 and 3 ranks;
fg_case_expect(NAME adjoint_check_dissipation_cylinder NP 1 3 CODE 0 REGEX "^flowgrad check: 17 checks, 0 failed"
               ARGS check ${FG_ADJ_DISS}_cylinder.yaml --set output.dir=adjoint_check_dissipation_cylinder -fg_fftw_planner estimate)
#  - tests/adjoint/dissipation_3d.yaml, unsteady 3D: a sphere in a duct, an inflow with all three
#    components (19 checks; measured <= 1.1e-7), 1 and 2 ranks.
fg_case_expect(NAME adjoint_check_dissipation_3d NP 1 2 CODE 0 REGEX "^flowgrad check: 19 checks, 0 failed"
               ARGS check ${FG_ADJ_DISS}_3d.yaml --set output.dir=adjoint_check_dissipation_3d -fg_fftw_planner estimate)
#  - the 3D case with z stretched (tanh) and the steady cylinder with y stretched, at 2 ranks.
fg_case_expect(NAME adjoint_check_dissipation_3d_stretched NP 2 CODE 0 REGEX "^flowgrad check: 19 checks, 0 failed"
               ARGS check ${FG_ADJ_DISS}_3d.yaml --set grid.stretch.z.type=tanh --set grid.stretch.z.beta=1.5
                    --set output.dir=adjoint_check_dissipation_3d_stretched -fg_fftw_planner estimate)
fg_case_expect(NAME adjoint_check_dissipation_cylinder_stretched NP 2 CODE 0 REGEX "^flowgrad check: 17 checks, 0 failed"
               ARGS check ${FG_ADJ_DISS}_cylinder.yaml --set grid.stretch.y.type=tanh --set grid.stretch.y.beta=1.5
                    --set output.dir=adjoint_check_dissipation_cylinder_stretched -fg_fftw_planner estimate)
foreach(t dissipation_np1 dissipation_np3 dissipation_channel_np1 dissipation_channel_np3 dissipation_cylinder_np1
          dissipation_cylinder_np3 dissipation_3d_np1 dissipation_3d_np2 dissipation_3d_stretched_np2 dissipation_cylinder_stretched_np2)
  set_tests_properties(case_adjoint_check_${t} PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint")
endforeach()
foreach(np 1 3)
  set_tests_properties(case_adjoint_check_dissipation_np${np} PROPERTIES FIXTURES_REQUIRED fg_adjoint_density)
endforeach()
# Physics: at a steady state P is the dissipated power. Plane Poiseuille flow against 12 nu U^2 L/H
# on three grids (second order; 9.8e-4 on the finest), and P against the viscous plus Brinkman
# dissipation computed from steady.h5, without and with a cylinder (tests/adjoint/dissipation.py
# gives the measured numbers and the tolerances).
add_test(NAME adjoint_dissipation_physics
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/adjoint/dissipation.py --flowgrad $<TARGET_FILE:flowgrad>
                 --channel ${FG_ADJ_DISS}_channel.yaml --cylinder ${FG_ADJ_DISS}_cylinder.yaml
                 --workdir ${CMAKE_CURRENT_BINARY_DIR}/adjoint_dissipation_physics
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(adjoint_dissipation_physics PROPERTIES TIMEOUT 300 LABELS adjoint)
# Bad input: dissipation in a closed domain (identically 0), with a region: exit 2 naming the key.
fg_case_expect(NAME adjoint_bad_dissipation_closed NP 1 2 CODE 2
               REGEX [=[objective_dissipation_closed\.yaml:9: objective\.power\.kind: dissipation is the net inflow of mechanical energy through the inflow and outflow faces, and the case has none]=]
               ARGS info ${FG_TEST_DIR}/case/bad/objective_dissipation_closed.yaml)
fg_case_expect(NAME adjoint_bad_dissipation_region NP 1 CODE 2
               REGEX [=[--set objective\.power\.region=\[0,0,1,1\]: region applies to kinetic_energy, enstrophy and field_tracking objectives; objective\.power is a dissipation objective]=]
               ARGS info ${FG_ADJ_DISS}_channel.yaml --set objective.power.region=[0,0,1,1] --set output.dir=adjoint_bad_dissipation_region)
