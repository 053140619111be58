#include "tb/resource_limits.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace strider {
namespace {

// "4 GiB", "1.5 MiB", "512 B": a readable size next to the exact byte count.
std::string human_bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  std::ostringstream s;
  s.precision(v < 10 && u > 0 ? 2 : 0);
  s << std::fixed << v << " " << units[u];
  return s.str();
}

std::string amount(uint64_t v, bool bytes) {
  if (v == kSaturated) return "more than 2^64";
  std::string s = std::to_string(v);
  if (bytes && v >= 1024) s += " (" + human_bytes(v) + ")";
  return s;
}

// Collects the exceeded bounds of one run and throws them together.
class Violations {
 public:
  void over(const std::string& what, uint64_t value, uint64_t limit, bool bytes = false) {
    if (value <= limit) return;
    lines_.push_back(what + " is " + amount(value, bytes) + ", over the limit of " +
                     amount(limit, bytes));
  }
  void add(const std::string& line) { lines_.push_back(line); }
  void throw_if_any(const RunConfig& cfg, const char* stage) const {
    if (lines_.empty()) return;
    std::string msg = cfg.source + ": refused " + stage + ": " +
                      (lines_.size() == 1 ? lines_[0] : std::to_string(lines_.size()) +
                                                            " resource limits exceeded:");
    if (lines_.size() > 1) {
      for (const std::string& l : lines_) msg += "\n  " + l;
    }
    throw std::runtime_error(msg);
  }

 private:
  std::vector<std::string> lines_;
};

void config_violations(const RunConfig& cfg, const ResourceLimits& lim, Violations& v) {
  const ArchConfig& a = cfg.arch;
  v.over("arch.l2.size_bytes", a.l2.size_bytes, lim.max_l2_bytes, true);
  if (cfg.sim.functional) {
    v.over("arch.l2.size_bytes with sim.functional (a dense host backing store)",
           a.l2.size_bytes, lim.max_functional_l2_bytes, true);
  }
  v.over("arch.dram.size_bytes", a.dram.size_bytes, lim.max_dram_bytes, true);
  v.over("arch.neurons.count", a.neurons.count, lim.max_neurons);
  v.over("arch.l1.lines", a.l1.lines, lim.max_l1_lines);
  v.over("arch.l1.line_bytes", a.l1.line_bytes, lim.max_l1_line_bytes, true);
  v.over("arch.l1.kernel_bytes", a.l1.kernel_bytes, lim.max_l1_kernel_bytes, true);
  v.over("arch.dma.channels", a.dma.channels, lim.max_dma_channels);
  v.over("arch.controller.prefetch_depth", a.controller.prefetch_depth, lim.max_prefetch_depth);
  if (cfg.sim.watchdog_cycles == 0) {
    v.add("sim.watchdog_cycles is 0, expected at least 1 (0 would flag every run a deadlock)");
  }
}

uint64_t nonnegative(int64_t v) { return v < 0 ? 0 : uint64_t(v); }

// Elements of a shape without overflow (negative dims count as 0).
uint64_t elements(const TensorShape& s) {
  return saturating_mul(saturating_mul(nonnegative(s.n), nonnegative(s.c)),
                        saturating_mul(nonnegative(s.h), nonnegative(s.w)));
}

std::string network_name(const RunConfig& cfg, size_t k = 0) {
  return k < cfg.networks.size() ? "network " + cfg.networks[k].path : std::string("network");
}

}  // namespace

void check_config_limits(const RunConfig& cfg, const ResourceLimits& limits) {
  Violations v;
  config_violations(cfg, limits, v);
  v.throw_if_any(cfg, "before planning");
}

void check_resource_limits(const RunConfig& cfg, const Graph& g, const ResourceLimits& limits,
                           size_t network) {
  Violations v;
  config_violations(cfg, limits, v);
  const std::string net = network_name(cfg, network);
  v.over(net + ": node count", g.nodes.size(), limits.max_nodes);

  // Tensors: each one (named when over) and the sum of weights and biases.
  uint64_t weight_bytes = 0;
  for (const Tensor& t : g.tensors) {
    const uint64_t bytes = saturating_mul(elements(t.shape), nonnegative(t.element_bytes));
    v.over(net + ": tensor '" + t.name + "' (" + to_string(t.shape) + ")", bytes,
           limits.max_tensor_bytes, true);
    if (t.kind != TensorKind::kActivation) weight_bytes = saturating_add(weight_bytes, bytes);
  }
  v.over(net + ": weights and biases", weight_bytes, limits.max_weight_bytes, true);

  // MACs of conv and fully-connected nodes: output elements x weight elements per output
  // channel (conv weights [out][in/groups][kh][kw], fc [out][in], as n, c, h, w).
  uint64_t macs = 0;
  for (const Node& n : g.nodes) {
    if (n.op != OpType::kConv && n.op != OpType::kFullyConnected) continue;
    if (n.outputs.empty() || n.weights < 0) continue;
    const TensorShape& w = g.tensors[n.weights].shape;
    const uint64_t per_output =
        saturating_mul(saturating_mul(nonnegative(w.c), nonnegative(w.h)), nonnegative(w.w));
    macs = saturating_add(macs,
                          saturating_mul(elements(g.tensors[n.outputs[0]].shape), per_output));
  }
  v.over(net + ": MACs", macs, limits.max_macs);
  if (cfg.sim.functional) {
    v.over(net + ": MACs with sim.functional (each computed on real data)", macs,
           limits.max_functional_macs);
  }
  v.throw_if_any(cfg, "before planning");
}

void check_descriptor_limits(const RunConfig& cfg, const DescriptorList& list,
                             const ResourceLimits& limits) {
  Violations v;
  v.over(network_name(cfg) + ": descriptor count", list.descriptors.size(),
         limits.max_descriptors);
  v.throw_if_any(cfg, "before simulation");
}

Lowered lower_within_limits(const RunConfig& cfg, const Graph& g, const ArchConfig& arch,
                            LowerOptions opt, const ResourceLimits& limits, size_t network) {
  opt.max_descriptors = limits.max_descriptors;
  try {
    return lower(g, arch, opt);
  } catch (const DescriptorLimitError& e) {
    throw std::runtime_error(cfg.source + ": refused during planning: " +
                             (cfg.networks.size() == 1 ? network_name(cfg, network)
                                                       : std::string("networks in series")) +
                             ": " + e.what() +
                             " (about 0.9 KiB of host memory each; a larger "
                             "arch.l2.size_bytes makes fewer, larger tiles)");
  }
}

}  // namespace strider
