// LayerNorm's epsilon (ONNX: y = (x - mean) / sqrt(var + epsilon) x gamma + beta) in the float
// reference and the integer datapath (core/contract/vector_math.h layernorm_root, shared by the
// vector unit and tb/reference.cpp), and its check at import. The fixture nhwc_block.onnx
// (tests/planner/data/make_onnx_fixtures.py) is rewritten here with other epsilons and betas
// through the ONNX protobuf.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/contract/vector_math.h"
#include "planner/import/onnx_importer.h"
#include "planner/lower/legalise.h"
#include "planner/quant/calibrator.h"
#include "planner/quant/float_reference.h"
#include "tb/reference.h"
#include "tests/lib/error_text.h"

namespace strider {
namespace {

const std::string kBlock = std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/nhwc_block.onnx";
const std::vector<float> kBeta = {0.5f, -1.0f, 2.0f, 0.25f};

// nhwc_block.onnx with the LayerNormalization's epsilon attribute `eps` (absent: NaN) and beta
// kBeta, written to a temporary file; returns its path.
std::string block_with(float eps, bool set_eps = true) {
  onnx::ModelProto m;
  {
    std::ifstream in(kBlock, std::ios::binary);
    if (!m.ParseFromIstream(&in)) throw std::runtime_error("cannot read " + kBlock);
  }
  for (onnx::NodeProto& n : *m.mutable_graph()->mutable_node()) {
    if (n.op_type() != "LayerNormalization" || !set_eps) continue;
    onnx::AttributeProto* a = n.add_attribute();
    a->set_name("epsilon");
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(eps);
  }
  for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) {
    if (t.name() != "be") continue;
    t.clear_float_data();
    t.set_raw_data(std::string(reinterpret_cast<const char*>(kBeta.data()), kBeta.size() * 4));
  }
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("strider_ln_eps_" + std::to_string(::getpid()) + ".onnx"))
                               .string();
  std::ofstream out(path, std::ios::binary);
  m.SerializeToOstream(&out);
  return path;
}

std::string error_of(const std::string& path) {
  return error_text([&] { import_onnx(path); });
}

struct LayerNormRun {
  Graph g;
  int ln = -1;               // the LayerNorm's output tensor
  std::vector<float> real;   // float reference of the LayerNorm output
  std::vector<int8_t> int8;  // integer reference of it
};

LayerNormRun run_block(float eps) {
  LayerNormRun r;
  const std::string path = block_with(eps);
  r.g = import_onnx(path);
  std::filesystem::remove(path);
  materialise_parameters(&r.g, 1);
  fuse_activations(&r.g);
  calibrate(&r.g, CalibrationOptions{3, 1});
  for (const Node& n : r.g.nodes) {
    if (n.op == OpType::kLayerNorm) r.ln = n.outputs[0];
  }
  r.real = r.g.tensors[size_t(r.ln)].float_data;
  Reference ref(r.g);
  for (int t : r.g.inputs) ref.set_input(t, r.g.tensors[t].data);
  ref.run();
  r.int8 = ref.value(r.ln);
  return r;
}

TEST(LayerNormEpsilon, EpsilonCodeAndTerm) {
  // D 768, eps 1e-5, s 1/16: 589824 x 1e-5 x 256 = 1509.95 -> 1510, exponent 0.
  EXPECT_EQ(layernorm_epsilon_code(768, 1e-5, 1.0 / 16), 1510);
  EXPECT_EQ(layernorm_epsilon_term(1510), 1510u);
  // D 4, eps 1e6, s 0.01: 16 x 1e6 x 1e4 = 1.6e11, halved 14 times: 1.6e11 / 2^14 = 9765625
  // (exact) < 2^24 - 0.5 -> code (14 << 24) | 9765625.
  EXPECT_EQ(layernorm_epsilon_code(4, 1e6, 0.01), int32_t((14 << 24) | 9765625));
  EXPECT_EQ(layernorm_epsilon_term((14 << 24) | 9765625), uint64_t(9765625) << 14);
  // Saturates at (2^24 - 1) x 2^38; no epsilon: 0.
  EXPECT_EQ(layernorm_epsilon_code(4, 1e30, 1e-3), int32_t((38 << 24) | 0xffffff));
  EXPECT_EQ(layernorm_epsilon_term((38 << 24) | 0xffffff), uint64_t(0xffffff) << 38);
  EXPECT_EQ(layernorm_epsilon_code(4, 0.0, 0.1), 0);
  // r = isqrt(floor(1000 / 4) + 6) = isqrt(256) = 16.
  EXPECT_EQ(layernorm_root(1000, 4, 6), 16u);
}

// The attribute reaches the node (ONNX's default 1e-5 when absent); bad values are refused.
TEST(LayerNormEpsilon, ImportedAndChecked) {
  const std::string path = block_with(0.25f);
  Graph g = import_onnx(path);
  std::filesystem::remove(path);
  ASSERT_EQ(g.nodes[0].op, OpType::kLayerNorm);
  EXPECT_EQ(g.nodes[0].epsilon, 0.25);
  EXPECT_EQ(import_onnx(kBlock).nodes[0].epsilon, 1e-5);  // the attribute is absent
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<float, std::string>> bad = {
      {nan, "nan"}, {inf, "inf"}, {-1.0f, "-1"}, {0.0f, "0"}};
  for (const auto& [eps, text] : bad) {
    const std::string p = block_with(eps);
    EXPECT_EQ(error_of(p), p + ": node 'ln' (LayerNormalization): LayerNorm epsilon " + text +
                               ", expected a finite value > 0");
    std::filesystem::remove(p);
  }
}

// The decomposed LayerNorms of the bundled transformers (ReduceMean, Sub, Pow, ReduceMean, Add
// eps, Sqrt, Div) carry the constant they add: PyTorch's 1e-5 (float).
TEST(LayerNormEpsilon, DecomposedLayerNormCarriesItsEpsilon) {
  const Graph g =
      import_onnx(std::string(STRIDER_SOURCE_DIR) + "/configs/networks/bert_encoder.onnx");
  int layernorms = 0;
  for (const Node& n : g.nodes) {
    if (n.op != OpType::kLayerNorm) continue;
    ++layernorms;
    EXPECT_EQ(n.epsilon, double(1e-5f)) << n.name;
  }
  EXPECT_GT(layernorms, 0);
}

// A huge epsilon makes the output beta (ONNX: (x - mean) / sqrt(var + eps) -> 0); a moderate one
// changes it from the default's; the float reference follows the formula.
TEST(LayerNormEpsilon, ChangesTheOutputAsOnnxSays) {
  const LayerNormRun huge = run_block(1e30f), small = run_block(1e-5f), one = run_block(1.0f);
  const Tensor& t = huge.g.tensors[size_t(huge.ln)];
  const size_t plane = 15;  // 4 channels x 3 x 5 positions, gamma 1
  for (size_t c = 0; c < 4; ++c) {
    for (size_t p = 0; p < plane; ++p) {
      EXPECT_NEAR(huge.real[c * plane + p], kBeta[c], 1e-6) << c << "," << p;
      // The int8 value is beta at the output scale, within one step.
      EXPECT_NEAR(huge.int8[c * plane + p] * t.scale, kBeta[c], t.scale) << c << "," << p;
    }
  }
  EXPECT_NE(small.int8, huge.int8);
  EXPECT_NE(small.int8, one.int8);
  // Float: y = (x - mean) / sqrt(var + 1) + beta at position 0, from the calibration input.
  const std::vector<float>& x = one.g.tensors[size_t(one.g.inputs[0])].float_data;
  double mean = 0, var = 0;
  for (size_t c = 0; c < 4; ++c) mean += x[c * plane] / 4.0;
  for (size_t c = 0; c < 4; ++c) var += (x[c * plane] - mean) * (x[c * plane] - mean) / 4.0;
  for (size_t c = 0; c < 4; ++c) {
    EXPECT_NEAR(one.real[c * plane], (x[c * plane] - mean) / std::sqrt(var + 1.0) + kBeta[c], 1e-5);
  }
}

}  // namespace
}  // namespace strider
