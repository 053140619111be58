// Honest quantisation figures (tb/quant_report.h, planner/quant/fidelity.h,
// tb/quant_evaluation.h): no SQNR where the float reference is (near) zero (JSON null, a note and
// a warning, never a cap), the worst layer named with the reason its figure is low, per-sample
// figures and a warning for a held-out sample the calibration ranges do not cover, the default
// synthetic run labelled in-sample; the fidelity of uint8 values and of softmax logits; and the
// figures a functional run reports (CNN and transformer).
#include "tb/quant_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "planner/quant/fidelity.h"
#include "tb/quant_evaluation.h"
#include "tests/e2e/quant_graph_util.h"
#include "tests/e2e/report_util.h"

namespace strider {
namespace {

using namespace report_test;
using namespace quant_test;

TEST(QuantReport, ZeroReferenceHasNoSqnr) {
  Fidelity f;
  f.add({0.0f, 0.0f, 0.0f}, {0, 0, 0}, 0.1);
  EXPECT_FALSE(f.defined());
  EXPECT_TRUE(std::isnan(f.sqnr_db()));
  EXPECT_EQ(f.undefined_reason(),
            "the float reference is zero (all 3 values): no signal to compare against");
  // Near zero: RMS 1e-5 against an int8 step of 0.1 (below 1e-3 steps).
  Fidelity g;
  g.add({1e-5f, -1e-5f}, {0, 0}, 0.1);
  EXPECT_FALSE(g.defined());
  EXPECT_TRUE(std::isnan(g.sqnr_db()));
  // Exact int8 values: +infinity, not a cap.
  Fidelity e;
  e.add({0.5f, -0.25f}, {2, -1}, 0.25);
  EXPECT_TRUE(e.exact());
  EXPECT_TRUE(std::isinf(e.sqnr_db()));
  EXPECT_EQ(e.undefined_reason(), "exact: the int8 values equal the float values");
}

// Why a layer's figure is low, from its own statistics.
TEST(QuantReport, WhyNamesOutliersClippingOrInheritance) {
  // 999 values at 0.01 and one at 10, scale 10 / 127: the 0.01s are 0.127 steps and round to 0.
  // rms = sqrt((999 x 1e-4 + 100) / 1000) = 0.31638; crest 31.6; own rounding SQNR
  // 10 log10(12 (0.31638 x 12.7)^2) = 22.9 dB (4.0 steps); measured: noise 999 x 1e-4 (each 0.01
  // read as 0), signal 100.0999: 30.0 dB, above own - 3: the tensor's own range.
  std::vector<float> f(1000, 0.01f);
  std::vector<int8_t> q(1000, 0);
  f[0] = 10.0f;
  q[0] = 127;
  Fidelity o;
  o.add(f, q, 10.0 / 127);
  EXPECT_NEAR(o.sqnr_db(), 30.0, 0.05);
  EXPECT_EQ(o.why(),
            "range set by a few outliers: max |x| = 10.000 is 31.6 x its RMS, so a typical value "
            "spans only 4.0 int8 steps");
  // Values 1.0 at scale 1/64 read back as 60/64: noise (4/64)^2 per value, SQNR 24.1 dB; own
  // rounding would give 10 log10(12 x 64^2) = 46.9 dB: inherited.
  Fidelity in;
  in.add({1.0f, 1.0f}, {60, 60}, 1.0 / 64);
  EXPECT_EQ(in.why(),
            "inherited: its own int8 rounding alone would give 46.9 dB; the rest of the noise "
            "comes from the layers before it");
  // 2 of 4 values beyond 127.5 steps: clipping.
  Fidelity c;
  c.add({1.0f, 1.0f, 3.0f, -3.0f}, {100, 100, 127, -128}, 0.01);
  EXPECT_EQ(c.saturated, 2u);
}

// summary.json on a hand-made result: a zero output gives null, a note and a warning.
TEST(QuantReport, SummaryJsonNullAndWarningForZeroOutput) {
  RunResult r;
  r.lowered.list.layers = {"fc", "conv"};
  r.layer_fidelity.resize(2);
  r.layer_fidelity[0].add({0.0f, 0.0f}, {0, 0}, 1.0 / 16);
  r.layer_fidelity[1].add({1.0f, -1.0f}, {60, -60}, 1.0 / 64);
  r.output_fidelity = r.layer_fidelity[0];
  r.quant.calibrated = true;
  const nlohmann::ordered_json j = quant_json(r);
  EXPECT_TRUE(j["output_sqnr_db"].is_null());
  EXPECT_EQ(j["output_sqnr_note"],
            "the float reference is zero (all 2 values): no signal to compare against");
  EXPECT_EQ(j["worst_layer"], "conv");
  EXPECT_EQ(j["in_sample"], true);
  ASSERT_EQ(j["warnings"].size(), 2u);
  EXPECT_EQ(
      j["warnings"][0],
      "quant: output SQNR undefined: the float reference is zero (all 2 values): no signal to "
      "compare against (a zero-initialised classifier head?)");
  EXPECT_EQ(j["warnings"][1],
            "quant: 1 layer(s) have a (near) zero float output and no SQNR, first 'fc'");
  std::ostringstream out, err;
  print_quant(r, out, err);
  EXPECT_NE(out.str().find("output SQNR undefined"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("worst layer      conv 24.1 dB: inherited"), std::string::npos)
      << out.str();
  EXPECT_EQ(err.str().rfind("warning: quant: output SQNR undefined", 0), 0u) << err.str();
}

// The default functional run (no calibration data) says its figure is in-sample, in the console
// and in summary.json.
TEST(QuantReport, DefaultRunIsLabelledInSample) {
  Scratch dir("quant_in_sample");
  std::ostringstream out, err;
  ASSERT_EQ(
      dispatch({"run", kDefaultRun, "--out", dir.str(), "--set", "sim.functional=true"}, out, err),
      0)
      << err.str();
  const std::string console = out.str();
  EXPECT_NE(console.find("in-sample on synthetic inputs"), std::string::npos) << console;
  const nlohmann::json j = read_json(dir.file("summary.json"));
  EXPECT_EQ(j["quant"]["in_sample"], true);
  EXPECT_EQ(j["quant"]["inputs"].get<std::string>().rfind("in-sample on synthetic inputs", 0), 0u);
  EXPECT_FALSE(j["quant"]["worst_layer_why"].get<std::string>().empty());
}

// Per-sample figures on a hand-made result. Held-out sample a: output 1.0, -1.0 read back as
// 60 / 64, -60 / 64: noise 2 x (4 / 64)^2 = 0.0078125, signal 2: SQNR 10 log10(256) = 24.08 dB,
// relative error sqrt(0.0078125 / 2) = 0.0625; float top-1 lead 1 - (-1) = 2 over a noise RMS
// of 0.0625: 32; 2 of its 200 layer values clip (1 %, at least 0.5 % and twice the
// calibration set's 0 %: a warning), most in 'fc' (2 of 100). Sample b clips 1 of 250 (0.4 %):
// no warning.
TEST(QuantReport, PerSampleFiguresAndAnUncoveredSample) {
  RunResult r;
  r.lowered.list.layers = {"conv", "fc"};
  r.layer_fidelity.resize(2);
  r.layer_fidelity[1].add({1.0f, -1.0f}, {60, -60}, 1.0 / 64);
  r.output_fidelity = r.layer_fidelity[1];
  r.quant.calibrated = true;
  r.quant.evaluation_samples.resize(2);
  SetFigures cal, eval;
  cal.name = "calibration";
  cal.per_sample.resize(1);
  cal.per_sample[0].values = 100;
  eval.name = "evaluation";
  eval.classifier = true;
  // input, values, clipped, the most clipped layer and its fraction, top-1 agreement (margin 2)
  const auto sample = [](const std::string& input, uint64_t values, uint64_t clipped, int layer,
                         double fraction, bool agree) {
    SampleFigures f;
    f.input = input;
    f.output.add({1.0f, -1.0f}, {60, -60}, 1.0 / 64);
    f.values = values;
    f.clipped = clipped;
    f.most_clipped_layer = layer;
    f.most_clipped_fraction = fraction;
    f.top1_total = 1;
    f.top1_agree = agree;
    f.top1_margin = 2.0;
    return f;
  };
  const SampleFigures a = sample("a.npy", 200, 2, 1, 0.02, true);
  const SampleFigures b = sample("b.npy", 250, 1, 0, 0.01, false);
  eval.per_sample = {a, b};
  r.quant.sets = {cal, eval};
  const nlohmann::ordered_json j = quant_json(r);
  const nlohmann::ordered_json& s = j["evaluation"]["per_sample"];
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0]["input"], "a.npy");
  EXPECT_NEAR(s[0]["output_sqnr_db"].get<double>(), 24.0824, 1e-4);
  EXPECT_EQ(s[0]["output_relative_error"].get<double>(), 0.0625);
  EXPECT_EQ(s[0]["top1_agree"], true);
  EXPECT_EQ(s[0]["top1_margin_over_noise"].get<double>(), 32.0);
  EXPECT_EQ(s[0]["clipped_fraction"].get<double>(), 0.01);
  EXPECT_EQ(s[0]["most_clipped_layer"], "fc");
  EXPECT_EQ(s[1]["top1_agree"], false);
  EXPECT_EQ(s[1]["clipped_fraction"].get<double>(), 0.004);
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_EQ(j["warnings"][0],
            "quant: evaluation sample 1 (a.npy) clips 1.00 % of its layers' values (0.00 % on the "
            "calibration set; most in 'fc', 2.00 %): its activations exceed the calibration "
            "ranges, so its output SQNR is 24.1 dB; calibrate on inputs like it");
}

// The float top-1's lead over its runner-up, per image of a batch of two (3 classes).
TEST(QuantReport, TopOneMargin) {
  const std::vector<float> v = {1.0f, 5.0f, 3.5f, -2.0f, -1.0f, -4.0f};
  const TensorShape s{2, 3, 1, 1};
  EXPECT_EQ(top1_margin(v, s, 0), 1.5);  // 5 - 3.5
  EXPECT_EQ(top1_margin(v, s, 1), 1.0);  // -1 - (-2)
}

// The logits whose masked values the fidelity leaves out: a softmax's input and what a view
// leads into it from (Swin: scores + mask, reshaped, softmax), not the scores before the mask.
TEST(Quant, SoftmaxLogitsFollowViews) {
  Graph g;
  const int s = tensor(g, "scores", {1, 4, 1, 4}, 0.1), m = tensor(g, "mask", {1, 4, 1, 4}, 1);
  const int a = tensor(g, "masked", {1, 4, 1, 4}, 0.1), r = tensor(g, "view", {1, 4, 1, 4}, 0.1);
  const int q = tensor(g, "probs", {1, 4, 1, 4}, 1.0 / 127);
  g.add_node(node("add", OpType::kAdd, {s, m}, a));
  g.add_node(node("reshape", OpType::kReshape, {a}, r));
  g.add_node(node("softmax", OpType::kSoftmax, {r}, q));
  g.inputs = {s, m};
  g.outputs = {q};
  const std::vector<char> logits = softmax_logits(g);
  EXPECT_EQ(logits, (std::vector<char>{0, 0, 1, 1, 0}));
}

// Fidelity of a uint8 tensor (softmax probabilities): its bytes read unsigned, clipped above 255.
TEST(Quant, FidelityOfUint8Values) {
  Fidelity f;
  // Scale 0.01: byte -56 is 200 -> 2.0 (exact), 50 -> 0.5 against 0.49 (noise 1e-4), byte -1 is
  // 255 -> 2.55 against 2.6 (2.6 / 0.01 = 260 > 255.5: clipped; noise 0.0025).
  f.add({2.0f, 0.49f, 2.6f}, {-56, 50, -1}, 0.01, true);
  EXPECT_EQ(f.values, 3u);
  EXPECT_EQ(f.saturated, 1u);
  // signal 4 + 0.2401 + 6.76 = 11.0001, noise 0.0001 + 0.0025 = 0.0026: 36.26 dB.
  EXPECT_NEAR(f.sqnr_db(), 10 * std::log10(11.0001 / 0.0026), 1e-3);
  EXPECT_NEAR(f.sqnr_db(), 36.26, 0.01);
}

// A functional run reports the fidelity: summary.json quant.* and the last two layers.csv
// columns, filled for every checked layer.
TEST(Quant, FunctionalRunReportsSqnrAndSaturation) {
  Scratch dir("quant");
  run_strider(dir.str(), {"sim.functional=true"});
  const nlohmann::json j = read_json(dir.file("summary.json"));
  EXPECT_EQ(j["functional"]["mismatches"], 0);
  EXPECT_GE(j["quant"]["output_sqnr_db"].get<double>(), 25.0);
  EXPECT_FALSE(j["quant"]["worst_layer"].get<std::string>().empty());
  EXPECT_LE(j["quant"]["max_saturated_fraction"].get<double>(), 0.02);
  const Csv layers = read_csv(dir.file("layers.csv"));
  ASSERT_EQ(layers.header[layers.header.size() - 2], "eval_saturated_fraction");
  int measured = 0;  // every checked layer has its figures; the 5 convolutions of tiny_cnn
  for (const auto& row : layers.rows) {
    if (row.at("sqnr_db").empty()) continue;
    ++measured;
    if (row.at("op") == "conv") {
      EXPECT_GE(std::stod(row.at("sqnr_db")), 25.0) << row.at("layer");
    }
    EXPECT_LE(std::stod(row.at("saturated_fraction")), 0.02) << row.at("layer");
  }
  EXPECT_EQ(measured, j["functional"]["checked_tensors"].get<int>());
}

// A transformer is calibrated like a CNN: tiny_bert (two post-LN encoder blocks, the scores'
// 1 / sqrt(d) folded into Q K^T) runs functionally with 0 mismatches and its fidelity measured on
// every checked layer. The output SQNR is a measured figure (28.68 dB), pinned so that a change in
// the float network or the requantisation shows; before the transformer ops had a float
// reference the run reported the 200 dB cap, before the folded 1 / sqrt(d) the scores clipped
// (6.7 dB on bert_encoder), and with softmax / GELU at the fixed scale 1/16 and the LayerNorm's
// normalised value at 1/16 it was 24.86 dB, with the residual Adds' operands at one scale 28.54,
// with int8 (not uint8) probabilities 28.70; 28.76 before the LayerNorms honoured their epsilon
// (1e-5, in the float network and as the integer term E = D^2 eps / s_in^2).
TEST(Quant, TransformerFunctionalRunIsCalibrated) {
  Scratch dir("quant_transformer");
  run_strider(dir.str(),
              {"sim.functional=true", std::string("networks[0].path=") + STRIDER_SOURCE_DIR +
                                          "/tests/e2e/data/tiny_bert.onnx"});
  const nlohmann::json j = read_json(dir.file("summary.json"));
  EXPECT_EQ(j["functional"]["mismatches"], 0);
  // 2 blocks x 12 compute layers: each block's two residual Adds are fused into the attention
  // output and the second MLP Linear (28 with lowering.fuse: false).
  EXPECT_EQ(j["functional"]["checked_tensors"], 24);
  EXPECT_NEAR(j["quant"]["output_sqnr_db"].get<double>(), 28.68, 0.01);
  EXPECT_LE(j["quant"]["max_saturated_fraction"].get<double>(), 0.02);
  int measured = 0;
  for (const auto& row : read_csv(dir.file("layers.csv")).rows)
    measured += !row.at("sqnr_db").empty();
  EXPECT_EQ(measured, 24);
}

}  // namespace
}  // namespace strider
