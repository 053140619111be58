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

// A Mul of a tensor X by a per-channel scale s ([C,1,1], either operand order) whose output M is
// read only by one conv (as its input, not a graph output) is fused into that conv's input load
// (Node::input_scale, OpDesc::input_scale): the conv reads X and s (appended to its inputs) and
// applies the Mul's arithmetic as it loads X; the Mul node goes and M gets no memory. X may have
// other readers (a squeeze-excitation's global pool). Not fused: a Mul with a lookup activation
// (a descriptor carries one table), with per-channel requantisation, a conv that already has an
// input scale. A Mul whose output tensor is named `prefix` + a name in `keep` stays unfused.
// Run after fuse_residual_adds (a fused conv keeps its residual operand as inputs[1]). Returns
// how many.
int fuse_input_scales(Graph* g, const std::set<std::string>& keep = {},
                      const std::string& prefix = "");

// A GlobalAveragePool whose input X is a conv's result (incl. depthwise) is fused into the
// conv's store path (Node::gap, OpDesc::gap): the conv writes the pool's output too and the pool
// node goes. X stays the conv's first output when it has other readers or is a graph output;
// else it is never stored (the conv's outputs are the pool's output alone). Not for a conv with
// a fused max-pool, a batch, a pool with a lookup activation (a descriptor carries one table) or
// a plane of more than 2^31 / 255 elements (the int32 partial sums of a band). A pool whose
// output tensor is named `prefix` + a name in `keep` stays unfused (the lowering refuses what it
// cannot run, as for max-pools: FusionRefused). Returns how many.
int fuse_global_pools(Graph* g, const std::set<std::string>& keep = {},
                      const std::string& prefix = "");

// Thrown by the lowering for a graph whose fused max-pools, global pools or input scales it cannot
// run (planner/lower/lowerer.h check_fused_pools, check_fused_scales): `names` names the fused
// ops' output tensors (the pools', the Muls'), for the fusions' `keep`.
class FusionRefused : public std::runtime_error {
 public:
  explicit FusionRefused(std::set<std::string> names)
      : std::runtime_error("fusions the plan cannot run: " + std::to_string(names.size())),
        names_(std::move(names)) {}
  const std::set<std::string>& names() const { return names_; }

 private:
  std::set<std::string> names_;
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
