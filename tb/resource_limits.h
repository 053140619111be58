// Resource limits: refuses, before any planning or simulation, a run whose network or config
// would need absurd memory or time, with one error listing every bound it exceeds, instead of
// letting the run exhaust the machine's memory or run for days. The bounds are generous (a
// hundred to a thousand times the bundled networks and presets); ResourceLimits holds them so that
// a caller can tighten or widen them.
//
// What is bounded and why:
//   config:  arch sizes that become host allocations or per-unit objects (L2 backing store in
//            functional mode, neurons, line-buffer lines, DMA channels, prefetch window), the DRAM
//            address space, and the watchdog (0 would flag every run as a deadlock).
//   graph:   nodes, the bytes of any one tensor, all weight bytes (materialised in host memory
//            and in the DRAM image), MACs (planner and simulation effort; functional mode
//            computes every MAC on real data, so its bound is lower).
//   lowered: descriptors (each is simulated as a transaction and reported in descriptors.csv).
// Errors (std::runtime_error) read "<run file>: refused before planning: ..." with one line per
// exceeded bound naming the key, layer or tensor, its value and the limit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/arch/run_config.h"
#include "core/common/saturating.h"
#include "core/contract/descriptor.h"
#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"

namespace strider {

struct ResourceLimits {
  // Config.
  uint64_t max_l2_bytes = uint64_t{1} << 32;             // 4 GiB of on-chip SRAM
  uint64_t max_functional_l2_bytes = uint64_t{1} << 30;  // dense host backing store: 1 GiB
  uint64_t max_dram_bytes = uint64_t{1} << 40;           // 1 TiB address space
  uint64_t max_neurons = 1 << 16;
  uint64_t max_l1_lines = 1 << 16;
  uint64_t max_l1_line_bytes = 1 << 20;
  uint64_t max_l1_kernel_bytes = uint64_t{1} << 26;      // 64 MiB
  uint64_t max_dma_channels = 1024;
  uint64_t max_prefetch_depth = 1 << 20;
  // Graph.
  uint64_t max_nodes = 100000;
  uint64_t max_tensor_bytes = uint64_t{1} << 32;         // 4 GiB for one tensor
  uint64_t max_weight_bytes = uint64_t{1} << 32;         // 4 GiB of weights and biases in all
  uint64_t max_macs = uint64_t{10000000000000};          // 1e13 (ResNet-50 at 224: 4.1e9)
  uint64_t max_functional_macs = uint64_t{50000000000};  // 5e10 computed on real data
  // Lowered list: each descriptor holds about 0.9 KiB of host memory from planning to the end of
  // the simulation and costs about 10 us of simulation (scripts/measure_descriptor_memory.py), so
  // 2 M keeps a run within 2 GB and 60 s. Enforced while lowering, before the memory is spent.
  uint64_t max_descriptors = 2000000;
};

// Config bounds. Throws std::runtime_error listing every exceeded bound.
void check_config_limits(const RunConfig& cfg, const ResourceLimits& limits = {});

// Config and graph bounds of network `network` (index into cfg.networks, named in the error):
// call after importing it and before materialising its parameters (which allocates the weights)
// and planning. Throws std::runtime_error listing every exceeded bound.
void check_resource_limits(const RunConfig& cfg, const Graph& g,
                           const ResourceLimits& limits = {}, size_t network = 0);

// Descriptor count of the lowered list: call after lowering, before simulating.
void check_descriptor_limits(const RunConfig& cfg, const DescriptorList& list,
                             const ResourceLimits& limits = {});

// lower() stopped at limits.max_descriptors: a run that would pass it is refused while planning,
// "<run file>: refused during planning: network <path>: descriptor count passes the limit of N at
// layer '<name>' (...)", naming what makes fewer descriptors.
Lowered lower_within_limits(const RunConfig& cfg, const Graph& g, const ArchConfig& arch,
                            LowerOptions opt, const ResourceLimits& limits = {},
                            size_t network = 0);

}  // namespace strider
