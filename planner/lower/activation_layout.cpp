#include "planner/lower/activation_layout.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "planner/memory/allocator.h"

namespace strider {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Union of tensors that share memory, each with its byte offset inside its parent.
class AliasForest {
 public:
  explicit AliasForest(size_t n) : parent_(n), offset_(n, 0) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  void attach(int child, int parent, uint64_t offset) {
    parent_[child] = parent;
    offset_[child] = offset;
  }
  int root(int t) const {
    while (parent_[t] != t) t = parent_[t];
    return t;
  }
  uint64_t offset_in_root(int t) const {
    uint64_t off = 0;
    for (; parent_[t] != t; t = parent_[t]) off += offset_[t];
    return off;
  }
  bool is_root(int t) const { return parent_[t] == t; }

 private:
  std::vector<int> parent_;
  std::vector<uint64_t> offset_;
};

}  // namespace

ActivationLayout plan_activations(const Graph& g, const std::vector<int>& order, uint64_t alignment,
                                  uint64_t capacity, const LowerOptions& opt, uint64_t spill_base) {
  const size_t nt = g.tensors.size();
  std::vector<int> producer(nt, -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (int t : g.nodes[i].outputs) producer[t] = static_cast<int>(i);
  }
  auto is_graph_io = [&](int t) {
    return std::count(g.inputs.begin(), g.inputs.end(), t) ||
           std::count(g.outputs.begin(), g.outputs.end(), t);
  };

  // Alias groups: views share their input's buffer; a concat's inputs are produced in place
  // inside its output when each is the plain result of a compute op used by this concat once.
  AliasForest alias(nt);
  ActivationLayout out;
  for (int idx : order) {
    const Node& n = g.nodes[idx];
    if (is_view_op(n.op)) {
      const Tensor& in = g.tensors[n.inputs[0]];
      const uint64_t plane = uint64_t(in.shape.h) * in.shape.w;
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        const uint64_t ch = k < n.channel_begin.size() ? uint64_t(n.channel_begin[k]) : 0;
        alias.attach(n.outputs[k], n.inputs[0], ch * plane);
      }
    } else if (n.op == OpType::kConcat) {
      uint64_t off = 0;
      for (int t : n.inputs) {
        const bool once = std::count(n.inputs.begin(), n.inputs.end(), t) == 1;
        const int p = producer[t];
        const bool computed = p >= 0 && !is_view_op(g.nodes[p].op) &&
                              g.nodes[p].op != OpType::kConcat;
        if (once && computed && alias.is_root(t) && !is_graph_io(t)) {
          alias.attach(t, n.outputs[0], off);
        } else {
          out.copies.push_back({idx, t, off});
        }
        off += static_cast<uint64_t>(g.tensors[t].bytes());
      }
    }
  }

  // Lifetimes per group: from the first member's production to the last member's last use.
  const int64_t steps = static_cast<int64_t>(order.size());
  std::vector<int64_t> first(nt, -1), last(nt, -1);
  auto touch = [&](int t, int64_t step) {
    const int r = alias.root(t);
    first[r] = first[r] < 0 ? step : std::min(first[r], step);
    last[r] = std::max(last[r], step);
  };
  // A graph input lives from its first use (it is loaded just before), an output until its last
  // use or its production (it is stored to DRAM right after): models run in series share memory.
  for (int64_t s = 0; s < steps; ++s) {
    const Node& n = g.nodes[order[s]];
    for (int t : n.inputs) touch(t, s);
    for (int t : n.outputs) touch(t, s);
  }

  // One buffer per alias group (root tensor with a lifetime).
  std::vector<int> roots;
  for (size_t t = 0; t < nt; ++t) {
    if (g.tensors[t].kind == TensorKind::kActivation && alias.is_root(int(t)) && first[t] >= 0) {
      roots.push_back(static_cast<int>(t));
    }
  }
  auto bytes_of = [&](int t) { return align_up(uint64_t(g.tensors[t].bytes()), alignment); };
  std::vector<bool> spilled(nt, false);
  // Choosing what to spill uses a fast allocator; the requested one then plans the rest (and if it
  // packs worse, spilling goes on with it).
  memory::AllocatorOptions aopt;
  aopt.name = opt.allocator == "naive" ? "naive" : "greedy_by_size";
  aopt.time_limit_s = opt.time_limit_s;
  bool requested = aopt.name == opt.allocator;
  memory::Problem problem;
  std::vector<int> planned;  // root tensor of each problem buffer
  memory::Solution sol;
  for (;;) {
    problem = memory::Problem();
    planned.clear();
    for (int t : roots) {
      if (spilled[t]) continue;
      planned.push_back(t);
      memory::Buffer b;
      b.id = g.tensors[t].name;
      b.lower = first[t];
      b.upper = last[t] + 1;
      b.size = static_cast<int64_t>(bytes_of(t));
      b.alignment = static_cast<int64_t>(alignment);
      problem.buffers.push_back(b);
    }
    // The step with the most live bytes, and whether even the lower bound overflows.
    std::vector<uint64_t> live(std::max<int64_t>(steps, 1), 0);
    for (int t : planned) {
      for (int64_t s = first[t]; s <= last[t]; ++s) live[s] += bytes_of(t);
    }
    const int64_t peak = std::max_element(live.begin(), live.end()) - live.begin();
    bool fits = live[peak] <= capacity;
    if (fits) {
      sol = memory::allocate(problem, aopt);
      fits = uint64_t(sol.height) <= capacity;
      if (fits && !requested) {
        aopt.name = opt.allocator;
        requested = true;
        continue;
      }
    }
    if (fits) break;
    if (spill_base == 0) {
      int largest = -1;
      for (int t : planned) {
        if (first[t] <= peak && peak <= last[t] && (largest < 0 || bytes_of(t) > bytes_of(largest))) {
          largest = t;
        }
      }
      throw std::runtime_error(
          "activations of " + g.name + " need " +
          std::to_string(live[peak] > capacity ? live[peak] : uint64_t(sol.height)) +
          " bytes of L2 but " + std::to_string(capacity) + " are left after weight staging (step " +
          std::to_string(peak) + ", largest live tensor '" + g.tensors[largest].name + "' of " +
          std::to_string(bytes_of(largest)) + " bytes)");
    }
    int victim = -1;
    for (int t : planned) {
      if (first[t] <= peak && peak <= last[t] && (victim < 0 || bytes_of(t) > bytes_of(victim))) {
        victim = t;
      }
    }
    if (victim < 0) throw std::runtime_error("activation plan: nothing left to spill");
    spilled[victim] = true;
  }
  out.allocator = sol.allocator;
  out.peak_bytes = static_cast<uint64_t>(sol.height);
  out.lower_bound_bytes = static_cast<uint64_t>(memory::lower_bound(problem));
  out.proven_optimal = sol.proven_optimal;
  std::vector<uint64_t> group_addr(nt, 0);
  for (size_t b = 0; b < planned.size(); ++b) {
    group_addr[planned[b]] = uint64_t(sol.offsets[b]);
    const memory::Buffer& buf = problem.buffers[b];
    out.buffers.push_back({buf.id, "activation", uint64_t(sol.offsets[b]), uint64_t(buf.size),
                           buf.lower, buf.upper - 1});
  }
  uint64_t dram = spill_base;
  for (int t : roots) {
    if (!spilled[t]) continue;
    group_addr[t] = dram;
    dram = align_up(dram + bytes_of(t), 4096);
  }
  out.tensor_addr.assign(nt, 0);
  out.tensor_spilled.assign(nt, false);
  for (size_t t = 0; t < nt; ++t) {
    if (g.tensors[t].kind != TensorKind::kActivation) continue;
    const int r = alias.root(int(t));
    out.tensor_addr[t] = group_addr[r] + alias.offset_in_root(int(t));
    out.tensor_spilled[t] = spilled[r];
  }
  for (ConcatCopy& c : out.copies) c.dst_addr += out.tensor_addr[g.nodes[c.node].outputs[0]];
  return out;
}

}  // namespace strider
