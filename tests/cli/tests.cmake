# The flowgrad command line: help, version, usage errors, the subcommand not built yet, and `run`
# end to end (exit code, output files, blow-up detection). Uses fg_case_expect from
# tests/case/tests.cmake (exit code + a message printed exactly once).
set(FG_CAVITY ${PROJECT_SOURCE_DIR}/cases/cavity/cavity.yaml)

fg_case_expect(NAME cli_help NP 1 CODE 0 REGEX "^Usage:" ARGS --help)
fg_case_expect(NAME cli_version NP 1 CODE 0 REGEX "^  PETSc 3\\.[0-9]+\\.[0-9]+, HDF5 [0-9.]+, fftw-3" ARGS --version)
fg_case_expect(NAME cli_no_command NP 1 CODE 2 REGEX "no command given" ARGS)
fg_case_expect(NAME cli_unknown_command NP 1 2 CODE 2 REGEX "unknown command 'frobnicate'" ARGS frobnicate ${FG_CAVITY})
fg_case_expect(NAME cli_unknown_option NP 1 CODE 2 REGEX "unknown option '--frob'" ARGS info ${FG_CAVITY} --frob)
fg_case_expect(NAME cli_no_case_file NP 1 CODE 2 REGEX "flowgrad run: no case file given" ARGS run)
fg_case_expect(NAME cli_two_case_files NP 1 CODE 2 REGEX "unexpected argument" ARGS run ${FG_CAVITY} ${FG_CAVITY})
fg_case_expect(NAME cli_set_missing_value NP 1 CODE 2 REGEX "--set needs an argument" ARGS run ${FG_CAVITY} --set)
# optimize on a case without a design: exit 2 naming design.parameters
fg_case_expect(NAME cli_optimize_no_design NP 1 2 CODE 2 REGEX "cavity\\.yaml: design\\.parameters is empty: flowgrad optimize has nothing to optimize"
               ARGS optimize ${FG_CAVITY} --set "design.parameters=[]" --set output.dir=cli_optimize)
fg_case_expect(NAME cli_unused_petsc_option NP 1 CODE 0 REGEX "PETSc option -poisson_ksp_rtoll was not used"
               ARGS run ${FG_CAVITY} --set time.steps=2 --set output.dir=cli_unused -poisson_ksp_rtoll 1e-3)

# A far too large dt: exit 3 (numerical failure) with a message naming time.cfl_max / time.dt.
fg_case_expect(NAME cli_run_blowup NP 1 2 CODE 3 REGEX "exceeds time.cfl_max|blew up"
               ARGS run ${FG_CAVITY} --set time.dt=0.5 --set time.steps=50 --set output.monitor_every=1
                    --set output.dir=cli_blowup)

# The guard counts the flow's faces only. 2D-2 at D/40 with a sharp wall (lines), from rest: the
# first projection leaves u = 3.1 on faces inside the body (the CFL number 1.42 counting them, 1.14
# without, the next step 1.20), which the next stage's penalization resets: it runs at 1.3.
fg_case_expect(NAME cli_run_cfl_inside_body NP 1 2 CODE 0 REGEX "^step      0/2  t 0\\.000000e\\+00  dt 1\\.000e-03  CFL 1\\.14[0-9]"
               ARGS run ${PROJECT_SOURCE_DIR}/tests/validation/schafer_turek_re100_sharp.yaml --set grid.cells=[880,0]
                    --set grid.stretch.y.h_min=0.0025 --set time.dt=1e-3 --set time.steps=2 --set time.cfl_max=1.3
                    --set body.cyl.apertures=true --set body.cyl.line_flux=true --set body.cyl.shared_ghost=true
                    --set poisson.type=ksp --set output.monitor_every=1 --set output.dir=cli_cfl_inside_body)

# run end to end, 2D (fftw and ksp) and 3D, then check its files.
foreach(np 1 2)
  foreach(variant fftw ksp)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/cli_run_${variant}_np${np})
    fg_case_expect(NAME cli_run_${variant} NP ${np} CODE 0 REGEX "^flowgrad run: 40 steps in"
                   ARGS run ${FG_CAVITY} --set time.steps=40 --set output.fields_every=20
                        --set poisson.type=${variant} --set poisson.rtol=1e-13 --set output.dir=${dir})
    add_test(NAME cli_run_${variant}_files_np${np} COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/cli/check_run.py ${dir} 40 2)
    set_tests_properties(cli_run_${variant}_files_np${np} PROPERTIES DEPENDS case_cli_run_${variant}_np${np} LABELS cli)
  endforeach()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/cli_run_3d_np${np})
  fg_case_expect(NAME cli_run_3d NP ${np} CODE 0 REGEX "^flowgrad run: 10 steps in"
                 ARGS run ${FG_CAVITY} --set grid.cells=[16,16,16] --set grid.lengths=[1,1,1]
                      --set boundary.y_hi.velocity=[1,0,0] --set time.steps=10 --set output.dir=${dir})
  add_test(NAME cli_run_3d_files_np${np} COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/cli/check_run.py ${dir} 10 3)
  set_tests_properties(cli_run_3d_files_np${np} PROPERTIES DEPENDS case_cli_run_3d_np${np} LABELS cli)
endforeach()

# -poisson_ksp_rtol (PETSc option) loosens the KSP tolerance: the true-residual guard follows it.
fg_case_expect(NAME cli_ksp_rtol_option NP 1 2 CODE 0 REGEX "^flowgrad run: 30 steps in"
               ARGS run ${FG_CAVITY} --set time.steps=30 --set poisson.type=ksp --set output.dir=cli_ksp_rtol -poisson_ksp_rtol 1e-5)

# A PETSc option whose value does not parse (read when its solver is set up, not at the start) is
# a usage error on every rank alike: one line naming the option, exit 2 (it was an "internal
# error", exit 1, and an MPI_Abort on 2 ranks).
fg_case_expect(NAME cli_ksp_option_not_real NP 1 2 CODE 2 REGEX "^flowgrad: error: -poisson_ksp_rtol foo: Input string foo has no numeric value$"
               ARGS run ${FG_CAVITY} --set time.steps=1 --set poisson.type=ksp --set output.dir=cli_ksp_notreal -poisson_ksp_rtol foo)
fg_case_expect(NAME cli_ksp_option_not_int NP 2 CODE 2 REGEX "^flowgrad: error: -poisson_ksp_max_it 1x: Input string 1x has no integer value"
               ARGS run ${FG_CAVITY} --set time.steps=1 --set poisson.type=ksp --set output.dir=cli_ksp_notint -poisson_ksp_max_it 1x)

# In 2D on cells longer than 3:1 GAMG gets the threshold 0.05 (src/pressure/poisson_ksp.c: 63 -> 20
# iterations per solve at aspect 16); on square cells, and in 3D, PETSc's default stays.
fg_case_expect(NAME cli_ksp_gamg_threshold_aniso NP 1 2 CODE 0 REGEX "2D cells up to 4\\.00:1: GAMG threshold 0\\.05 "
               ARGS info ${FG_CAVITY} --set grid.cells=[16,64] --set poisson.type=ksp -info :pc)
fg_case_expect(NAME cli_ksp_gamg_threshold_square NP 1 CODE 0 REGEX "2D cells up to 1\\.00:1: GAMG with PETSc's default threshold"
               ARGS info ${FG_CAVITY} --set grid.cells=[32,32] --set poisson.type=ksp -info :pc)

# -poisson_pc_type mg: levels the grid cannot be halved into, or no Galerkin coarse operators, are
# refused in one line (exit 2) instead of failing inside PETSc's DMDA interpolation or KSPSetUp.
fg_case_expect(NAME cli_ksp_mg_levels_bad NP 1 2 CODE 2 REGEX "-poisson_pc_mg_levels 4: the geometric multigrid halves the cells 3 times, so the cells along each direction must be a multiple of 8 \\(x has 30\\)"
               ARGS run ${FG_CAVITY} --set grid.cells=[30,30] --set time.steps=1 --set poisson.type=ksp --set output.dir=cli_mg_bad
                    -poisson_pc_type mg -poisson_pc_mg_levels 4 -poisson_pc_mg_galerkin both)
fg_case_expect(NAME cli_ksp_mg_no_galerkin NP 1 CODE 2 REGEX "-poisson_pc_type mg with 2 levels: flowgrad assembles the finest operator only. add -poisson_pc_mg_galerkin both"
               ARGS run ${FG_CAVITY} --set grid.cells=[32,32] --set time.steps=1 --set poisson.type=ksp --set output.dir=cli_mg_nogal
                    -poisson_pc_type mg -poisson_pc_mg_levels 2)
fg_case_expect(NAME cli_ksp_mg_ok NP 1 2 CODE 0 REGEX "^flowgrad run: 2 steps in"
               ARGS run ${FG_CAVITY} --set grid.cells=[32,32] --set time.steps=2 --set poisson.type=ksp --set output.dir=cli_mg_ok
                    -poisson_pc_type mg -poisson_pc_mg_levels 4 -poisson_pc_mg_galerkin both)

# A dt beyond the viscous stability limit with time.viscous: explicit: a warning up front, then
# the blow-up guard (exit 3). With the default (auto) the same case takes the implicit viscous
# term and runs (dt 1.3 times the limit).
fg_case_expect(NAME cli_run_viscous_limit NP 1 CODE 3 REGEX "exceeds time.cfl_max|blew up"
               ARGS run ${FG_CAVITY} --set grid.cells=[128,128] --set time.dt=2.5e-3 --set time.steps=400 --set time.viscous=explicit
                    --set output.monitor_every=1 --set output.dir=cli_viscous)
# flowgrad info says which scheme auto picks and how its Helmholtz problems are solved.
fg_case_expect(NAME cli_info_viscous_af NP 1 CODE 0 REGEX [=[dt / limit = 1\.3\); viscous term: implicit \(Crank-Nicolson per stage, approximately factored Helmholtz solves\)]=]
               ARGS info ${FG_CAVITY} --set grid.cells=[128,128] --set time.dt=2.5e-3)
fg_case_expect(NAME cli_info_viscous_direct NP 1 CODE 0 REGEX [=[viscous term: implicit \(Crank-Nicolson per stage, direct Helmholtz solves\)]=]
               ARGS info ${FG_CAVITY} --set grid.cells=[128,128] --set time.dt=2.5e-3 -fg_viscous_solver direct)
fg_case_expect(NAME cli_bad_viscous_solver NP 2 CODE 2 REGEX "-fg_viscous_solver bogus: unknown solver \\(af, direct, ksp\\)"
               ARGS info ${FG_CAVITY} --set time.viscous=implicit -fg_viscous_solver bogus)
fg_case_expect(NAME cli_info_viscous_ksp NP 1 CODE 0 REGEX [=[viscous term: implicit \(Crank-Nicolson per stage, CG Helmholtz solves\)]=]
               ARGS info ${FG_CAVITY} --set grid.cells=[128,128] --set time.dt=2.5e-3 --set poisson.type=ksp)
fg_case_expect(NAME cli_run_viscous_auto NP 1 CODE 0 REGEX "viscous term implicit"
               ARGS run ${FG_CAVITY} --set grid.cells=[128,128] --set time.dt=2.5e-3 --set time.steps=40
                    --set output.dir=cli_viscous_auto)

# Boundary fluxes that balance at t = 0 (so the set-up check passes) but not later: a modulated
# inflow against a fixed outgoing velocity. The monitor's divergence guard stops it (exit 3).
fg_case_expect(NAME cli_run_unbalanced_flux NP 1 2 CODE 3 REGEX "the velocity is not divergence free at step 5.*the boundary fluxes do not balance"
               ARGS run ${PROJECT_SOURCE_DIR}/cases/channel/channel.yaml --set grid.cells=[64,16]
                    --set boundary.x_lo.profile=uniform --set boundary.x_lo.velocity=[1,0]
                    --set boundary.x_hi.type=inflow --set boundary.x_hi.velocity=[1,0]
                    --set time.steps=50 --set output.monitor_every=5 --set output.dir=cli_unbalanced)

# -help lists every -fg_* option with its description (tests/cli/check_help.py: the options are
# found in src/ as PetscOptionsBegin-block registrations; none may be read outside one; test hooks
# are -fg_test_* and say TEST ONLY).
add_test(NAME cli_help_options
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/cli/check_help.py ${PROJECT_SOURCE_DIR} --
                 $<TARGET_FILE:flowgrad> run ${FG_CAVITY} --set time.steps=2 --set grid.cells=[16,16]
                 --set output.dir=cli_help_options -help)
set_tests_properties(cli_help_options PROPERTIES LABELS cli TIMEOUT 120)
