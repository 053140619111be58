#include "timing/tile_work.h"

#include <algorithm>
#include <stdexcept>

namespace strider {
namespace {

uint64_t cdiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Input channels one output channel reduces over: its group's, or the tile's input block.
uint32_t reduced_channels(const OpDesc& op) {
  return op.in_ch_end ? op.in_ch_end - op.in_ch_begin : op.input.c / op.groups;
}

// One neuron run: how many positions are active, how many stored rows the run's block spans,
// and how many of its windows cross a row end.
struct Run {
  uint64_t active = 0, pieces = 1, crossing = 0;
};

// Reduction of one position: `segments` pieces of `width` elements each.
struct Reduction {
  uint64_t segments = 0, width = 1, passes = 1;
};

// Per-run cost of one output channel, accumulated into `w`; `span_stored` is the stored bytes of
// one segment's block(s).
void add_run(TileWork& w, const Run& r, const Reduction& red, const L1Config& l1,
             const NeuronConfig& nc, uint64_t span_stored, bool first) {
  const uint64_t per_fill = std::max<uint64_t>(1, l1.line_bytes / red.width);
  const uint64_t fills = cdiv(red.segments, per_fill);
  const uint64_t rem = red.segments - (fills - 1) * per_fill;
  const uint64_t full_cycles = cdiv(per_fill * red.width, nc.macs_per_cycle);
  const uint64_t last_cycles = cdiv(rem * red.width, nc.macs_per_cycle);
  const uint64_t compute = red.passes * ((fills - 1) * full_cycles + last_cycles);
  uint64_t writes_per_segment;
  if (l1.shift_stride) {
    writes_per_segment = r.pieces;
    w.shifted_writes += red.segments * r.pieces;
    w.l2_read_bytes += red.segments * span_stored;
  } else {
    writes_per_segment = r.active + r.crossing;
    w.line_writes += red.segments * (r.active + r.crossing);
    w.l2_read_bytes += red.segments * r.active * red.width;
  }
  w.fills += fills;
  w.compute_cycles += compute;
  if (first) {
    w.first_fill_write_cycles = std::min(per_fill, red.segments) * writes_per_segment;
    w.first_output_cycles = compute;
  }
  w.last_fill_compute_cycles = last_cycles;
}

// The tile's totals from one output channel's (`per`) repeated `times`; per-tile timing figures
// (first fill, first output, last fill) are those of one channel.
void repeat(TileWork& w, const TileWork& per, uint64_t times) {
  w.runs = per.runs;
  w.computed_positions = per.computed_positions;
  w.shifted_writes = times * per.shifted_writes;
  w.line_writes = times * per.line_writes;
  w.l2_read_bytes = times * per.l2_read_bytes;
  w.fills = times * per.fills;
  w.compute_cycles = times * per.compute_cycles;
  w.first_fill_write_cycles = per.first_fill_write_cycles;
  w.first_output_cycles = per.first_output_cycles;
  w.last_fill_compute_cycles = per.last_fill_compute_cycles;
}

void window_op(TileWork& w, const OpDesc& op, const L1Config& l1, const NeuronConfig& nc) {
  const uint64_t n = nc.count;
  const uint64_t rows = op.row_end - op.row_begin;
  const uint64_t wo = op.output.w;
  const uint64_t wp = uint64_t(op.input.w) + op.pad_left + op.pad_right;
  Reduction red;
  red.width = op.kernel_w;
  if (op.op == OpCode::kConv) {
    red.segments = uint64_t(reduced_channels(op)) * op.kernel_h;
  } else {
    red.segments = op.kernel_h;  // pools: one input channel per output channel
  }
  if (red.width > l1.line_bytes) {  // a kernel row wider than a line is split into parts
    const uint64_t parts = cdiv(red.width, l1.line_bytes);
    red.segments *= parts;
    red.width = cdiv(red.width, parts);
  }
  const uint64_t span_extra = uint64_t(op.kernel_w - 1) * op.dilation_w + 1;
  const bool crossing = op.stride_h == 1 && op.stride_w == 1;
  TileWork per_ch;
  if (crossing) {
    // One stream of virtual rows of wp positions; the last row stops at its last valid output.
    const uint64_t positions = (rows - 1) * wp + wo;
    per_ch.computed_positions = positions;
    per_ch.runs = cdiv(positions, n);
    for (uint64_t k = 0; k < per_ch.runs; ++k) {
      Run r;
      const uint64_t start = k * n, end = std::min(start + n, positions);
      r.active = end - start;
      // Without horizontal padding the stored rows are contiguous: one block, one write. With it,
      // the pad columns are not stored, so the block comes in one piece per row it spans and a
      // line whose window crosses a row end needs a second write.
      if (wp != op.input.w) {
        r.pieces = (end - 1) / wp - start / wp + 1;
        for (uint64_t row = start / wp; row <= (end - 1) / wp; ++row) {
          const uint64_t lo = std::max(start, row * wp + wo), hi = std::min(end, (row + 1) * wp);
          if (hi > lo) r.crossing += hi - lo;
        }
      }
      const uint64_t span = r.active - 1 + span_extra;
      const uint64_t stored = wp != op.input.w ? r.pieces * op.input.w : span;
      add_run(per_ch, r, red, l1, nc, std::min(span, stored), k == 0);
    }
  } else {
    // Strided windows: runs walk the output rows back to back; each output row's windows come
    // from their own stored rows, so a run needs one block (piece) per output row it spans.
    const uint64_t positions = rows * wo;
    per_ch.computed_positions = positions;
    per_ch.runs = cdiv(positions, n);
    for (uint64_t k = 0; k < per_ch.runs; ++k) {
      Run r;
      const uint64_t start = k * n, end = std::min(start + n, positions);
      r.active = end - start;
      r.pieces = (end - 1) / wo - start / wo + 1;
      uint64_t stored = 0;
      for (uint64_t row = start / wo; row <= (end - 1) / wo; ++row) {
        const uint64_t in_row = std::min(end, (row + 1) * wo) - std::max(start, row * wo);
        stored += std::min<uint64_t>(op.input.w, (in_row - 1) * op.stride_w + span_extra);
      }
      add_run(per_ch, r, red, l1, nc, stored, k == 0);
    }
  }
  const uint64_t ch = w.channels;
  repeat(w, per_ch, ch);
  w.valid_outputs = ch * rows * wo;
  w.discarded_outputs = ch * (per_ch.computed_positions - rows * wo);
  if (op.op == OpCode::kConv) {
    const uint64_t kernel = uint64_t(reduced_channels(op)) * op.kernel_h * op.kernel_w;
    w.macs = w.valid_outputs * kernel;
    w.kernel_bytes = ch * kernel <= l1.kernel_bytes ? ch * kernel : ch * per_ch.runs * kernel;
  }
}

// Fully connected: output features on neurons, weight rows written line by line, the input
// vector broadcast from the kernel region.
void fc_op(TileWork& w, const OpDesc& op, const L1Config& l1, const NeuronConfig& nc) {
  const uint64_t k = uint64_t(op.input.c) * op.input.h * op.input.w;
  const uint64_t fills = cdiv(k, l1.line_bytes);
  const uint64_t rem = k - (fills - 1) * l1.line_bytes;
  const uint64_t full_cycles = cdiv(l1.line_bytes, nc.macs_per_cycle);
  const uint64_t per_run_compute = (fills - 1) * full_cycles + cdiv(rem, nc.macs_per_cycle);
  w.runs = cdiv(w.channels, nc.count);
  w.computed_positions = 1;
  for (uint64_t r = 0; r < w.runs; ++r) {
    const uint64_t active = std::min<uint64_t>(nc.count, w.channels - r * nc.count);
    w.line_writes += fills * active;
    w.l2_read_bytes += active * k;
    if (r == 0) w.first_fill_write_cycles = active;
  }
  w.fills = w.runs * fills;
  w.compute_cycles = w.runs * per_run_compute;
  w.first_output_cycles = per_run_compute;
  w.last_fill_compute_cycles = cdiv(rem, nc.macs_per_cycle);
  w.kernel_bytes = k <= l1.kernel_bytes ? k : w.runs * k;
  w.valid_outputs = w.channels;
  w.macs = w.channels * k;
}

// Element-wise and softmax: positions stream contiguously (no padding, nothing discarded).
void stream_op(TileWork& w, const OpDesc& op, const L1Config& l1, const NeuronConfig& nc) {
  const uint64_t rows = op.row_end - op.row_begin;
  const uint64_t positions = rows * op.output.w;
  Reduction red;
  uint64_t channel_loops = w.channels;
  if (op.op == OpCode::kSoftmax) {
    red.segments = op.input.c;  // one element of every channel per position
    red.passes = 3;             // max, sum of exponentials, normalise
    channel_loops = 1;
  } else {
    red.segments = op.op == OpCode::kActivation ? 1 : 2;
  }
  TileWork per;
  per.runs = cdiv(positions, nc.count);
  for (uint64_t k = 0; k < per.runs; ++k) {
    Run r;
    r.active = std::min<uint64_t>(nc.count, positions - k * nc.count);
    add_run(per, r, red, l1, nc, r.active, k == 0);
  }
  per.computed_positions = positions;
  repeat(w, per, channel_loops);
  w.valid_outputs = w.channels * positions;
}

}  // namespace

TileWork compute_tile_work(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc) {
  TileWork w;
  w.channels = op.ch_end - op.ch_begin;
  switch (op.op) {
    case OpCode::kConv:
    case OpCode::kMaxPool:
    case OpCode::kAvgPool:
    case OpCode::kGlobalAvgPool:
      window_op(w, op, l1, nc);
      break;
    case OpCode::kFullyConnected:
      fc_op(w, op, l1, nc);
      break;
    case OpCode::kMatMul: {  // a 1x1 convolution over the positions (rows of A), B as weights
      OpDesc conv = op;
      conv.op = OpCode::kConv;
      conv.kernel_h = conv.kernel_w = 1;
      window_op(w, conv, l1, nc);
      break;
    }
    case OpCode::kAdd:
    case OpCode::kMul:
    case OpCode::kActivation:
    case OpCode::kSoftmax:
    case OpCode::kLayerNorm:  // vector-unit ops (model/vector) never reach the neuron array
    case OpCode::kGelu:
      stream_op(w, op, l1, nc);
      break;
  }
  w.lb_write_cycles = w.shifted_writes + w.line_writes;
  w.l2_read_bytes += w.kernel_bytes;
  // Partial sums are int32: read back before the reduction, written instead of the output.
  if (op.psum_mode & OpDesc::kPsumRead) w.l2_read_bytes += 4 * w.valid_outputs;
  w.output_bytes = (op.psum_mode & OpDesc::kPsumWrite) ? 4 * w.valid_outputs : w.valid_outputs;
  return w;
}

}  // namespace strider
