# The mapping search (planner/lower/mapper.h) against auto on every run file of configs/runs and
# every network of configs/networks/zoo
# (under the sanitizers, where a simulation is several times slower, on four of them).
set(MAPPER_RUNS "")
if(STRIDER_SANITIZE)
  set(MAPPER_RUNS resnet50 mobilenet_v2 googlenet default)
endif()
add_test(NAME mapper_search_vs_auto
         COMMAND ${CMAKE_SOURCE_DIR}/tests/mapper/search_vs_auto.sh $<TARGET_FILE:strider>
                 ${CMAKE_SOURCE_DIR} ${MAPPER_RUNS}
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(mapper_search_vs_auto PROPERTIES LABELS mapper TIMEOUT 900)
