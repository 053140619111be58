// Activation fusion: an activation folds into its producer only when it is that result's sole use.
#include "planner/lower/legalise.h"

#include <gtest/gtest.h>

#include "planner/import/network_loader.h"

namespace strider {
namespace {

TEST(Legalise, FusesActivationsIntoTheirOnlyProducer) {
  Graph g = load_network(std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/unfused.yaml", 0, 0, 1);
  ASSERT_EQ(g.nodes.size(), 6u);
  EXPECT_EQ(fuse_activations(&g), 2);
  ASSERT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(g.nodes[0].name, "c1");
  EXPECT_EQ(g.nodes[0].activation, Activation::kRelu);
  EXPECT_EQ(g.tensors[g.nodes[0].outputs[0]].name, "r1");  // c1 now writes r1 directly
  EXPECT_EQ(g.nodes[1].name, "c2");
  EXPECT_EQ(g.nodes[1].activation, Activation::kNone);   // c2 is also read by the add
  EXPECT_EQ(g.nodes[2].name, "r2");
  EXPECT_EQ(g.nodes[3].name, "s");
  EXPECT_EQ(g.nodes[3].activation, Activation::kRelu);
  EXPECT_EQ(g.tensors[g.nodes[3].outputs[0]].name, "r3");
  EXPECT_EQ(g.tensors[g.outputs[0]].name, "r3");
  EXPECT_EQ(fuse_activations(&g), 0);  // nothing left to fold
}

}  // namespace
}  // namespace strider
