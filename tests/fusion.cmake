# Residual-Add fusion (planner/lower/legalise.h) against no fusion on every run file of
# configs/runs: never more cycles, DRAM or L2 bytes (under the sanitizers on the mapper test's
# four run files, MAPPER_RUNS of tests/mapper.cmake, included before this file).
add_test(NAME fusion_never_worse
         COMMAND ${CMAKE_SOURCE_DIR}/tests/fusion/fused_vs_unfused.sh $<TARGET_FILE:strider>
                 ${CMAKE_SOURCE_DIR} ${MAPPER_RUNS} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(fusion_never_worse PROPERTIES LABELS fusion TIMEOUT 900)
