// Import of already-quantised ONNX models (QDQ form, planner/import/onnx_ops_quant.cpp) and their
// calibration (planner/quant/calibrator.h step 0): hand-built models with known int8 weights and
// scales (tests/planner/data/qdq_int8.onnx, qdq_per_tensor.onnx: make_onnx_fixtures.py qdq()),
// PyTorch's own quantisation-aware export (tests/e2e/data/tiny_qdq_cnn.onnx, scripts/qdq_models.py)
// checked against its initializers read here independently, and every QDQ import error.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include "planner/import/onnx_importer.h"
#include "planner/lower/legalise.h"
#include "planner/quant/calibrator.h"
#include "core/contract/quant.h"
#include "tests/planner/import_test_util.h"
#include "tests/lib/error_text.h"

namespace strider {
namespace {

const std::string kData = std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/";
const std::string kTinyQdq = std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/tiny_qdq_cnn.onnx";

const Tensor& tensor_named(const Graph& g, const std::string& name) {
  const int t = g.find_tensor(name);
  if (t < 0) throw std::runtime_error("no tensor " + name);
  return g.tensors[size_t(t)];
}

std::vector<int> ints(const std::vector<int8_t>& v) { return std::vector<int>(v.begin(), v.end()); }

// As the run harness prepares a functional run (tb/run_harness.cpp load_checked).
void prepare(Graph* g) {
  materialise_parameters(g, 1);
  fuse_activations(g);
  calibrate(g, CalibrationOptions{1, 1});
}

TEST(ImportQdq, HandBuiltInt8WeightsKeepTheirValuesAndScales) {
  const Graph g = import_onnx(kData + "qdq_int8.onnx");
  // Every QuantizeLinear / DequantizeLinear vanished: conv, relu, flatten, fc.
  EXPECT_EQ(op_counts(g), (std::map<std::string, int>{
                              {"activation", 1}, {"conv", 1}, {"fc", 1}, {"reshape", 1}}));
  // Activation scales: x 0.05, relu output 0.1 (float32 values); the fc output has none.
  EXPECT_EQ(tensor_named(g, "x").scale, double(0.05f));
  EXPECT_EQ(tensor_named(g, "r").scale, double(0.1f));
  EXPECT_EQ(tensor_named(g, "o").scale, 0.0);
  // Conv weights: the int8 initializer [[-3, -2, -1], [0, 1, 2]] at 0.5 and 0.25 per channel.
  const Tensor& w = g.tensors[size_t(node_named(g, "conv").weights)];
  EXPECT_EQ(ints(w.data), (std::vector<int>{-3, -2, -1, 0, 1, 2}));
  EXPECT_EQ(w.channel_scales, (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(w.float_data, (std::vector<float>{-1.5f, -1.0f, -0.5f, 0.0f, 0.25f, 0.5f}));
  // Bias: int32 [40, -8] at 0.0125 -> 0.5, -0.1.
  const Tensor& b = g.tensors[size_t(node_named(g, "conv").bias)];
  EXPECT_EQ(b.float_data, (std::vector<float>{0.5f, -0.1f}));
  // Gemm transB = 0: [K = 4][N = 2] int8 [[1, -1], [2, -2], [127, -128], [0, 5]], scales per
  // column (axis 1, the output axis) 0.125, 0.0625 -> IR rows [1, 2, 127, 0], [-1, -2, -128, 5].
  const Tensor& f = g.tensors[size_t(node_named(g, "fc").weights)];
  EXPECT_EQ(ints(f.data), (std::vector<int>{1, 2, 127, 0, -1, -2, -128, 5}));
  EXPECT_EQ(f.channel_scales, (std::vector<double>{0.125, 0.0625}));
}

// The operator form (QLinearConv, QLinearMatMul; onnx_qoperator.h) of qdq_int8 without its ReLU
// imports with the same int8 weights, per-channel scales, bias and activation scales.
TEST(ImportQdq, OperatorFormImportsLikeQdq) {
  Graph g = import_onnx(kData + "qoperator_int8.onnx");
  EXPECT_EQ(op_counts(g), (std::map<std::string, int>{{"conv", 1}, {"fc", 1}, {"reshape", 1}}));
  const Node& conv = node_named(g, "conv");
  const Node& fc = node_named(g, "fc");
  EXPECT_EQ(tensor_named(g, "x").scale, double(0.05f));
  EXPECT_EQ(g.tensors[size_t(conv.outputs[0])].scale, double(0.1f));
  EXPECT_EQ(g.tensors[size_t(fc.outputs[0])].scale, double(0.5f));
  const Tensor& w = g.tensors[size_t(conv.weights)];
  EXPECT_EQ(ints(w.data), (std::vector<int>{-3, -2, -1, 0, 1, 2}));
  EXPECT_EQ(w.channel_scales, (std::vector<double>{0.5, 0.25}));
  // Bias int32 [40, -8] at s_x x s_w[o] = 0.05 x 0.5 = 0.025 and 0.0125 (float32 products):
  // 1.0 and -0.1.
  EXPECT_EQ(g.tensors[size_t(conv.bias)].float_data,
            (std::vector<float>{40 * (0.05f * 0.5f), -8 * (0.05f * 0.25f)}));
  // QLinearMatMul's B [K = 4][N = 2], per-column scales: IR rows [1, 2, 127, 0], [-1, -2, -128, 5].
  const Tensor& f = g.tensors[size_t(fc.weights)];
  EXPECT_EQ(ints(f.data), (std::vector<int>{1, 2, 127, 0, -1, -2, -128, 5}));
  EXPECT_EQ(f.channel_scales, (std::vector<double>{0.125, 0.0625}));
  // Calibration keeps every scale the model gave: nothing left to calibrate, no warning.
  prepare(&g);
  EXPECT_EQ(g.tensors[size_t(node_named(g, "fc").outputs[0])].scale, double(0.5f));
  EXPECT_TRUE(g.warnings.empty());
}

TEST(ImportQdq, FloatWeightsThroughQuantizeLinearRoundAsOnnx) {
  const Graph g = import_onnx(kData + "qdq_per_tensor.onnx");
  const Tensor& w = g.tensors[size_t(node_named(g, "conv").weights)];
  // x / 0.5 = 0.5, 1.5, -2.5, 200, -200, 2: half to even 0, 2, -2, saturated 127, -128, and 2.
  EXPECT_EQ(ints(w.data), (std::vector<int>{0, 2, -2, 127, -128, 2}));
  // One scale for the tensor: every output channel gets it.
  EXPECT_EQ(w.channel_scales, (std::vector<double>{0.5, 0.5}));
  // The float weights are the dequantised ones (what the model computes with).
  EXPECT_EQ(w.float_data, (std::vector<float>{0.0f, 1.0f, -1.0f, 63.5f, -64.0f, 1.0f}));
}

TEST(ImportQdq, CalibrationKeepsImportedScalesAndFillsTheRest) {
  Graph g = import_onnx(kData + "qdq_int8.onnx");
  prepare(&g);
  EXPECT_EQ(tensor_named(g, "x").scale, double(0.05f));
  EXPECT_EQ(tensor_named(g, "r").scale, double(0.1f));
  // Flatten is a view of r: it shares r's imported scale.
  EXPECT_EQ(tensor_named(g, "f").scale, double(0.1f));
  // The fc output, left unquantised by the model, is calibrated.
  EXPECT_GT(tensor_named(g, "o").scale, 0.0);
  const Node& conv = node_named(g, "conv");
  const Tensor& w = g.tensors[size_t(conv.weights)];
  EXPECT_EQ(ints(w.data), (std::vector<int>{-3, -2, -1, 0, 1, 2}));
  EXPECT_EQ(w.channel_scales, (std::vector<double>{0.5, 0.25}));
  // s_in x s_w[o] / s_out: 0.05 x 0.5 / 0.1 = 0.25 = 16384 / 2^16 and 0.05 x 0.25 / 0.1 =
  // 0.125 = 16384 / 2^17 (0.1f is exactly 2 x 0.05f).
  ASSERT_EQ(conv.channel_requant.size(), 2u);
  EXPECT_EQ(conv.channel_requant[0].multiplier, 16384);
  EXPECT_EQ(conv.channel_requant[0].shift, 16);
  EXPECT_EQ(conv.channel_requant[1].multiplier, 16384);
  EXPECT_EQ(conv.channel_requant[1].shift, 17);
  // Bias int32 = b / (s_in x s_w[o]): 0.5 / 0.025 = 20, -0.1 / 0.0125 = -8.
  EXPECT_EQ(g.tensors[size_t(conv.bias)].bias, (std::vector<int32_t>{20, -8}));
  EXPECT_TRUE(g.warnings.empty());
}

// tiny_qdq_cnn's initializers and QuantizeLinear nodes read with the ONNX protobuf.
struct OnnxFile {
  std::map<std::string, std::vector<float>> floats;  // float initializers
  std::map<std::string, std::string> alias;          // Identity outputs
  onnx::ModelProto model;
  explicit OnnxFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!model.ParseFromIstream(&in)) throw std::runtime_error("cannot read " + path);
    for (const onnx::TensorProto& t : model.graph().initializer()) {
      if (t.data_type() != onnx::TensorProto::FLOAT) continue;
      std::vector<float>& v = floats[t.name()];
      v.resize(t.raw_data().size() / 4);
      std::memcpy(v.data(), t.raw_data().data(), v.size() * 4);
    }
  }
};

// Each weight's int8 values are ONNX's QuantizeLinear of the float initializer: w / scale[o] in
// float, rounded half to even, saturated. numpy gives the same (float32 division, np.rint,
// np.clip): sum |int8| is 14300 (conv1), 38435 (conv2), 74145 (conv3), 39956 (fc), and conv1's
// first values are -1, 72, -110, -98, -51, 36, -3, 106. (Dividing in double instead changes
// 1 + 1 + 3 + 3 values.)
TEST(ImportQdq, PytorchQatModelImportsWithItsOwnScales) {
  const OnnxFile onnx_file(kTinyQdq);
  const Graph g = import_onnx(kTinyQdq);
  EXPECT_EQ(op_counts(g), (std::map<std::string, int>{{"activation", 3},
                                                      {"add", 1},
                                                      {"avgpool", 1},
                                                      {"conv", 3},
                                                      {"fc", 1},
                                                      {"maxpool", 1},
                                                      {"pad", 1},
                                                      {"reshape", 1}}));
  const std::map<std::string, int> abs_sums = {
      {"/conv1/Conv", 14300}, {"/conv2/Conv", 38435}, {"/conv3/Conv", 74145}, {"/fc/Gemm", 39956}};
  for (const auto& [name, abs_sum] : abs_sums) {
    const std::string layer = name.substr(1, name.find('/', 1) - 1);  // conv1, ..., fc
    const std::vector<float>& wf = onnx_file.floats.at(layer + ".weight");
    const std::vector<float>& sf = onnx_file.floats.at(layer + ".weight_fake_quant.scale");
    const Tensor& w = g.tensors[size_t(node_named(g, name).weights)];
    ASSERT_EQ(w.channel_scales.size(), sf.size()) << name;
    for (size_t o = 0; o < sf.size(); ++o) EXPECT_EQ(w.channel_scales[o], double(sf[o])) << name;
    ASSERT_EQ(w.data.size(), wf.size()) << name;
    const size_t per = wf.size() / sf.size();
    int sum = 0;
    for (size_t i = 0; i < wf.size(); ++i) {
      const float q = std::fmin(127.f, std::fmax(-128.f, std::nearbyint(wf[i] / sf[i / per])));
      EXPECT_EQ(int(w.data[i]), int(q)) << name << " element " << i;
      sum += std::abs(int(w.data[i]));
    }
    EXPECT_EQ(sum, abs_sum) << name;
  }
  const std::vector<int8_t>& conv1 = g.tensors[size_t(node_named(g, "/conv1/Conv").weights)].data;
  EXPECT_EQ(ints({conv1.begin(), conv1.begin() + 8}),
            (std::vector<int>{-1, 72, -110, -98, -51, 36, -3, 106}));
  // Activation scales: each QuantizeLinear's input tensor has its scale initializer's value.
  int activations = 0;
  for (const onnx::NodeProto& n : onnx_file.model.graph().node()) {
    if (n.op_type() != "QuantizeLinear" || onnx_file.floats.count(n.input(0))) continue;
    ++activations;
    EXPECT_EQ(tensor_named(g, n.input(0)).scale, double(onnx_file.floats.at(n.input(1)).at(0)))
        << n.input(0);
  }
  EXPECT_EQ(activations, 6);  // input, 3 ReLUs, the Add, the fc output
}

// Calibration keeps the model's scales, the residual Add's operands too (ReLU 1 at 0.01732,
// ReLU 2 at 0.006525: the Add scales each by its own multiplier), without a warning; the pools,
// pad and Flatten the model left unquantised inherit their input's scale.
TEST(ImportQdq, PytorchQatModelCalibratesWithItsScales) {
  const OnnxFile onnx_file(kTinyQdq);
  Graph g = import_onnx(kTinyQdq);
  prepare(&g);
  auto model_scale = [&](const std::string& init) {
    return double(onnx_file.floats.at(init).at(0));
  };
  const double s_in = model_scale("quant.activation_post_process.scale");
  const double s1 = model_scale("conv1.activation_post_process.scale");
  const double s2 = model_scale("conv2.activation_post_process.scale");
  const double s_add = model_scale("add.activation_post_process.scale");
  const double s3 = model_scale("conv3.activation_post_process.scale");
  const double s_fc = model_scale("fc.activation_post_process.scale");
  ASSERT_GT(s1, s2);
  EXPECT_EQ(tensor_named(g, "input").scale, s_in);
  EXPECT_EQ(tensor_named(g, "/conv1/Relu_output_0").scale, s1);
  EXPECT_EQ(tensor_named(g, "/conv2/Relu_output_0").scale, s2);
  EXPECT_EQ(tensor_named(g, "/Add_output_0").scale, s_add);
  EXPECT_EQ(tensor_named(g, "/maxpool/MaxPool_output_0").scale, s_add);
  EXPECT_EQ(tensor_named(g, "/conv3/Relu_output_0").scale, s3);
  EXPECT_EQ(tensor_named(g, "/avgpool/Pad_output_0").scale, s3);
  EXPECT_EQ(tensor_named(g, "/avgpool/AveragePool_output_0").scale, s3);
  EXPECT_EQ(tensor_named(g, "/Flatten_output_0").scale, s3);
  EXPECT_EQ(tensor_named(g, "/fc/Gemm_output_0").scale, s_fc);
  EXPECT_TRUE(g.warnings.empty());
  // The Add: s1 / s_add and s2 / s_add at the larger's shift.
  const Node& add = node_named(g, "/Add");
  const Requant r = quantize_multiplier(s1 / s_add);
  EXPECT_EQ(add.requant_multiplier, r.multiplier);
  EXPECT_EQ(add.requant_shift, r.shift);
  EXPECT_EQ(add.input2_multiplier, std::llround(std::ldexp(s2 / s_add, r.shift)));
  // The weights keep the model's int8 values and scales through calibration.
  const Tensor& w = g.tensors[size_t(node_named(g, "/fc/Gemm").weights)];
  const std::vector<float>& sf = onnx_file.floats.at("fc.weight_fake_quant.scale");
  for (size_t o = 0; o < sf.size(); ++o) EXPECT_EQ(w.channel_scales[o], double(sf[o]));
  int sum = 0;
  for (int8_t v : w.data) sum += std::abs(int(v));
  EXPECT_EQ(sum, 39956);
  // The fc's requantisation follows from the scales: s3 x s_w[o] / s_fc per channel.
  const Node& fc = node_named(g, "/fc/Gemm");
  for (size_t o = 0; o < sf.size(); ++o) {
    const Requant r = quantize_multiplier(s3 * double(sf[o]) / s_fc);
    EXPECT_EQ(fc.channel_requant[o].multiplier, r.multiplier) << o;
    EXPECT_EQ(fc.channel_requant[o].shift, r.shift) << o;
  }
}

// A scale the integer datapath fixes (a sigmoid's output at 1/127) wins over the model's, with a
// warning; the sigmoid's input keeps its imported scale (the node requantises it to the lookup
// table's 1/16 itself).
TEST(ImportQdq, DatapathFixedScaleWinsOverAnImportedOne) {
  Graph g;
  Tensor x, y;
  x.name = "x";
  x.shape = y.shape = {1, 1, 1, 4};
  x.scale = 0.05;
  y.name = "y";
  y.scale = 0.1;
  g.inputs = {g.add_tensor(x)};
  g.outputs = {g.add_tensor(y)};
  Node n;
  n.name = "sigmoid";
  n.activation = Activation::kSigmoid;
  n.inputs = g.inputs;
  n.outputs = g.outputs;
  g.add_node(n);
  calibrate(&g, CalibrationOptions{1, 1});
  EXPECT_EQ(g.tensors[size_t(g.inputs[0])].scale, 0.05);
  EXPECT_EQ(g.tensors[size_t(g.outputs[0])].scale, 1.0 / 127);
  EXPECT_EQ(g.warnings, (std::vector<std::string>{
                            "calibration: tensor 'y' takes scale 0.007874 instead of the model's "
                            "0.100000: the integer datapath fixes it (a sigmoid's output unit)"}));
}

std::string error_of(const std::string& file) {
  const std::string path = kData + file + ".onnx";
  const std::string what = error_text([&] { import_onnx(path); });
  return what.rfind(path + ": ", 0) == 0 ? what.substr(path.size() + 2) : what;
}

TEST(ImportQdq, ErrorsNameTheNodeTheValueAndTheSymmetricInt8Datapath) {
  const std::string sym =
      "Strider's int8 datapath is symmetric: int8 values (-128 to 127) with zero point 0";
  EXPECT_EQ(error_of("err_qdq_zero_point"),
            "node 'quant' (QuantizeLinear): zero point 'z' is 3; " + sym +
                " (quantise with qscheme torch.per_tensor_symmetric or "
                "torch.per_channel_symmetric)");
  EXPECT_EQ(error_of("err_qdq_uint8"), "node 'quant' (QuantizeLinear): zero point 'z' is uint8 "
                                       "(0 to 255); " + sym + " (quantise with dtype torch.qint8)");
  EXPECT_EQ(error_of("err_qdq_no_zero_point"),
            "node 'quant' (QuantizeLinear): has no zero point, so its int8 side is uint8 (0 to "
            "255); " + sym + " (quantise with dtype torch.qint8)");
  EXPECT_EQ(error_of("err_qdq_activation_channels"),
            "node 'quant' (QuantizeLinear): scale 's' has 4 values (per channel) for activation "
            "'x'; Strider quantises an activation with one scale (per tensor)");
  EXPECT_EQ(error_of("err_qdq_scale_mismatch"),
            "node 'dequant' (DequantizeLinear): dequantises 'q' with scale 0.200000003 but its "
            "QuantizeLinear used 0.100000001; a QuantizeLinear -> DequantizeLinear pair needs one "
            "scale");
  EXPECT_EQ(error_of("err_qdq_orphan"),
            "node 'relu' (Relu): input 'q' is the int8 output of a QuantizeLinear; only "
            "DequantizeLinear may read it (QDQ form)");
  EXPECT_EQ(error_of("err_qdq_float_activation"),
            "node 'dequant' (DequantizeLinear): input 'x' is a float activation, not a "
            "QuantizeLinear output (Strider imports quantised activations as QuantizeLinear -> "
            "DequantizeLinear pairs)");
  EXPECT_EQ(error_of("err_qdq_weight_axis"),
            "node 'conv' (Conv): weights 'wd' are quantised per channel on axis 1 (4 scales); "
            "Strider expects one scale per output channel (axis 0 of these weights)");
  EXPECT_EQ(error_of("err_qdq_weight_zero_point"),
            "node 'dqw' (DequantizeLinear): zero point 'zw' is 1 at index 1; " + sym +
                " (quantise with qscheme torch.per_tensor_symmetric or "
                "torch.per_channel_symmetric)");
  EXPECT_EQ(error_of("err_convinteger"),
            "node 'iconv' (ConvInteger): the quantised operator form (ConvInteger) is not "
            "supported beyond QLinearConv and QLinearMatMul: export the model in QDQ form instead "
            "(QuantizeLinear / DequantizeLinear around float ops, as torch.onnx.export writes a "
            "fake-quantised model or onnxruntime's quantize_static with QuantFormat.QDQ)");
}

}  // namespace
}  // namespace strider

namespace strider {
namespace {

// Issue 31, item 10: a QLinearConv whose bias is too short is blamed on the QLinearConv and its
// bias input (it was blamed on the node's internal rewritten form).
TEST(ImportQdq, ShortQLinearConvBiasNamesTheQLinearConv) {
  onnx::ModelProto m;
  {
    std::ifstream in(kData + "qoperator_int8.onnx", std::ios::binary);
    ASSERT_TRUE(m.ParseFromIstream(&in));
  }
  std::string bias, name;
  for (const onnx::NodeProto& n : m.graph().node()) {
    if (n.op_type() == "QLinearConv") bias = n.input(8), name = n.name();
  }
  ASSERT_FALSE(bias.empty());
  for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) {
    if (t.name() != bias) continue;
    t.clear_raw_data();
    t.clear_int32_data();
    t.clear_dims();
    t.add_dims(1);
    t.add_int32_data(40);  // one value for two output channels
  }
  const std::string path = ::testing::TempDir() + "short_bias.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&out));
  }
  try {
    import_onnx(path);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": node '" + name + "' (QLinearConv): bias '" + bias +
                                         "' (input 8) has 1 value, expected 2 (one per output "
                                         "channel)");
  }
}

}  // namespace
}  // namespace strider
