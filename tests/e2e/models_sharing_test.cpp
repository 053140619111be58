// Several models on one accelerator, with the bundled run files: in series they share one arena
// (the larger model's), and identical weights are stored once.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/arch/config_loader.h"
#include "tb/run_harness.h"

namespace strider {
namespace {

RunResult plan(const std::string& run) {
  RunResult r;
  r.config = load_run(std::string(STRIDER_SOURCE_DIR) + "/configs/runs/" + run);
  plan_run(r);
  return r;
}

TEST(ModelsSharing, SerialModelsPlanTheLargerArena) {
  const RunResult r = plan("resnet50_then_mobilenet_v2.yaml");
  ASSERT_EQ(r.models.size(), 2u);
  EXPECT_EQ(r.models[0].name, "resnet50");
  EXPECT_EQ(r.lowered.arena_bytes, std::max(r.models[0].arena_bytes, r.models[1].arena_bytes));
  EXPECT_EQ(r.lowered.weights_stored_bytes,
            r.models[0].weights_stored_bytes + r.models[1].weights_stored_bytes);
}

TEST(ModelsSharing, TwiceStoresTheWeightsOnce) {
  const RunResult once = plan("resnet50.yaml");
  const RunResult twice = plan("resnet50_twice.yaml");
  EXPECT_EQ(twice.lowered.weights_stored_bytes, once.lowered.weights_stored_bytes);
  EXPECT_EQ(twice.lowered.weights_total_bytes, 2 * once.lowered.weights_total_bytes);
  EXPECT_EQ(twice.lowered.arena_bytes, once.lowered.arena_bytes);
}

}  // namespace
}  // namespace strider
