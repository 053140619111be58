// Regression tests for inputs the ONNX fuzzer (fuzz/fuzz_onnx.cpp) found. Each must be refused
// with a std::runtime_error naming the file and the node, never crash or overflow (the sanitizer
// build, `make test-asan`, turns undefined behaviour into a failure).
//
// onnx_reshape_dim_overflow.onnx: a Reshape whose constant shape is
// [1, 2738188573441261570, 2147483652, 10, 12]; multiplying the known dims overflowed int64
// (import_reshape, `known *= d`, now in onnx_ops_layout.cpp).
// onnx_zero_dim_graph_input.onnx: a graph input 'fc.weight' of dims [0, 4] (a Gemm weight given
// as an input); checked_elements (onnx_tensor_decode.cpp) divided kMaxTensorElements by the
// running product, which the 0 made 0: division by zero.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "planner/import/onnx_importer.h"

namespace strider {
namespace {

std::string fuzz_input(const std::string& name) {
  return std::string(STRIDER_SOURCE_DIR) + "/tests/data/fuzz/" + name;
}

// The error message of importing `path`, or "" when it imported.
std::string import_error(const std::string& path) {
  try {
    import_onnx(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(FuzzRegressionOnnx, ReshapeWithOverflowingDimsIsRefused) {
  const std::string path = fuzz_input("onnx_reshape_dim_overflow.onnx");
  const std::string what = import_error(path);
  EXPECT_EQ(what.rfind(path + ": node ", 0), 0u) << what;
  EXPECT_NE(what.find("(Reshape)"), std::string::npos) << what;
}

TEST(FuzzRegressionOnnx, GraphInputWithAZeroDimIsRefused) {
  const std::string path = fuzz_input("onnx_zero_dim_graph_input.onnx");
  const std::string what = import_error(path);
  EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << what;
  EXPECT_NE(what.find("'fc.weight'"), std::string::npos) << what;
}

}  // namespace
}  // namespace strider
