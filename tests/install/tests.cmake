# Install and link (issue 22): cmake --install into a temporary prefix, then a program outside the
# project built against it through find_package(flowgrad) and through pkg-config, whose J and
# dJ/dp must equal the installed `flowgrad adjoint`'s (tests/install/check_install.py).
# Not in the sanitizer build: an outside program would have to link the sanitizer runtimes too.
if(NOT FLOWGRAD_SANITIZE)
  add_test(NAME install_external
           COMMAND ${FG_PYTHON} ${FG_TEST_DIR}/install/check_install.py ${PROJECT_BINARY_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/install_external ${FG_TEST_DIR}/adjoint/cylinder.yaml 2
                   ${MPIEXEC_EXECUTABLE} ${FLOWGRAD_MPIEXEC_FLAGS})
  set_tests_properties(install_external PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS "install")
endif()
