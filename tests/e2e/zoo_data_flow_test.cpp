// The data-flow check (issue 31, item 3) on every list the planner makes for the zoo: each run
// file of configs/runs, as configured and (but the transformers) with L2 at 128 KiB (activations
// spill to DRAM and stream back in row bands: the most moves, fills and reused slots), passes
// the validator with its read-after-write, write-after-read and write-after-write rules, every
// L2 access checked piece by piece. Planning only, in-process. Also `strider plan --check`.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "core/arch/config_loader.h"
#include "planner/lower/data_flow_check.h"
#include "planner/lower/descriptor_validator.h"
#include "tb/run_harness.h"
#include "tests/e2e/report_util.h"

namespace strider {
namespace {

const std::string kDir = STRIDER_SOURCE_DIR;

// Plans `net` (L2 of `l2` bytes, "" as configured) and checks its list.
void check_run(const std::string& net, const std::string& l2) {
  RunResult r;
  std::vector<std::string> sets = {"sim.trace=false"};
  if (!l2.empty()) sets.push_back("arch.l2.size_bytes=" + l2);
  r.config = load_run(kDir + "/configs/runs/" + net + ".yaml", sets);
  plan_run(r);
  std::string hazards;
  const DataFlowStats s = check_data_flow(
      r.lowered.list, [&](const Descriptor&, const std::string& f, const std::string& p) {
        if (hazards.size() < 2000) hazards += f + ": " + p + "\n";
      });
  EXPECT_EQ(hazards, "") << net << " l2 " << l2;
  EXPECT_EQ(s.unproven, 0u) << net << " l2 " << l2;
  EXPECT_EQ(s.bounded, 0u) << net << " l2 " << l2;  // every access checked exactly
  EXPECT_GT(s.checked_pairs, 0u);
  EXPECT_NO_THROW(validate_descriptors(r.lowered.list, r.config.arch, net));
}

bool is_transformer(const std::string& net) {
  return net == "bert_encoder" || net == "gpt2_decoder" || net == "vit_b_16";
}

class ZooDataFlow : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooDataFlow, EveryPlannedListPasses) {
  check_run(GetParam(), "");
  // The transformers at 128 KiB would be lists of 3.5 million descriptors, over the planner's
  // limit of 2 million (they are refused): at their own L2 only.
  if (!is_transformer(GetParam())) check_run(GetParam(), "131072");
}

INSTANTIATE_TEST_SUITE_P(Runs, ZooDataFlow,
                         ::testing::Values("default", "mobilenet_v2", "resnet50", "googlenet",
                                           "densenet121", "inception_v3", "convnext_tiny",
                                           "bert_encoder", "gpt2_decoder", "swin_t", "vit_b_16",
                                           "resnet50_twice", "resnet50_then_mobilenet_v2",
                                           "resnet50_first_design"));

}  // namespace
}  // namespace strider

namespace strider::report_test {
namespace {

// `strider plan --check` validates the planned list as `strider run` does, without simulating,
// and prints the check's processor time.
TEST(PlanCheck, ValidatesWithoutSimulating) {
  Scratch dir("plan_check");
  const Outcome o =
      call({"plan", kDir + "/configs/runs/default.yaml", "--check", "--out", dir.file("out")});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err, "");
  EXPECT_TRUE(std::regex_search(
      o.out, std::regex("\n  checked      structure, limits and data flow in [0-9]+\\.[0-9]{3} s "
                        "of processor time\n")))
      << o.out;
  // pool1 fused into conv1: its layer and 4 tiles gone; no deep prefetch's layer (at background
  // priority the credit of conv3's ordinary lead covers its first fills)
  EXPECT_NE(o.out.find("\n  descriptors  21 over 9 layers\n"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace strider::report_test
