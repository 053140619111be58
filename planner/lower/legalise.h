// Legalisation before planning: an activation-only node (ReLU, ReLU6, clip, sigmoid family) whose
// input is the sole use of a conv, fully-connected, pooling or element-wise result is fused into
// that producer, which then applies it in its post-op pipeline: one layer, no tensor in between.
#pragma once

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/contract/descriptor.h"
#include "planner/ir/graph.h"

namespace strider {

// Fuses in place; returns how many activation nodes were folded away.
int fuse_activations(Graph* g);

// A conv whose result is read only by an element-wise Add of two same-shape tensors takes the Add
// (and the activation fused into it) as its post-op (Node::residual, OpDesc::post): the conv gets
// the Add's other operand as inputs[1] and writes the Add's output; the Add and the conv's own
// output tensor go. The other operand must come from before the conv in node order (or be a
// graph input); of two convs feeding one Add the later one takes it. Run after calibration (the
// scales are the Add's). An Add whose output tensor is named `prefix` + a name in `keep` stays
// unfused (the per-layer choice below). Returns how many Adds were fused.
int fuse_residual_adds(Graph* g, const std::set<std::string>& keep = {},
                       const std::string& prefix = "");

// A MaxPool that is the only reader of a conv's result (after its activation) is fused into the
// conv's store path (Node::pool, OpDesc::pool): the conv writes the pool's output and the pool
// node goes. Only an exact fold: dilation 1, stride <= kernel, pads < kernel, no activation or
// requantisation of the pool's own, input and output of one signedness, a conv without a fused
// residual Add. A pool whose output tensor is named `prefix` + a name in `keep` stays unfused
// (the lowering refuses a fused conv it cannot run: tb/fusion_planner.h). Returns how many.
int fuse_max_pools(Graph* g, const std::set<std::string>& keep = {},
                   const std::string& prefix = "");

// A GlobalAveragePool whose input X is a conv's result (incl. depthwise) is fused into the
// conv's store path (Node::gap, OpDesc::gap): the conv writes the pool's output too and the pool
// node goes. X stays the conv's first output when it has other readers or is a graph output;
// else it is never stored (the conv's outputs are the pool's output alone). Not for a conv with
// a fused max-pool, a batch, a pool with a lookup activation (a descriptor carries one table) or
// a plane of more than 2^31 / 255 elements (the int32 partial sums of a band). A pool whose
// output tensor is named `prefix` + a name in `keep` stays unfused (the lowering refuses what it
// cannot run, as for max-pools: PoolFusionRefused). Returns how many.
int fuse_global_pools(Graph* g, const std::set<std::string>& keep = {},
                      const std::string& prefix = "");

// Thrown by the lowering for a graph whose fused max-pools or global pools it cannot run
// (planner/lower/lowerer.h check_fused_pools): `pools` names their output tensors, for
// fuse_max_pools' and fuse_global_pools' `keep`.
class PoolFusionRefused : public std::runtime_error {
 public:
  explicit PoolFusionRefused(std::set<std::string> pools)
      : std::runtime_error("fused max-pools the plan cannot run: " + std::to_string(pools.size())),
        pools_(std::move(pools)) {}
  const std::set<std::string>& pools() const { return pools_; }

 private:
  std::set<std::string> pools_;
};

// Fusion per layer against the memory plan (tb/run_plan.cpp): the fused convs of `g` whose
// residual operand the plan of `g` spilled (`tensor_spilled`, per tensor) read it per tile from
// DRAM, where the unfused Add reads it once (convnext_tiny stage 1, block.5: 2.1 -> 4.1 MB of
// DRAM for the conv); returns their output tensors' names (the Adds' outputs) for `keep`.
std::set<std::string> residuals_read_from_dram(const Graph& g,
                                               const std::vector<bool>& tensor_spilled);

// Bytes a descriptor list moves to or from DRAM (weights, input, output, spills and fills).
uint64_t dram_move_bytes(const DescriptorList& list);

}  // namespace strider
