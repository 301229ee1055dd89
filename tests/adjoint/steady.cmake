# The steady adjoint (adjoint.mode: steady, src/adjoint/steady.c) on a Re 40 cylinder
# (tests/adjoint/steady.yaml: 64x48, 100 steps from rest, then Newton; drag and lift at the
# steady state; 6 design scalars: the shape, the viscosity, the inflow speed).
set(FG_ADJ_STEADY ${FG_TEST_DIR}/adjoint/steady.yaml)

# flowgrad adjoint in steady mode prints the adjoint KSP's converged reason; it writes the steady
# state (steady.h5) and the gradient, which the comparison below uses (the fixture).
fg_case_expect(NAME adjoint_steady NP 1 CODE 0 REGEX [=[^steady adjoint: KSP \(adjoint_\) CONVERGED_RTOL in [0-9]+ iterations]=]
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_ref -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_steady_np1 PROPERTIES FIXTURES_SETUP fg_adjoint_steady LABELS "mpi;adjoint")

# flowgrad check in steady mode: dot-product tests of the step at the end of the transient, the
# Taylor test and central differences (1e-6 relative) of the steady J, at 1 and 3 ranks.
fg_case_expect(NAME adjoint_steady_check NP 1 3 CODE 0 REGEX "^flowgrad check: 17 checks, 0 failed"
               ARGS check ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_check -fg_fftw_planner estimate)
foreach(np 1 3)
  set_tests_properties(case_adjoint_steady_check_np${np} PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint")
endforeach()

# The steady gradient against the unsteady adjoint of runs of 1200 and 6000 steps started from the
# steady state, objectives at the final time: the steady J and gradient equal the time-stepped
# ones to 1e-8 (measured at 6000 steps: gradient 6.8e-10, J 2.8e-13; 5.8e-5 at 2400 steps: the
# difference decays with the horizon, tests/adjoint/steady_vs_unsteady.py). The same from rest
# (--rest 7000, on demand: README) measured J 8.3e-13 and the gradient 5.5e-10 (1.4e-8 at 6000).
add_test(NAME adjoint_steady_vs_unsteady
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/adjoint/steady_vs_unsteady.py --flowgrad $<TARGET_FILE:flowgrad>
                 --mpiexec ${MPIEXEC_EXECUTABLE} "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}"
                 --case ${FG_ADJ_STEADY} --steady ${CMAKE_CURRENT_BINARY_DIR}/adjoint_steady_ref
                 --workdir ${CMAKE_CURRENT_BINARY_DIR} --steps 1200,6000 --rtol 1e-8
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(adjoint_steady_vs_unsteady PROPERTIES FIXTURES_REQUIRED fg_adjoint_steady TIMEOUT 300 LABELS "mpi;adjoint")

# adjoint.steady_dt: Newton's map and the steady adjoint at 1/5 of time.dt and at the auto step
# (src/adjoint/steady_pc.c, FGSteadyPCStep) give the J (1e-12) and gradient (1e-8) of time.dt in
# fewer Krylov iterations (measured: J to 2e-15, the gradient to 2e-11, 286 -> 186 iterations at 1
# rank, 268 -> 186 at 2; at time.dt / 10, 158), at 1 and 2 ranks.
foreach(np 1 2)
  add_test(NAME adjoint_steady_dt_np${np}
           COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/adjoint/steady_dt.py --flowgrad $<TARGET_FILE:flowgrad>
                   --mpiexec ${MPIEXEC_EXECUTABLE} "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}" --np ${np}
                   --case ${FG_ADJ_STEADY} --workdir ${CMAKE_CURRENT_BINARY_DIR}/adjoint_steady_dt_np${np} --time-dt 0.1 --steady-dt 0.02
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(adjoint_steady_dt_np${np} PROPERTIES PROCESSORS ${np} TIMEOUT 300 LABELS "mpi;adjoint")
endforeach()

# Grid sequencing (initial.type file from another grid: src/io/regrid.c interpolates u, v and p,
# the velocity is projected): the confined cylinder's steady state on 100 x 25 starts Newton on
# 200 x 50 after 10 steps, at 1 and 2 ranks. J and the gradient equal those from rest (600 steps)
# to 1e-8 (measured 3.5e-14 and 8e-11), in at most 3 Newton iterations (measured 3; 4 from rest).
add_test(NAME adjoint_steady_sequence
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/adjoint/steady_sequence.py --flowgrad $<TARGET_FILE:flowgrad>
                 --mpiexec ${MPIEXEC_EXECUTABLE} "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}"
                 --case ${FG_TEST_DIR}/adjoint/steady_confined.yaml --workdir ${CMAKE_CURRENT_BINARY_DIR}
                 --coarse 100,25 --fine 200,50 --case-dt 2e-3 --case-steps 300 --dt 1e-3 --steps 10 --np 1,2
                 --max-newton 3 --rtol 1e-8
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(adjoint_steady_sequence PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS "mpi;adjoint")

# The steady solver (Newton on SNES, GMRES right-preconditioned by the Oseen solve of
# src/adjoint/steady_pc.c) over a sweep of the radius of the confined cylinder of issue 20
# (tests/adjoint/steady_confined.yaml) on 100 x 25 cells, 11 radii from 0.045 to 0.055: every one
# converges with at most 100 Krylov iterations per Newton step and in the adjoint (measured
# 18-22); the middle radius on 200 x 50 (dt halved) with at most 2x the iterations (measured
# 0.85x). The full sweep (400 x 100, 21 radii, then 800 x 200) is bench/steady_sweep.sh.
add_test(NAME adjoint_steady_sweep
         COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/adjoint/steady_sweep.py --flowgrad $<TARGET_FILE:flowgrad>
                 --mpiexec ${MPIEXEC_EXECUTABLE} "--mpiexec-flags=${FLOWGRAD_MPIEXEC_FLAGS}"
                 --case ${FG_TEST_DIR}/adjoint/steady_confined.yaml --workdir ${CMAKE_CURRENT_BINARY_DIR}
                 --cells 100,25 --radii 0.045:0.055:11 --max-its 100 --refine --max-growth 2
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(adjoint_steady_sweep PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint")

# A KSP that cannot converge (2 iterations) exits 3 with its reason, for the adjoint and for
# Newton's linear solves.
fg_case_expect(NAME adjoint_steady_ksp_limited NP 1 CODE 3
               REGEX [=[steady adjoint: the KSP solve of \(I - F_x\^T\) mu = dJ/dx did not converge: DIVERGED_ITS after 2 iterations]=]
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_ksp_limited -fg_fftw_planner estimate -adjoint_ksp_max_it 2)
fg_case_expect(NAME adjoint_steady_newton_limited NP 1 CODE 3
               REGEX [=[steady: Newton's linear solve \(I - F_x\) dx = F\(x\) - x did not converge: DIVERGED_ITS after 2 iterations]=]
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_newton_limited -fg_fftw_planner estimate -steady_ksp_max_it 2)
# A linear solve that stalls (src/sys/ksp.c: its residual not halved in -<prefix>ksp_stall_its
# iterations) ends there: refused (above -<prefix>ksp_stall_rtol) with exit 3 naming the stall, for
# Newton and for the adjoint; accepted where the operator is singular on the right-hand side
# (tests/adjoint/steady_periodic.yaml without its null space, -fg_test_steady_no_nullspace: the fifth
# Newton solve stalls at |r|/|b| ~ 1e-9 after ~460 iterations, where it ran to 5000 and exit 3
# before) with the steady state of the run with the null space (5 Newton iterations, J to 9
# digits) at 1 and 2 ranks.
fg_case_expect(NAME adjoint_steady_newton_stalled NP 1 CODE 3
               REGEX [=[steady: Newton's linear solve \(I - F_x\) dx = F\(x\) - x stalled: \|r\| / \|b\| = [0-9.e+-]+ after 3 iterations]=]
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_newton_stalled -fg_fftw_planner estimate -steady_pc_type none -steady_ksp_stall_its 3)
fg_case_expect(NAME adjoint_steady_adjoint_stalled NP 1 CODE 3
               REGEX [=[steady adjoint: the KSP solve of \(I - F_x\^T\) mu = dJ/dx stalled: \|r\| / \|b\| = [0-9.e+-]+ after [0-9]+ iterations]=]
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_adjoint_stalled -fg_fftw_planner estimate -adjoint_pc_type none -adjoint_ksp_stall_its 3)
fg_case_expect(NAME adjoint_steady_stall_accepted NP 1 2 CODE 0
               REGEX [=[steady: converged after 100 steps and 5 Newton iterations \(.*\), J = 1\.13030855]=]
               ARGS adjoint ${FG_TEST_DIR}/adjoint/steady_periodic.yaml --set output.dir=adjoint_steady_stall_accepted -fg_fftw_planner estimate -fg_test_steady_no_nullspace)
# A bad stall option exits 2 naming it, before the transient (the adjoint's too).
fg_case_expect(NAME adjoint_steady_stall_bad_option NP 1 CODE 2
               REGEX [=[^flowgrad: error: -adjoint_ksp_stall_rtol 2\.?: must be in .0, 1.$]=]
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_stall_bad_option -fg_fftw_planner estimate -adjoint_ksp_stall_rtol 2)
# The unpreconditioned solver on request (-steady_pc_type none), named in the output.
fg_case_expect(NAME adjoint_steady_no_pc NP 1 CODE 0 REGEX [=[^steady: KSP \(steady_\) without a preconditioner \(-steady_pc_type shell: the Oseen solve\)]=]
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_no_pc -fg_fftw_planner estimate -steady_pc_type none)
# The default preconditioner follows the memory: the Oseen solve's LU (about 53 MiB for these
# 9216 unknowns, shared by the ranks) within 3/4 of -fg_memory_budget per rank. 60 MiB: not on 1
# rank (the fallback names the numbers), on 2 ranks.
fg_case_expect(NAME adjoint_steady_pc_memory_none NP 1 CODE 0
               REGEX [=[^steady: KSP \(steady_\) without a preconditioner: the Oseen solve's sparse LU \(9\.22e\+03 unknowns on 1 rank\) would need about 53 MiB per rank, more than 3/4 of the 60 MiB a rank may use]=]
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_pc_memory_none -fg_fftw_planner estimate -fg_memory_budget 60)
fg_case_expect(NAME adjoint_steady_pc_memory_shared NP 2 CODE 0
               REGEX [=[^steady: KSP \(steady_\) preconditioned by the Oseen solve]=]
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_pc_memory_shared -fg_fftw_planner estimate -fg_memory_budget 60)
# The adjoint reuses the forward's factored preconditioner whatever the budget says: it needs no
# more memory (a measured budget has the forward's factors taken out of it: 2D-1 at D/160, the
# forward's LU fitted and the adjoint then ran unpreconditioned, stalling). Forced on for Newton
# under a budget it does not fit.
fg_case_expect(NAME adjoint_steady_pc_memory_kept NP 1 CODE 0
               REGEX [=[^steady adjoint: KSP \(adjoint_\) preconditioned by this steady state's Oseen solve \(kept]=]
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_pc_memory_kept -fg_fftw_planner estimate -fg_memory_budget 60
                    -steady_pc_type shell)
# A step that varies in time has no fixed point: exit 2.
fg_case_expect(NAME adjoint_steady_unsteady_body NP 1 CODE 2 REGEX "adjoint.mode steady: body.cyl moves or varies in time"
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_unsteady_body --set body.cyl.rotation_amplitude=0.1
                    --set body.cyl.rotation_frequency=0.2)
# A bad mode: exit 2, naming file:line:key.
fg_case_expect(NAME adjoint_steady_bad_mode NP 1 CODE 2
               REGEX [=[steady_bad_mode\.yaml:6: adjoint\.mode: expected one of unsteady, steady; got 'foo']=]
               ARGS info ${FG_TEST_DIR}/adjoint/steady_bad_mode.yaml)

# flowgrad check in steady mode with a singular pressure Poisson problem (periodic in x, walls,
# a body: the constant pressure is in the null space of I - F_x and I - F_x^T).
fg_case_expect(NAME adjoint_steady_check_periodic NP 1 CODE 0 REGEX "^flowgrad check: 16 checks, 0 failed"
               ARGS check ${FG_TEST_DIR}/adjoint/steady_periodic.yaml --set output.dir=adjoint_steady_check_periodic -fg_fftw_planner estimate)
set_tests_properties(case_adjoint_steady_check_periodic_np1 PROPERTIES TIMEOUT 300 LABELS "mpi;adjoint")
# The steady adjoint keeps no history: --resume is refused (exit 2).
fg_case_expect(NAME adjoint_steady_resume NP 1 CODE 2 REGEX "--resume: adjoint.mode steady does not stop and resume"
               ARGS adjoint ${FG_ADJ_STEADY} --set output.dir=adjoint_steady_resume --resume)
