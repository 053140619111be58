#include "tb/capacity_bound.h"

#include <algorithm>
#include <set>
#include <vector>

#include "core/arch/dram_bandwidth.h"
#include "core/common/ceil_div.h"

namespace strider {
namespace {

// Per node, whether it is reachable from `from` along the edges `next` gives (from included).
std::vector<bool> reach(int from, const std::vector<std::vector<int>>& next) {
  std::vector<bool> seen(next.size(), false);
  std::vector<int> stack{from};
  seen[size_t(from)] = true;
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    for (int j : next[size_t(i)]) {
      if (!seen[size_t(j)]) seen[size_t(j)] = true, stack.push_back(j);
    }
  }
  return seen;
}

bool slices(OpType op) {
  return op == OpType::kSplit || op == OpType::kSlice || op == OpType::kGather;
}

}  // namespace

CapacityBound capacity_bound(const Graph& g, const ArchConfig& arch,
                             const std::vector<uint64_t>& lb_writes) {
  CapacityBound best;
  uint64_t inputs = 0, outputs = 0;
  for (int t : g.inputs) {
    if (g.tensors[size_t(t)].shape.n != 1) return best;
    inputs += uint64_t(g.tensors[size_t(t)].bytes());
  }
  for (int t : g.outputs) outputs += uint64_t(g.tensors[size_t(t)].bytes());
  // Node edges through the tensors: producer -> readers, and back.
  const size_t n = g.nodes.size();
  std::vector<int> producer(g.tensors.size(), -1);
  for (size_t i = 0; i < n; ++i) {
    for (int t : g.nodes[i].outputs) producer[size_t(t)] = int(i);
  }
  std::vector<std::vector<int>> down(n), up(n);
  for (size_t i = 0; i < n; ++i) {
    for (int t : g.nodes[i].inputs) {
      const int p = producer[size_t(t)];
      if (p >= 0) down[size_t(p)].push_back(int(i)), up[i].push_back(p);
    }
  }
  const uint64_t peak = uint64_t(arch.neurons.count) * arch.neurons.macs_per_cycle;
  for (size_t c = 0; c < n; ++c) {
    if (g.nodes[c].op != OpType::kFullyConnected) continue;
    const std::vector<bool> is_up = reach(int(c), up), is_down = reach(int(c), down);
    uint64_t macs_up = 0, macs_down = 0, w_up = 0, w_down = 0, lb_up = 0, lb_down = 0;
    std::set<int> counted;  // weight tensors shared by nodes count once
    bool chain = true;
    for (size_t i = 0; i < n && chain; ++i) {
      const Node& node = g.nodes[i];
      const bool before = is_up[i] && i != c;
      chain = (before || is_down[i]) && !(before && slices(node.op));
      uint64_t w = 0;
      for (int t : {node.weights, node.bias}) {
        if (t >= 0 && counted.insert(t).second) w += uint64_t(g.tensors[size_t(t)].bytes());
      }
      (before ? macs_up : macs_down) += uint64_t(node_macs(g, node));
      (before ? w_up : w_down) += w;
      (before ? lb_up : lb_down) += i < lb_writes.size() ? lb_writes[i] : 0;
    }
    if (!chain) continue;
    const uint64_t l2 = arch.l2.size_bytes;
    const uint64_t cycles =
        std::max({ceil_div(macs_up, peak), lb_up, dram_peak_cycles(arch, w_up + inputs)}) +
        std::max({ceil_div(macs_down, peak), lb_down,
                  dram_peak_cycles(arch, (w_down > l2 ? w_down - l2 : 0) + outputs)});
    if (cycles > best.cycles) best = {cycles, g.nodes[c].name};
  }
  return best;
}

}  // namespace strider
