// TileWork: the closed-form traversal of one operation tile by the input iterator, line buffer,
// neuron array and output iterator. Pure C++ (no SystemC): the units and the tests share it.
//
// How a tile is executed (the seed DNN module):
// - Output positions are grouped into *runs* of `neurons.count` consecutive positions, one per
//   neuron (line i feeds neuron i). For stride-1 windows the iterator walks the padded input as one
//   stream of virtual rows of Wp = W + pad_left + pad_right positions, so a run may cross a row
//   end; the positions whose window crosses it (Wp - W_out per row) are computed and discarded by
//   the output iterator. Strided windows run over output rows back to back, one block per row.
// - For each run and output channel the reduction is split into *segments*: one kernel row of one
//   input channel (kernel_w elements). A line holds floor(line_bytes / kernel_w) segments, so a
//   run needs ceil(segments / per_fill) line-buffer *fills*.
// - With shift-stride writes (`l1.shift_stride: true`) one block read from L2 fills a segment in
//   every line at once, line i shifted by i x stride: one write cycle per segment, plus one per
//   extra stored row the run spans when horizontal padding (never stored) breaks the stream.
//   Without it each line is written on its own: one write per active line per segment, plus one
//   for each window that crosses a padded row end.
// - The weights of the tile's output channels sit in the kernel region and are broadcast; they
//   are loaded once per tile when they fit in `l1.kernel_bytes`, else once per run and channel.
// - Neurons do `macs_per_cycle` MACs per cycle: ceil(fill elements / macs_per_cycle) per fill.
//   Fills are double-buffered, so a fill's writes overlap the previous fill's compute.
// - A conv tile over an input-channel block reduces only over those channels; its int32 partial
//   sums are read from L2 before (kPsumRead) and written instead of the output (kPsumWrite).
// - Fully-connected tiles put output features on neurons: each line gets its own weight row
//   (per-line writes, shift-stride cannot help) and the input vector is broadcast from the kernel
//   region.
// - Element-wise ops (add, mul, activation) stream both operands with one shifted write per
//   operand per run; softmax reads C channels per position and makes three passes.
#pragma once

#include <cstdint>

#include "arch/arch_config.h"
#include "strider/descriptor.h"

namespace strider {

struct TileWork {
  uint64_t channels = 0;           // output channels in the tile
  uint64_t runs = 0;               // neuron runs per output channel
  uint64_t computed_positions = 0; // per output channel, incl. discarded
  uint64_t valid_outputs = 0;      // output elements stored (all channels)
  uint64_t discarded_outputs = 0;  // computed and dropped (all channels)
  uint64_t fills = 0;              // line-buffer fills (all runs and channels)
  uint64_t shifted_writes = 0;
  uint64_t line_writes = 0;
  uint64_t lb_write_cycles = 0;    // = shifted_writes + line_writes
  uint64_t kernel_bytes = 0;       // bytes loaded into the kernel region
  uint64_t l2_read_bytes = 0;      // input and kernel bytes read from L2
  uint64_t output_bytes = 0;       // bytes stored to L2
  uint64_t macs = 0;               // useful multiply-accumulates (conv and fc only)
  uint64_t compute_cycles = 0;     // neuron array cycles, incl. discarded positions
  uint64_t first_fill_write_cycles = 0;  // before the neurons can start
  uint64_t last_fill_compute_cycles = 0; // after the last write
  uint64_t first_output_cycles = 0;      // compute cycles until the first run's result
};

TileWork compute_tile_work(const OpDesc& op, const L1Config& l1, const NeuronConfig& neurons);

}  // namespace strider
