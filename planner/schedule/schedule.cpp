// Depth-first and memory-aware schedules: see schedule.h.
#include "planner/schedule/schedule.h"

#include <algorithm>
#include <stdexcept>

namespace strider {
namespace {

struct Dependencies {
  std::vector<std::vector<int>> successors;  // node -> nodes consuming one of its outputs
  std::vector<int> pending;                  // node -> number of distinct producer nodes
};

Dependencies dependencies(const Graph& g) {
  const std::vector<int> producer = g.producers();
  Dependencies d;
  d.successors.resize(g.nodes.size());
  d.pending.assign(g.nodes.size(), 0);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    std::vector<int> preds;
    for (int t : g.nodes[n].inputs) {
      if (t >= 0 && static_cast<size_t>(t) < producer.size() && producer[t] >= 0) {
        preds.push_back(producer[t]);
      }
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (int pnode : preds) d.successors[pnode].push_back(static_cast<int>(n));
    d.pending[n] = static_cast<int>(preds.size());
  }
  return d;
}

[[noreturn]] void cycle(const Graph& g, const std::vector<int>& pending) {
  for (size_t n = 0; n < pending.size(); ++n) {
    if (pending[n] > 0) {
      throw std::runtime_error("graph '" + g.name + "': node '" + g.nodes[n].name +
                               "' is on a dependency cycle");
    }
  }
  throw std::logic_error("schedule: cycle without a pending node");
}

// Sibling sinks (nodes whose outputs no node reads: the graph's outputs) in `succ` reordered
// among their own positions, the one with the most output bytes first (ties kept in order): each
// is computed and then stored, and the last one's store is the run's tail, so the larger stores
// overlap the later siblings' compute and the run ends on the smallest (Johnson's rule for
// two-stage jobs, compute then store, whose compute is the longer stage).
std::vector<int> sinks_by_output(const Graph& g, const Dependencies& d, std::vector<int> succ) {
  std::vector<size_t> at;
  std::vector<int> sinks;
  for (size_t k = 0; k < succ.size(); ++k) {
    if (d.successors[size_t(succ[k])].empty()) at.push_back(k), sinks.push_back(succ[k]);
  }
  const auto bytes = [&](int n) {
    int64_t b = 0;
    for (int t : g.nodes[size_t(n)].outputs) b += g.tensors[size_t(t)].bytes();
    return b;
  };
  std::stable_sort(sinks.begin(), sinks.end(), [&](int a, int b) { return bytes(a) > bytes(b); });
  for (size_t k = 0; k < at.size(); ++k) succ[at[k]] = sinks[k];
  return succ;
}

std::vector<int> depth_first(const Graph& g) {
  Dependencies d = dependencies(g);
  std::vector<int> stack;
  for (int n = static_cast<int>(g.nodes.size()) - 1; n >= 0; --n) {
    if (d.pending[n] == 0) stack.push_back(n);
  }
  std::vector<int> order;
  order.reserve(g.nodes.size());
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    order.push_back(n);
    const std::vector<int> succ = sinks_by_output(g, d, d.successors[n]);
    for (auto it = succ.rbegin(); it != succ.rend(); ++it) {
      if (--d.pending[*it] == 0) stack.push_back(*it);
    }
  }
  if (order.size() != g.nodes.size()) cycle(g, d.pending);
  return order;
}

std::vector<int> memory_aware(const Graph& g) {
  Dependencies d = dependencies(g);
  const std::vector<std::vector<int>> consumers = g.consumers();
  std::vector<char> is_output(g.tensors.size(), 0);
  for (int t : g.outputs) is_output[t] = 1;
  // Unscheduled consumer nodes per tensor (a node reading a tensor twice counts once).
  std::vector<int> readers(g.tensors.size(), 0);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    std::vector<int> c = consumers[t];
    std::sort(c.begin(), c.end());
    readers[t] = static_cast<int>(std::unique(c.begin(), c.end()) - c.begin());
  }
  auto delta = [&](int n) {
    const Node& node = g.nodes[n];
    // Views (reshape, and channel split / slice at batch 1) only alias their input.
    if (is_view_op(node.op) || node.op == OpType::kSplit || node.op == OpType::kSlice) {
      return int64_t{0};
    }
    int64_t bytes = 0;
    for (int t : node.outputs) bytes += g.tensors[t].bytes();
    std::vector<int> in = node.inputs;
    std::sort(in.begin(), in.end());
    in.erase(std::unique(in.begin(), in.end()), in.end());
    for (int t : in) {
      if (readers[t] == 1 && !is_output[t]) bytes -= g.tensors[t].bytes();
    }
    return bytes;
  };
  // Ready nodes with the order they became ready (later = deeper, preferred on ties).
  std::vector<std::pair<int, int64_t>> ready;  // node, readiness stamp
  int64_t stamp = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (d.pending[n] == 0) ready.emplace_back(static_cast<int>(n), -static_cast<int64_t>(n));
  }
  std::vector<int> order;
  order.reserve(g.nodes.size());
  while (!ready.empty()) {
    size_t best = 0;
    int64_t best_delta = delta(ready[0].first);
    for (size_t k = 1; k < ready.size(); ++k) {
      int64_t dk = delta(ready[k].first);
      if (dk < best_delta || (dk == best_delta && ready[k].second > ready[best].second)) {
        best = k;
        best_delta = dk;
      }
    }
    const int n = ready[best].first;
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
    order.push_back(n);
    std::vector<int> in = g.nodes[n].inputs;
    std::sort(in.begin(), in.end());
    in.erase(std::unique(in.begin(), in.end()), in.end());
    for (int t : in) --readers[t];
    ++stamp;
    const std::vector<int>& succ = d.successors[n];
    for (size_t k = 0; k < succ.size(); ++k) {
      // Earlier successors get the larger stamp so they win ties, as in dfs.
      if (--d.pending[succ[k]] == 0) {
        ready.emplace_back(succ[k], stamp * static_cast<int64_t>(g.nodes.size() + 1) +
                                        static_cast<int64_t>(succ.size() - k));
      }
    }
  }
  if (order.size() != g.nodes.size()) cycle(g, d.pending);
  return order;
}

}  // namespace

std::vector<std::string> schedule_names() { return {"dfs", "memory"}; }

std::vector<int> schedule_nodes(const Graph& g, const std::string& order) {
  if (order == "dfs") return depth_first(g);
  if (order == "memory") return memory_aware(g);
  std::string valid;
  for (const std::string& n : schedule_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown schedule '" + order + "', valid: " + valid);
}

}  // namespace strider
