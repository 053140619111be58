// Channel shuffle as a layout (memory/activation_problem.h): a concat read only by a channel
// shuffle is folded into the shuffle's output, its compute-made inputs produced there as strided
// views, the rest copied plane by plane from the step after their source is made.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/memory/activation_problem.h"
#include "planner/schedule/schedule.h"
#include "tests/planner/activation_test_util.h"

namespace strider::memory {
namespace {

int split(Graph* g, int in, std::vector<int> out, std::vector<int64_t> begin,
          std::vector<int64_t> end) {
  Node n;
  n.name = "X";
  n.op = OpType::kSplit;
  n.inputs = {in};
  n.outputs = std::move(out);
  n.channel_begin = std::move(begin);
  n.channel_end = std::move(end);
  return g->add_node(n);
}

// Two ShuffleNet units on 2 x 2 planes (4 bytes): a downsampling unit (both branches computed:
// concat D1 of a and b, shuffle H1) and a unit that splits s1 into halves, passes x0 through and
// concatenates it with its branch's e (D2, shuffle H2).
struct Units {
  Graph g;
  int in, a, b, c1, s1, x0, x1, e1, e, c2, s2, out;
  int d1, h1, x, d2, h2;
  Units() {
    in = tensor(&g, "in", 4, 2, 2);
    a = tensor(&g, "a", 2, 2, 2);
    b = tensor(&g, "b", 2, 2, 2);
    c1 = tensor(&g, "c1", 4, 2, 2);
    s1 = tensor(&g, "s1", 4, 2, 2);
    x0 = tensor(&g, "x0", 2, 2, 2);
    x1 = tensor(&g, "x1", 2, 2, 2);
    e1 = tensor(&g, "e1", 2, 2, 2);
    e = tensor(&g, "e", 2, 2, 2);
    c2 = tensor(&g, "c2", 4, 2, 2);
    s2 = tensor(&g, "s2", 4, 2, 2);
    out = tensor(&g, "out", 4, 2, 2);
    g.inputs = {in};
    g.outputs = {out};
    node(&g, "A", OpType::kConv, {in}, {a});
    node(&g, "B", OpType::kConv, {in}, {b});
    d1 = node(&g, "D1", OpType::kConcat, {a, b}, {c1});
    h1 = node(&g, "H1", OpType::kChannelShuffle, {c1}, {s1}, 2);
    x = split(&g, s1, {x0, x1}, {0, 2}, {2, 4});
    node(&g, "E1", OpType::kConv, {x1}, {e1});
    node(&g, "E2", OpType::kConv, {e1}, {e});
    d2 = node(&g, "D2", OpType::kConcat, {x0, e}, {c2});
    h2 = node(&g, "H2", OpType::kChannelShuffle, {c2}, {s2}, 2);
    node(&g, "F", OpType::kConv, {s2}, {out});
  }
};

TEST(ShuffleLayout, ConcatAndShuffleFoldIntoOneStridedBuffer) {
  Units u;
  const std::vector<int> order = schedule_nodes(u.g, "dfs");
  ASSERT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  const ActivationPlanInput p = build_activation_problem(u.g, order, 1);
  // s1 = shuffle(concat(a, b)): s1[2i] = a[i], s1[2i + 1] = b[i]: a at byte 0, b at byte 4 (one
  // plane), both 8 bytes (two planes) between their planes; the concat output is s1's memory.
  EXPECT_EQ(p.concat_input_in_place[u.d1], (std::vector<char>{1, 1}));
  EXPECT_EQ(p.concat_input_offset[u.d1], (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(p.concat_input_stride[u.d1], (std::vector<int64_t>{8, 8}));
  // D2: x0 (a view of s1) is copied into s2's even planes, e produced into the odd ones. The
  // copy may run from step 5 (E1), the step after the split X that makes x0.
  EXPECT_EQ(p.concat_input_in_place[u.d2], (std::vector<char>{0, 1}));
  EXPECT_EQ(p.concat_input_offset[u.d2], (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(p.concat_input_stride[u.d2], (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(p.concat_input_copy_step[u.d2], (std::vector<int>{5, -1}));
  EXPECT_EQ(p.concat_input_copy_step[u.d1], (std::vector<int>{-1, -1}));
  // No data moves for D1, H1, X and H2; D2 copies x0.
  EXPECT_EQ(p.node_is_alias, (std::vector<char>{0, 0, 1, 1, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(p.folded_shuffle, (std::vector<int>{-1, -1, 3, 2, -1, -1, -1, 8, 7, -1}));
  //                              in a  b  c1 s1 x0 x1 e1 e  c2 s2 out
  EXPECT_EQ(p.tensor_offset_in_buffer, (std::vector<int64_t>{0, 0, 4, 0, 0, 0, 8, 0, 4, 0, 0, 0}));
  EXPECT_EQ(p.tensor_channel_stride, (std::vector<int64_t>{0, 8, 8, 0, 0, 0, 0, 0, 8, 0, 0, 0}));
  EXPECT_EQ(p.tensor_buffer[u.a], p.tensor_buffer[u.s1]);
  EXPECT_EQ(p.tensor_buffer[u.c1], p.tensor_buffer[u.s1]);
  EXPECT_EQ(p.tensor_buffer[u.e], p.tensor_buffer[u.s2]);
  // One 16-byte buffer per shuffled tensor: s1 from A (0) to D2 (7, reads x0); s2 from the
  // copy's step 5 (its producer E2 is step 6) to F (9).
  EXPECT_EQ(lives(p), (std::vector<Life>{{"in", 0, 2, 16},
                                         {"s1", 0, 8, 16},
                                         {"e1", 5, 7, 8},
                                         {"s2", 5, 10, 16},
                                         {"out", 9, 10, 16}}));
}

TEST(ShuffleLayout, OffLeavesAPlainConcatAndAShuffleCopy) {
  Units u;
  const ActivationPlanInput p = build_activation_problem(u.g, schedule_nodes(u.g, "dfs"), 1, false);
  EXPECT_EQ(p.concat_input_in_place[u.d1], (std::vector<char>{1, 1}));  // in place, densely
  EXPECT_EQ(p.tensor_offset_in_buffer[u.b], 8);
  EXPECT_EQ(p.node_is_alias[u.h1], 0);
  EXPECT_NE(p.tensor_buffer[u.c1], p.tensor_buffer[u.s1]);
  EXPECT_EQ(p.folded_shuffle, std::vector<int>(10, -1));
  EXPECT_EQ(p.tensor_channel_stride, std::vector<int64_t>(12, 0));
}

// groups 2 over 4 channels (per 2) of 1 x 1 planes: a (1 channel at 0) and b (at 1) share group
// 0, c (2 channels at 2) is group 1. Concat channel k * per + i is shuffled channel i * 2 + k:
// a -> 0, b -> 2, c -> 1 and 3 (stride 2).
TEST(ShuffleLayout, InputsSharingAGroupAndGroupsOfFour) {
  Graph g;
  int in = tensor(&g, "in", 1, 1, 1), a = tensor(&g, "a", 1, 1, 1), b = tensor(&g, "b", 1, 1, 1),
      c = tensor(&g, "c", 2, 1, 1), cat = tensor(&g, "cat", 4, 1, 1), s = tensor(&g, "s", 4, 1, 1),
      out = tensor(&g, "out", 4, 1, 1);
  g.inputs = {in};
  g.outputs = {out};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "B", OpType::kConv, {in}, {b});
  node(&g, "C", OpType::kConv, {in}, {c});
  const int d = node(&g, "D", OpType::kConcat, {a, b, c}, {cat});
  node(&g, "H", OpType::kChannelShuffle, {cat}, {s}, 2);
  node(&g, "F", OpType::kConv, {s}, {out});
  ActivationPlanInput p = build_activation_problem(g, schedule_nodes(g, "dfs"), 1);
  EXPECT_EQ(p.concat_input_in_place[d], (std::vector<char>{1, 1, 1}));
  EXPECT_EQ(p.concat_input_offset[d], (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(p.tensor_offset_in_buffer[b], 2);
  EXPECT_EQ(p.tensor_offset_in_buffer[c], 1);
  EXPECT_EQ(p.tensor_channel_stride[c], 2);

  // groups 4 of one channel each: input k (1 channel at k) is shuffled channel k.
  Graph g4;
  in = tensor(&g4, "in", 1, 1, 1);
  std::vector<int> parts;
  for (int k = 0; k < 4; ++k) {
    parts.push_back(tensor(&g4, "p" + std::to_string(k), 1, 1, 1));
    node(&g4, "P" + std::to_string(k), OpType::kConv, {in}, {parts.back()});
  }
  cat = tensor(&g4, "cat", 4, 1, 1);
  s = tensor(&g4, "s", 4, 1, 1);
  g4.inputs = {in};
  g4.outputs = {s};
  const int d4 = node(&g4, "D", OpType::kConcat, parts, {cat});
  node(&g4, "H", OpType::kChannelShuffle, {cat}, {s}, 4);
  p = build_activation_problem(g4, schedule_nodes(g4, "dfs"), 1);
  EXPECT_EQ(p.concat_input_offset[d4], (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(p.concat_input_stride[d4], (std::vector<int64_t>{4, 4, 4, 4}));
  EXPECT_EQ(p.node_is_alias[size_t(d4) + 1], 1);
}

// Not folded: the concat output read by another op too, an input across two groups. Folded with
// a copy: an input a split reads (its planes are not only compute ops'), a graph output.
TEST(ShuffleLayout, WhatIsNotFoldedOrNotInPlace) {
  auto build = [](int variant) {
    Graph g;
    int in = tensor(&g, "in", 1, 1, 1), a = tensor(&g, "a", variant == 1 ? 3 : 2, 1, 1),
        b = tensor(&g, "b", variant == 1 ? 1 : 2, 1, 1), cat = tensor(&g, "cat", 4, 1, 1),
        s = tensor(&g, "s", 4, 1, 1), a0 = tensor(&g, "a0", 1, 1, 1),
        a1 = tensor(&g, "a1", 1, 1, 1), out = tensor(&g, "out", 4, 1, 1);
    g.inputs = {in};
    g.outputs = {out};
    node(&g, "A", OpType::kConv, {in}, {a});
    node(&g, "B", OpType::kConv, {in}, {b});
    node(&g, "D", OpType::kConcat, {a, b}, {cat});
    node(&g, "H", OpType::kChannelShuffle, {cat}, {s}, 2);
    node(&g, "F", OpType::kConv, {s}, {out});
    if (variant == 0) node(&g, "G", OpType::kConv, {cat}, {a0});  // cat read twice
    if (variant == 2) split(&g, a, {a0, a1}, {0, 1}, {1, 2});     // a read by a view
    if (variant == 3) g.outputs.push_back(b);                     // b a graph output
    return g;
  };
  for (int variant = 0; variant < 4; ++variant) {
    const Graph g = build(variant);
    const ActivationPlanInput p = build_activation_problem(g, schedule_nodes(g, "dfs"), 1);
    const int d = 2, h = 3;
    if (variant < 2) {
      EXPECT_EQ(p.folded_shuffle[d], -1) << variant;
      EXPECT_EQ(p.node_is_alias[h], 0) << variant;
      EXPECT_EQ(p.concat_input_in_place[d], (std::vector<char>{1, 1})) << variant;  // dense
    } else {
      EXPECT_EQ(p.folded_shuffle[d], h) << variant;
      EXPECT_EQ(p.node_is_alias[h], 1) << variant;
      EXPECT_EQ(p.concat_input_in_place[d],
                (variant == 2 ? std::vector<char>{0, 1} : std::vector<char>{1, 0}))
          << variant;
    }
  }
}

}  // namespace
}  // namespace strider::memory
