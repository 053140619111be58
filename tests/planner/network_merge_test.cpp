// Several networks on one accelerator: serial models time-multiplex one activation arena, and
// identical weights are stored once.
#include "planner/lower/network_merge.h"

#include <gtest/gtest.h>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"
#include "planner/lower/lowering.h"

namespace strider {
namespace {

const std::string kDir = STRIDER_SOURCE_DIR;

Lowered lower_all(const std::vector<std::string>& files, const std::vector<std::string>& names,
                  const std::string& execution) {
  ArchConfig arch = load_arch(kDir + "/configs/arch/seed.yaml");
  arch.l2.size_bytes = 8 << 20;  // everything resident: the arena is the plan's own figure
  std::vector<Graph> nets;
  for (const std::string& f : files) nets.push_back(load_network(kDir + "/configs/networks/" + f, 0, 0, 1));
  LowerOptions opt;
  opt.allocator = "greedy_by_size";
  if (nets.size() == 1) return lower(nets[0], arch, opt);
  MergedNetworks m = merge_networks(nets, names, "dfs", execution);
  opt.order = m.order;
  return lower(m.graph, arch, opt);
}

TEST(NetworkMerge, SerialModelsShareOneArena) {
  const Lowered a = lower_all({"tiny_cnn.yaml"}, {"a"}, "serial");
  const Lowered b = lower_all({"mobilenet_v1.yaml"}, {"b"}, "serial");
  const Lowered ab = lower_all({"tiny_cnn.yaml", "mobilenet_v1.yaml"}, {"a", "b"}, "serial");
  EXPECT_EQ(ab.lower_bound_bytes, std::max(a.lower_bound_bytes, b.lower_bound_bytes));
  EXPECT_EQ(ab.arena_bytes, std::max(a.arena_bytes, b.arena_bytes));
  EXPECT_EQ(ab.weights_stored_bytes, a.weights_stored_bytes + b.weights_stored_bytes);
  // Concurrent execution keeps both live at once: never less than the larger alone.
  const Lowered c = lower_all({"tiny_cnn.yaml", "mobilenet_v1.yaml"}, {"a", "b"}, "concurrent");
  EXPECT_GE(c.lower_bound_bytes, ab.lower_bound_bytes);
}

TEST(NetworkMerge, IdenticalWeightsAreStoredOnce) {
  const Lowered one = lower_all({"tiny_cnn.yaml"}, {"a"}, "serial");
  const Lowered two = lower_all({"tiny_cnn.yaml", "tiny_cnn.yaml"}, {"a", "b"}, "serial");
  EXPECT_EQ(two.weights_total_bytes, 2 * one.weights_total_bytes);
  EXPECT_EQ(two.weights_stored_bytes, one.weights_stored_bytes);
  EXPECT_EQ(two.arena_bytes, one.arena_bytes);
}

TEST(NetworkMerge, UnknownExecutionModeIsAnError) {
  try {
    merge_networks({}, {}, "dfs", "parallel");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "execution: 'parallel', expected serial or concurrent");
  }
}

}  // namespace
}  // namespace strider
