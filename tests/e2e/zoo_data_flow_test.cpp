// The data-flow check (issue 31, item 3) on every list the planner makes for the zoo: each run
// file of configs/runs, as configured and (but the transformers) with L2 at 128 KiB (activations
// spill to DRAM and stream back in row bands: the most moves, fills and reused slots; checked by
// hand for the transformers too, 3.5 million descriptors each), passes the validator with
// its read-after-write, write-after-read and write-after-write rules. Planning only, in-process.
#include <gtest/gtest.h>

#include <string>

#include "core/arch/config_loader.h"
#include "planner/lower/data_flow_check.h"
#include "planner/lower/descriptor_validator.h"
#include "tb/run_harness.h"

namespace strider {
namespace {

const std::string kDir = STRIDER_SOURCE_DIR;

class ZooDataFlow : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooDataFlow, EveryPlannedListPasses) {
  // The transformers at 128 KiB are lists of 3.5 million descriptors: at their own L2 only.
  const std::string net = GetParam();
  const bool transformer = net == "bert_encoder" || net == "gpt2_decoder" || net == "vit_b_16";
  for (const char* l2 : {"", "131072"}) {
    if (transformer && *l2) continue;
    RunResult r;
    std::vector<std::string> sets = {"sim.trace=false"};
    if (*l2) sets.push_back(std::string("arch.l2.size_bytes=") + l2);
    r.config = load_run(kDir + "/configs/runs/" + GetParam() + ".yaml", sets);
    plan_run(r);
    std::string hazards;
    const DataFlowStats s = check_data_flow(
        r.lowered.list, [&](const Descriptor&, const std::string& f, const std::string& p) {
          if (hazards.size() < 2000) hazards += f + ": " + p + "\n";
        });
    EXPECT_EQ(hazards, "") << GetParam() << " l2 " << l2;
    EXPECT_EQ(s.unproven, 0u) << GetParam() << " l2 " << l2;
    EXPECT_GT(s.checked_pairs, 0u);
    EXPECT_NO_THROW(validate_descriptors(r.lowered.list, r.config.arch, GetParam()));
  }
}

INSTANTIATE_TEST_SUITE_P(Runs, ZooDataFlow,
                         ::testing::Values("default", "mobilenet_v2", "resnet50", "googlenet",
                                           "densenet121", "inception_v3", "convnext_tiny",
                                           "bert_encoder", "gpt2_decoder", "swin_t", "vit_b_16",
                                           "resnet50_twice", "resnet50_then_mobilenet_v2",
                                           "resnet50_first_design"));

}  // namespace
}  // namespace strider
