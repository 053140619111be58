// The capacity bound of a network on a design point: a lower bound on its cycles that counts
// what the whole-run roofline (RunSummary::bound_cycles' other terms) cannot see — that L2 holds
// only so many of the weights a network needs after a point every later layer waits for.
//
// At a fully-connected node c (its every tile reads its whole input) whose every upstream node
// feeds c's input (no Split / Slice / Gather among them) and where every node of the graph is
// upstream of c, c itself or downstream of it (a chain point: a classifier after its pool), the
// run splits at T0, the start of c's first tile. Before T0 every upstream node has computed all
// its MACs and loaded its weights and the graph inputs from DRAM; after T0, c and the nodes
// downstream compute theirs, and load every weight byte of theirs not already in L2 at T0 —
// at most l2.size_bytes of them — then store the graph outputs. So
//
//   cycles >= max(MACs_up / peak, LB_up, (W_up + inputs) / BW)
//             + max(MACs_down / peak, LB_down, (max(0, W_down - L2) + outputs) / BW)
//
// with peak = neurons.count x neurons.macs_per_cycle, BW the DRAM's peak (dram_peak_cycles), W
// the weight and bias bytes of the nodes (each weight tensor once), LB the line-buffer write
// cycles the run's tiles of the nodes took (one write port: they run in series; the whole-run
// bound's term of the same name), and MACs_down, LB_down including c's.
// The bound is the largest over such c. Batch 1 only (a batch's images may interleave across
// c); 0 when no node qualifies. alexnet on the seed: its fc6-fc8 hold 58.6 MB against 1 MiB of L2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/arch/arch_config.h"
#include "planner/ir/graph.h"

namespace strider {

struct CapacityBound {
  uint64_t cycles = 0;  // 0: no chain point before a fully-connected node
  std::string node;     // the node c that gives it
};

// lb_writes: per graph node, the line-buffer write cycles of its tiles (empty: none counted).
CapacityBound capacity_bound(const Graph& g, const ArchConfig& arch,
                             const std::vector<uint64_t>& lb_writes = {});

}  // namespace strider
