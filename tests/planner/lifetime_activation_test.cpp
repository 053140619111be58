// Activation planning input: alias groups (views, split, in-place concat), their lifetimes from
// the schedule, and tensor addresses from a plan.
#include <gtest/gtest.h>

#include <stdexcept>

#include "planner/memory/activation_problem.h"
#include "planner/schedule/schedule.h"
#include "tests/planner/activation_test_util.h"

namespace strider::memory {
namespace {

TEST(LifetimeActivation, ChainWithAlignment) {
  Graph g;
  int in = tensor(&g, "in", 3, 4, 4), a = tensor(&g, "a", 5, 4, 4), b = tensor(&g, "b", 2, 4, 4);
  g.inputs = {in};
  g.outputs = {b};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "B", OpType::kConv, {a}, {b});
  ActivationPlanInput p = build_activation_problem(g, schedule_nodes(g, "dfs"), 64);
  // in: 48 bytes -> 64, live step 0 only; a: 80 -> 128, steps 0..1; b: 32 -> 64, output, step 1.
  EXPECT_EQ(lives(p), (std::vector<Life>{{"in", 0, 1, 64}, {"a", 0, 2, 128}, {"b", 1, 2, 64}}));
  for (const Buffer& b : p.problem.buffers) EXPECT_EQ(b.alignment, 64);
  EXPECT_EQ(p.tensor_buffer, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(lower_bound(p.problem), 192);  // in + a at step 0, a + b at step 1
}

TEST(LifetimeActivation, SplitOutputsAreViewsAtChannelOffsets) {
  Graph g;
  int in = tensor(&g, "in", 8, 4, 4), x = tensor(&g, "x", 8, 4, 4),
      x0 = tensor(&g, "x0", 3, 4, 4), x1 = tensor(&g, "x1", 5, 4, 4),
      y0 = tensor(&g, "y0", 3, 4, 4), y1 = tensor(&g, "y1", 5, 4, 4),
      z = tensor(&g, "z", 8, 4, 4);
  g.inputs = {in};
  g.outputs = {z};
  node(&g, "A", OpType::kConv, {in}, {x});
  Node split;
  split.name = "S";
  split.op = OpType::kSplit;
  split.inputs = {x};
  split.outputs = {x0, x1};
  split.channel_begin = {0, 3};
  split.channel_end = {3, 8};
  g.add_node(split);
  node(&g, "B", OpType::kConv, {x0}, {y0});
  node(&g, "C", OpType::kConv, {x1}, {y1});
  const int d = node(&g, "D", OpType::kConcat, {y0, y1}, {z});
  const std::vector<int> order = schedule_nodes(g, "dfs");
  ASSERT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  ActivationPlanInput p = build_activation_problem(g, order, 1);
  // x holds x0 at 0 and x1 at 3 channels * 16 = 48; live from A (0) to C (3) -> [0,4).
  // z holds y0 at 0 and y1 at 48, produced in place; live from B (2) to the end -> [2,5).
  EXPECT_EQ(lives(p), (std::vector<Life>{{"in", 0, 1, 128}, {"x", 0, 4, 128}, {"z", 2, 5, 128}}));
  EXPECT_EQ(p.tensor_buffer, (std::vector<int>{0, 1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(p.tensor_offset_in_buffer, (std::vector<int64_t>{0, 0, 0, 48, 0, 48, 0}));
  EXPECT_EQ(p.node_is_alias, (std::vector<char>{0, 1, 0, 0, 1}));
  EXPECT_EQ(p.concat_input_in_place[d], (std::vector<char>{1, 1}));
  EXPECT_EQ(lower_bound(p.problem), 256);  // in + x at step 0; x + z at steps 2 and 3
}

TEST(LifetimeActivation, ConcatOfThreeConvolutionsInPlace) {
  Graph g;
  int in = tensor(&g, "in", 3, 8, 8), a = tensor(&g, "a", 4, 8, 8), b = tensor(&g, "b", 2, 8, 8),
      c = tensor(&g, "c", 6, 8, 8), cat = tensor(&g, "cat", 12, 8, 8),
      out = tensor(&g, "out", 4, 8, 8);
  g.inputs = {in};
  g.outputs = {out};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "B", OpType::kConv, {in}, {b});
  node(&g, "C", OpType::kConv, {in}, {c});
  const int d = node(&g, "D", OpType::kConcat, {a, b, c}, {cat});
  node(&g, "E", OpType::kConv, {cat}, {out});
  ActivationPlanInput p = build_activation_problem(g, schedule_nodes(g, "dfs"), 64);
  // cat (768 bytes) holds a at 0, b at 256, c at 256 + 128 = 384; live from A (0) to E (4).
  EXPECT_EQ(lives(p), (std::vector<Life>{{"in", 0, 3, 192}, {"cat", 0, 5, 768}, {"out", 4, 5, 256}}));
  EXPECT_EQ(p.tensor_offset_in_buffer, (std::vector<int64_t>{0, 0, 256, 384, 0, 0}));
  EXPECT_EQ(p.concat_input_in_place[d], (std::vector<char>{1, 1, 1}));
  EXPECT_EQ(p.node_is_alias[d], 1);
  Solution s;
  s.offsets = {1024, 0, 768};
  s.height = 1216;
  // Buffer offset + offset inside: in 1024, a 0, b 256, c 384, cat 0, out 768.
  EXPECT_EQ(activation_addresses(p, s), (std::vector<int64_t>{1024, 0, 256, 384, 0, 768}));
}

TEST(LifetimeActivation, GraphInputIsCopiedIntoConcat) {
  Graph g;
  int in = tensor(&g, "in", 2, 2, 2), a = tensor(&g, "a", 2, 2, 2), cat = tensor(&g, "cat", 4, 2, 2);
  g.inputs = {in};
  g.outputs = {cat};
  node(&g, "A", OpType::kConv, {in}, {a});
  const int d = node(&g, "D", OpType::kConcat, {in, a}, {cat});
  ActivationPlanInput p = build_activation_problem(g, schedule_nodes(g, "dfs"), 1);
  EXPECT_EQ(p.concat_input_in_place[d], (std::vector<char>{0, 1}));
  EXPECT_EQ(p.node_is_alias[d], 0);
  // a sits after in's 8 bytes inside cat; in keeps its own buffer until D (step 1).
  EXPECT_EQ(p.tensor_offset_in_buffer, (std::vector<int64_t>{0, 8, 0}));
  EXPECT_EQ(lives(p), (std::vector<Life>{{"in", 0, 2, 8}, {"cat", 0, 2, 16}}));
}

TEST(LifetimeActivation, TensorFeedingTwoConcatsGoesInPlaceOnlyOnce) {
  Graph g;
  int in = tensor(&g, "in", 1, 2, 2), a = tensor(&g, "a", 1, 2, 2), b = tensor(&g, "b", 1, 2, 2),
      c1 = tensor(&g, "c1", 2, 2, 2), c2 = tensor(&g, "c2", 2, 2, 2);
  g.inputs = {in};
  g.outputs = {c1, c2};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "B", OpType::kConv, {in}, {b});
  const int d1 = node(&g, "D1", OpType::kConcat, {a, b}, {c1});
  const int d2 = node(&g, "D2", OpType::kConcat, {b, a}, {c2});
  ActivationPlanInput p = build_activation_problem(g, schedule_nodes(g, "dfs"), 1);
  // D1 runs first and takes a (at 0) and b (at 4); D2 must copy both.
  EXPECT_EQ(p.concat_input_in_place[d1], (std::vector<char>{1, 1}));
  EXPECT_EQ(p.concat_input_in_place[d2], (std::vector<char>{0, 0}));
  EXPECT_EQ(p.tensor_buffer[a], p.tensor_buffer[c1]);
  EXPECT_NE(p.tensor_buffer[a], p.tensor_buffer[c2]);
  EXPECT_EQ(p.tensor_offset_in_buffer[b], 4);
}

TEST(LifetimeActivation, SliceOfAnotherTensorIsCopiedIntoConcat) {
  Graph g;
  int in = tensor(&g, "in", 1, 2, 2), x = tensor(&g, "x", 4, 2, 2), s = tensor(&g, "s", 2, 2, 2),
      b = tensor(&g, "b", 2, 2, 2), cat = tensor(&g, "cat", 4, 2, 2);
  g.inputs = {in};
  g.outputs = {cat, x};
  node(&g, "A", OpType::kConv, {in}, {x});
  Node slice;
  slice.name = "S";
  slice.op = OpType::kSlice;
  slice.inputs = {x};
  slice.outputs = {s};
  slice.channel_begin = {2};
  slice.channel_end = {4};
  g.add_node(slice);
  node(&g, "B", OpType::kConv, {in}, {b});
  const int d = node(&g, "D", OpType::kConcat, {s, b}, {cat});
  ActivationPlanInput p = build_activation_problem(g, schedule_nodes(g, "dfs"), 1);
  // s is channels [2,4) of x (byte 8): moving it into cat would move x, so it is copied.
  EXPECT_EQ(p.concat_input_in_place[d], (std::vector<char>{0, 1}));
  EXPECT_EQ(p.tensor_buffer[s], p.tensor_buffer[x]);
  EXPECT_EQ(p.tensor_offset_in_buffer[s], 8);
  EXPECT_EQ(p.tensor_offset_in_buffer[b], 8);
}

TEST(LifetimeActivation, NestedConcatAndFullReshapeViewGoInPlace) {
  Graph g;
  int in = tensor(&g, "in", 1, 2, 2), a = tensor(&g, "a", 2, 2, 2), r = tensor(&g, "r", 8, 1, 1),
      b = tensor(&g, "b", 2, 2, 2), c1 = tensor(&g, "c1", 4, 2, 2), c = tensor(&g, "c", 2, 2, 2),
      c2 = tensor(&g, "c2", 6, 2, 2);
  g.inputs = {in};
  g.outputs = {c2};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "R", OpType::kReshape, {a}, {r});
  node(&g, "B", OpType::kConv, {in}, {b});
  node(&g, "D1", OpType::kConcat, {r, b}, {c1});
  node(&g, "C", OpType::kConv, {in}, {c});
  node(&g, "D2", OpType::kConcat, {c, c1}, {c2});
  const std::vector<int> order = schedule_nodes(g, "dfs");
  ASSERT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  ActivationPlanInput p = build_activation_problem(g, order, 1);
  // r covers all of a, so a moves into c1 at 0; c1 then goes into c2 after c (8 bytes):
  // c 0, c1 8, a and r 8, b 8 + 8 = 16. One buffer from A (0) to the end (6).
  EXPECT_EQ(lives(p), (std::vector<Life>{{"in", 0, 5, 4}, {"c2", 0, 6, 24}}));
  EXPECT_EQ(p.tensor_offset_in_buffer, (std::vector<int64_t>{0, 8, 8, 16, 8, 0, 0}));
  EXPECT_EQ(p.node_is_alias, (std::vector<char>{0, 1, 0, 1, 0, 1}));
}

// DenseNet's chain: D1 concatenates a and b, a conv C reads D1's output, and D2 concatenates a, b
// and C's output. a and b already lie back to back in c1, so c1 becomes the prefix of c2 and
// nothing is copied (before, D2 copied a and b: flags {0, 0, 1}).
TEST(LifetimeActivation, ConcatChainExtendsThePreviousConcatInPlace) {
  Graph g;
  int in = tensor(&g, "in", 1, 2, 2), a = tensor(&g, "a", 2, 2, 2), b = tensor(&g, "b", 2, 2, 2),
      c1 = tensor(&g, "c1", 4, 2, 2), c = tensor(&g, "c", 2, 2, 2), c2 = tensor(&g, "c2", 6, 2, 2),
      out = tensor(&g, "out", 1, 2, 2);
  g.inputs = {in};
  g.outputs = {out};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "B", OpType::kConv, {in}, {b});
  const int d1 = node(&g, "D1", OpType::kConcat, {a, b}, {c1});
  node(&g, "C", OpType::kConv, {c1}, {c});
  const int d2 = node(&g, "D2", OpType::kConcat, {a, b, c}, {c2});
  node(&g, "E", OpType::kConv, {c2}, {out});
  const std::vector<int> order = schedule_nodes(g, "dfs");
  ASSERT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  ActivationPlanInput p = build_activation_problem(g, order, 1);
  EXPECT_EQ(p.concat_input_in_place[d1], (std::vector<char>{1, 1}));
  EXPECT_EQ(p.concat_input_in_place[d2], (std::vector<char>{1, 1, 1}));
  EXPECT_EQ(p.node_is_alias, (std::vector<char>{0, 0, 1, 0, 1, 0}));
  // One buffer c2 (24 bytes) from A (step 0) to E (5): a at 0, b at 8, c1 at 0, c at 16; in lives
  // until B (1), out from E.
  EXPECT_EQ(lives(p), (std::vector<Life>{{"in", 0, 2, 4}, {"c2", 0, 6, 24}, {"out", 5, 6, 4}}));
  EXPECT_EQ(p.tensor_offset_in_buffer, (std::vector<int64_t>{0, 0, 8, 0, 16, 0, 0}));
}

// The chain needs the leading inputs to fill the earlier buffer exactly: here D2 takes only a
// (c1 holds a and b), so c1 is not D2's prefix and a, already in c1, is copied.
TEST(LifetimeActivation, ConcatChainNeedsTheWholeEarlierBuffer) {
  Graph g;
  int in = tensor(&g, "in", 1, 2, 2), a = tensor(&g, "a", 2, 2, 2), b = tensor(&g, "b", 2, 2, 2),
      c1 = tensor(&g, "c1", 4, 2, 2), c = tensor(&g, "c", 2, 2, 2), c2 = tensor(&g, "c2", 4, 2, 2);
  g.inputs = {in};
  g.outputs = {c1, c2};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "B", OpType::kConv, {in}, {b});
  node(&g, "D1", OpType::kConcat, {a, b}, {c1});
  node(&g, "C", OpType::kConv, {in}, {c});
  const int d2 = node(&g, "D2", OpType::kConcat, {a, c}, {c2});
  ActivationPlanInput p = build_activation_problem(g, schedule_nodes(g, "dfs"), 1);
  EXPECT_EQ(p.concat_input_in_place[d2], (std::vector<char>{0, 1}));
  EXPECT_NE(p.tensor_buffer[a], p.tensor_buffer[c2]);
}

TEST(LifetimeActivation, SameTensorTwiceInOneConcat) {
  Graph g;
  int in = tensor(&g, "in", 1, 2, 2), a = tensor(&g, "a", 1, 2, 2), cat = tensor(&g, "cat", 2, 2, 2);
  g.inputs = {in};
  g.outputs = {cat};
  node(&g, "A", OpType::kConv, {in}, {a});
  const int d = node(&g, "D", OpType::kConcat, {a, a}, {cat});
  ActivationPlanInput p = build_activation_problem(g, schedule_nodes(g, "dfs"), 1);
  EXPECT_EQ(p.concat_input_in_place[d], (std::vector<char>{1, 0}));
  EXPECT_EQ(p.tensor_offset_in_buffer[a], 0);
}

TEST(LifetimeActivation, UnreadTensorDiesAfterItsProducer) {
  Graph g;
  int in = tensor(&g, "in", 1, 2, 2), a = tensor(&g, "a", 1, 2, 2), dead = tensor(&g, "dead", 1, 2, 2),
      out = tensor(&g, "out", 1, 2, 2);
  g.inputs = {in};
  g.outputs = {out};
  node(&g, "A", OpType::kConv, {in}, {a, dead});
  node(&g, "B", OpType::kConv, {a}, {out});
  ActivationPlanInput p = build_activation_problem(g, schedule_nodes(g, "dfs"), 1);
  EXPECT_EQ(lives(p), (std::vector<Life>{{"in", 0, 1, 4}, {"a", 0, 2, 4}, {"dead", 0, 1, 4},
                                         {"out", 1, 2, 4}}));
}

TEST(LifetimeActivation, BadScheduleAndSplitRange) {
  Graph g;
  int in = tensor(&g, "in", 4, 1, 1), x0 = tensor(&g, "x0", 2, 1, 1), x1 = tensor(&g, "x1", 3, 1, 1);
  g.inputs = {in};
  g.outputs = {x0, x1};
  Node split;
  split.name = "S";
  split.op = OpType::kSplit;
  split.inputs = {in};
  split.outputs = {x0, x1};
  split.channel_begin = {0, 2};
  split.channel_end = {2, 5};
  g.add_node(split);
  EXPECT_THROW(build_activation_problem(g, {0, 0}, 1), std::invalid_argument);
  try {
    build_activation_problem(g, {0}, 1);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "node 'S': output 'x1' channel range [2, 5) is outside input 'in' with 4 "
                 "channels");
  }
}

}  // namespace
}  // namespace strider::memory
