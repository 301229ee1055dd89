# Case-file tests (src/case): the unit test, bad input through the flowgrad executable (exit code 2
# and a message that names the file, line and key, once, at 1 and 2 ranks), and the README table.
#
#   ctest -R case --output-on-failure
set(FG_CASE_TESTS ${CMAKE_CURRENT_SOURCE_DIR}/case)
set(FG_CASE_BAD ${FG_CASE_TESTS}/bad)
set(FG_CASE_GOOD ${FG_CASE_TESTS}/good.yaml)

fg_add_test_exe(NAME test_case SOURCES ${FG_CASE_TESTS}/test_case.c)
fg_add_mpi_test(NAME case_unit NP 1 3 COMMAND test_case LABELS case TIMEOUT 120)

# fg_case_expect(NAME <name> NP <n...> CODE <exit code> REGEX <regex> ARGS <flowgrad arguments...>)
#   One test per rank count, case_<name>_np<n>: `mpiexec -n <n> flowgrad ARGS` must exit with
#   exactly CODE and print exactly one line matching REGEX (tests/case/expect_exit.sh). mpiexec
#   runs inside the driver, so the test sees what a user sees: the job's exit code and its output.
#   REGEX is one CMake argument: a ';' in it would split it and the test would match only the part
#   before it, so write '.' where the message has a semicolon.
function(fg_case_expect)
  cmake_parse_arguments(A "" "NAME;CODE;REGEX" "NP;ARGS" ${ARGN})
  foreach(np IN LISTS A_NP)
    set(t case_${A_NAME}_np${np})
    add_test(NAME ${t}
             COMMAND /bin/sh ${FG_CASE_TESTS}/expect_exit.sh ${A_CODE} ${A_REGEX} --
                     ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${FLOWGRAD_MPIEXEC_FLAGS}
                     $<TARGET_FILE:flowgrad> ${A_ARGS}
             WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    # the rank counts of one test share its arguments, output.dir among them: never at once (a
    # run at 1 rank and one at 2 writing one directory side by side failed now and then)
    set_tests_properties(${t} PROPERTIES TIMEOUT 60 PROCESSORS ${np} LABELS "mpi;case" RESOURCE_LOCK case_${A_NAME})
    if(FLOWGRAD_SANITIZE)
      set_tests_properties(${t} PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
    endif()
  endforeach()
endfunction()

# A bad case file: `flowgrad info tests/case/bad/<file>.yaml` exits 2 with "<file>.yaml:<line>: <key>: ...".
function(fg_case_bad name np regex)
  fg_case_expect(NAME bad_${name} NP ${np} CODE 2 REGEX "${regex}" ARGS info ${FG_CASE_BAD}/${name}.yaml)
endfunction()

# A file over 1 MiB, made here rather than kept in the repository.
set(FG_CASE_LARGE ${CMAKE_CURRENT_BINARY_DIR}/case_too_large.yaml)
if(NOT EXISTS ${FG_CASE_LARGE})
  string(REPEAT "# padding: a case file is at most 1 MiB, and this one is larger than that.....\n" 14000 _pad)
  file(WRITE ${FG_CASE_LARGE} "${_pad}")
endif()

# keys, types and ranges
fg_case_bad(unknown_key      "1;2" [=[unknown_key\.yaml:3: grid\.cels: unknown key \(did you mean grid\.cells\?\)]=])
fg_case_bad(unknown_section  1     [=[unknown_section\.yaml:4: optimiser: unknown key \(did you mean optimizer\?\)]=])
fg_case_bad(duplicate_key    "1;2" [=[duplicate_key\.yaml:4: grid\.cells: duplicate key \(first at line 2\)]=])
fg_case_bad(string_for_int   1     [=[string_for_int\.yaml:5: time\.steps: expected an integer, got 'ten']=])
fg_case_bad(quoted_number    1     [=[quoted_number\.yaml:4: time\.dt: expected a real number, got the quoted string "0\.01"]=])
fg_case_bad(bool_garbage     1     [=[bool_garbage\.yaml:4: grid\.periodic\[0\]: expected true or false, got 'yes']=])
fg_case_bad(negative_cells   1     [=[negative_cells\.yaml:2: grid\.cells\[1\]: -16 is out of range \(must be in \[0, 1048576\]\)]=])
fg_case_bad(zero_cells       1     [=[zero_cells\.yaml:2: grid\.cells\[0\]: 0 is out of range \(must be in \[2, 1048576\]\)]=])
fg_case_bad(dt_zero          1     [=[dt_zero\.yaml:4: time\.dt: 0 is out of range \(must be > 0\)]=])
fg_case_bad(int_overflow     1     [=[int_overflow\.yaml:5: time\.steps: 4294967296 does not fit in an integer]=])
fg_case_bad(nan              1     [=[nan\.yaml:4: time\.dt: '\.nan': not a finite number]=])
fg_case_bad(trailing_junk    1     [=[trailing_junk\.yaml:4: time\.dt: expected a real number, got '1e-3s']=])
fg_case_bad(bad_enum         1     [=[bad_enum\.yaml:5: poisson\.type: expected one of fftw, ksp; got 'fft' \(did you mean fftw\?\)]=])
fg_case_bad(list_length      1     [=[list_length\.yaml:3: grid\.lengths: 3 entries, but grid\.cells has 2]=])
fg_case_bad(missing_required "1;2" [=[missing_required\.yaml:3: time\.dt: missing required key: give time\.dt or time\.cfl \(section time has neither\)]=])
# structure, YAML and the file itself
fg_case_bad(section_scalar   1     [=[section_scalar\.yaml:3: time: expected a section \(a mapping of keys\), got a scalar '10']=])
fg_case_bad(toplevel_list    1     [=[toplevel_list\.yaml:1: the case file must be a mapping of keys]=])
fg_case_bad(not_yaml         "1;2" [=[not_yaml\.yaml:2:1: YAML syntax error: did not find expected <document start>]=])
fg_case_bad(syntax_error     1     [=[syntax_error\.yaml:3:10: YAML syntax error: did not find expected ',' or '.']=])
fg_case_bad(multiple_docs    "1;2" [=[multiple_docs\.yaml:4: a second YAML document]=])
fg_case_bad(empty            "1;2" [=[empty\.yaml:1: empty case file]=])
fg_case_bad(binary           "1;2" [=[binary\.yaml:1: not a text file: .*\(a binary file\?\)]=])
fg_case_bad(latin1           1     [=[latin1\.yaml:1: not UTF-8 text: invalid byte 0xe9]=])
fg_case_expect(NAME bad_missing_file NP 1 2 CODE 2 REGEX [=[does_not_exist\.yaml: cannot open the case file: No such file or directory]=]
               ARGS info ${FG_CASE_BAD}/does_not_exist.yaml)
fg_case_expect(NAME bad_directory NP 1 2 CODE 2 REGEX [=[case/bad: is a directory, not a case file]=]
               ARGS info ${FG_CASE_BAD})
fg_case_expect(NAME bad_too_large NP 1 2 CODE 2 REGEX [=[case_too_large\.yaml: too large \([0-9]+ bytes; a case file is at most 1 MiB\)]=]
               ARGS info ${FG_CASE_LARGE})
# cross-checks
fg_case_bad(periodic_wall    "1;2" [=[periodic_wall\.yaml:9: boundary\.x_lo\.type: wall, but x is periodic]=])
fg_case_bad(zface_2d         1     [=[zface_2d\.yaml:6: boundary\.z_lo\.type: z faces exist only in 3D cases]=])
fg_case_bad(velocity_on_wall 1     [=[velocity_on_wall\.yaml:6: boundary\.y_lo\.velocity: only lid and inflow faces have a velocity]=])
fg_case_bad(lid_normal       1     [=[lid_normal\.yaml:7: boundary\.y_hi\.velocity: a lid moves in its own plane: the normal \(y\) component must be 0, got 0\.5]=])
fg_case_bad(nu_re_disagree   1     [=[nu_re_disagree\.yaml:3: flow\.re: re = 100 disagrees with nu = 0\.1]=])
# --set
fg_case_expect(NAME set_bad_key NP 1 2 CODE 2 REGEX [=[--set grid\.cels=4: unknown key \(did you mean grid\.cells\?\)]=]
               ARGS info ${FG_CASE_GOOD} --set grid.cels=4)
fg_case_expect(NAME set_bad_value NP 1 CODE 2 REGEX [=[--set time\.dt=abc: expected a real number, got 'abc']=]
               ARGS info ${FG_CASE_GOOD} --set time.dt=abc)
fg_case_expect(NAME set_bad_list NP 1 CODE 2 REGEX [=[--set grid\.cells=\[0,16\]: grid\.cells\[0\]: 0 is out of range]=]
               ARGS info ${FG_CASE_GOOD} --set grid.cells=[0,16])
fg_case_expect(NAME set_no_equals NP 1 2 CODE 2 REGEX [=[--set time\.dt: expected KEY=VALUE \(no '='\)]=]
               ARGS info ${FG_CASE_GOOD} --set time.dt)
fg_case_expect(NAME set_section NP 1 CODE 2 REGEX [=[--set grid=4: grid is a section, not a key]=]
               ARGS info ${FG_CASE_GOOD} --set grid=4)
fg_case_expect(NAME set_syntax NP 1 CODE 2 REGEX [=[--set grid\.cells=\[16,: YAML syntax error in the value]=]
               ARGS info ${FG_CASE_GOOD} --set grid.cells=[16,)
# a band stretching whose side would need more than 1e8 cells (a huge length, found by the fuzzer):
# exit 2 naming the stretching's key, not a bare "stretching: more than 1e8 cells"
fg_case_expect(NAME stretch_too_many_cells NP 1 CODE 2 REGEX [=[stretched\.yaml:[0-9]+: grid\.stretch\.y\.type: the side of length 1e\+19 next to the band needs more than 1e8 cells]=]
               ARGS info ${PROJECT_SOURCE_DIR}/cases/cylinder_re40/stretched.yaml "--set" "grid.lengths=[32, 1e19]")
fg_case_expect(NAME set_cross_check NP 1 CODE 2 REGEX [=[--set boundary\.x_lo\.type=periodic: periodic, but x is not a periodic direction]=]
               ARGS info ${FG_CASE_GOOD} --set boundary.x_lo.type=periodic)
# the output directory
fg_case_expect(NAME outdir_unwritable NP 1 2 CODE 2
               REGEX [=[--set output\.dir=/proc/fg-no/x: cannot use /proc/fg-no/x as the output directory: cannot create directory /proc/fg-no]=]
               ARGS info ${FG_CASE_GOOD} --set output.dir=/proc/fg-no/x)
fg_case_expect(NAME outdir_under_file NP 1 CODE 2 REGEX [=[--set output\.dir=.*good\.yaml/out: cannot use .* as the output directory: .*good\.yaml exists and is not a directory]=]
               ARGS info ${FG_CASE_GOOD} --set output.dir=${FG_CASE_GOOD}/out)
# the control: a good case with overrides passes, and shows its resolved case
fg_case_expect(NAME info_good NP 1 2 CODE 0 REGEX [=[^  cells: \[32, 24\]$]=]
               ARGS info ${FG_CASE_GOOD} --set grid.cells=[32,24] --set output.dir=case_info_good.out)

# docs/case-files.md documents every key: its block equals `flowgrad info --keys`.
add_test(NAME case_keys_documented
         COMMAND ${FG_PYTHON} ${FG_CASE_TESTS}/check_keys_doc.py ${PROJECT_SOURCE_DIR}/docs/case-files.md --
                 ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 ${FLOWGRAD_MPIEXEC_FLAGS} $<TARGET_FILE:flowgrad> info --keys
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(case_keys_documented PROPERTIES TIMEOUT 60 LABELS "case")
if(FLOWGRAD_SANITIZE)
  set_tests_properties(case_keys_documented PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
# The documentation holds together: README.md at most 400 lines, every relative link and anchor of
# README.md and docs/*.md resolves, every document is listed, every case file named exists and
# `flowgrad info` accepts those README.md's commands run (tests/case/check_docs.py).
add_test(NAME docs_links COMMAND ${FG_PYTHON} ${FG_CASE_TESTS}/check_docs.py ${PROJECT_SOURCE_DIR} $<TARGET_FILE:flowgrad>)
set_tests_properties(docs_links PROPERTIES TIMEOUT 60 LABELS "case;docs")

# Found in review: inputs that must be refused up front (exit 2, file:line: key), not crash,
# hang or fail later with another code.
fg_case_bad(tag_on_section 1 [=[tag_on_section\.yaml:1: grid: YAML tags are not supported \(!foo\)]=])
fg_case_bad(merge_key 1 [=[merge_key\.yaml:6: boundary\.x_lo\.<<: YAML merge keys are not supported]=])
fg_case_bad(cr_line_ends 1 [=[cr_line_ends\.yaml:4: foo: unknown key]=])
set(FG_CASE_DEEP ${CMAKE_CURRENT_BINARY_DIR}/case_deep_nesting.yaml)
if(NOT EXISTS ${FG_CASE_DEEP})
  string(REPEAT "[" 100000 _deep)
  file(WRITE ${FG_CASE_DEEP} "grid: ${_deep}\n")
endif()
fg_case_expect(NAME bad_deep_nesting NP 1 2 CODE 2 REGEX [=[case_deep_nesting\.yaml:1: collections nested more than 32 deep]=]
               ARGS info ${FG_CASE_DEEP})
fg_case_expect(NAME bad_outflow_lo NP 1 CODE 2 REGEX [=[--set boundary\.x_lo\.type=outflow: outflow is supported on upper faces only]=]
               ARGS info ${FG_CASE_GOOD} --set boundary.x_lo.type=outflow)
fg_case_expect(NAME bad_too_many_cells NP 1 CODE 2 REGEX [=[--set grid\.cells=\[65536,65536\]: 4294967296 cells in all]=]
               ARGS info ${FG_CASE_GOOD} --set grid.cells=[65536,65536])
fg_case_expect(NAME bad_slabs NP 3 CODE 2 REGEX [=[grid\.cells=\[8,4\]: the FFT Poisson solver splits y \(4 cells\) into slabs.*gives planes to only 2 of the 3 ranks]=]
               ARGS info ${FG_CASE_GOOD} --set grid.cells=[8,4])
fg_case_expect(NAME bad_initial_file NP 1 2 CODE 2 REGEX [=[--set initial\.file=no/such/fields\.h5: cannot open no/such/fields\.h5: No such file or directory]=]
               ARGS info ${FG_CASE_GOOD} --set initial.type=file --set initial.file=no/such/fields.h5)
fg_case_expect(NAME bad_parabolic_periodic NP 1 CODE 2 REGEX [=[boundary\.x_lo\.profile=parabolic: parabolic across y, which is periodic]=]
               ARGS info ${PROJECT_SOURCE_DIR}/cases/channel/channel.yaml --set grid.periodic=[false,true]
                    --set boundary.y_lo.type=periodic --set boundary.y_hi.type=periodic --set boundary.x_lo.profile=parabolic)
fg_case_expect(NAME bad_net_inflow NP 1 2 CODE 2 REGEX [=[channel\.yaml: the boundary velocities carry a net flux of 1\.0[0-9]* into the domain, and no face is an outflow]=]
               ARGS run ${PROJECT_SOURCE_DIR}/cases/channel/channel.yaml --set boundary.x_hi.type=wall --set output.dir=case_net_inflow)
fg_case_expect(NAME bad_fftw_planner NP 1 2 CODE 2 REGEX [=[-fg_fftw_planner foo: unknown planner]=]
               ARGS run ${FG_CASE_GOOD} --set time.steps=1 --set output.dir=case_planner -fg_fftw_planner foo)
fg_case_expect(NAME bad_ksp_type NP 1 2 CODE 2 REGEX [=[Unable to find requested KSP type foo]=]
               ARGS run ${FG_CASE_GOOD} --set time.steps=1 --set poisson.type=ksp --set output.dir=case_ksptype -poisson_ksp_type foo)
fg_case_expect(NAME bad_options_file NP 1 CODE 2 REGEX [=[-options_file no/such/options: cannot read it]=]
               ARGS run ${FG_CASE_GOOD} -options_file no/such/options)
fg_case_expect(NAME bad_case_after_petsc_option NP 1 CODE 2 REGEX [=[no case file given .*the case file comes before the PETSc options]=]
               ARGS info -log_view ${FG_CASE_GOOD})

# Bodies, probes and actuators: instances the case file names (body.<body>.*), variable-length lists.
set(FG_CASE_BODIES ${FG_CASE_TESTS}/bodies.yaml)
fg_case_bad(body_bad_name           "1;2" [=[body_bad_name\.yaml:6: body: '2nd' is not a valid body name: a name is an identifier]=])
fg_case_bad(body_long_name          1     [=[body_long_name\.yaml:6: body: the body name 'a_name_that_is_far_too_long_for_it' is too long \(34 characters; at most 31\)]=])
fg_case_bad(body_not_mapping        1     [=[body_not_mapping\.yaml:6: body\.cyl: expected a section \(the keys of body cyl\), got a scalar 'circle']=])
fg_case_bad(probe_too_many          "1;2" [=[probe_too_many\.yaml:22: probe\.p17: too many probes \(at most 16\)]=])
fg_case_bad(body_missing_shape      1     [=[body_missing_shape\.yaml:6: body\.cyl\.shape: missing required key \(section body\.cyl has no shape\)]=])
fg_case_bad(body_missing_radius     "1;2" [=[body_missing_radius\.yaml:6: body\.cyl\.radius: missing required key \(section body\.cyl has no radius; required for circle bodies\)]=])
fg_case_bad(body_unknown_key        1     [=[body_unknown_key\.yaml:9: body\.cyl\.radus: unknown key \(did you mean body\.cyl\.radius\?\)]=])
fg_case_bad(body_radius_on_naca     1     [=[body_radius_on_naca\.yaml:10: body\.wing\.radius: radius applies to circle, sphere and fourier bodies; body\.wing is a naca body]=])
fg_case_bad(body_sphere_2d          "1;2" [=[body_sphere_2d\.yaml:7: body\.ball\.shape: sphere is a 3D shape, and this case is 2D]=])
fg_case_bad(density_position        1     [=[density_position\.yaml:9: body\.rho\.position: position does not apply to density bodies]=])
fg_case_bad(naca_too_thick          1     [=[naca_too_thick\.yaml:8: body\.wing\.naca: "0050": the thickness TT = 50 % of the chord must be in 01\.\.40]=])
fg_case_bad(naca_zero               1     [=[naca_zero\.yaml:8: body\.wing\.naca: "0000": the thickness TT = 00 % of the chord must be in 01\.\.40]=])
fg_case_bad(naca_not_digits         1     [=[naca_not_digits\.yaml:8: body\.wing\.naca: "00a2" is not a NACA 4-digit code: expected 4 digits MPTT]=])
fg_case_bad(naca_two_digits         1     [=[naca_two_digits\.yaml:8: body\.wing\.naca: "12" is not a NACA 4-digit code]=])
fg_case_bad(naca_no_camber_position 1     [=[naca_no_camber_position\.yaml:8: body\.wing\.naca: "4012": a cambered airfoil \(M = 4\) needs the position of its maximum camber, P, in 1\.\.9]=])
fg_case_bad(bspline_point_size      "1;2" [=[bspline_point_size\.yaml:12: body\.spline\.control_points\[2\]: 3 numbers, but a point has 2 coordinates \[x, y\]]=])
fg_case_bad(bspline_few_points      1     [=[bspline_few_points\.yaml:9: body\.spline\.control_points: 3 points; at least 4]=])
fg_case_bad(fourier_lengths         1     [=[fourier_lengths\.yaml:11: body\.star\.fourier_sin: 2 entries, but body\.star\.fourier_cos has 3 \(from .*fourier_lengths\.yaml:10: body\.star\.fourier_cos\)]=])
fg_case_bad(fourier_too_many        1     [=[fourier_too_many\.yaml:10: body\.star\.fourier_cos: 25 entries; at most 24]=])
fg_case_bad(cst_lengths             1     [=[cst_lengths\.yaml:10: body\.foil\.cst_lower: 1 entry, but body\.foil\.cst_upper has 2]=])
fg_case_bad(jet_lengths             1     [=[jet_lengths\.yaml:11: body\.cyl\.jet_amplitude: 1 entry, but body\.cyl\.jet_angles has 2]=])
fg_case_bad(ellipse_semi_axes       1     [=[ellipse_semi_axes\.yaml:9: body\.egg\.semi_axes: 3 entries, but an ellipse has 2 semi-axes \[a, b\]]=])
fg_case_bad(probe_missing_at        1     [=[probe_missing_at\.yaml:6: probe\.wake\.at: missing required key \(section probe\.wake has no at\)]=])
fg_case_expect(NAME set_missing_body NP 1 2 CODE 2 REGEX [=[--set body\.ball\.radius=1: the case has no body ball \(its bodies: cyl, wing, spline, foil, star, egg\)]=]
               ARGS info ${FG_CASE_BODIES} --set body.ball.radius=1)
fg_case_expect(NAME set_no_body_section NP 1 CODE 2 REGEX [=[--set body\.cyl\.radius=1: the case has no body section]=]
               ARGS info ${FG_CASE_GOOD} --set body.cyl.radius=1)
fg_case_expect(NAME set_body_not_applies NP 1 CODE 2 REGEX [=[--set body\.wing\.radius=1: radius applies to circle, sphere and fourier bodies; body\.wing is a naca body]=]
               ARGS info ${FG_CASE_BODIES} --set body.wing.radius=1)
fg_case_expect(NAME set_body_points NP 1 CODE 2 REGEX [=[--set body\.spline\.control_points=\[\[0,0\],\[1\]\]: 2 points; at least 4]=]
               ARGS info ${FG_CASE_BODIES} --set body.spline.control_points=[[0,0],[1]])
fg_case_expect(NAME set_body_point_size NP 1 CODE 2 REGEX [=[--set body\.spline\.control_points=\[\[0,0\],\[1\],\[1,1\],\[0,1\]\]: body\.spline\.control_points\[1\]: 1 number, but a point has 2 coordinates]=]
               ARGS info ${FG_CASE_BODIES} --set body.spline.control_points=[[0,0],[1],[1,1],[0,1]])
# the controls: cases with bodies pass, a --set changes a body, the lists print in flow style
fg_case_expect(NAME info_bodies NP 1 2 CODE 0 REGEX [=[^    radius: 0\.75$]=]
               ARGS info ${FG_CASE_BODIES} --set body.cyl.radius=0.75 --set output.dir=case_info_bodies.out)
fg_case_expect(NAME info_bodies_points NP 1 CODE 0 REGEX [=[^    control_points: \[\[0, 0\], \[1, 0\.2\], \[1, 1\], \[0, 1\]\]$]=]
               ARGS info ${FG_CASE_BODIES} --set output.dir=case_info_bodies.out)
fg_case_expect(NAME info_bodies3d NP 1 2 CODE 0 REGEX [=[^    naca: "2412"$]=]
               ARGS info ${FG_CASE_TESTS}/bodies3d.yaml --set output.dir=case_info_bodies3d.out)

# Objectives and the design vector (issue 5): objective.<objective>.*, design.parameters (a list
# of strings, each checked against the case), adjoint.*.
set(FG_CASE_OBJECTIVES ${FG_CASE_TESTS}/objectives.yaml)
fg_case_bad(objective_unknown_kind            1     [=[objective_unknown_kind\.yaml:9: objective\.cd\.kind: expected one of drag, lift, .*; got 'darg' \(did you mean drag\?\)]=])
fg_case_bad(objective_no_body                 "1;2" [=[objective_no_body\.yaml:9: objective\.cd\.body: missing required key: the case has 2 bodies \(cyl, wing\); name the one whose force the drag objective measures]=])
fg_case_bad(objective_bad_body                1     [=[objective_bad_body\.yaml:10: objective\.cl\.body: the case has no body cylinder \(its bodies: cyl\)]=])
fg_case_bad(objective_no_reference            1     [=[objective_no_reference\.yaml:10: objective\.dp\.probe: pressure_drop is p\(at\) - p\(reference\) of the probe, and probe\.wake has no reference point]=])
fg_case_bad(objective_target_file             1     [=[objective_target_file\.yaml:8: objective\.match\.target_file: cannot open no_such_fields_file\.h5: No such file or directory]=])
fg_case_bad(objective_window_after_run         1     [=[objective_window_after_run\.yaml:8: objective\.cd\.window: \[0\.5, 2\.?\]: the window ends after the run \(time\.steps \* time\.dt = 1\.?\)]=])
fg_case_bad(objective_region_length           1     [=[objective_region_length\.yaml:8: objective\.ke\.region: 6 entries, but a region in 2D is the lower corner, then the upper corner: 4 numbers]=])
fg_case_bad(objective_region_outside          "1;2" [=[objective_region_outside\.yaml:8: objective\.ens\.region: the region reaches outside the domain in y: \[1, 12\] is not within \[0, 10\]]=])
fg_case_bad(objective_target_and_observations 1     [=[objective_target_and_observations\.yaml:12: objective\.track\.observations: give target or observations, not both \(target from .*objective_target_and_observations\.yaml:11: objective\.track\.target\)]=])
fg_case_bad(objective_window_reversed         1     [=[objective_window_reversed\.yaml:8: objective\.ke\.window: \[0\.8, 0\.2\]: the window \[t0, t1\] must end after it starts \(t0 < t1\)]=])
fg_case_bad(objective_ramp_too_long           1     [=[objective_ramp_too_long\.yaml:9: objective\.ke\.ramp: 0\.4: the two ramps take 2\*ramp, longer than the window \[0\.2, 0\.8\] \(length 0\.6\)]=])
fg_case_bad(objective_instant_no_at           1     [=[objective_instant_no_at\.yaml:6: objective\.ke\.at: missing required key \(section objective\.ke has no at; required for time instant\)]=])
fg_case_bad(objective_window_final            "1;2" [=[objective_window_final\.yaml:9: objective\.ke\.window: window applies to time average only; objective\.ke has time final]=])
fg_case_bad(design_unknown                    "1;2" [=[design_unknown\.yaml:8: design\.parameters: unknown design parameter 'flow\.re' \(did you mean flow\.nu\?\)]=])
fg_case_bad(design_missing_body               1     [=[design_missing_body\.yaml:8: design\.parameters: body\.cylinder\.shape: the case has no body cylinder \(its bodies: cyl\)]=])
fg_case_bad(design_density_circle             1     [=[design_density_circle\.yaml:9: design\.parameters: body\.cyl\.density: body\.cyl is a circle body; only a density body has a per-cell density to design]=])
fg_case_bad(design_no_jets                    1     [=[design_no_jets\.yaml:10: design\.parameters: body\.cyl\.jet_amplitude: body\.cyl has no jets]=])
fg_case_bad(design_duplicate                  1     [=[design_duplicate\.yaml:11: design\.parameters: body\.cyl\.shape is listed twice \(entries 1 and 3\)]=])
fg_case_bad(design_inflow_speed               1     [=[design_inflow_speed\.yaml:8: design\.parameters: flow\.inflow_speed: the case has no inflow face with a nonzero velocity]=])
# controls in time given by their values at the basis' nodes (body.<b>.rotation_rate_values, jet_amplitude_values)
fg_case_expect(NAME control_values_basis NP 1 2 CODE 2 REGEX [=[--set body\.cyl\.rotation_rate_values=\[1,2\]: values in time need design\.time_basis >= 2 \(it is 1; a constant control is body\.cyl\.rotation_rate\)]=]
               ARGS info ${FG_CASE_OBJECTIVES} --set body.cyl.rotation_rate_values=[1,2])
fg_case_expect(NAME control_values_length NP 1 CODE 2 REGEX [=[--set body\.cyl\.rotation_rate_values=\[1,2\]: 2 entries, expected design\.time_basis = 3]=]
               ARGS info ${FG_CASE_OBJECTIVES} --set design.time_basis=3 --set body.cyl.rotation_rate_values=[1,2])
fg_case_expect(NAME control_values_jets NP 1 CODE 2 REGEX [=[--set body\.cyl\.jet_amplitude_values=\[1,2,3\]: 3 entries, expected 4: design\.time_basis = 2 values for each of the 2 jets]=]
               ARGS info ${FG_CASE_OBJECTIVES} --set design.time_basis=2 --set body.cyl.jet_amplitude_values=[1,2,3])
fg_case_expect(NAME set_design_bad NP 1 2 CODE 2 REGEX [=[--set design\.parameters=\[flow\.nu,body\.cyl\.density\]: body\.cyl\.density: body\.cyl is a circle body]=]
               ARGS info ${FG_CASE_OBJECTIVES} --set design.parameters=[flow.nu,body.cyl.density])
fg_case_expect(NAME set_objective_not_applies NP 1 CODE 2 REGEX [=[--set objective\.cl\.ramp=0\.1: ramp applies to time average only; objective\.cl has time final]=]
               ARGS info ${FG_CASE_OBJECTIVES} --set objective.cl.ramp=0.1)
# the controls: the objectives and the design pass, in the resolved case; --set changes the design
fg_case_expect(NAME info_objectives NP 1 2 CODE 0 REGEX [=[^  parameters: \["body\.cyl\.shape", "body\.cyl\.jet_amplitude", "actuator\.push\.force", "flow\.inflow_speed"\]$]=]
               ARGS info ${FG_CASE_OBJECTIVES} --set output.dir=case_info_objectives.out)
fg_case_expect(NAME info_set_design NP 1 2 CODE 0 REGEX [=[^  parameters: \["flow\.nu", "body\.cyl\.rotation_rate"\]$]=]
               ARGS info ${FG_CASE_OBJECTIVES} --set design.parameters=[flow.nu,body.cyl.rotation_rate] --set output.dir=case_info_objectives.out)
