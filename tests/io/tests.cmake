# Field files (src/io): parallel HDF5 + XDMF sidecars. Everything runs in <build>/tests/io.
#
#   io_write_np3     writes io_fields_{2d,3d}.h5/.xmf on 3 ranks, slab decomposition (fixture io_fields)
#   io_read_np{1,2,4} read them back, block decomposition, bit for bit, with the attributes
#   io_xdmf_{2d,3d}  the sidecars are well-formed and match the HDF5 datasets (python + h5py)
#   io_errors_np{1,2} error classes and messages for bad writes and reads
#   io_regrid_np{1,3} fields read on another grid (interpolated), checksums, errors
#   io_h5, io_agree, io_table  the I/O foundation (HDF5 helpers, agreed verdicts, tables)
set(FG_IO_WORKDIR ${CMAKE_CURRENT_BINARY_DIR}/io)
file(MAKE_DIRECTORY ${FG_IO_WORKDIR})

fg_add_test_exe(NAME io_write_fields SOURCES ${FG_TEST_DIR}/io/write_fields.c)
fg_add_test_exe(NAME io_read_fields SOURCES ${FG_TEST_DIR}/io/read_fields.c)
fg_add_test_exe(NAME io_errors SOURCES ${FG_TEST_DIR}/io/io_errors.c)
fg_add_test_exe(NAME io_regrid SOURCES ${FG_TEST_DIR}/io/regrid.c)

fg_add_mpi_test(NAME io_write NP 3 COMMAND io_write_fields LABELS io TIMEOUT 120
                FIXTURES_SETUP io_fields WORKING_DIRECTORY ${FG_IO_WORKDIR})
fg_add_mpi_test(NAME io_read NP 1 2 4 COMMAND io_read_fields LABELS io TIMEOUT 120
                FIXTURES_REQUIRED io_fields WORKING_DIRECTORY ${FG_IO_WORKDIR})
fg_add_mpi_test(NAME io_errors NP 1 2 COMMAND io_errors LABELS io TIMEOUT 120
                WORKING_DIRECTORY ${FG_IO_WORKDIR})
# fields read on another grid of the same domain (initial.type file across grids: src/io/regrid.c)
fg_add_mpi_test(NAME io_regrid NP 1 3 COMMAND io_regrid LABELS io TIMEOUT 120
                WORKING_DIRECTORY ${FG_IO_WORKDIR})

foreach(d 2d 3d 2d_stretched 3d_stretched)
  add_test(NAME io_xdmf_${d}
           COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/io/check_xdmf.py --self-test io_fields_${d}.xmf
           WORKING_DIRECTORY ${FG_IO_WORKDIR})
  set_tests_properties(io_xdmf_${d} PROPERTIES FIXTURES_REQUIRED io_fields LABELS io TIMEOUT 60)
endforeach()

# ParaView's own XDMF readers (XDMFReader, Xdmf3ReaderS, Xdmf3ReaderT) open the sidecars, uniform
# and stretched, 2D and 3D, and see the file's values, centring, bounds and every point at the
# file's coordinates. Where ParaView (pvbatch) is installed: .ci/install-deps.sh --tests does.
find_program(FG_PVBATCH NAMES pvbatch)
if(FG_PVBATCH)
  add_test(NAME io_paraview
           COMMAND ${FG_PVBATCH} --force-offscreen-rendering ${FG_TEST_DIR}/io/check_paraview.py
                   io_fields_2d.xmf io_fields_3d.xmf io_fields_2d_stretched.xmf io_fields_3d_stretched.xmf
           WORKING_DIRECTORY ${FG_IO_WORKDIR})
  set_tests_properties(io_paraview PROPERTIES FIXTURES_REQUIRED io_fields LABELS io TIMEOUT 120)
  # flowgrad's own outputs as series (issue 22): a 2D run (the cavity, 3 outputs, made here), a 3D
  # run (the sphere of the postproc fixtures), a gradient and an optimization's iterations, in the
  # three readers: every step at its time, ranges equal to the files', x along X, the velocity a
  # vector that Stream Tracer and Glyph take (tests/io/check_paraview_series.py).
  add_test(NAME io_paraview_setup_run2
           COMMAND $<TARGET_FILE:flowgrad> run ${PROJECT_SOURCE_DIR}/cases/cavity/cavity.yaml --set grid.cells=[16,12]
                   --set grid.lengths=[1,0.75] --set time.steps=6 --set output.fields_every=2
                   --set output.dir=${CMAKE_CURRENT_BINARY_DIR}/io_paraview_run2)
  set_tests_properties(io_paraview_setup_run2 PROPERTIES FIXTURES_SETUP io_paraview_run2 LABELS io TIMEOUT 60)
  # With Xvfb (.ci/install-deps.sh --tests installs it) the check runs in pvpython on a virtual
  # display and also renders each output as the GUI shows it (--render); Debian's ParaView crashes
  # rendering offscreen, so pvbatch checks the data only. -noreset: by default Xvfb resets when its
  # last client disconnects, and VTK's OpenGL probe is a client that does; a loaded machine then
  # lets ParaView's next XOpenDisplay land in the reset ("bad X server connection", SIGABRT):
  # measured beside 3 busy loops on 2 cores, 3 of 4 runs aborted so, 0 of 6 with -noreset.
  find_program(FG_XVFB_RUN NAMES xvfb-run)
  find_program(FG_PVPYTHON NAMES pvpython)
  if(FG_XVFB_RUN AND FG_PVPYTHON)
    set(FG_PV_SERIES ${FG_XVFB_RUN} -a -s "-screen 0 1280x1024x24 -noreset" ${FG_PVPYTHON} ${FG_TEST_DIR}/io/check_paraview_series.py --render)
  else()
    set(FG_PV_SERIES ${FG_PVBATCH} --force-offscreen-rendering ${FG_TEST_DIR}/io/check_paraview_series.py)
  endif()
  add_test(NAME io_paraview_outputs
           COMMAND ${FG_PV_SERIES}
                   ${CMAKE_CURRENT_BINARY_DIR}/io_paraview_run2 ${CMAKE_CURRENT_BINARY_DIR}/postproc_data/sphere
                   ${CMAKE_CURRENT_BINARY_DIR}/postproc_data/adjoint ${CMAKE_CURRENT_BINARY_DIR}/optim_shape_np1)
  set_tests_properties(io_paraview_outputs PROPERTIES
                       FIXTURES_REQUIRED "io_paraview_run2;fg_post_sphere;fg_post_adjoint;fg_optim_shape1"
                       LABELS "io;paraview" TIMEOUT 300)
endif()

# The I/O foundation: the HDF5 helpers (src/io/h5.c) and FGIOReadCellField, the rank-0 file
# helpers with one verdict on every rank (src/io/agree.c), and tables (src/io/table.c: CSV, HDF5,
# streamed; the formats of optimization.csv/.h5 reproduced byte for byte).
fg_add_test_exe(NAME test_io_h5 SOURCES ${FG_TEST_DIR}/io/test_h5.c)
fg_add_test_exe(NAME test_io_agree SOURCES ${FG_TEST_DIR}/io/test_agree.c)
fg_add_test_exe(NAME test_io_table SOURCES ${FG_TEST_DIR}/io/test_table.c)
fg_add_mpi_test(NAME io_h5 NP 1 2 COMMAND test_io_h5 LABELS io TIMEOUT 120 WORKING_DIRECTORY ${FG_IO_WORKDIR})
fg_add_mpi_test(NAME io_agree NP 1 3 COMMAND test_io_agree LABELS io TIMEOUT 120 WORKING_DIRECTORY ${FG_IO_WORKDIR})
fg_add_mpi_test(NAME io_table NP 1 2 COMMAND test_io_table LABELS io TIMEOUT 120 WORKING_DIRECTORY ${FG_IO_WORKDIR})
