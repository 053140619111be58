#include "stepped_reference.h"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>
#include <vector>

#include "core/timing/tile_work.h"

namespace strider {
namespace {

// One write of the load unit: a shifted block into every active line, or one line.
struct WriteOp {
  bool shifted = false;
  uint64_t bytes = 0;
};

// One line-buffer fill: the writes that fill it and the reduction the neurons run on it, once
// per group member (an output channel in the positions mapping, a position in the channels one).
struct Fill {
  std::vector<WriteOp> writes;
  uint64_t elements = 0;       // reduction lanes per neuron per member
  uint64_t real_elements = 0;  // of which real operands (the rest zero-padded kernel-row parts)
  uint64_t members = 0;
  uint64_t active = 0;  // neurons holding a position (or channel)
  uint64_t useful = 0;  // neurons whose MACs are useful (conv / fc, valid positions)
  // Output iterator, when this fill closes its group: stored and discarded elements.
  bool closes_group = false;
  uint64_t valid_out = 0, discarded_out = 0;
};

struct Position {
  uint32_t row = 0;  // output row, or virtual row of the padded stream
  uint32_t x = 0;    // column in the (virtual) row
  bool valid = true;
};

bool is_conv_like(const OpDesc& op) {
  return op.op == OpCode::kConv || op.op == OpCode::kFullyConnected;
}

// Shared pad columns (l1.shared_pad): the width of a virtual row found by trial, not by formula
// — the narrowest row holding its left pad and its stored row (pad_left + W columns) and a whole
// output row, in which every tap of every valid window (x < W_out) reads what it reads in the
// padded input: the same stored column of the same row, or a zero where the padded input has
// one. A row is [0, pad_left) zeros, [pad_left, pad_left + W) the stored row, then zeros up to
// the pitch; a tap at padded column c lands in the row c / pitch further on, at its column
// c mod pitch. The first design's W + pad_left + pad_right always qualifies.
uint32_t shared_pad_pitch(const OpDesc& op) {
  const int64_t w = op.input.w, pl = op.pad_left, out_w = op.output.w;
  const int64_t taps = op.kernel_w, dil = op.dilation_w;
  auto stored = [&](int64_t col) { return col >= pl && col < pl + w; };
  for (int64_t pitch = std::max(pl + w, out_w);; ++pitch) {
    bool same = true;
    for (int64_t x = 0; same && x < out_w; ++x) {
      for (int64_t t = 0; same && t < taps; ++t) {
        const int64_t c = x + t * dil;  // the tap's padded column
        const int64_t rows_on = c / pitch, col = c % pitch;
        same = stored(c) ? rows_on == 0 && col == c : !stored(col);
      }
    }
    if (same) return uint32_t(pitch);
  }
}

// The output positions of the tile in the order the neurons take them, and `pitch`, the stream's
// virtual row width (0 for rows back to back).
// `stream`: the tile walks one stream of virtual rows (TileWork::streamed: a stride-1 tile's
// default; a strided one's position x of a virtual row at padded column stride x x), else its
// output rows back to back.
std::vector<Position> tile_positions(const OpDesc& op, const L1Config& l1, bool stream,
                                     bool* one_stream, uint32_t* pitch) {
  const uint32_t rows = op.row_end - op.row_begin;
  const uint32_t out_w = op.output.w;
  std::vector<Position> ps;
  *one_stream = stream;
  *pitch = 0;
  const bool shared = l1.shared_pad && l1.shift_stride && l1.pad_in_block && op.stride_h == 1 &&
                      op.stride_w == 1;
  if (*one_stream && shared) {
    // Virtual rows of the shared-pad pitch: the first out_w positions of a row are its windows,
    // the rest would read into the next row and are discarded. The last row stops at out_w.
    *pitch = shared_pad_pitch(op);
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t x = 0; x < *pitch; ++x) {
        const bool crosses = x >= out_w;
        if (r + 1 == rows && crosses) break;
        ps.push_back(Position{op.row_begin + r, x, !crosses});
      }
    }
  } else if (*one_stream) {
    // One stream of virtual rows of padded width; a window whose last tap lies past its row's end
    // crosses into the next row and is discarded. The last row stops at its last valid window.
    const uint32_t wp = op.input.w + op.pad_left + op.pad_right;
    *pitch = wp;
    const uint32_t last_tap = uint32_t(op.kernel_w - 1) * op.dilation_w;
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t x = 0; x < wp; ++x) {
        const bool crosses = x * op.stride_w + last_tap >= wp;
        if (r + 1 == rows && crosses) break;
        ps.push_back(Position{op.row_begin + r, x, !crosses});
      }
    }
  } else {
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t x = 0; x < out_w; ++x) ps.push_back(Position{op.row_begin + r, x, true});
    }
  }
  return ps;
}

// Output channel groups sharing one fill: up to `acc` channels of one conv group (conv), one
// channel otherwise.
std::vector<std::vector<uint32_t>> channel_groups(const OpDesc& op, uint32_t acc) {
  std::vector<std::vector<uint32_t>> groups;
  if (op.op == OpCode::kSoftmax) {
    groups.push_back({op.ch_begin});
    return groups;
  }
  const uint32_t cout_g = op.op == OpCode::kConv ? op.output.c / op.groups : 1;
  for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
    const bool same = !groups.empty() &&
                      groups.back().size() < (op.op == OpCode::kConv ? acc : 1) &&
                      groups.back().front() / cout_g == c / cout_g;
    if (same) {
      groups.back().push_back(c);
    } else {
      groups.push_back({c});
    }
  }
  return groups;
}

// One segment of a position's reduction: kernel row `row` of input channel (or operand)
// `channel`, part `part` of that row when it is wider than a line.
struct Segment {
  uint32_t channel = 0, row = 0, part = 0;
  uint64_t real = 0;  // real elements (the rest of the part is zero-padded)
};

// The segments one fill group reduces over, in the order the fills take them; `first` is the
// group's first output channel.
std::vector<Segment> group_segments(const OpDesc& op, uint32_t first, uint64_t parts,
                                    uint64_t part_width) {
  uint32_t c0 = first, c1 = first + 1, rows = op.kernel_h;
  switch (op.op) {
    case OpCode::kConv:
      if (op.in_ch_end > op.in_ch_begin) {
        c0 = op.in_ch_begin, c1 = op.in_ch_end;
      } else {
        const uint32_t cin_g = op.input.c / op.groups, cout_g = op.output.c / op.groups;
        c0 = first / cout_g * cin_g, c1 = c0 + cin_g;
      }
      break;
    case OpCode::kAdd:
    case OpCode::kMul:
      // The two operands, or the tensor alone when the other is one scalar per channel (from the
      // kernel region).
      c0 = 0, c1 = scalar_second_operand(op) ? 1 : 2, rows = 1;
      break;
    case OpCode::kActivation:
      rows = 1;
      break;
    case OpCode::kSoftmax:
      c0 = 0, c1 = op.input.c, rows = 1;  // every channel of the position
      break;
    default:  // pools: the channel's own kernel rows
      break;
  }
  std::vector<Segment> segs;
  for (uint32_t c = c0; c < c1; ++c) {
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t p = 0; p < parts; ++p) {
        segs.push_back(
            Segment{c, r, p, std::min<uint64_t>(part_width, op.kernel_w - p * part_width)});
      }
    }
  }
  return segs;
}

// The input row pieces one segment's shifted block reads (kernel row `kh`, part `part` of
// `part_width` taps) over the run's positions ps[begin, end), found tap by tap: every tap's padded
// coordinates; a strided run's block is, per padded row, from its first tap to its last; a
// stride-1 run's is the stream (virtual rows of `wp`: padded, or the shared-pad pitch) from its
// first tap to its last, cut at each row end. Each piece is clipped to the stored rows and columns
// (padding is virtual). Returned as (row, first column, columns).
struct RowPiece {
  int64_t y = 0, x = 0, n = 0;
};
std::vector<RowPiece> block_pieces(const OpDesc& op, const std::vector<Position>& ps, size_t begin,
                                   size_t end, bool one_stream, int64_t wp, uint32_t kh,
                                   uint64_t part, uint64_t part_width) {
  std::map<int64_t, std::pair<int64_t, int64_t>> span;  // padded row -> [first, last] column
  auto add = [&](int64_t pr, int64_t pc) {
    auto it = span.find(pr);
    if (it == span.end()) {
      span[pr] = {pc, pc};
    } else {
      it->second.first = std::min(it->second.first, pc);
      it->second.second = std::max(it->second.second, pc);
    }
  };
  int64_t first = std::numeric_limits<int64_t>::max(), last = -1;  // stride 1: stream indices
  for (size_t p = begin; p < end; ++p) {
    const uint64_t kw_end = std::min<uint64_t>(op.kernel_w, (part + 1) * part_width);
    for (uint64_t kw = part * part_width; kw < kw_end; ++kw) {
      if (one_stream) {
        const int64_t idx = (int64_t(ps[p].row) * op.stride_h + int64_t(kh) * op.dilation_h) * wp +
                            int64_t(ps[p].x) * op.stride_w + int64_t(kw) * op.dilation_w;
        first = std::min(first, idx), last = std::max(last, idx);
      } else {
        add(int64_t(ps[p].row) * op.stride_h + int64_t(kh) * op.dilation_h,
            int64_t(ps[p].x) * op.stride_w + int64_t(kw) * op.dilation_w);
      }
    }
  }
  // Stride 1: the block is the stream from the first tap to the last, cut at each row end.
  for (int64_t idx = first; one_stream && idx <= last; ++idx) add(idx / wp, idx % wp);
  std::vector<RowPiece> out;
  for (const auto& [pr, cols] : span) {
    const int64_t y = pr - op.pad_top;
    const int64_t a = std::max<int64_t>(cols.first - op.pad_left, 0);
    const int64_t b = std::min<int64_t>(cols.second - op.pad_left + 1, op.input.w);
    if (y >= 0 && y < int64_t(op.input.h) && a < b) out.push_back(RowPiece{y, a, b - a});
  }
  return out;
}

void channels_fills(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                    uint64_t conv_positions, std::vector<Fill>* fills, SteppedWork* l2);
void im2col_tail_gather(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                        uint64_t tail, SteppedWork* l2);

// `hybrid`: the last run, when partial, runs in the channels form after the others (its
// positions in the accumulators, the output channels on neurons).
void positions_fills(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc, bool stream,
                     bool hybrid, std::vector<Fill>* fills, SteppedWork* l2) {
  const bool window_op = op.op == OpCode::kConv || op.op == OpCode::kMaxPool ||
                         op.op == OpCode::kAvgPool || op.op == OpCode::kGlobalAvgPool;
  bool one_stream = false;
  uint32_t pitch = 0;
  const std::vector<Position> ps = tile_positions(op, l1, stream, &one_stream, &pitch);
  const bool padded_rows = op.pad_left + op.pad_right > 0;
  // A kernel row wider than a line is cut into the fewest parts that fit, each `seg_elems` lanes
  // wide (the last zero-padded), one segment each.
  const uint64_t parts = (op.kernel_w + l1.line_bytes - 1) / l1.line_bytes;
  const uint64_t seg_elems = (op.kernel_w + parts - 1) / parts;
  const uint64_t per_fill = l1.line_bytes / seg_elems;
  const auto groups = channel_groups(op, nc.accumulators);
  // A hybrid tile: the stream's last partial run is skipped, its valid positions run after.
  const size_t skipped = hybrid ? ps.size() % nc.count : 0;
  uint64_t tail = 0;
  for (size_t p = ps.size() - skipped; p < ps.size(); ++p) tail += ps[p].valid;
  for (size_t begin = 0; begin < ps.size() - skipped; begin += nc.count) {
    const size_t end = std::min(ps.size(), begin + size_t(nc.count));
    const uint64_t active = end - begin;
    ++l2->runs;
    uint64_t valid = 0;
    for (size_t p = begin; p < end; ++p) valid += ps[p].valid;
    // Writes of one segment over this run: walk the run's positions.
    std::vector<WriteOp> seg_writes;
    if (l1.shift_stride) {
      if (!one_stream || (padded_rows && !l1.pad_in_block)) {
        // One block per (stored or output) row the run touches, into the lines of that row's
        // positions.
        for (size_t p = begin; p < end; ++p) {
          if (p == begin || ps[p].row != ps[p - 1].row) seg_writes.push_back(WriteOp{true, 0});
          seg_writes.back().bytes += seg_elems;
        }
      } else {
        seg_writes.push_back(WriteOp{true, active * seg_elems});
      }
    } else {
      for (size_t p = begin; p < end; ++p) {
        seg_writes.push_back(WriteOp{false, seg_elems});
        // A window across a padded row end takes a second write when pads are not generated.
        if (one_stream && padded_rows && !l1.pad_in_block && !ps[p].valid) {
          seg_writes.push_back(WriteOp{false, 0});
        }
      }
    }
    for (const auto& group : groups) {
      const std::vector<Segment> segs = group_segments(op, group.front(), parts, seg_elems);
      const uint64_t members = op.op == OpCode::kSoftmax ? 3 : group.size();
      const uint64_t out_channels =
          op.op == OpCode::kSoftmax ? op.ch_end - op.ch_begin : group.size();
      for (const Segment& seg : segs) {
        if (!window_op) break;
        // The segment's pieces; one that continues the previous one in memory extends it.
        std::vector<InputRead> reads;
        for (const RowPiece& r :
             block_pieces(op, ps, begin, end, one_stream, pitch, seg.row, seg.part, seg_elems)) {
          const uint64_t addr =
              op.input.addr + op.input.offset(seg.channel, uint32_t(r.y), uint32_t(r.x));
          const uint64_t bytes = uint64_t(r.n) * op.input.element_bytes;
          if (!reads.empty() && reads.back().addr + reads.back().bytes == addr) {
            reads.back().bytes += bytes;
          } else {
            reads.push_back(
                InputRead{begin / nc.count, seg.channel, seg.row, seg.part, r.y, addr, bytes});
          }
        }
        for (const InputRead& r : reads) {
          l2->input_pieces.emplace_back(r.addr, r.bytes);
          l2->input_reads.push_back(r);
          l2->input_bytes += r.bytes;
        }
      }
      for (size_t s = 0; s < segs.size(); s += per_fill) {
        const size_t n = std::min<size_t>(per_fill, segs.size() - s);
        Fill f;
        for (uint64_t k = 0; k < n; ++k)
          f.writes.insert(f.writes.end(), seg_writes.begin(), seg_writes.end());
        f.elements = n * seg_elems;
        for (size_t k = s; k < s + n; ++k) f.real_elements += segs[k].real;
        f.members = members;
        f.active = active;
        f.useful = is_conv_like(op) ? valid : 0;
        if (s + n == segs.size()) {
          f.closes_group = true;
          f.valid_out = valid * out_channels;
          f.discarded_out = (active - valid) * out_channels;
        }
        fills->push_back(std::move(f));
      }
    }
  }
  l2->tail_positions = tail;
  if (tail > 0) channels_fills(op, l1, nc, tail, fills, l2);
}

// A k > 1 hybrid tail's gather (see the header): the tile's last `tail` positions in groups of
// `accumulators`, per run of output channels on neurons.
void im2col_tail_gather(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                        uint64_t tail, SteppedWork* l2) {
  const uint64_t wo = op.output.w, rows = op.row_end - op.row_begin;
  const uint64_t cin = op.in_ch_end > op.in_ch_begin ? op.in_ch_end - op.in_ch_begin : op.input.c;
  const uint64_t first = rows * wo - tail;
  const uint64_t out_rows = rows - first / wo;
  const uint64_t in_rows = std::min<uint64_t>(
      op.input.h, (out_rows - 1) * op.stride_h + uint64_t(op.kernel_h - 1) * op.dilation_h + 1);
  if (cin * in_rows * op.input.w <= l1.kernel_bytes) {
    l2->gather_pieces = l2->gather_whole_pieces = cin * in_rows;
    l2->gather_whole_bytes = op.input.w;
    l2->gather_bytes = l2->kernel_bytes = cin * in_rows * op.input.w;
    return;
  }
  const uint64_t extent = uint64_t(op.kernel_w - 1) * op.dilation_w + 1;
  for (uint32_t c = op.ch_begin; c < op.ch_end; c += nc.count) {
    for (uint64_t p = first; p < rows * wo; p += nc.accumulators) {
      const uint64_t end = std::min<uint64_t>(rows * wo, p + nc.accumulators);
      // The group's positions by output row: one piece per row, reduced channel and kernel row.
      std::map<uint64_t, uint64_t> per_row;
      for (uint64_t q = p; q < end; ++q) ++per_row[q / wo];
      const bool whole = end - p == nc.accumulators && per_row.size() == 1;
      for (const auto& [row, n] : per_row) {
        const uint64_t bytes = std::min<uint64_t>(op.input.w, (n - 1) * op.stride_w + extent);
        const uint64_t pieces = cin * op.kernel_h;
        l2->gather_pieces += pieces;
        l2->gather_bytes += pieces * bytes;
        if (whole) {
          l2->gather_whole_pieces += pieces, l2->gather_whole_bytes = bytes;
        } else {
          l2->gather_other_pieces += pieces, l2->gather_other_bytes += pieces * bytes;
        }
      }
    }
  }
  l2->kernel_bytes = l2->gather_bytes;
}

// `conv_positions`: the positions a convolution's channels form runs over (the tile's, or a
// hybrid tile's tail).
void channels_fills(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                    uint64_t conv_positions, std::vector<Fill>* fills, SteppedWork* l2) {
  uint64_t positions = 1, reduction = 0;
  // A k > 1 convolution's hybrid tail: the im2col form, the window's elements broadcast out of
  // the gathered input row pieces.
  const bool im2col = op.op == OpCode::kConv && op.kernel_h * op.kernel_w > 1;
  switch (op.op) {
    case OpCode::kConv:
      positions = conv_positions;
      reduction = op.in_ch_end > op.in_ch_begin ? op.in_ch_end - op.in_ch_begin : op.input.c;
      reduction *= uint64_t(op.kernel_h) * op.kernel_w;
      break;
    case OpCode::kFullyConnected:
      reduction = uint64_t(op.input.c) * op.input.h * op.input.w;
      break;
    default:  // global average pooling: each neuron's channel over its own positions
      reduction = uint64_t(op.input.h) * op.input.w;
  }
  const bool pool = op.op == OpCode::kGlobalAvgPool, conv = op.op == OpCode::kConv;
  // The broadcast operand stays in the kernel region when every position's inputs fit it.
  const bool resident = !pool && !im2col && positions * reduction <= l1.kernel_bytes;
  if (im2col) im2col_tail_gather(op, l1, nc, positions, l2);
  if (resident) {
    l2->kernel_bytes = positions * reduction;
    if (conv) l2->gather_pieces = reduction, l2->gather_bytes = positions * reduction;
  }
  for (uint32_t c = op.ch_begin; c < op.ch_end; c += nc.count) {
    const uint64_t active = std::min<uint64_t>(nc.count, op.ch_end - c);
    for (uint64_t p = 0; p < positions; p += nc.accumulators) {
      const uint64_t group = std::min<uint64_t>(nc.accumulators, positions - p);
      for (uint64_t e = 0; e < reduction; e += l1.line_bytes) {
        const uint64_t n = std::min<uint64_t>(l1.line_bytes, reduction - e);
        l2->l2_read_bytes += active * n;  // each line its own channel's n operands
        if (!pool && !resident && !im2col) {
          l2->kernel_bytes += group * n;  // the group's positions of the fill's n input channels
          if (conv) l2->gather_pieces += n, l2->gather_bytes += group * n;
        }
        if (e + n == reduction) l2->store_pieces += active, l2->store_elements += active * group;
        Fill f;
        for (uint64_t line = 0; line < active; ++line) f.writes.push_back(WriteOp{false, n});
        f.elements = f.real_elements = n;
        f.members = group;
        f.active = active;
        f.useful = is_conv_like(op) ? active : 0;
        if (e + n == reduction) f.closes_group = true, f.valid_out = active * group;
        fills->push_back(std::move(f));
      }
    }
  }
}

}  // namespace

SteppedWork run_stepped_reference(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                                  bool stream, bool hybrid) {
  std::vector<Fill> fills;
  const bool channels = op.op == OpCode::kFullyConnected ||
                        (op.mapping == Mapping::kChannels && channels_mapping_applies(op));
  SteppedWork w;
  if (channels) {
    channels_fills(op, l1, nc, uint64_t(op.row_end - op.row_begin) * op.output.w, &fills, &w);
    w.l2_read_bytes += w.kernel_bytes;
  } else {
    positions_fills(op, l1, nc, stream, hybrid, &fills, &w);
  }
  const size_t n = fills.size();
  w.fills = n;
  for (const Fill& f : fills) w.active_lines = std::max(w.active_lines, f.active);
  if (n == 0) return w;
  constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  std::vector<uint64_t> write_done(n, kNever), compute_done(n, kNever);
  size_t wf = 0, wop = 0, cf = 0;
  bool writing = false, computing = false;
  uint64_t member = 0, left = 0, compute_start = 0;
  for (uint64_t t = 0; cf < n; ++t) {
    // Load unit: start the next fill once its buffer is released, then one write this cycle.
    if (wf < n) {
      if (!writing && (wf < 2 || compute_done[wf - 2] <= t)) writing = true, wop = 0;
      if (writing) {
        const WriteOp& op_w = fills[wf].writes[wop];
        (op_w.shifted ? w.shifted_writes : w.line_writes)++;
        w.lb_write_bytes += op_w.bytes;
        if (++wop == fills[wf].writes.size()) write_done[wf++] = t + 1, writing = false;
      }
    }
    // Neurons: a fully written fill after the previous fill's compute, one cycle of one member.
    if (!computing && write_done[cf] <= t) {
      computing = true, member = 0, left = fills[cf].elements, compute_start = t;
    }
    if (computing) {
      const Fill& f = fills[cf];
      const uint64_t used = std::min<uint64_t>(nc.macs_per_cycle, left);
      left -= used;
      ++w.compute_cycles;
      w.acc_updates += f.active;
      if (left == 0) w.macs += f.real_elements * f.useful;  // a member's reduction is done
      if (left == 0 && ++member < f.members) left = f.elements;
      if (left == 0) {
        compute_done[cf] = t + 1;
        // Output iterator: a closed group's positions are stored or dropped.
        if (f.closes_group && w.first_output_cycles == 0) {
          w.first_output_cycles = t + 1 - write_done[0];  // from the neurons' first cycle
        }
        w.valid_outputs += f.valid_out;
        w.discarded_outputs += f.discarded_out;
        if (cf + 1 == n) w.last_fill_compute_cycles = t + 1 - compute_start;
        ++cf, computing = false;
      }
    }
  }
  w.pipeline_cycles = compute_done[n - 1];
  w.write_span_cycles = write_done[n - 1];
  w.first_fill_write_cycles = write_done[0];
  if (!channels) w.store_elements = w.valid_outputs;  // the output iterator's stored elements
  return w;
}

std::string describe_tile(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc) {
  std::ostringstream s;
  s << to_string(op.op) << " mapping=" << to_string(op.mapping) << " in=" << op.input.c << "x"
    << op.input.h << "x" << op.input.w << " out=" << op.output.c << "x" << op.output.h << "x"
    << op.output.w << " k=" << op.kernel_h << "x" << op.kernel_w << " s=" << op.stride_h << "x"
    << op.stride_w << " pad(t,l,b,r)=" << op.pad_top << "," << op.pad_left << "," << op.pad_bottom
    << "," << op.pad_right << " dil=" << op.dilation_h << "x" << op.dilation_w
    << " groups=" << op.groups << " rows=[" << op.row_begin << "," << op.row_end << ") ch=["
    << op.ch_begin << "," << op.ch_end << ") in_ch=[" << op.in_ch_begin << "," << op.in_ch_end
    << ") psum=" << int(op.psum_mode) << " | lines=" << l1.lines << " line_bytes=" << l1.line_bytes
    << " kernel_bytes=" << l1.kernel_bytes << " shift_stride=" << l1.shift_stride
    << " pad_in_block=" << l1.pad_in_block << " shared_pad=" << l1.shared_pad
    << " | neurons=" << nc.count
    << " macs_per_cycle=" << nc.macs_per_cycle << " accumulators=" << nc.accumulators;
  return s.str();
}

}  // namespace strider
