// SteppedReference: an independent, cycle-stepped model of one operation tile through the load
// unit, the line buffer's two fill buffers, the neuron array and the output iterator, used to check
// the closed form of core/timing/tile_work.h exactly.
//
// It never calls the closed form. From the OpDesc it walks the real iteration: the output
// positions (or channels) laid on neurons in runs, the channel (or position) groups that share a
// fill, the reduction split into segments (one kernel row of one input channel) or line-sized
// pieces, and for each segment the write operations the load unit issues (one shifted block per
// stored row piece or output row the run touches, or one per line). Each fill is then a queue of
// write operations plus a list of per-group reductions. A plain loop advances one cycle at a time:
// the load unit issues at most one write per cycle into the fill buffer of the fill it is writing
// (starting a fill only when that buffer has been released by the neurons), the neurons consume
// `macs_per_cycle` elements of one group member per cycle once a fill is fully written, release
// the buffer when done, and the output iterator counts each run's positions as stored or discarded
// (window across a row end) when the run's group has finished. Cycle figures are what the loop
// observed (e.g. pipeline_cycles is the cycle after the last compute cycle).
//
// Choices the closed form's header leaves open, taken here the same way and so not checked:
// a kernel row wider than a line is cut into ceil(kernel_w / line_bytes) parts of equal width
// ceil(kernel_w / parts), the last zero-padded (compute and line bytes count the padded lanes);
// a kernel row lying wholly in top/bottom padding still costs its writes and compute.
//
// L2 bytes: for the channels mapping the walk counts, fill by fill, the bytes each active line
// reads for its channel (weights; pooling: the channel's inputs) and the broadcast operand's
// bytes (the group's positions of each input channel of the fill, a gather of one piece per
// channel), the latter once for the whole tile when its inputs fit the kernel region (the rule
// the closed form states); and, group by group, the pieces the output iterator stores (one per
// output channel of the group's positions). For the positions mapping's window ops (conv, pools)
// the walk lists, run by run, group by group and segment by segment, the input row pieces the
// segment's shifted block reads: every tap of every window of the run in padded coordinates; per
// padded row the range from the first tap to the last (a stride-1 run: the padded stream of rows
// from its first tap to its last, cut at row ends), clipped to the stored input, a piece that
// continues the previous one in memory joined to it
// (model/l1/row_pieces.h must read exactly these, address by address); the stored outputs are
// counted too. Outputs are counted in elements.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"

namespace strider {

// One input row piece read for one segment of one fill group: run, input channel, kernel row,
// part of the kernel row, stored input row, address and bytes.
struct InputRead {
  uint64_t run = 0;
  uint32_t channel = 0, kh = 0, part = 0;
  int64_t y = 0;
  uint64_t addr = 0, bytes = 0;
};

struct SteppedWork {
  uint64_t fills = 0;
  uint64_t shifted_writes = 0;
  uint64_t line_writes = 0;
  uint64_t lb_write_bytes = 0;
  uint64_t compute_cycles = 0;
  uint64_t acc_updates = 0;
  uint64_t macs = 0;
  uint64_t valid_outputs = 0;
  uint64_t discarded_outputs = 0;
  uint64_t pipeline_cycles = 0;
  uint64_t write_span_cycles = 0;
  uint64_t first_fill_write_cycles = 0;
  uint64_t last_fill_compute_cycles = 0;
  uint64_t first_output_cycles = 0;  // neurons' first cycle to the end of the first group
  uint64_t active_lines = 0;         // most lines one fill writes
  // L2 (see the header): channels mapping only, except store_elements.
  uint64_t l2_read_bytes = 0, kernel_bytes = 0;
  uint64_t gather_pieces = 0, gather_bytes = 0;  // the broadcast operand's pieces
  // A k > 1 hybrid tail (im2col form): of those, the pieces of whole groups of positions within
  // one output row (each `gather_whole_bytes`), the others and their bytes.
  uint64_t gather_whole_pieces = 0, gather_whole_bytes = 0;
  uint64_t gather_other_pieces = 0, gather_other_bytes = 0;
  uint64_t tail_positions = 0;  // a hybrid tile's tail: its valid positions
  uint64_t store_pieces = 0;                     // channels mapping: one per channel per group
  uint64_t store_elements = 0;                   // every mapping: output elements stored
  // Positions mapping, window ops: the input row pieces (address, bytes) and their bytes.
  std::vector<std::pair<uint64_t, uint64_t>> input_pieces;
  std::vector<InputRead> input_reads;  // the same pieces with where they come from
  uint64_t input_bytes = 0;
  uint64_t runs = 0;  // positions mapping: neuron runs
};

// Steps `op` (one tile) cycle by cycle on the given line buffer and neuron array; `stream`: a
// positions tile walks its padded input as one stream (TileWork::streamed), else its output rows
// back to back;
// `hybrid`: a positions tile's partial last run runs after the other runs with output channels on
// neurons (TileWork::tail_positions): its valid positions (the discarded ones among its stream
// positions are skipped) walked as the channels mapping walks a tile's, over the input channels
// (1x1) or in im2col order over the k_h x k_w x Cin window (k > 1), its L2 figures (the lines'
// weights in l2_read_bytes, kernel_bytes, the gather, the stored pieces) counted as there; the
// input row pieces are the other runs'. A k > 1 tail's gather: the kernel region holds, per group
// of `accumulators` of its positions (raster order), per reduced channel and kernel row, one
// stored row piece per output row the group spans, (n - 1) x stride_w + (kernel_w - 1) x
// dilation_w + 1 columns for its n positions (at most W) — or, when its input rows (output rows
// it spans - 1) x stride_h + (kernel_h - 1) x dilation_h + 1 (at most H) fit the kernel region,
// those rows once; the rule tile_work.h states, walked here group by group.
SteppedWork run_stepped_reference(const OpDesc& op, const L1Config& l1, const NeuronConfig& neurons,
                                  bool stream, bool hybrid);

// A one-line description of the tile and machine, printed when a check fails.
std::string describe_tile(const OpDesc& op, const L1Config& l1, const NeuronConfig& neurons);

}  // namespace strider
