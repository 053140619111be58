// PipelineReference: an independent, cycle-stepped model of the compute pipeline's hand-offs —
// descriptor source -> load unit -> line buffer (one tile) -> neuron array -> output channel (one
// tile) -> store unit -> retirement — and of the L2 reads and writes each tile makes, which the
// SystemC units (model/l1/load_unit, model/neuron/neuron_array, model/l1/store_unit) must match
// exactly, cycle for cycle and byte for byte.
//
// It never calls the model or the closed form. A tile's fill pipeline comes from the
// cycle-stepped tile reference (stepped_reference.h), its input row pieces from that reference's
// tap-by-tap walk. A plain loop advances one cycle at a time; within a cycle it repeats the
// stages (store, neurons, load, source) until none changes, so a hand-off that frees a channel
// lets the stage behind it move in the same cycle, as SystemC's delta cycles do:
// - source: writes tile k into the one-entry input channel `gap[k]` cycles after writing tile
//   k - 1 (tile 0: after gap[0]), once the channel has room;
// - load unit: when free, takes the visible input; once the line buffer has room it starts: its
//   L2 reads (below) start now, it is busy for max(write span, L2 end - now), the tile is visible
//   to the neurons after min(busy, first fill's writes + L2 latency);
// - neurons: when free and the output channel has room, take the visible tile; their last MAC is
//   at max(now + pipeline - first fill's writes, load end + last fill's compute), the post-ops
//   take `postop_cycles` more; the tile is visible to the store after min(that, first group's
//   results + post-ops);
// - store unit: when free, takes the visible tile and writes it (below); it retires at
//   max(write end, neuron end + 1 + L2 latency) and is free again when its writes end.
// L2 (one memory per port in the bench, so the order of same-cycle reads and writes cannot
// matter; cross-port contention is L2Sram's own tests'): an access of `count` pieces at a stride,
// `repeats` times, counts the distinct bank words each piece touches byte by byte; it starts when
// the port is free, moves ceil(bytes / port) cycles for one piece (pieces back to back are one)
// or ceil(words x width / port) for several, each bank serving its words after those already
// reserved on it; it ends at the later of the two plus the latency. Load reads: per run, kernel
// row, part and input row, one access over every channel reading that row piece (as often as
// fill groups read it), then the kernel bytes from the weights (resident when the tile's kernels
// fit the kernel region), then the partial sums read back. Store writes: one piece per output
// channel of the tile's rows.
// Tiles: positions-mapping convolutions (groups 1 or depthwise) and pools with shift-stride
// writes.
#pragma once

#include <cstdint>
#include <vector>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"

namespace strider {

struct PipelineTileResult {
  uint64_t load_start = 0, backpressure = 0;  // load start; cycles it waited for the line buffer
  uint64_t retired = 0;
  uint64_t l2_read_bytes = 0, l2_write_bytes = 0;
  uint64_t conflict = 0;  // load and store bank-conflict cycles
  uint64_t stall_l2 = 0;  // load and store L2 stall cycles
  uint64_t stall_line_buffer = 0;
};

// Steps the tiles `ops` through the pipeline on `arch` with the source's gaps.
std::vector<PipelineTileResult> run_stepped_pipeline(const std::vector<OpDesc>& ops,
                                                     const std::vector<uint64_t>& gaps,
                                                     const ArchConfig& arch);

}  // namespace strider
