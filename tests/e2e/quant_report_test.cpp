// Honest quantisation figures (tb/quant_report.h, planner/quant/fidelity.h): no SQNR where the
// float reference is (near) zero (JSON null, a note and a warning, never a cap), the worst layer
// named with the reason its figure is low, and the default synthetic run labelled in-sample.
#include "tb/quant_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "planner/quant/fidelity.h"
#include "tests/e2e/report_util.h"

namespace strider {
namespace {

using namespace report_test;

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

}  // namespace
}  // namespace strider
