// Bias correction (planner/quant/bias_correction.h) on a hand-checkable conv: the shift the
// calibrator derives from the weights' rounding error and the mean input each weight meets, the
// int32 bias it sets from it and the float bias it leaves alone (the run file's key:
// quant_inputs_test.cpp ConfigErrorsNameTheKey).
#include <gtest/gtest.h>

#include <vector>

#include "planner/quant/calibrator.h"
#include "tests/e2e/quant_graph_util.h"

namespace strider {
namespace {

using namespace quant_test;

// One input channel of two values x = (2, 4), a constant input (its float values kept), into a
// 1x2 conv with one zero of padding on the left: output position 0 reads (pad 0, x0 = 2), position
// 1 reads (x0 = 2, x1 = 4). The weights w = (1.0, 0.3) and bias 0.5, float.
Graph padded_conv() {
  Graph g;
  const int x = tensor(g, "x", {1, 1, 1, 2}, 0), y = tensor(g, "y", {1, 1, 1, 2}, 0);
  g.tensors[size_t(x)].float_data = {2.0f, 4.0f};
  Node n = node("conv", OpType::kConv, {x}, y);
  n.kernel_w = 2;
  n.pad_left = 1;
  n.weights = parameter(g, "w", TensorKind::kWeight, {1, 1, 1, 2}, {1.0f, 0.3f});
  n.bias = parameter(g, "b", TensorKind::kBias, {1, 1, 1, 1}, {0.5f});
  g.add_node(n);
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

TEST(BiasCorrection, CalibratorSubtractsTheMeanRoundingErrorFromTheInt32Bias) {
  Graph g = padded_conv();
  CalibrationOptions opt;
  opt.method = "minmax";
  calibrate(&g, opt);
  const Tensor& b = g.tensors[size_t(g.nodes[0].bias)];
  // Weight scale max |w| / 127 = 1/127: int8 (127, round(38.1) = 38), so Wq - W = (0, 38/127 -
  // 0.3f) = (0, -0.1/127 - 1.19e-8) = (0, -7.874134e-4). Mean input per weight over the two
  // output positions: (0 + 2) / 2 = 1 and (2 + 4) / 2 = 3. Shift = 0 x 1 - 7.874134e-4 x 3 =
  // -2.362240e-3.
  ASSERT_EQ(b.bias_shift.size(), 1u);
  EXPECT_NEAR(b.bias_shift[0], -2.362240e-3, 1e-9);
  // Input scale max |x| / 127 = 4/127, so the bias is at s_acc = (4/127)(1/127) = 4/16129:
  // (0.5 + 2.362240e-3) / (4/16129) = 2025.65 -> 2026 (uncorrected: 0.5 x 16129/4 = 2016.1).
  EXPECT_EQ(b.bias, (std::vector<int32_t>{2026}));
  EXPECT_EQ(b.float_data, (std::vector<float>{0.5f}));  // the float network keeps its bias
  EXPECT_EQ(g.calibration_method, "minmax, bias correction");
}

TEST(BiasCorrection, OffLeavesTheBiasAsRounded) {
  Graph g = padded_conv();
  CalibrationOptions opt;
  opt.method = "minmax";
  opt.bias_correction = false;
  calibrate(&g, opt);
  const Tensor& b = g.tensors[size_t(g.nodes[0].bias)];
  EXPECT_TRUE(b.bias_shift.empty());
  EXPECT_EQ(b.bias, (std::vector<int32_t>{2016}));  // 0.5 x 16129 / 4 = 2016.125
  EXPECT_EQ(g.calibration_method, "minmax");
}

TEST(BiasCorrection, WeightsThatRoundExactlyGetNoShift) {
  Graph g = padded_conv();
  g.tensors[size_t(g.nodes[0].weights)].float_data = {1.0f, 0.0f};  // int8 127 and 0: exact
  calibrate(&g, CalibrationOptions{});
  EXPECT_TRUE(g.tensors[size_t(g.nodes[0].bias)].bias_shift.empty());
}

}  // namespace
}  // namespace strider
