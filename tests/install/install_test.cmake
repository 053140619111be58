# ctest install_package: `cmake --install` the build into WORK_DIR/prefix, then configure and build
# the consumer project (tests/install/consumer) against the installed Strider package and run it:
# it must print the version line, the seed arch's name, a quoted CSV row and a hash.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
foreach(f bin/strider lib/cmake/Strider/StriderConfig.cmake lib/libstrider_model.a
          include/strider/core/arch/arch_config.h include/strider/core/contract/descriptor.h
          share/strider/configs/arch/seed.yaml)
  if(NOT EXISTS ${WORK_DIR}/prefix/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# Installed headers include each other as "strider/...": nothing generic ("core/...") remains.
file(GLOB_RECURSE headers ${WORK_DIR}/prefix/include/strider/*.h)
foreach(h IN LISTS headers)
  file(STRINGS ${h} bad REGEX "#include \"(core|model|tb|planner)/")
  if(bad)
    message(FATAL_ERROR "${h}: includes a project header without strider/: ${bad}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${WORK_DIR}/consumer
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${CMAKE_COMMAND} -E env SC_COPYRIGHT_MESSAGE=DISABLE ${WORK_DIR}/consumer/consumer ${WORK_DIR}/prefix/share/strider/configs/arch/seed.yaml)
# af63dc4c8601ec8c: FNV-1a 64 of "a", the reference test vector.
if(NOT run_output MATCHES "^strider [0-9.]+ \\(git [^)]+\\)\nseed \"conv,1\",x af63dc4c8601ec8c\n$")
  message(FATAL_ERROR "unexpected consumer output: '${run_output}'")
endif()
message(STATUS "consumer: ${run_output}")

# The installed Python package runs the installed program. (No ';' in the code: run() would split
# the argument there.)
set(package ${WORK_DIR}/prefix/lib/python3/dist-packages)
if(EXISTS ${package}/strider/_paths.py)
  run(${CMAKE_COMMAND} -E env PYTHONPATH=${package} /usr/bin/python3 -c
      "import strider\nprint(strider.program())\nprint(strider.inspect('${SOURCE_DIR}/configs/networks/tiny_cnn.yaml')['macs'])")
  if(NOT run_output STREQUAL "${WORK_DIR}/prefix/bin/strider\n1254720\n")
    message(FATAL_ERROR "installed Python package: unexpected output '${run_output}'")
  endif()
endif()
