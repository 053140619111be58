// FusionPlanner (see fusion_planner.h).
#include "tb/fusion_planner.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "planner/lower/legalise.h"
#include "planner/lower/network_merge.h"
#include "tb/resource_limits.h"

namespace strider {

FusionPlanner::FusionPlanner(std::vector<Graph> nets, std::vector<std::string> names,
                             const RunConfig& cfg, LowerOptions opt)
    : nets_(std::move(nets)), names_(std::move(names)), cfg_(cfg), opt_(std::move(opt)) {
  size_t offset = 0;
  for (Graph& g : nets_) {
    std::vector<Payload>& p = payloads_.emplace_back(g.tensors.size());
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      Tensor& x = g.tensors[t];
      p[t] = {std::move(x.data), std::move(x.bias), std::move(x.float_data)};
      x.data.clear(), x.bias.clear(), x.float_data.clear();
    }
    offsets_.push_back(nets_.size() > 1 ? offset : 0);  // merge_networks appends in order
    offset += g.tensors.size();
  }
}

void FusionPlanner::swap_payloads(size_t k, Graph& g, size_t offset) {
  std::vector<Payload>& p = payloads_[k];
  if (offset + p.size() > g.tensors.size()) {
    throw std::logic_error("fusion planner: network " + names_[k] + "'s tensors not in graph " +
                           g.name);
  }
  for (size_t t = 0; t < p.size(); ++t) {
    Tensor& x = g.tensors[offset + t];
    x.data.swap(p[t].data);
    x.bias.swap(p[t].bias);
    x.float_data.swap(p[t].float_data);
  }
}

Lowered FusionPlanner::lower_lent(Graph& g, const std::vector<std::pair<size_t, size_t>>& lent,
                                  const LowerOptions& opt, size_t network) {
  const auto swap_all = [&] {
    for (const auto& [k, offset] : lent) swap_payloads(k, g, offset);
  };
  swap_all();
  try {
    Lowered l = lower_within_limits(cfg_, g, cfg_.arch, opt, ResourceLimits(), network);
    swap_all();
    return l;
  } catch (...) {
    swap_all();
    throw;
  }
}

namespace {

// The fusions of a candidate: its residual Adds, then its max-pools and global average pools,
// but those in `keep`.
void fuse_graph(Graph* g, const std::set<std::string>& keep, const std::string& prefix) {
  fuse_residual_adds(g, keep, prefix);
  fuse_max_pools(g, keep, prefix);
  fuse_global_pools(g, keep, prefix);
}

// Runs `attempt` with `keep`, adding the max-pools and global pools a lowering refused
// (PoolFusionRefused) to it
// until one is lowered; each retry keeps at least one more pool unfused, so it ends.
template <typename Attempt>
auto with_refused_pools(std::optional<std::set<std::string>>& keep, Attempt attempt) {
  for (;;) {
    try {
      return attempt();
    } catch (const PoolFusionRefused& e) {
      const size_t before = keep ? keep->size() : 0;
      if (keep) keep->insert(e.pools().begin(), e.pools().end());
      if (!keep || keep->size() == before) throw;
    }
  }
}

}  // namespace

FusionCandidate FusionPlanner::plan(std::optional<std::set<std::string>> keep) {
  return with_refused_pools(keep, [&] { return plan_once(keep); });
}

FusionCandidate FusionPlanner::plan_once(const std::optional<std::set<std::string>>& keep) {
  FusionCandidate c;
  c.keep = keep;
  std::vector<Graph> fused = nets_;  // bare: names, shapes, scales and nodes
  for (size_t k = 0; k < fused.size() && c.keep; ++k) {
    fuse_graph(&fused[k], *c.keep, fused.size() > 1 ? names_[k] + "/" : "");
  }
  std::vector<std::pair<size_t, size_t>> all;
  for (size_t k = 0; k < nets_.size(); ++k) all.emplace_back(k, offsets_[k]);
  if (fused.size() == 1) {
    c.graph = std::move(fused[0]);
  } else {
    MergedNetworks m = merge_networks(fused, names_, cfg_.planner.schedule, cfg_.execution);
    c.graph = std::move(m.graph);
    c.order = std::move(m.order);
  }
  LowerOptions o = opt_;
  o.order = c.order;
  c.lowered = lower_lent(c.graph, all, o, 0);
  c.dram_bytes = dram_move_bytes(c.lowered.list);
  return c;
}

FusionCandidate FusionPlanner::choose() {
  const bool fuse = cfg_.arch.lowering.fuse;
  FusionCandidate best =
      plan(fuse ? std::optional<std::set<std::string>>(std::set<std::string>()) : std::nullopt);
  if (!fuse) return best;
  const std::vector<bool>& spilled = best.lowered.tensor_spilled;
  const bool spills = std::find(spilled.begin(), spilled.end(), true) != spilled.end();
  const std::set<std::string> refused = residuals_read_from_dram(best.graph, spilled);
  bool refused_won = false;
  if (!refused.empty()) {
    std::set<std::string> keep = *best.keep;  // the pools the first plan refused stay unfused
    keep.insert(refused.begin(), refused.end());
    FusionCandidate c = plan(keep);
    if (c.dram_bytes < best.dram_bytes) best = std::move(c), refused_won = true;
  }
  // The unfused plan only where leaving the spilled residuals separate did not already lose
  // (resnet50: two lowerings, not three; the lowering is most of the planning time).
  if (spills && (refused.empty() || refused_won)) {
    FusionCandidate c = plan(std::nullopt);
    if (c.dram_bytes < best.dram_bytes) best = std::move(c);
  }
  return best;
}

Lowered FusionPlanner::lower_alone(size_t k, const std::optional<std::set<std::string>>& given) {
  std::optional<std::set<std::string>> keep = given;
  return with_refused_pools(keep, [&] {
    Graph alone = nets_[k];
    if (keep) fuse_graph(&alone, *keep, names_[k] + "/");
    LowerOptions o = opt_;
    o.order.clear();
    return lower_lent(alone, {{k, 0}}, o, k);
  });
}

Graph FusionPlanner::network(size_t k) const {
  Graph g = nets_[k];
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Payload& p = payloads_[k][t];
    g.tensors[t].data = p.data;
    g.tensors[t].bias = p.bias;
    g.tensors[t].float_data = p.float_data;
  }
  return g;
}

void FusionPlanner::adopt(FusionCandidate& c) {
  for (size_t k = 0; k < nets_.size(); ++k) swap_payloads(k, c.graph, offsets_[k]);
}

}  // namespace strider
