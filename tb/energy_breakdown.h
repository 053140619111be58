// EnergyBreakdown: accesses and energy per storage level and per data space, as Timeloop and
// Accelergy report them. Levels: dram, l2, kernel_region, line_buffer, accumulators. Data spaces:
// weights, inputs, outputs, partial_sums, and descriptors (the controller's fetch of the list).
// Every cell is one descriptor's share of the actions tb/energy_model.h charges, so a level's
// cells add up to its actions exactly (tests/e2e/energy_breakdown_test.cpp):
//   dram           a move's DRAM bytes (reads: DRAM -> L2, writes: L2 -> DRAM) in the data space
//                  of the tensor it carries (in a weight / bias blob of the DRAM image:
//                  weights; else inputs when read, outputs when written) with its DRAM actions;
//                  a fetched
//                  descriptor's descriptor_bytes (reads, descriptors) with its fetch's actions
//   l2             a move's L2 side (same data space); a tile's reads: int32 partial sums read
//                  back (kPsumRead: 4 B per valid output) in partial_sums, the kernel-region
//                  bytes in the kernel region's data space, the rest in the line buffer's; a
//                  tile's writes in outputs (partial_sums with kPsumWrite); vector tiles: inputs
//                  and outputs
//   kernel_region  writes kernel_write bytes, reads kernel_read bytes: weights in the positions
//                  mapping, inputs in the channels mapping (the operand broadcast)
//   line_buffer    writes lb_write bytes (and the write cycles' energy): inputs, or weights in
//                  the channels mapping of a convolution / fully-connected layer (one channel's
//                  weights per line); the neurons' reads of the lines are not an action
//   accumulators   partial_sums: each update reads and writes one int32 (reads = writes =
//                  acc_update count, bytes 8 per update)
// Reads and writes are in bytes except at the accumulators (updates). The network's DRAM level
// adds a cell `background` (refresh, standby and dram_unattributed_pj) so that it adds up to
// by_unit.dram.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/arch/arch_config.h"
#include "core/arch/energy_presets.h"
#include "core/contract/descriptor.h"
#include "model/common/run_record.h"

namespace strider {

constexpr int kLevels = 5, kSpaces = 6;
const char* level_name(int level);  // dram, l2, kernel_region, line_buffer, accumulators
const char* space_name(int space);  // weights, inputs, outputs, partial_sums, descriptors,
                                    // background
enum Level { kLvDram, kLvL2, kLvKernel, kLvLineBuffer, kLvAccumulators };
enum Space { kSpWeights, kSpInputs, kSpOutputs, kSpPartialSums, kSpDescriptors, kSpBackground };

struct BreakdownCell {
  uint64_t reads = 0, writes = 0, bytes = 0;
  double pj = 0;
};

struct EnergyBreakdown {
  std::array<std::array<BreakdownCell, kSpaces>, kLevels> cell{};
  EnergyBreakdown& operator+=(const EnergyBreakdown& o);
};

// DRAM byte ranges [begin, end) of the weights and biases, sorted by begin.
using WeightRanges = std::vector<std::pair<uint64_t, uint64_t>>;

// One descriptor's cells.
EnergyBreakdown descriptor_breakdown(const DescriptorRecord& d, const DescriptorList& list,
                                     const WeightRanges& weights, const ArchConfig& arch,
                                     const ActionEnergy& e);

}  // namespace strider
