// The zoo in configs/networks (parameter-free torchvision exports, see scripts/export_models.py)
// imports with exactly the conv + fc MACs and weight elements of the PyTorch models at batch 1,
// which is what `strider inspect --json` reports.
#include <gtest/gtest.h>

#include "planner/import/network_loader.h"

namespace strider {
namespace {

struct ZooCase {
  const char* network;
  int64_t input_h, input_w;  // 0: the exported size (224, inception_v3 299)
  int64_t macs, weights;
  const char* output;
};

class OnnxZoo : public ::testing::TestWithParam<ZooCase> {};

TEST_P(OnnxZoo, MacsAndWeightsMatchPyTorch) {
  const ZooCase& c = GetParam();
  const std::string path =
      std::string(STRIDER_SOURCE_DIR) + "/configs/networks/" + c.network + ".onnx";
  const Graph g = import_network(path, c.input_h, c.input_w);
  const GraphTotals t = graph_totals(g);
  EXPECT_EQ(t.macs, c.macs);
  EXPECT_EQ(t.weights, c.weights);
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(to_string(g.tensors[g.outputs[0]].shape), c.output);
  ASSERT_EQ(g.inputs.size(), 1u);
}

// Figures from the issue (counted with forward hooks on the torchvision models); the last two
// rows check the input size override against the same hooks at 256x320 and 160x160.
INSTANTIATE_TEST_SUITE_P(
    Zoo, OnnxZoo,
    ::testing::Values(ZooCase{"resnet50", 0, 0, 4089184256, 25502912, "1x1000x1x1"},
                      ZooCase{"mobilenet_v2", 0, 0, 300774272, 3469760, "1x1000x1x1"},
                      ZooCase{"inception_v3", 0, 0, 5713216096, 23799136, "1x1000x1x1"},
                      ZooCase{"googlenet", 0, 0, 1498376192, 6609344, "1x1000x1x1"},
                      ZooCase{"densenet121", 0, 0, 2834161664, 7894208, "1x1000x1x1"},
                      ZooCase{"resnet50", 256, 320, 6674923520, 25502912, "1x1000x1x1"},
                      ZooCase{"mobilenet_v2", 160, 160, 154083200, 3469760, "1x1000x1x1"}),
    [](const ::testing::TestParamInfo<ZooCase>& info) {
      return std::string(info.param.network) + (info.param.input_h ? "_resized" : "");
    });

TEST(OnnxZooDensenet, UnfoldableBatchNormsBecomeFlaggedDepthwiseConvs) {
  // DenseNet's BN after each concat cannot fold into a conv: 62 depthwise 1x1 convs whose
  // 10,549,504 MACs the hardware executes but the model total leaves out.
  const Graph g =
      import_network(std::string(STRIDER_SOURCE_DIR) + "/configs/networks/densenet121.onnx");
  int flagged = 0;
  for (const Node& n : g.nodes) flagged += n.from_batchnorm;
  EXPECT_EQ(flagged, 62);
  const GraphTotals t = graph_totals(g);
  EXPECT_EQ(t.executed_macs - t.macs, 10549504);
}

}  // namespace
}  // namespace strider
