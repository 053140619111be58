#include "core/timing/tile_work.h"

#include <algorithm>
#include <vector>

#include "core/common/ceil_div.h"
#include "core/timing/fill_pipeline.h"
#include "core/timing/fused_gap.h"

namespace strider {
namespace {

// Input channels one output channel reduces over: its group's, or the tile's input block.
uint32_t reduced_channels(const OpDesc& op) {
  return op.in_ch_end ? op.in_ch_end - op.in_ch_begin : op.input.c / op.groups;
}

// One reduction: `segments` pieces of `width` elements, `per_fill` of them to a fill. A fill of s
// segments costs s x writes_per_segment + writes_per_fill write cycles and
// passes x group x ceil(s x width / macs_per_cycle) compute cycles on `active` neurons.
struct Reduction {
  uint64_t segments = 0, width = 1, per_fill = 1;
  uint64_t writes_per_segment = 0, writes_per_fill = 0;
  uint64_t group = 1, active = 1, passes = 1;
};

// Accumulates a tile's fills into its TileWork and FillPipeline.
class TileBuilder {
 public:
  TileBuilder(TileWork& w, const NeuronConfig& nc) : w_(w), nc_(nc) {}

  // One reduction (the fills of one run and group); returns the write cycles it took.
  uint64_t reduce(const Reduction& r) {
    const uint64_t full = r.segments / r.per_fill, rem = r.segments % r.per_fill;
    auto writes = [&](uint64_t s) { return s * r.writes_per_segment + r.writes_per_fill; };
    auto compute = [&](uint64_t s) {
      return r.passes * r.group * ceil_div(s * r.width, nc_.macs_per_cycle);
    };
    if (full > 0) pipe_.add(writes(r.per_fill), compute(r.per_fill), full);
    if (rem > 0) pipe_.add(writes(rem), compute(rem));
    const uint64_t cycles = full * compute(r.per_fill) + (rem > 0 ? compute(rem) : 0);
    w_.fills += full + (rem > 0 ? 1 : 0);
    w_.compute_cycles += cycles;
    w_.acc_updates += r.active * cycles;
    w_.lb_write_bytes += r.segments * r.width * r.active;
    w_.active_lines = std::max(w_.active_lines, r.active);
    if (!first_done_) {
      w_.first_output_cycles = pipe_.compute_end() - pipe_.first_writes();
      first_done_ = true;
    }
    return full * writes(r.per_fill) + (rem > 0 ? writes(rem) : 0);
  }

  void finish() {
    w_.pipeline_cycles = pipe_.compute_end();
    w_.write_span_cycles = pipe_.write_end();
    w_.first_fill_write_cycles = pipe_.first_writes();
    w_.last_fill_compute_cycles = pipe_.last_compute();
  }

 private:
  TileWork& w_;
  const NeuronConfig& nc_;
  FillPipeline pipe_;
  bool first_done_ = false;
};

// Sizes of the groups of the tile's channels that share one fill: at most `accumulators`
// channels, never across a conv group (pools: one channel each).
std::vector<uint64_t> channel_groups(const OpDesc& op, const NeuronConfig& nc) {
  std::vector<uint64_t> sizes;
  const bool conv = op.op == OpCode::kConv;
  const uint64_t per_group = conv ? std::max<uint64_t>(1, op.output.c / op.groups) : 1;
  const uint64_t a = conv ? nc.accumulators : 1;
  for (uint64_t c = op.ch_begin; c < op.ch_end;) {
    const uint64_t group_end = std::min<uint64_t>(op.ch_end, (c / per_group + 1) * per_group);
    const uint64_t n = std::min(a, group_end - c);
    sizes.push_back(n);
    c += n;
  }
  return sizes;
}

// The channels form's fills over `positions` positions and a reduction of `k` elements: for each
// run of up to `neurons.count` of the tile's output channels, for each group of up to
// `accumulators` positions, fills of `line_bytes` elements, every active line written with its
// own channel's operand (l2_read_bytes); `group_kernel`: each group's broadcast operand (group x k
// bytes) is loaded into the kernel region (kernel_bytes). Returns the channel runs.
uint64_t channel_form_fills(TileWork& w, TileBuilder& b, const L1Config& l1,
                            const NeuronConfig& nc, uint64_t positions, uint64_t k,
                            bool group_kernel) {
  const uint64_t channel_runs = ceil_div(w.channels, nc.count);
  const uint64_t groups = ceil_div(positions, nc.accumulators);
  Reduction red;
  red.segments = k;
  red.per_fill = l1.line_bytes;
  for (uint64_t r = 0; r < channel_runs; ++r) {
    red.active = std::min<uint64_t>(nc.count, w.channels - r * nc.count);
    red.writes_per_fill = red.active;  // each line its own channel's weights (pooling: inputs)
    for (uint64_t g = 0; g < groups; ++g) {
      red.group = std::min<uint64_t>(nc.accumulators, positions - g * nc.accumulators);
      w.line_writes += b.reduce(red);
      w.l2_read_bytes += red.active * k;
      if (group_kernel) w.kernel_bytes += red.group * k;
    }
  }
  w.runs += channel_runs * groups;
  return channel_runs;
}

// The channels form's operand gather over `positions` positions of `k` input channels: one piece
// of all the positions per channel when they stay resident, else per channel run one piece of
// each group's positions per channel (full groups, then the last partial group).
void channel_form_gather(PiecePattern* gather, const NeuronConfig& nc, uint64_t positions,
                         uint64_t k, bool resident, uint64_t channel_runs) {
  const uint64_t full = positions / nc.accumulators, rest = positions % nc.accumulators;
  if (resident) {
    gather[0] = {positions, k, 1};
  } else {
    gather[0] = {nc.accumulators, k, channel_runs * full};
    gather[1] = {rest, k, rest ? channel_runs : 0};
  }
}

// Input rows the windows of `rows` output rows read (clipped to the tensor).
uint64_t im2col_input_rows(const OpDesc& op, uint64_t rows) {
  return std::min<uint64_t>(op.input.h, (rows - 1) * op.stride_h +
                                            uint64_t(op.kernel_h - 1) * op.dilation_h + 1);
}

// Im2col mapping: the input bytes the kernel region is loaded with, which the broadcast reads the
// window's elements out of in im2col order, for the tile's output positions from `first` on (in
// raster order of its rows; 0: the whole tile, a hybrid tile: its tail's). Per group of
// `accumulators` positions, the stored piece of each input row its windows read: per reduced
// channel and kernel row, one piece per output row the group spans, (n - 1) x stride_w +
// (kernel_w - 1) x dilation_w + 1 columns for n positions, clipped to the stored width.
// `gather[0]`: the pieces of whole groups within one output row, `gather[1]`: the others at their
// mean size (rounded up); each as `reduced channels` pieces at the channel stride, repeated per
// kernel row and group. When the positions' input rows fit the kernel region (`resident`) they
// are loaded once: one stored row per reduced channel and input row.
void im2col_gather(const OpDesc& op, const NeuronConfig& nc, bool resident, uint64_t first,
                   PiecePattern* gather) {
  const uint64_t cin = reduced_channels(op), wo = op.output.w, a = nc.accumulators;
  const uint64_t rows = op.row_end - op.row_begin;
  if (resident) {
    gather[0] = {op.input.w, cin, im2col_input_rows(op, rows - first / wo)};
    return;
  }
  const uint64_t span_extra = uint64_t(op.kernel_w - 1) * op.dilation_w + 1;
  auto piece = [&](uint64_t n) {
    return std::min<uint64_t>(op.input.w, (n - 1) * op.stride_w + span_extra);
  };
  uint64_t whole = 0, other = 0, other_bytes = 0;
  for (uint64_t p = first; p < rows * wo;) {
    const uint64_t end = std::min(rows * wo, p + a);
    if (end - p == a && p / wo == (end - 1) / wo) {
      ++whole;
    } else {
      for (uint64_t q = p; q < end;) {
        const uint64_t row_end = std::min(end, (q / wo + 1) * wo);
        ++other, other_bytes += piece(row_end - q);
        q = row_end;
      }
    }
    p = end;
  }
  gather[0] = {piece(a), cin, whole * op.kernel_h};
  gather[1] = {other ? ceil_div(other_bytes, other) : 0, cin, other * op.kernel_h};
}

// Whether the im2col form's inputs for the tile's positions from `first` on stay in the kernel
// region: one stored row per reduced channel and input row their windows read.
bool im2col_resident(const OpDesc& op, const L1Config& l1, uint64_t first) {
  const uint64_t rows = op.row_end - op.row_begin;
  return uint64_t(reduced_channels(op)) * im2col_input_rows(op, rows - first / op.output.w) *
             op.input.w <=
         l1.kernel_bytes;
}

// The hybrid tile's tail (hybrid_tail_applies): the tile's last `tail` output positions (its valid
// positions after the last full run), after the runs, in the channels form (a 1x1 convolution)
// or the im2col form (k > 1): output channels on neurons, each line written with its channel's
// weights (tail_line_bytes), the tail's positions in the accumulators. The kernel region holds
// the tail's inputs: 1x1, the tail's positions of each input channel (resident when tail x k fits
// it); k > 1, the input row pieces its windows read (im2col_gather, resident when its input rows
// fit). Stored per group of positions and output channel; when the tail has full groups and a
// partial one, the partial group's pieces are counted with the runs' piece of each channel (the
// store pattern has two slots; the stored elements are exact).
void hybrid_tail(TileWork& w, TileBuilder& b, const OpDesc& op, const L1Config& l1,
                 const NeuronConfig& nc, uint64_t tail) {
  const bool im2col = op.kernel_h * op.kernel_w > 1;
  const uint64_t k = uint64_t(reduced_channels(op)) * op.kernel_h * op.kernel_w;
  const uint64_t first = uint64_t(op.row_end - op.row_begin) * op.output.w - tail;
  const bool resident = im2col ? im2col_resident(op, l1, first) : tail * k <= l1.kernel_bytes;
  const uint64_t lines_before = w.l2_read_bytes;
  const uint64_t channel_runs =
      channel_form_fills(w, b, l1, nc, tail, k, !resident && !im2col);
  w.tail_positions = tail;
  w.tail_line_bytes = w.l2_read_bytes - lines_before;
  if (im2col) {
    im2col_gather(op, nc, resident, first, w.gather);
    if (!resident) w.gather[0].repeats *= channel_runs, w.gather[1].repeats *= channel_runs;
    w.kernel_bytes += w.gather[0].total() + w.gather[1].total();
  } else {
    if (resident) w.kernel_bytes += tail * k;
    channel_form_gather(w.gather, nc, tail, k, resident, channel_runs);
  }
  const uint64_t full = tail / nc.accumulators, rest = tail % nc.accumulators;
  if (full == 0) {
    w.store[1] = {rest, w.channels, 1};
  } else {
    w.store[1] = {nc.accumulators, w.channels, full};
    w.store[0].bytes += rest;
  }
}

// Positions mapping of a window op (conv, pools, global pooling).
// `hybrid`: the partial last run's valid positions run after the others in the channels or im2col
// form (hybrid_split).
void positions_window(TileWork& w, TileBuilder& b, const OpDesc& op, const L1Config& l1,
                      const NeuronConfig& nc, bool stream, bool hybrid) {
  const uint64_t n = nc.count;
  const uint64_t rows = op.row_end - op.row_begin;
  const uint64_t wo = op.output.w;
  const uint64_t wp = stream_pitch(op, l1);
  const bool conv = op.op == OpCode::kConv;
  const uint64_t kernel = uint64_t(reduced_channels(op)) * op.kernel_h * op.kernel_w;
  Reduction red;
  red.width = op.kernel_w;
  red.segments = conv ? uint64_t(reduced_channels(op)) * op.kernel_h : op.kernel_h;
  if (red.width > l1.line_bytes) {  // a kernel row wider than a line is split into parts
    const uint64_t parts = ceil_div(red.width, l1.line_bytes);
    red.segments *= parts;
    red.width = ceil_div(red.width, parts);
  }
  red.per_fill = std::max<uint64_t>(1, l1.line_bytes / red.width);
  const std::vector<uint64_t> groups = channel_groups(op, nc);
  const bool resident = conv && w.channels * kernel <= l1.kernel_bytes;
  const uint64_t span_extra = uint64_t(op.kernel_w - 1) * op.dilation_w + 1;
  const bool crossing = stream;
  const bool strided_stream = stream && (op.stride_h > 1 || op.stride_w > 1);
  const uint64_t step = op.stride_w;  // stream elements between consecutive positions
  // One stream of virtual rows of wp positions (stream_pitch), the last row stopping at its last
  // valid output (stride 1, or a strided stream). Otherwise output rows back to back (strided, or
  // a stride-1 tile walking its rows).
  const uint64_t positions = traversal_positions(op, l1, stream);
  // The runs cover the stream up to runs_end; a hybrid's tail (its valid positions beyond) follows.
  const HybridSplit split = hybrid ? hybrid_split(op, l1, nc, stream) : HybridSplit{};
  const uint64_t tail = split.tail_positions;
  const uint64_t runs_end = positions - split.skipped;
  w.computed_positions = runs_end + tail;
  w.tail_skipped = split.skipped;
  w.runs = ceil_div(runs_end, n);
  for (uint64_t k = 0; k < w.runs; ++k) {
    const uint64_t start = k * n, end = std::min(start + n, runs_end);
    const uint64_t active = end - start;
    uint64_t pieces = 1, crossings = 0, stored = 0;  // stored: L2 bytes of one segment's block(s)
    if (crossing) {
      // Without horizontal padding the stored rows are contiguous: one block. With it, the pad
      // columns are not stored, so the block comes in one piece per row it spans, and a window
      // crossing a row end needs a second per-line write unless the pads are made in the block.
      const uint64_t span = (active - 1) * step + span_extra;
      stored = span;
      if (strided_stream) {
        // The block covers stream elements [step x start, step x start + span) of the padded rows
        // (wp elements each; step x wp per virtual row); its stored part is at most one stored
        // row per padded row it touches. One write: the stream needs pad_in_block.
        const uint64_t touched = (step * start + span - 1) / wp - step * start / wp + 1;
        stored = std::min(span, touched * op.input.w);
      } else if (wp != op.input.w) {
        pieces = (end - 1) / wp - start / wp + 1;
        for (uint64_t row = start / wp; row <= (end - 1) / wp; ++row) {
          const uint64_t lo = std::max(start, row * wp + wo), hi = std::min(end, (row + 1) * wp);
          if (hi > lo) crossings += hi - lo;
        }
        stored = std::min(span, pieces * op.input.w);
      }
      if (l1.pad_in_block) pieces = 1, crossings = 0;
    } else {
      // Each output row's windows come from their own stored rows: one block per output row
      // (pads made in the block: rows_back_to_back_applies, strided tiles).
      pieces = (end - 1) / wo - start / wo + 1;
      for (uint64_t row = start / wo; row <= (end - 1) / wo; ++row) {
        const uint64_t in_row = std::min(end, (row + 1) * wo) - std::max(start, row * wo);
        stored += std::min<uint64_t>(op.input.w, (in_row - 1) * op.stride_w + span_extra);
      }
    }
    red.active = active;
    red.writes_per_segment = l1.shift_stride ? pieces : active + crossings;
    for (uint64_t g : groups) {
      red.group = g;
      const uint64_t writes = b.reduce(red);
      (l1.shift_stride ? w.shifted_writes : w.line_writes) += writes;
      w.l2_read_bytes += red.segments * (l1.shift_stride ? stored : active * red.width);
      if (conv && !resident) w.kernel_bytes += g * kernel;
    }
  }
  w.valid_outputs = w.channels * rows * wo;
  w.discarded_outputs = w.channels * (runs_end - (rows * wo - tail));
  w.store[0] = {rows * wo - tail, w.channels, 1};
  if (conv) {
    w.macs = w.valid_outputs * kernel;
    if (resident) w.kernel_bytes = w.channels * kernel;
  }
  if (tail) hybrid_tail(w, b, op, l1, nc, tail);
}

// Channels mapping: output channels on neurons, positions in the accumulators.
void channels_map(TileWork& w, TileBuilder& b, const OpDesc& op, const L1Config& l1,
                  const NeuronConfig& nc) {
  uint64_t k, positions;  // reduction length and output positions per channel
  const bool pool = op.op == OpCode::kGlobalAvgPool;
  if (op.op == OpCode::kFullyConnected) {
    k = uint64_t(op.input.c) * op.input.h * op.input.w, positions = 1;
  } else if (pool) {
    k = uint64_t(op.input.h) * op.input.w, positions = 1;
  } else {
    k = uint64_t(reduced_channels(op)) * op.kernel_h * op.kernel_w;
    positions = uint64_t(op.row_end - op.row_begin) * op.output.w;
  }
  const bool im2col = op.mapping == Mapping::kIm2col;
  // The broadcast operand (inputs of a group of positions); pooling has none.
  const bool resident =
      !pool && (im2col ? im2col_resident(op, l1, 0) : positions * k <= l1.kernel_bytes);
  const uint64_t channel_runs =
      channel_form_fills(w, b, l1, nc, positions, k, !pool && !resident && !im2col);
  if (resident && !im2col) w.kernel_bytes = positions * k;
  const uint64_t full = positions / nc.accumulators, rest = positions % nc.accumulators;
  if (im2col) {
    im2col_gather(op, nc, resident, 0, w.gather);
    if (!resident) w.gather[0].repeats *= channel_runs, w.gather[1].repeats *= channel_runs;
    w.kernel_bytes = w.gather[0].total() + w.gather[1].total();
  } else if (!pool && op.op != OpCode::kFullyConnected) {
    channel_form_gather(w.gather, nc, positions, k, resident, channel_runs);
  }
  w.store[0] = {nc.accumulators, w.channels, full};
  w.store[1] = {rest, w.channels, rest ? 1u : 0u};
  w.computed_positions = positions;
  w.valid_outputs = w.channels * positions;
  if (!pool) w.macs = w.valid_outputs * k;
}

// Element-wise and softmax: positions stream contiguously (no padding, nothing discarded); each
// channel of a run is one fill of its operands (softmax: one fill group over all channels). A
// second operand that is one scalar per channel (input2 1 x 1, e.g. squeeze-excite's scale) is
// the same for every neuron: the kernel region broadcasts it, only the tensor operand is written.
void stream_op(TileWork& w, TileBuilder& b, const OpDesc& op, const L1Config& l1,
               const NeuronConfig& nc) {
  const uint64_t positions = uint64_t(op.row_end - op.row_begin) * op.output.w;
  const bool softmax = op.op == OpCode::kSoftmax;
  const bool scalar2 = scalar_second_operand(op);
  Reduction red;
  red.segments = softmax ? op.input.c : (op.op == OpCode::kActivation || scalar2 ? 1 : 2);
  red.passes = softmax ? 3 : 1;  // softmax: max, sum of exponentials, normalise
  red.per_fill = l1.line_bytes;
  const uint64_t channel_loops = softmax ? 1 : w.channels;
  w.runs = ceil_div(positions, nc.count);
  for (uint64_t k = 0; k < w.runs; ++k) {
    red.active = std::min<uint64_t>(nc.count, positions - k * nc.count);
    red.writes_per_segment = l1.shift_stride ? 1 : red.active;
    for (uint64_t c = 0; c < channel_loops; ++c) {
      const uint64_t writes = b.reduce(red);
      (l1.shift_stride ? w.shifted_writes : w.line_writes) += writes;
      w.l2_read_bytes += red.segments * red.active;
    }
  }
  if (scalar2) {
    // The tile's scalars stay in the kernel region when they fit, else each run loads its own.
    const uint64_t scalars = op.input2.c == 1 ? 1 : w.channels;
    w.kernel_bytes = scalars <= l1.kernel_bytes ? scalars : w.runs * scalars;
  }
  w.computed_positions = positions;
  w.valid_outputs = w.channels * positions;
  w.store[0] = {positions, w.channels, 1};
}

}  // namespace

bool scalar_second_operand(const OpDesc& op) {
  return (op.op == OpCode::kAdd || op.op == OpCode::kMul) && op.input2.present() &&
         op.input2.h == 1 && op.input2.w == 1;
}

bool im2col_mapping_applies(const OpDesc& op) {
  return op.op == OpCode::kConv && op.groups == 1 && op.kernel_h * op.kernel_w > 1;
}

bool channels_mapping_applies(const OpDesc& op) {
  switch (op.op) {
    case OpCode::kConv:
      return op.kernel_h == 1 && op.kernel_w == 1 && op.groups == 1 && op.pad_top == 0 &&
             op.pad_left == 0 && op.pad_bottom == 0 && op.pad_right == 0;
    case OpCode::kFullyConnected:
    case OpCode::kGlobalAvgPool:
      return true;
    default:
      return false;
  }
}

namespace {

// Whether the tile puts output channels on neurons (channels or im2col mapping, fully connected).
bool channels_on_neurons(const OpDesc& op) {
  return op.op == OpCode::kFullyConnected ||
         (op.mapping == Mapping::kChannels && channels_mapping_applies(op)) ||
         (op.mapping == Mapping::kIm2col && im2col_mapping_applies(op));
}

}  // namespace

// One traversal of the tile (tile_work.h: tile_traversal).
TileWork tile_traversal(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                         uint32_t l2_port_bytes, bool stream, bool hybrid) {
  TileWork w;
  w.channels = op.ch_end - op.ch_begin;
  w.streamed = stream;
  TileBuilder b(w, nc);
  const bool channels = channels_on_neurons(op);
  switch (op.op) {
    case OpCode::kConv:
    case OpCode::kMaxPool:
    case OpCode::kAvgPool:
    case OpCode::kGlobalAvgPool:
    case OpCode::kFullyConnected:
      if (channels) {
        channels_map(w, b, op, l1, nc);
      } else {
        positions_window(w, b, op, l1, nc, stream, hybrid);
      }
      break;
    case OpCode::kMatMul: {  // a 1x1 convolution over the positions (rows of A), B as weights
      OpDesc conv = op;
      conv.op = OpCode::kConv;
      conv.kernel_h = conv.kernel_w = 1;
      return compute_tile_work(conv, l1, nc, l2_port_bytes);
    }
    case OpCode::kAdd:
    case OpCode::kMul:
    case OpCode::kActivation:
    case OpCode::kSoftmax:
    case OpCode::kLayerNorm:  // vector-unit ops (model/vector) never reach the neuron array
    case OpCode::kGelu:
    case OpCode::kInstanceNorm:
      stream_op(w, b, op, l1, nc);
      break;
  }
  b.finish();
  w.lb_write_cycles = w.shifted_writes + w.line_writes;
  w.l2_read_bytes += w.kernel_bytes;
  // Partial sums are int32: read back before the reduction, written instead of the output.
  if (op.psum_mode & OpDesc::kPsumRead) w.l2_read_bytes += 4 * w.valid_outputs;
  w.output_bytes = (op.psum_mode & OpDesc::kPsumWrite) ? 4 * w.valid_outputs : w.valid_outputs;
  if (op.input_scale.present()) {  // the scale bytes once; the load path's pipeline depth once
    w.input_scale_bytes = input_scale_read(op).count;
    w.l2_read_bytes += w.input_scale_bytes;
    w.pipeline_cycles += l1.input_scale_cycles;
    w.write_span_cycles += l1.input_scale_cycles;
    w.first_fill_write_cycles += l1.input_scale_cycles;
  }
  w.gap_bytes = gap_traffic(op).total();  // a fused global pool's partial sums and output
  return w;
}

InputScaleRead input_scale_read(const OpDesc& op) {
  if (!op.input_scale.present()) return {};
  if (op.op == OpCode::kConv && op.groups > 1 && op.ch_end > op.ch_begin) {
    const uint32_t cin_g = op.input.c / op.groups, cout_g = op.output.c / op.groups;
    const uint32_t g0 = op.ch_begin / cout_g, g1 = (op.ch_end - 1) / cout_g;
    return {g0 * cin_g, (g1 - g0 + 1) * cin_g};
  }
  if (op.op == OpCode::kConv && op.in_ch_end) {
    return {op.in_ch_begin, op.in_ch_end - op.in_ch_begin};
  }
  return {0, op.input.c};
}

uint64_t tile_cycles(const TileWork& w, uint32_t l2_port_bytes) {
  return std::max(w.pipeline_cycles, ceil_div(w.l2_read_bytes, std::max<uint32_t>(1, l2_port_bytes)));
}

bool strided_stream_applies(const OpDesc& op, const L1Config& l1) {
  const bool window =
      op.op == OpCode::kConv || op.op == OpCode::kMaxPool || op.op == OpCode::kAvgPool;
  if (!window || op.stride_h != op.stride_w || op.stride_w < 2 || op.row_end - op.row_begin < 2)
    return false;
  if (channels_on_neurons(op) || !l1.shift_stride || !l1.pad_in_block) return false;
  // No ceil-mode overhang: the last window of a row ends inside the padded row, so a window
  // past it starts at or beyond the row end and is discarded.
  const uint64_t wp = stream_pitch(op, l1);  // W + pad_left + pad_right (strided)
  const uint64_t extent = uint64_t(op.kernel_w - 1) * op.dilation_w + 1;
  return wp >= extent && op.output.w == (wp - extent) / op.stride_w + 1;
}

bool stride_one(const OpDesc& op) { return op.stride_h == 1 && op.stride_w == 1; }

bool rows_back_to_back_applies(const OpDesc& op, const L1Config& l1) {
  const bool window =
      op.op == OpCode::kConv || op.op == OpCode::kMaxPool || op.op == OpCode::kAvgPool;
  if (!window || !stride_one(op) || op.row_end - op.row_begin < 2) return false;
  if (channels_on_neurons(op) || !l1.shift_stride || !l1.pad_in_block) return false;
  return stream_pitch(op, l1) > op.output.w;  // windows to discard
}

bool traversal_applies(const OpDesc& op, const L1Config& l1, bool stream) {
  if (stream == stride_one(op)) return true;
  return stream ? strided_stream_applies(op, l1) : rows_back_to_back_applies(op, l1);
}

uint64_t stream_pitch(const OpDesc& op, const L1Config& l1) {
  const uint64_t w = op.input.w;
  if (!l1.shared_pad || !l1.shift_stride || !l1.pad_in_block || !stride_one(op))
    return w + op.pad_left + op.pad_right;
  // One gap of G = max(pad_left, pad_right) zero columns between stored rows; never narrower than
  // an output row (pads wider than the window: min(pad_left, pad_right) >= extent).
  return std::max<uint64_t>(w + std::max(op.pad_left, op.pad_right), op.output.w);
}

uint64_t traversal_positions(const OpDesc& op, const L1Config& l1, bool stream) {
  const uint64_t rows = op.row_end - op.row_begin, wo = op.output.w;
  return stream ? (rows - 1) * stream_pitch(op, l1) + wo : rows * wo;
}

HybridSplit hybrid_split(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                         bool stream) {
  const uint64_t rows = op.row_end - op.row_begin, wo = op.output.w;
  const uint64_t wp = stream_pitch(op, l1);
  const uint64_t positions = traversal_positions(op, l1, stream);
  if (positions <= nc.count || positions % nc.count == 0) return {};
  const uint64_t runs_end = positions / nc.count * nc.count;
  // Valid outputs before runs_end: whole virtual rows of wp positions hold wo each.
  const uint64_t before = stream ? runs_end / wp * wo + std::min(runs_end % wp, wo) : runs_end;
  return {positions - runs_end, rows * wo - before};
}

bool hybrid_tail_applies(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                         bool stream) {
  if (op.op != OpCode::kConv || channels_on_neurons(op) || op.pool.present()) return false;
  if (!channels_mapping_applies(op) && !im2col_mapping_applies(op)) return false;
  return hybrid_split(op, l1, nc, stream).tail_positions > 0;
}

// The plain traversal (one stream for stride 1, rows back to back otherwise) or the other one
// (rows_back_to_back_applies, strided_stream_applies), each also as a hybrid tile
// (hybrid_tail_applies), whichever takes the fewest cycles (ties: the earlier one).
TileWork compute_tile_work(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                           uint32_t l2_port_bytes) {
  const bool plain = stride_one(op);
  TileWork best = tile_traversal(op, l1, nc, l2_port_bytes, plain, false);
  auto consider = [&](bool stream, bool hybrid) {
    TileWork w = tile_traversal(op, l1, nc, l2_port_bytes, stream, hybrid);
    if (tile_cycles(w, l2_port_bytes) < tile_cycles(best, l2_port_bytes)) best = w;
  };
  const bool other = traversal_applies(op, l1, !plain);
  if (other) consider(!plain, false);
  if (hybrid_tail_applies(op, l1, nc, plain)) consider(plain, true);
  if (other && hybrid_tail_applies(op, l1, nc, !plain)) consider(!plain, true);
  return best;
}

}  // namespace strider
