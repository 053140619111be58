# The regression suite (configs/regression, see tb/regress_command.h): `strider regress` runs
# every case of suite.yaml in its own process and compares cycles and counters exactly with
# golden.yaml. Run it with `ctest -L regression`; after an intended timing change, refresh the
# goldens with `strider regress --update` and review the diff of golden.yaml.
add_test(NAME regression
         COMMAND strider regress --dir ${CMAKE_SOURCE_DIR}/configs/regression
                 --out ${CMAKE_BINARY_DIR}/regression -j 2
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(regression PROPERTIES LABELS regression TIMEOUT 900)

# The sweep and regress end-to-end tests (tests/e2e/sweep_*, regress_*) run the strider program
# as a child process, so it must be built before them.
if(TARGET e2e_tests AND TARGET strider)
  add_dependencies(e2e_tests strider)
endif()
