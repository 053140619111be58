// Shared by the activation-plan tests (alias groups, lifetimes, the channel shuffle's layout): a
// small graph's tensors and nodes, and the problem's buffers as comparable lifetimes.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "planner/memory/activation_problem.h"

namespace strider::memory {

inline int tensor(Graph* g, const std::string& name, int64_t c, int64_t h, int64_t w) {
  Tensor t;
  t.name = name;
  t.shape = {1, c, h, w};
  return g->add_tensor(t);
}

// `groups`: a channel shuffle's.
inline int node(Graph* g, const std::string& name, OpType op, std::vector<int> in,
                std::vector<int> out, int groups = 1) {
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.shuffle_groups = groups;
  return g->add_node(n);
}

struct Life {
  std::string id;
  int64_t lower, upper, size;
  bool operator==(const Life& o) const {
    return id == o.id && lower == o.lower && upper == o.upper && size == o.size;
  }
};

inline std::ostream& operator<<(std::ostream& os, const Life& l) {
  return os << l.id << " [" << l.lower << "," << l.upper << ") " << l.size;
}

inline std::vector<Life> lives(const ActivationPlanInput& in) {
  std::vector<Life> out;
  for (const Buffer& b : in.problem.buffers) out.push_back({b.id, b.lower, b.upper, b.size});
  return out;
}

}  // namespace strider::memory
