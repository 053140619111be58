# onnx_conformance: ONNX's own backend test cases (Debian's libonnx-testdata, installed by
# scripts/setup.sh) through the importer and the float reference; exits 1 when a case Strider
# imports gives a wrong output or a case is refused without naming the operator. The table in
# docs/onnx-conformance.md is its --markdown output.
add_executable(onnx_conformance ${CMAKE_SOURCE_DIR}/tests/onnx_conformance/onnx_conformance.cpp)
target_link_libraries(onnx_conformance PRIVATE strider_import strider_quant)
set_target_properties(onnx_conformance PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
add_test(NAME onnx_conformance COMMAND onnx_conformance)
set_tests_properties(onnx_conformance PROPERTIES TIMEOUT 300)
# The table in docs/onnx-conformance.md is the program's output now (every status and refusal).
add_test(NAME onnx_conformance_table
         COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/onnx_conformance/check_table.py
                 $<TARGET_FILE:onnx_conformance> ${CMAKE_SOURCE_DIR}/docs/onnx-conformance.md)
set_tests_properties(onnx_conformance_table PROPERTIES TIMEOUT 300)
