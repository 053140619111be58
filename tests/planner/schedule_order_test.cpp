// Schedules: depth-first and memory-aware orders, and their errors.
#include <gtest/gtest.h>

#include <stdexcept>

#include "planner/schedule/schedule.h"

namespace strider {
namespace {

int tensor(Graph* g, const std::string& name, int64_t c) {
  Tensor t;
  t.name = name;
  t.shape = {1, c, 1, 1};
  return g->add_tensor(t);
}

void node(Graph* g, const std::string& name, OpType op, std::vector<int> in, std::vector<int> out) {
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  g->add_node(n);
}

// in -> A -> a; a -> B -> b; a -> C -> c; b -> D -> d; c -> E -> e; (d, e) -> F -> f.
Graph diamond() {
  Graph g;
  g.name = "diamond";
  int in = tensor(&g, "in", 4), a = tensor(&g, "a", 4), b = tensor(&g, "b", 4),
      c = tensor(&g, "c", 4), d = tensor(&g, "d", 4), e = tensor(&g, "e", 4),
      f = tensor(&g, "f", 4);
  g.inputs = {in};
  g.outputs = {f};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "B", OpType::kConv, {a}, {b});
  node(&g, "C", OpType::kConv, {a}, {c});
  node(&g, "D", OpType::kConv, {b}, {d});
  node(&g, "E", OpType::kConv, {c}, {e});
  node(&g, "F", OpType::kAdd, {d, e}, {f});
  return g;
}

TEST(ScheduleOrder, DepthFirstFinishesABranchFirst) {
  // After B, its consumer D runs before the other branch C (node order would be A B C D E F).
  EXPECT_EQ(schedule_nodes(diamond(), "dfs"), (std::vector<int>{0, 1, 3, 2, 4, 5}));
}

// Two heads read one tensor, as a detector's class and box convs: in -> A -> a; a -> Cls -> cls
// (6 channels), a -> Box -> box (8), a -> L -> l -> M -> m; cls, box and m the graph's outputs.
// Depth-first runs the sinks made ready by A with the larger output first (Box, then Cls: the
// run then ends on the smaller store), each in its own position among A's consumers: L, a
// non-sink, stays between them and its consumer M follows it.
TEST(ScheduleOrder, DepthFirstRunsTheLargerSinkFirst) {
  Graph g;
  g.name = "heads";
  const int in = tensor(&g, "in", 4), a = tensor(&g, "a", 4), cls = tensor(&g, "cls", 6),
            box = tensor(&g, "box", 8), l = tensor(&g, "l", 4), m = tensor(&g, "m", 4);
  g.inputs = {in};
  g.outputs = {cls, box, m};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "Cls", OpType::kConv, {a}, {cls});
  node(&g, "L", OpType::kConv, {a}, {l});
  node(&g, "Box", OpType::kConv, {a}, {box});
  node(&g, "M", OpType::kConv, {l}, {m});
  // Node order would run Cls (1), L (2), M (4), Box (3).
  EXPECT_EQ(schedule_nodes(g, "dfs"), (std::vector<int>{0, 3, 2, 4, 1}));
}

TEST(ScheduleOrder, MemoryAwarePicksTheSmallerIncrease) {
  Graph g;
  g.name = "mem";
  int in = tensor(&g, "in", 8), a = tensor(&g, "a", 1000), big = tensor(&g, "big", 2000),
      small = tensor(&g, "small", 10), out = tensor(&g, "out", 10);
  g.inputs = {in};
  g.outputs = {out};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "Big", OpType::kConv, {a}, {big});
  node(&g, "Small", OpType::kConv, {a}, {small});
  node(&g, "D", OpType::kAdd, {big, small}, {out});
  // dfs takes Big (first consumer of a) first; memory takes Small (+10 bytes) before Big (+2000).
  EXPECT_EQ(schedule_nodes(g, "dfs"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(schedule_nodes(g, "memory"), (std::vector<int>{0, 2, 1, 3}));
}

TEST(ScheduleOrder, MemoryAwareFreesInputsFirst) {
  Graph g;
  g.name = "free";
  int in = tensor(&g, "in", 4), a = tensor(&g, "a", 4), b = tensor(&g, "b", 4),
      c = tensor(&g, "c", 2), out = tensor(&g, "out", 4);
  g.inputs = {in};
  g.outputs = {out};
  node(&g, "A", OpType::kConv, {in}, {a});
  node(&g, "C", OpType::kConv, {in}, {c});
  node(&g, "B", OpType::kConv, {a}, {b});
  node(&g, "D", OpType::kAdd, {b, c}, {out});
  // Ready at start: A (+4, in still read by C) and C (+2, in still read by A): C first (delta 2).
  // Then A: +4 - 4 (in's last reader) = 0. Then B: 0. Then D.
  EXPECT_EQ(schedule_nodes(g, "memory"), (std::vector<int>{1, 0, 2, 3}));
}

TEST(ScheduleOrder, UnknownNameListsValidOnes) {
  try {
    schedule_nodes(diamond(), "bfs");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown schedule 'bfs', valid: dfs, memory");
  }
}

TEST(ScheduleOrder, CycleNamesANode) {
  Graph g;
  g.name = "loop";
  int a = tensor(&g, "a", 1), b = tensor(&g, "b", 1);
  node(&g, "X", OpType::kConv, {b}, {a});
  node(&g, "Y", OpType::kConv, {a}, {b});
  try {
    schedule_nodes(g, "dfs");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "graph 'loop': node 'X' is on a dependency cycle");
  }
}

}  // namespace
}  // namespace strider
