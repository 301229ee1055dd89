# flowgrad optimize (src/optim, src/app/optimize.c): reduced versions of the example campaigns,
# TAO's gradient test, kill and resume, ranks, multipoint, bad input.
set(FG_OPT_DIR ${FG_TEST_DIR}/optim)
set(FG_OPT_CHECK ${FG_PYTHON} ${FG_OPT_DIR}/check_optimization.py)

# fg_optim_run(NAME n NP np CASE file [COUNT regex min max ...] CHECK <check_optimization.py arguments after the run dir> ARGS ...)
#   optim_<n>_np<np>: flowgrad optimize CASE into optim_<n>_np<np>/, then the check on it (and
#   run.py --count on its output).
function(fg_optim_run)
  cmake_parse_arguments(A "" "NAME;NP;CASE;TIMEOUT" "COUNT;CHECK;ARGS" ${ARGN})
  set(count)
  list(LENGTH A_COUNT ncount)
  if(ncount GREATER 0)
    math(EXPR last "${ncount} - 1")
    foreach(i RANGE 0 ${last} 3)
      math(EXPR j "${i} + 1")
      math(EXPR k "${i} + 2")
      list(GET A_COUNT ${i} rx)
      list(GET A_COUNT ${j} lo)
      list(GET A_COUNT ${k} hi)
      list(APPEND count --count ${rx} ${lo} ${hi})
    endforeach()
  endif()
  set(t optim_${A_NAME}_np${A_NP})
  add_test(NAME ${t}
           COMMAND ${FG_PYTHON} ${FG_OPT_DIR}/run.py --flowgrad $<TARGET_FILE:flowgrad> --mpiexec ${MPIEXEC_EXECUTABLE}
                   "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}" --np ${A_NP} --case ${A_CASE} --out ${t} ${count} --check history ${A_CHECK} -- ${A_ARGS}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  set_tests_properties(${t} PROPERTIES TIMEOUT ${A_TIMEOUT} PROCESSORS ${A_NP} LABELS "mpi;optim")
  if(FLOWGRAD_SANITIZE)
    set_tests_properties(${t} PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  endif()
endfunction()

# Example 1, reduced (tests/optim/shape.yaml: 64x48, steady, r0 and a2, area = initial, the
# augmented Lagrangian, 6 iterations): drag falls by at least 5 % (measured 27.9 %) and the area
# holds to 1e-3 relative (measured 1e-4); at 1 and 2 ranks, which end at the same design to 1e-8.
foreach(np 1 2)
  fg_optim_run(NAME shape NP ${np} CASE ${FG_OPT_DIR}/shape.yaml CHECK --min-decrease 0.05 --max-violation 1e-3 --min-iterations 6)
endforeach()
add_test(NAME optim_shape_ranks COMMAND ${FG_OPT_CHECK} same optim_shape_np1 optim_shape_np2 --rtol 1e-8 WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(optim_shape_np1 PROPERTIES FIXTURES_SETUP fg_optim_shape1)
set_tests_properties(optim_shape_np2 PROPERTIES FIXTURES_SETUP fg_optim_shape2)
set_tests_properties(optim_shape_ranks PROPERTIES FIXTURES_REQUIRED "fg_optim_shape1;fg_optim_shape2" LABELS optim)

# TAO's own gradient test (-tao_test_gradient: finite differences of f = J/J_0 in x = p/scale)
# against the adjoint at every gradient TAO computes on an unsteady run (tests/optim/control.yaml,
# 2 iterations): ||G - Gfd||/||G|| <= 1e-6. The difference step is 1e-5 (-tao_fd_delta): at TAO's
# default step the rounding of J (~1e-14 relative) gave differences of 3e-6 .. 1e-5 that moved
# with any change of rounding in the solver; at 1e-5 they are 1.6e-9 .. 3.3e-8 (measured), and at
# 1e-4 the truncation error shows (1e-7 .. 2.5e-6, falling as the step squared).
add_test(NAME optim_tao_gradient
         COMMAND ${FG_PYTHON} ${FG_OPT_DIR}/run.py --flowgrad $<TARGET_FILE:flowgrad> --mpiexec ${MPIEXEC_EXECUTABLE}
                 "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}" --np 1 --case ${FG_OPT_DIR}/control.yaml --out optim_tao_gradient
                 --log optim_tao_gradient.log --check tao-gradient --max 1e-6 -- --set optimizer.max_iterations=2 -tao_test_gradient -tao_fd_delta 1e-5
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(optim_tao_gradient PROPERTIES TIMEOUT 300 LABELS "mpi;optim")

# Killed (SIGKILL on every rank after the 5th evaluation) and resumed: the log's 5 evaluations are
# replayed, the rest computed, and the run ends at the reference's design and J (1e-8; measured:
# identical) at 1 and 2 ranks (tests/optim/resume.py).
foreach(np 1 2)
  add_test(NAME optim_resume_np${np}
           COMMAND ${FG_PYTHON} ${FG_OPT_DIR}/resume.py --flowgrad $<TARGET_FILE:flowgrad> --mpiexec ${MPIEXEC_EXECUTABLE}
                   "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}" --np ${np} --case ${FG_OPT_DIR}/control.yaml --kill-at 5
                   --workdir ${CMAKE_CURRENT_BINARY_DIR} --rtol 1e-8 --python ${FG_PYTHON}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(optim_resume_np${np} PROPERTIES TIMEOUT 300 PROCESSORS ${np} LABELS "mpi;optim")
endforeach()
# ... and killed while run by an earlier flowgrad, resumed by this one: the log written by the
# earlier release (eval_NNNNNN.h5) replays. Only where its binary is named, e.g.
#   cmake -DFLOWGRAD_OLD_EXE=/work/build-base/flowgrad   (a build of the previous release)
if(FLOWGRAD_OLD_EXE)
  add_test(NAME optim_resume_oldlog_np1
           COMMAND ${FG_PYTHON} ${FG_OPT_DIR}/resume.py --flowgrad $<TARGET_FILE:flowgrad> --mpiexec ${MPIEXEC_EXECUTABLE}
                   "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}" --np 1 --case ${FG_OPT_DIR}/control.yaml --kill-at 5
                   --killed-flowgrad ${FLOWGRAD_OLD_EXE} --tag optim_resume_oldlog_np1
                   --workdir ${CMAKE_CURRENT_BINARY_DIR} --rtol 1e-8 --python ${FG_PYTHON}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(optim_resume_oldlog_np1 PROPERTIES TIMEOUT 300 LABELS "mpi;optim")
endif()
# ... and stopped by SIGUSR1 on every rank (SLURM's preemption signal) after the 4th evaluation of
# the steady shape case: exit 75 with the notice, then --resume ends at the reference's design.
add_test(NAME optim_signal_np2
         COMMAND ${FG_PYTHON} ${FG_OPT_DIR}/resume.py --flowgrad $<TARGET_FILE:flowgrad> --mpiexec ${MPIEXEC_EXECUTABLE}
                 "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}" --np 2 --case ${FG_OPT_DIR}/shape.yaml --kill-at 4 --signal
                 --workdir ${CMAKE_CURRENT_BINARY_DIR} --rtol 1e-8 --python ${FG_PYTHON}
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(optim_signal_np2 PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS "mpi;optim")

# Two flow conditions with weights 1 and 2 and a lift constraint at each (its own adjoint per
# point): J = J(re80) + 2 J(re120) on every row of the history; J falls.
fg_optim_run(NAME multipoint NP 1 CASE ${FG_OPT_DIR}/multipoint.yaml CHECK --min-decrease 0.05 --max-violation 1e-3 --min-iterations 2)
add_test(NAME optim_multipoint_sum COMMAND ${FG_OPT_CHECK} multipoint optim_multipoint_np1 WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(optim_multipoint_np1 PROPERTIES FIXTURES_SETUP fg_optim_mp)
set_tests_properties(optim_multipoint_sum PROPERTIES FIXTURES_REQUIRED fg_optim_mp LABELS optim)

# Bad optimization input: exit 2 and a message naming the file, line and key (1 and 2 ranks).
set(_fg_shape ${FG_OPT_DIR}/shape.yaml)
fg_case_expect(NAME optim_bounds_crossed NP "1;2" CODE 2 ARGS optimize ${_fg_shape} --set "design.lower=[0.8,-0.15]"
               REGEX [=[shape\.yaml:19: design\.upper: body\.cyl\.shape\.r0: the lower bound 0\.8 is above the upper bound 0\.7 \(design\.lower, design\.upper\)]=])
fg_case_expect(NAME optim_start_outside NP 1 CODE 2 ARGS optimize ${_fg_shape} --set "design.lower=[0.6,-0.15]" --set output.dir=optim_start_outside
               REGEX [=[design\.parameters: design\.lower/design\.upper: the initial value 0\.5 of body\.cyl\.shape\.r0 is outside its bounds \(0\.6 is the bound it passes\)]=])
fg_case_expect(NAME optim_unknown_block NP "1;2" CODE 2 ARGS optimize ${_fg_shape} --set "design.parameters=[body.cyl.shape.r0,body.cyl.wobble]" --set output.dir=optim_unknown_block
               REGEX [=[--set design\.parameters=.*: unknown design parameter 'body\.cyl\.wobble' \(the design parameters: flow\.nu, ]=])
fg_case_expect(NAME optim_missing_body NP "1;2" CODE 2 ARGS optimize ${_fg_shape} --set constraints.area.body=wing
               REGEX [=[--set constraints\.area\.body=wing: the case has no body wing \(its bodies: cyl\)]=])
fg_case_expect(NAME optim_bad_bound NP 1 CODE 2 ARGS optimize ${_fg_shape} --set "design.scale=[-1]"
               REGEX [=[--set design\.scale=\[-1\]: entry 1 \(body\.cyl\.shape\.r0\): -1 must be > 0]=])
# An evaluation that fails (here the flow blows up at dt = 5) names the design it failed at before
# the error's own line, at 1 and 2 ranks, and exits with the error's code (3: numeric).
fg_case_expect(NAME optim_eval_failed NP "1;2" CODE 3 ARGS optimize ${_fg_shape} --set time.dt=5 --set output.dir=optim_eval_failed -fg_fftw_planner estimate
               REGEX [=[flowgrad optimize: evaluation 0 failed at the design body\.cyl\.shape\.r0 = 0\.5, body\.cyl\.shape\.a2 = 0 \(the evaluations before it are in ]=])
fg_case_expect(NAME optim_type_constraints NP 1 CODE 2 ARGS optimize ${_fg_shape} --set optimizer.type=blmvm --set output.dir=optim_type_constraints
               REGEX [=[--set optimizer\.type=blmvm: blmvm cannot handle constraints, and the case has 1 \(constraints\.\*\): use almm or penalty \(or auto\)]=])
fg_case_expect(NAME optim_resume_nothing NP 1 CODE 2 ARGS optimize ${_fg_shape} --resume --set output.dir=optim_resume_nothing
               REGEX [=[--resume: .*optim_resume_nothing/optimization/evaluations holds no evaluations of an earlier run: nothing to resume]=])
fg_case_expect(NAME optim_point_design NP 1 CODE 2 ARGS optimize ${FG_OPT_DIR}/multipoint.yaml --set "points.re80.set=[design.time_basis=2]"
               REGEX [=[points\.re80\.set.*: entry 1 'design\.time_basis=2': a point sets its flow condition; design keys are the optimization's own]=])

# Example 4 (system identification), reduced: cases/sysid on a 64 x 32 grid (h = D/4), 200 steps;
# the records from flowgrad run at nu = 0.01, U = 1, then 6 iterations from 30 % off: J falls by
# at least 99 % (measured 99.99 %) and nu, U come within 1 % (measured 0.13 %, 0.006 %).
set(_fg_sysid_small --set "grid.cells=[64,32]" --set time.steps=200)
add_test(NAME optim_sysid_truth
         COMMAND $<TARGET_FILE:flowgrad> run ${PROJECT_SOURCE_DIR}/cases/sysid/truth.yaml ${_fg_sysid_small} --set output.dir=optim_sysid_truth -fg_fftw_planner estimate
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(optim_sysid_truth PROPERTIES FIXTURES_SETUP fg_optim_sysid LABELS optim)
fg_optim_run(NAME sysid NP 1 CASE ${PROJECT_SOURCE_DIR}/cases/sysid/sysid.yaml CHECK --min-decrease 0.99 --min-iterations 6
             ARGS ${_fg_sysid_small} --set optimizer.max_iterations=6 --set objective.near.observations=optim_sysid_truth/history.csv
                  --set objective.far.observations=optim_sysid_truth/history.csv)
set_tests_properties(optim_sysid_np1 PROPERTIES FIXTURES_REQUIRED fg_optim_sysid)
# A trial design whose flow blows up does not end the run (src/optim/evaluate.c): the same, with
# time.cfl_max 0.08, so that the blow-up guard of the forward runs (twice it: CFL 0.16) refuses an
# inflow speed above ~0.84 (the start 0.7 has CFL 0.134, the truth 1.0 0.20). TAO's first steps
# reach for ~1.0 and fail; told f_a + |g_a . (x - x_a)| there, the line search takes about a tenth
# of the step and goes on: 3 iterations, J down by at least 40 % (measured 57 %), every failure
# named and logged; killed after evaluation 6 (3 failures logged by then) and resumed, the run
# replays them and ends at the uninterrupted run's design (measured: identical).
set(_fg_sysid_fail ${_fg_sysid_small} --set time.cfl_max=0.08 --set optimizer.max_iterations=3
    --set objective.near.observations=optim_sysid_truth/history.csv --set objective.far.observations=optim_sysid_truth/history.csv)
foreach(np 1 2)
  fg_optim_run(NAME failed_trial NP ${np} CASE ${PROJECT_SOURCE_DIR}/cases/sysid/sysid.yaml
               COUNT "TAO takes a shorter step .failure 1 in a row of at most 5." 1 100 "^  eval +[0-9]+: failed: the flow blew up" 1 100
               CHECK --min-decrease 0.4 --min-iterations 3 ARGS ${_fg_sysid_fail})
  set_tests_properties(optim_failed_trial_np${np} PROPERTIES FIXTURES_REQUIRED fg_optim_sysid)
endforeach()
# ... and where every step TAO tries fails (the guard at 1 + 5e-7 of the start's CFL number), the
# sixth failure in a row stops the run: exit 3, naming the design and the count.
fg_case_expect(NAME optim_failed_trial_limit NP 1 CODE 3 REGEX "flowgrad optimize: 5 failed trial designs in a row before this one: stopping"
               ARGS optimize ${PROJECT_SOURCE_DIR}/cases/sysid/sysid.yaml --set output.dir=optim_failed_trial_limit ${_fg_sysid_fail} --set time.cfl_max=0.06683664 -fg_fftw_planner estimate)
set_tests_properties(case_optim_failed_trial_limit_np1 PROPERTIES FIXTURES_REQUIRED fg_optim_sysid)
add_test(NAME optim_failed_trial_resume_np1
         COMMAND ${FG_PYTHON} ${FG_OPT_DIR}/resume.py --flowgrad $<TARGET_FILE:flowgrad> --mpiexec ${MPIEXEC_EXECUTABLE}
                 "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}" --np 1 --case ${PROJECT_SOURCE_DIR}/cases/sysid/sysid.yaml --kill-at 6
                 --tag optim_failed_trial_resume_np1 --workdir ${CMAKE_CURRENT_BINARY_DIR} --rtol 1e-12 --python ${FG_PYTHON} ${_fg_sysid_fail}
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(optim_failed_trial_resume_np1 PROPERTIES TIMEOUT 300 FIXTURES_REQUIRED fg_optim_sysid LABELS "mpi;optim")
add_test(NAME optim_sysid_values COMMAND ${FG_PYTHON} ${PROJECT_SOURCE_DIR}/postproc/optimization_summary.py optim_sysid_np1
                                         --expect flow.nu=0.01:0.01 --expect flow.inflow_speed=1:0.01
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(optim_sysid_np1 PROPERTIES FIXTURES_SETUP fg_optim_sysid2)
set_tests_properties(optim_sysid_values PROPERTIES FIXTURES_REQUIRED fg_optim_sysid2 LABELS optim)

# Example 5 (topology), reduced: cases/topology_bend on a 24 x 24 grid, 12 iterations from the
# uniform rho = 0.5: the dissipated power falls by at least 30 % (measured 94.6 %) with the fluid
# fraction <= 0.5 within optimizer.constraint_tol.
add_test(NAME optim_topology_rho0
         COMMAND ${FG_PYTHON} -c "import h5py, numpy; h5py.File('optim_topology_rho0.h5', 'w').create_dataset('rho', data=numpy.full((24, 24), 0.5))"
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(optim_topology_rho0 PROPERTIES FIXTURES_SETUP fg_optim_topology LABELS optim)
fg_optim_run(NAME topology NP 1 CASE ${PROJECT_SOURCE_DIR}/cases/topology_bend/topology_bend.yaml CHECK --min-decrease 0.3 --max-violation 1e-3 --min-iterations 12
             ARGS --set "grid.cells=[24,24]" --set time.dt=0.005 --set time.steps=400 --set body.topo.density_file=optim_topology_rho0.h5
                  --set optimizer.max_iterations=12)
set_tests_properties(optim_topology_np1 PROPERTIES FIXTURES_REQUIRED fg_optim_topology)
# The infeasible and the impossible volume fraction: exit 2 naming the key.
fg_case_expect(NAME optim_fraction_infeasible NP "1;2" CODE 2 ARGS optimize ${PROJECT_SOURCE_DIR}/cases/topology_bend/topology_bend.yaml --set constraints.fluid.value=1.2
               REGEX [=[--set constraints\.fluid\.value=1\.2: 1\.2: a volume fraction must be in \(0, 1\): no design can meet this constraint]=])
fg_case_expect(NAME optim_fraction_fixed NP 1 CODE 2 ARGS optimize ${PROJECT_SOURCE_DIR}/cases/topology_bend/topology_bend.yaml --set "design.parameters=[flow.nu]" --set "grid.cells=[24,24]"
                    --set body.topo.density_file=optim_topology_rho0.h5 --set output.dir=optim_fraction_fixed
               REGEX [=[constraints\.fluid: body topo's density is not a design parameter \(add body\.topo\.density to design\.parameters\): its volume fraction cannot change to meet the constraint]=])
set_tests_properties(case_optim_fraction_fixed_np1 PROPERTIES FIXTURES_REQUIRED fg_optim_topology)

# Example 2 (NACA 0012 at 4 degrees, drag at lift >= initial and thickness >= 8 %), reduced:
# cases/naca_lift on a 96 x 56 grid (h = c/12), 2 iterations: the drag falls by at least 0.3 %
# (measured 1.73 %, 17 evaluations) with the lift at least its initial value and the thickness
# rows held to optimizer.constraint_tol (measured: lift +20 %, the largest violation 7.5e-4).
# The lift constraint's forward reuses the drag's steady state at every evaluation (measured: 17
# kept states, 17 transients with Newton, in 17 evaluations; before, 34 transients), and both
# adjoints the Oseen solve Newton set up (34 adjoints; before, each set up its own).
fg_optim_run(NAME naca NP 1 CASE ${PROJECT_SOURCE_DIR}/cases/naca_lift/naca_lift.yaml
             COUNT "^steady: the steady state of this design, kept from its last forward" 10 25
                   "^steady: converged after [0-9]+ steps" 10 25
                   "^steady adjoint: KSP \\(adjoint_\\) preconditioned by this steady state's Oseen solve \\(kept" 20 50
                   "^steady adjoint: KSP \\(adjoint_\\) preconditioned by the Oseen solve" 0 0
             CHECK --min-decrease 0.003 --max-violation 1e-3 --min-iterations 2
             ARGS --set "grid.cells=[96,56]" --set optimizer.max_iterations=2 -adjoint_ksp_rtol 1e-8)

# Example 3, reduced (cases/cylinder_control: rotary control of a shedding cylinder at Re 100):
# the case's files on a 96 x 48 grid over 12 x 6 (h = D/8, dt 0.05), developed from a uniform flow
# to t = 40 (the fixture: shedding, Cl between -0.95 and 0.41 over t in [30, 40], St 0.194 on this
# grid), then 6 time units of control (~1.2 shedding periods; Omega(t) through 8 values), the lift
# variance over [1.5, 6] plus the case's control cost, 3 iterations. J falls by at least 90 %:
# measured 98.66 % (J 0.2543 -> 3.42e-3; already 81.5 % after the first iteration, so the bound
# leaves room for round-off and build differences while still failing an optimizer that barely
# moves). The fixture and the optimization take ~2 s on one core.
set(FG_OPT_CTL ${PROJECT_SOURCE_DIR}/cases/cylinder_control)
set(FG_OPT_CTL_GRID --set grid.cells=[96,48] --set grid.lengths=[12,6] --set body.cyl.position=[3,3.05] --set probe.wake.at=[5,3.05] --set time.dt=0.05)
set(FG_OPT_CTL_RUN --set time.steps=120 --set objective.lift.window=[1.5,6] --set design.time_basis=8 --set optimizer.max_iterations=3)
add_test(NAME optim_cylinder_control_setup
         COMMAND $<TARGET_FILE:flowgrad> run ${FG_OPT_CTL}/develop.yaml ${FG_OPT_CTL_GRID} --set time.steps=800 --set output.dir=optim_cylinder_control_develop -fg_fftw_planner estimate
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(optim_cylinder_control_setup PROPERTIES FIXTURES_SETUP fg_optim_ctl TIMEOUT 60 LABELS optim)
fg_optim_run(NAME cylinder_control NP 1 CASE ${FG_OPT_CTL}/cylinder_control.yaml CHECK --min-decrease 0.9 --min-iterations 3
             ARGS ${FG_OPT_CTL_GRID} ${FG_OPT_CTL_RUN} --set initial.file=optim_cylinder_control_develop/fields/fields_000800.h5)
set_tests_properties(optim_cylinder_control_np1 PROPERTIES FIXTURES_REQUIRED fg_optim_ctl TIMEOUT 60)
# The case's own script (cases/cylinder_control/run.sh: develop, optimize, flowgrad run of the initial
# and the optimized design with body.cyl.rotation_rate_values, measure.py) on the same reduced case:
# each run reproduces the optimizer's J to 1e-6 (measured 7.6e-16), and the lift's standard
# deviation and peak-to-peak range over the window fall by at least 50 % (measured 88.5 % and 81.1 %).
string(REPLACE ";" " " _fg_ctl_grid "${FG_OPT_CTL_GRID}")
string(REPLACE ";" " " _fg_ctl_run "${FG_OPT_CTL_RUN}")
add_test(NAME optim_cylinder_control_script COMMAND /bin/bash ${FG_OPT_CTL}/run.sh WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(optim_cylinder_control_script PROPERTIES TIMEOUT 60 LABELS optim
  ENVIRONMENT "FLOWGRAD=$<TARGET_FILE:flowgrad>;PYTHON=${FG_PYTHON};NP=1;OUT=optim_cylinder_control_script;MIN_REDUCTION=0.5;DEVELOP_SET=${_fg_ctl_grid} --set time.steps=800;CONTROL_SET=${_fg_ctl_grid} ${_fg_ctl_run}")
if(FLOWGRAD_SANITIZE)
  set_tests_properties(optim_cylinder_control_setup PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  set_property(TEST optim_cylinder_control_script APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()

# flowgrad check, part 4: the geometric constraint rows' gradients against central differences
# (1e-6): the area and centroid of a Fourier body and the thickness of a CST section at three
# stations (tests/optim/geometry.yaml; 95 checks with J's), and the volume fraction of the
# topology example's density (its largest-gradient cell; Taylor steps from 0.05, since J = 77 is
# large against the change a small step makes), at 1 and 2 ranks.
fg_case_expect(NAME optim_check_geometry NP 1 2 CODE 0 REGEX "^flowgrad check: 95 checks, 0 failed"
               ARGS check ${FG_OPT_DIR}/geometry.yaml --set output.dir=optim_check_geometry -fg_fftw_planner estimate)
fg_case_expect(NAME optim_check_fraction NP 1 2 CODE 0 REGEX "^flowgrad check: 13 checks, 0 failed"
               ARGS check ${PROJECT_SOURCE_DIR}/cases/topology_bend/topology_bend.yaml --set "grid.cells=[24,24]" --set time.dt=0.005 --set time.steps=400
                    --set body.topo.density_file=optim_topology_rho0.h5 --set output.dir=optim_check_fraction -fg_fftw_planner estimate -fg_check_taylor_eps 0.05)
foreach(np 1 2)
  set_tests_properties(case_optim_check_geometry_np${np} case_optim_check_fraction_np${np} PROPERTIES TIMEOUT 300 LABELS "mpi;optim")
  set_tests_properties(case_optim_check_fraction_np${np} PROPERTIES FIXTURES_REQUIRED fg_optim_topology)
endforeach()

# The quick start's main job (.ci/quickstart.sh, issue 22): converged, every constraint within its
# tolerance, said plainly; the case file's comment tells the iteration count.
add_test(NAME quickstart_status
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/optim/quickstart_status.py $<TARGET_FILE:flowgrad> ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/quickstart_status ${MPIEXEC_EXECUTABLE} ${FLOWGRAD_MPIEXEC_FLAGS})
set_tests_properties(quickstart_status PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS "optim;quickstart")
