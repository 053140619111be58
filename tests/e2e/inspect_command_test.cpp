// Tests of `strider inspect` (tb/inspect_command.cpp): JSON totals of the zoo, the table, the
// input size override and the usage errors.
#include "tb/inspect_command.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace strider {
namespace {

const std::string kNetworks = std::string(STRIDER_SOURCE_DIR) + "/configs/networks/";

struct Result {
  int status;
  std::string out, err;
};
Result inspect(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = inspect_command(args, out, err);
  return {status, out.str(), err.str()};
}

TEST(InspectCommand, JsonTotalsOfTheZoo) {
  struct Case {
    const char* network;
    int64_t macs, weights;
  };
  for (const Case& c :
       {Case{"resnet50", 4089184256, 25502912}, Case{"mobilenet_v2", 300774272, 3469760},
        Case{"inception_v3", 5713216096, 23799136}, Case{"googlenet", 1498376192, 6609344},
        Case{"densenet121", 2834161664, 7894208}}) {
    const Result r = inspect({kNetworks + c.network + ".onnx", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["macs"].get<int64_t>(), c.macs) << c.network;
    EXPECT_EQ(j["weights"].get<int64_t>(), c.weights) << c.network;
    EXPECT_TRUE(j["layers"].is_array());
  }
}

TEST(InspectCommand, TableAndInputOverride) {
  const Result r = inspect({kNetworks + "tiny_cnn.yaml", "--input", "64,48"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("network tiny_cnn: 10 layers, inputs 1x3x64x48, outputs 1x10x1x1"),
            std::string::npos);
  // conv1 at 64x48: 16*64*48*27 = 1,327,104 MACs
  EXPECT_NE(r.out.find("1,327,104"), std::string::npos);
  const Result j = inspect({kNetworks + "tiny_cnn.yaml", "--json"});
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["macs"].get<int64_t>(), 1254720);
  EXPECT_EQ(doc["weights"].get<int64_t>(), 5760);
  EXPECT_EQ(doc["layers"][0]["name"], "conv1");
  EXPECT_EQ(doc["layers"][0]["outputs"][0], "1x16x32x32");
  EXPECT_EQ(doc["layers"][0]["weight_bytes"].get<int64_t>(), 496);  // 432 + 16 * 4
}

// An already-quantised model (tests/e2e/data/tiny_qdq_cnn.onnx, QDQ form): its layers without
// the QuantizeLinear / DequantizeLinear nodes, and what the model quantised itself.
TEST(InspectCommand, QdqModelShowsItsOwnQuantisation) {
  const std::string path = std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/tiny_qdq_cnn.onnx";
  const Result r = inspect({path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("network tiny_qdq_cnn: 12 layers, inputs 1x3x16x16, outputs 1x10x1x1"),
            std::string::npos);
  // Scales: the input, the three ReLUs, the Add and the fc output; weights: 3 convs and the fc.
  EXPECT_NE(r.out.find("quantised by the model: 6 activation scales, 4 int8 weight tensors with "
                       "per-output-channel scales"),
            std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(inspect({path, "--json"}).out);
  // conv1 8 x 16 x 16 x 27 = 55,296; conv2 8 x 256 x 72 = 147,456; conv3 16 x 64 x 72 = 73,728;
  // fc 64 x 10 = 640: 277,120. Weights 216 + 576 + 1,152 + 640 = 2,584.
  EXPECT_EQ(j["macs"].get<int64_t>(), 277120);
  EXPECT_EQ(j["weights"].get<int64_t>(), 2584);
  EXPECT_EQ(j["model_quantisation"]["activation_scales"].get<int>(), 6);
  EXPECT_EQ(j["model_quantisation"]["weight_tensors"].get<int>(), 4);
  // /conv1/Relu's output scale is conv1.activation_post_process.scale (float32).
  EXPECT_EQ(j["layers"][1]["name"], "/conv1/Relu");
  EXPECT_EQ(j["layers"][1]["output_scale"].get<double>(), double(0.01732180453836918f));
  EXPECT_FALSE(j["layers"][0].contains("output_scale"));
}

// A usage error: status 2, the message and the usage line.
void expect_usage_error(const std::vector<std::string>& args, const std::string& message) {
  const Result r = inspect(args);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "strider inspect: " + message +
                       "\nusage: strider inspect NETWORK [--json] [--input H,W] [--batch N]\n");
}

TEST(InspectCommand, Errors) {
  expect_usage_error({}, "no network given");
  expect_usage_error({"a.onnx", "--input", "3x4"},
                     "--input '3x4' is not H,W with positive integers");
  expect_usage_error({"a.onnx", "--fast"}, "unknown option '--fast'");
  expect_usage_error({"a.onnx", "--batch", "0"}, "--batch '0' is not a positive integer");
  const Result r = inspect({"/nonexistent/a.onnx"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "strider inspect: /nonexistent/a.onnx: file not found\n");
}

// --batch binds the symbolic batch of an opset-9 model, which ONNX's version converter upgrades
// (the log says so); without it the error names the dim and the option.
TEST(InspectCommand, BatchBindsASymbolicBatch) {
  const std::string net = std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/opset9_cnn.onnx";
  Result r = inspect({net, "--batch", "4", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "warning: " + net +
                       ": converted from opset 9 to opset 11 by ONNX's version "
                       "converter\n");
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["macs"].get<int64_t>(), 4 * (221184 + 294912 + 160));
  r = inspect({net});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "strider inspect: " + net +
                       ": graph input 'x' dim 0 is symbolic ('N'): give "
                       "the batch (networks[].batch, or --batch N)\n");
}

}  // namespace
}  // namespace strider
