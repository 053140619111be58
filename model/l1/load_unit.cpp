#include "model/l1/load_unit.h"

#include <algorithm>

#include "model/l1/row_pieces.h"
#include "model/l2/l2_sram.h"

namespace strider {

LoadUnit::LoadUnit(sc_core::sc_module_name name, const ArchConfig& arch, const ClockDomain& clock,
                   TimedMemory& l2, LatencyFifo<const Descriptor*>& in, LatencyFifo<TileToken>& out,
                   RunRecord& record, StatRegistry& stats)
    : sc_core::sc_module(name),
      arch_(arch),
      clock_(clock),
      l2_(l2),
      in_(in),
      out_(out),
      record_(record),
      tiles_(stats.add("load.tiles", "operation tiles loaded")),
      busy_(stats.add("load.busy_cycles", "cycles the load unit was busy")),
      l2_bytes_(stats.add("load.l2_read_bytes", "input and kernel bytes read from L2")),
      write_cycles_(stats.add("line_buffer.write_cycles", "line-buffer write cycles")),
      shifted_(stats.add("line_buffer.shifted_writes",
                         "shift-stride writes (one block into every line)")),
      line_writes_(stats.add("line_buffer.line_writes", "single-line writes")),
      fills_(stats.add("line_buffer.fills", "line-buffer fills")),
      write_bytes_(stats.add("line_buffer.write_bytes", "bytes written into line-buffer lines")),
      kernel_bytes_(stats.add("kernel.load_bytes", "bytes loaded into the kernel region")),
      busy_flag_("busy"),
      lb_bytes_("line_buffer_bytes") {
  SC_HAS_PROCESS(LoadUnit);
  SC_THREAD(run);
}

namespace {

// Whether the tile's input is read as row pieces: a window op (conv, pools, MatMul) in the
// positions mapping with shift-stride writes (without them every line reads its own window; that
// ablation keeps one contiguous range). The channels and im2col mappings write each line with its
// channel's weights and gather their inputs into the kernel region, with or without shifted
// writes.
bool reads_row_pieces(const OpDesc& op) {
  switch (op.op) {
    case OpCode::kConv:
    case OpCode::kMaxPool:
    case OpCode::kAvgPool:
    case OpCode::kGlobalAvgPool:
      return !(op.mapping == Mapping::kChannels && channels_mapping_applies(op)) &&
             !(op.mapping == Mapping::kIm2col && im2col_mapping_applies(op));
    case OpCode::kMatMul: {
      OpDesc conv = op;
      conv.op = OpCode::kConv;
      conv.kernel_h = conv.kernel_w = 1;
      return reads_row_pieces(conv);
    }
    default:
      return false;
  }
}

// The operand gather's bytes (TileWork::gather).
uint64_t gathered(const TileWork& w) { return w.gather[0].total() + w.gather[1].total(); }

// Appends the operand gather's pieces (TileWork::gather) at the input's channel stride: from the
// input's first element, or a hybrid tile's from its tail's first position's first stored input
// (output position p of the tile reads from input row (row_begin + p / W_out) x stride_h - pad_top,
// column (p mod W_out) x stride_w - pad_left, each clipped to 0).
void append_gather(const OpDesc& op, const TileWork& w, std::vector<AccessPattern>& out) {
  uint64_t addr = op.input.addr;
  if (w.tail_positions) {
    const uint64_t first = uint64_t(op.row_end - op.row_begin) * op.output.w - w.tail_positions;
    const int64_t y = int64_t(op.row_begin + first / op.output.w) * op.stride_h - op.pad_top;
    const int64_t x = int64_t(first % op.output.w) * op.stride_w - op.pad_left;
    addr += op.input.offset(op.in_ch_end ? op.in_ch_begin : op.input.first_channel,
                            uint32_t(std::max<int64_t>(0, y)), uint32_t(std::max<int64_t>(0, x)));
  }
  for (const PiecePattern& g : w.gather) {
    if (g.total() == 0) continue;
    AccessPattern p;
    p.addr = addr;
    p.bytes = g.bytes;
    p.count = g.count;
    p.stride = op.input.channel_stride;
    p.repeats = g.repeats;
    out.push_back(p);
  }
}

// Appends a fused input scale's read (tile_work.h input_scale_read): one byte per input channel
// the tile reads, at the scale tensor's channel stride.
void append_scale(const OpDesc& op, std::vector<AccessPattern>& out) {
  const InputScaleRead s = input_scale_read(op);
  if (s.count == 0) return;
  const TensorRef& t = op.input_scale.scale;
  AccessPattern p;
  p.addr = t.addr + t.offset(s.first, 0, 0);
  if (t.channel_stride <= 1) {
    p.bytes = s.count;
  } else {
    p.bytes = 1, p.count = s.count, p.stride = t.channel_stride;
  }
  out.push_back(p);
}

// Adds access `b` (issued after `a`) to the tile's total `a`.
void merge(Access& a, const Access& b) {
  a.end = std::max(a.end, b.end);
  a.stall += b.conflict;
  a.conflict += b.conflict;
}

}  // namespace

// The tile's L2 reads. Positions-mapping window tiles with shift-stride writes: every input row
// piece (row_pieces.h) is its own access at its address, then the kernel bytes as one range from
// the weights and the partial sums read back as one range from theirs; a hybrid tile's tail reads
// its lines' weights with the kernel bytes and gathers its inputs last, from its first position.
// Other tiles (and per-line writes): one contiguous range for their input blocks, weights and
// kernels, then the channels mapping's operand gather piece by piece (one piece per input channel
// at the input's channel stride, per group of positions). Stall: queueing before the first access
// plus every access's bank conflicts. Returns the bytes read in `bytes`.
Access LoadUnit::read_l2(const OpDesc& op, const TileWork& w, uint64_t now, uint64_t& bytes) {
  if (arch_.l1.shift_stride && reads_row_pieces(op)) {
    pieces_.clear();
    input_row_pieces(op, arch_.l1, arch_.neurons, w.streamed, w.tail_skipped, pieces_);
    const uint64_t psum = (op.psum_mode & OpDesc::kPsumRead) ? 4 * w.valid_outputs : 0;
    // A hybrid tile: its runs' kernels and its tail's lines' weights, then (below) its tail's
    // gather. Other tiles: the kernel bytes as one range.
    const bool hybrid = w.tail_positions > 0;
    const uint64_t weights =
        hybrid ? w.kernel_bytes - gathered(w) + w.tail_line_bytes : w.kernel_bytes;
    if (weights) pieces_.push_back(AccessPattern{op.weights.addr, weights});
    if (psum) pieces_.push_back(AccessPattern{op.psum.addr, psum});
    if (hybrid) append_gather(op, w, pieces_);
    append_scale(op, pieces_);
    Access a;
    bytes = 0;
    for (size_t i = 0; i < pieces_.size(); ++i) {
      const Access b = l2_.access_pattern(L2Sram::kLoad, pieces_[i], now);
      if (i == 0) {
        a = b;
      } else {
        merge(a, b);
      }
      bytes += pieces_[i].total_bytes();
    }
    if (pieces_.empty()) a.start = a.end = now;
    return a;
  }
  bytes = w.l2_read_bytes;
  Access a = l2_.access(L2Sram::kLoad, op.input.addr,
                        w.l2_read_bytes - gathered(w) - w.input_scale_bytes, now);
  pieces_.clear();
  append_gather(op, w, pieces_);
  append_scale(op, pieces_);
  for (const AccessPattern& p : pieces_) merge(a, l2_.access_pattern(L2Sram::kLoad, p, now));
  return a;
}

void LoadUnit::run() {
  for (;;) {
    const Descriptor* d = in_.read();
    // The line buffer holds one tile ahead of the neurons: wait for it to be taken.
    const uint64_t arrived = clock_.now();
    while (out_.full()) sc_core::wait(out_.data_read_event());
    const uint64_t now = clock_.now();
    TileToken t;
    t.desc = d;
    t.work = compute_tile_work(d->op, arch_.l1, arch_.neurons, arch_.l2.port_bytes_per_cycle);
    const TileWork& w = t.work;
    busy_flag_.write(true);
    lb_bytes_.write(uint32_t(w.active_lines * arch_.l1.line_bytes));
    uint64_t bytes = 0;
    const Access a = read_l2(d->op, w, now, bytes);
    // Writes run through the two fill buffers (they wait for the neurons when compute-bound);
    // the L2 port may take longer than the writes.
    const uint64_t busy = std::max(w.write_span_cycles, a.end - now);
    t.load_end = now + busy;
    DescriptorRecord& r = record_.descriptors[d->id];
    r.unit = Unit::kLoad;
    r.start = now;
    r.l2_read_bytes = bytes;
    r.lb_write_cycles = w.lb_write_cycles;
    r.lb_write_bytes = w.lb_write_bytes;
    r.kernel_load_bytes = w.kernel_bytes;
    r.shifted_writes = w.shifted_writes;
    r.line_writes = w.line_writes;
    r.stall_l2_conflict = a.stall;
    r.l2_bank_conflict_cycles = a.conflict;
    r.stall_backpressure = now - arrived;
    ++tiles_;
    busy_ += busy;
    l2_bytes_ += bytes;
    write_cycles_ += w.lb_write_cycles;
    shifted_ += w.shifted_writes;
    line_writes_ += w.line_writes;
    fills_ += w.fills;
    write_bytes_ += w.lb_write_bytes;
    kernel_bytes_ += w.kernel_bytes;
    // The neurons start once the first fill is written, after the L2 latency of its block.
    const uint64_t first =
        std::min(busy, w.first_fill_write_cycles + l2_.latency(d->op.input.addr));
    out_.write(std::move(t), clock_.cycles(first));
    clock_.wait_until(now + busy);
    busy_flag_.write(false);
    lb_bytes_.write(0);
  }
}

}  // namespace strider
