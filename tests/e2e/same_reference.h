// expect_same_reference: a fused graph's reference against the graph it was fused from, on the
// same seeded inputs: every output tensor of a node the fused graph keeps must hold the same
// bytes in both (the fusions of planner/lower/legalise.h keep tensor ids, so the fused graph's
// tensors are the plain one's).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "planner/ir/graph.h"
#include "tb/functional_check.h"
#include "tb/reference.h"

namespace strider {

inline void expect_same_reference(const Graph& plain, const Graph& fused, const std::string& net) {
  Reference a(plain), b(fused);
  for (int t : plain.inputs) {
    a.set_input(t, FunctionalCheck::input_bytes(plain.tensors[size_t(t)], 7));
    b.set_input(t, FunctionalCheck::input_bytes(fused.tensors[size_t(t)], 7));
  }
  a.run();
  b.run();
  size_t compared = 0, outputs = 0;
  for (const Node& n : fused.nodes) {
    outputs += n.outputs.size();  // a conv with a fused global pool may write two
    for (int t : n.outputs) {
      ASSERT_EQ(a.value(t), b.value(t)) << net << ": " << plain.tensors[size_t(t)].name;
      ++compared;
    }
  }
  EXPECT_EQ(compared, outputs) << net;
  EXPECT_GE(compared, fused.nodes.size()) << net;
}

}  // namespace strider
