// FusionPlanner: the per-layer fusion choice of a run (tb/run_plan.cpp), made with the memory
// plan. The run's networks, calibrated and with their activations fused but not their residual
// Adds, are assembled into candidate graphs, each with a different set of residual Adds left
// unfused, and each candidate is lowered; the run keeps the one moving the fewest DRAM bytes.
//
// Fusing an Add and merging networks change nodes only, never a tensor: every candidate has the
// run's tensors, network k's from offset k on. So the tensors' payloads (weights, biases and the
// calibration's float values: nearly all of a graph's bytes, 70 MB for resnet50) are held apart
// from the bare networks the candidates are assembled from and lent to a candidate while it is
// lowered, never copied (functional resnet50: 0.1 s and 35,000 page faults less per candidate).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/arch/run_config.h"
#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"

namespace strider {

// One candidate: the residual Adds it leaves unfused (nullopt: none fused), its graph, node order
// (several networks; empty for one) and lowering.
struct FusionCandidate {
  std::optional<std::set<std::string>> keep;
  Graph graph;  // without its tensors' payloads until FusionPlanner::adopt
  std::vector<int> order;
  Lowered lowered;
  uint64_t dram_bytes = 0;  // dram_move_bytes of its list
};

class FusionPlanner {
 public:
  // `nets`: the run's networks (residual Adds not fused), `names` theirs; `opt` the lowering's
  // options (its order is each candidate's own).
  FusionPlanner(std::vector<Graph> nets, std::vector<std::string> names, const RunConfig& cfg,
                LowerOptions opt);

  // The candidate fusing every residual Add, max-pool, global average pool and squeeze-excitation
  // Mul but those named in `keep` (the Adds', pools' and Muls' output tensors,
  // "<network>/"-prefixed in a run of several networks), or none with nullopt; lowered. The pools
  // and Muls the lowering cannot run fused (FusionRefused) are added to its keep and the candidate
  // planned again.
  FusionCandidate plan(std::optional<std::set<std::string>> keep);

  // The run's choice: every Add fused (`cfg.arch.lowering.fuse`, else none); then those whose
  // fused conv reads its operand spilled to DRAM per tile unfused (convnext_tiny stage 1); when
  // the first plan spills anything and the second did not lose, none fused (swin_t: the fused
  // plan spills attention tensors the unfused one keeps in L2). The candidate moving the fewest
  // DRAM bytes is kept, the earlier on a tie (resnet50: 54.3 MB fused against 59.8 MB with its
  // spilled residuals unfused, the simulated cycles in the same order). Without its payloads.
  FusionCandidate choose();

  // Network k alone as the candidate `keep` fuses it, lowered (the figures of a run of several
  // networks per network).
  Lowered lower_alone(size_t k, const std::optional<std::set<std::string>>& keep);

  // Network k as given, with its payloads (copied).
  Graph network(size_t k) const;
  size_t networks() const { return nets_.size(); }
  size_t network_nodes(size_t k) const { return nets_[k].nodes.size(); }

  // Gives `c` (from plan or choose) the payloads for good; the planner cannot lower after.
  void adopt(FusionCandidate& c);

 private:
  // One lowering of the candidate `keep` gives (plan's retries call it again).
  FusionCandidate plan_once(const std::optional<std::set<std::string>>& keep);
  // The tensor payloads held apart from the networks.
  struct Payload {
    std::vector<int8_t> data;
    std::vector<int32_t> bias;
    std::vector<float> float_data;
  };
  // Swaps network k's payloads with those of g's tensors from `offset` on: lends them to g, and
  // a second call returns them.
  void swap_payloads(size_t k, Graph& g, size_t offset);
  // Lowers g with the payloads of each (network, offset) of `lent` lent for the lowering.
  Lowered lower_lent(Graph& g, const std::vector<std::pair<size_t, size_t>>& lent,
                     const LowerOptions& opt, size_t network);

  std::vector<Graph> nets_;  // bare: every tensor's payload is in payloads_
  std::vector<std::string> names_;
  const RunConfig& cfg_;
  LowerOptions opt_;
  std::vector<std::vector<Payload>> payloads_;  // per network, per tensor
  std::vector<size_t> offsets_;  // per network: its first tensor's id in a merged graph
};

}  // namespace strider
