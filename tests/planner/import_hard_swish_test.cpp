// Hard-swish and hard-sigmoid written out as element-wise steps (x * Clip(x + 3, 0, 6) / 6 and
// Clip(x + 3, 0, 6) * (1/6); tests/planner/data/make_hard_swish_fixtures.py) import as the fused
// activations: the same IR and the same float values as the model written with HardSwish /
// HardSigmoid, and a step read by anything else is refused naming the form.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/import/onnx_importer.h"
#include "planner/ir/graph.h"
#include "planner/quant/float_reference.h"

namespace strider {
namespace {

const std::string kData = std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/";

std::vector<float> logits(const Graph& g) {
  FloatReference ref(g, std::vector<std::pair<float, float>>(g.nodes.size(), {0.0f, 0.0f}), 1);
  std::vector<float> image(3 * 16 * 16);
  for (size_t i = 0; i < image.size(); ++i) image[i] = float(i % 29) / 7.0f - 2.0f;
  ref.set_input(g.inputs.at(0), image);
  ref.run();
  return ref.value(g.outputs.at(0));
}

TEST(ImportHardSwish, WrittenOutIsTheFusedActivation) {
  const Graph steps = import_onnx(kData + "hard_swish_cnn.onnx");
  const Graph fused = import_onnx(kData + "hard_swish_cnn_fused.onnx");
  // conv1, hard-swish, conv2, hard-sigmoid, gate Mul, global average pool, flatten, fc.
  std::vector<std::string> ops;
  for (const Node& n : steps.nodes) {
    ops.push_back(std::string(to_string(n.op)) + "/" + to_string(n.activation));
  }
  ASSERT_EQ(ops.size(), fused.nodes.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops[i], std::string(to_string(fused.nodes[i].op)) + "/" +
                          to_string(fused.nodes[i].activation))
        << i;
  }
  EXPECT_EQ(steps.nodes[1].activation, Activation::kHardSwish);
  EXPECT_EQ(steps.nodes[3].activation, Activation::kHardSigmoid);
  EXPECT_EQ(steps.nodes[4].op, OpType::kMul);
  const std::vector<float> a = logits(steps), b = logits(fused);
  ASSERT_EQ(a.size(), 10u);
  EXPECT_EQ(a, b);  // the same ops on the same weights: the same bits
}

}  // namespace
}  // namespace strider
