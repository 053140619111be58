#include "pipeline_reference.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/timing/tile_work.h"
#include "stepped_reference.h"

namespace strider {
namespace {

struct Pattern {
  uint64_t addr = 0, bytes = 0, count = 1, stride = 0, repeats = 1;
};

struct Timing {
  uint64_t end = 0, stall = 0, conflict = 0;
};

// One port of a banked L2, word by word.
class RefL2 {
 public:
  explicit RefL2(const L2Config& c) : c_(c), bank_free_(c.banks, 0) {}

  // The accesses in order from `now`; stall: the first's queueing and conflicts, then the others'
  // conflicts.
  Timing access_all(const std::vector<Pattern>& ps, uint64_t now) {
    Timing t;
    t.end = now;
    for (size_t i = 0; i < ps.size(); ++i) {
      const Timing a = access(ps[i], now);
      t.end = std::max(t.end, a.end);
      t.conflict += a.conflict;
      t.stall += i == 0 ? a.stall : a.conflict;
    }
    return t;
  }

 private:
  Timing access(Pattern p, uint64_t now) {
    if (p.count > 1 && p.stride == p.bytes) p.bytes *= p.count, p.count = 1;
    std::vector<uint64_t> words(c_.banks, 0);
    uint64_t total = 0;
    for (uint64_t r = 0; r < p.repeats; ++r) {
      for (uint64_t i = 0; i < p.count; ++i) {
        std::set<uint64_t> touched;
        for (uint64_t b = 0; b < p.bytes; ++b)
          touched.insert((p.addr + i * p.stride + b) / c_.bank_width_bytes);
        for (uint64_t w : touched) ++words[w % c_.banks], ++total;
      }
    }
    const uint64_t port = c_.port_bytes_per_cycle;
    const uint64_t bytes = p.bytes * p.count * p.repeats;
    const uint64_t port_time =
        p.count == 1 ? (bytes + port - 1) / port : (total * c_.bank_width_bytes + port - 1) / port;
    const uint64_t start = std::max(now, port_free_);
    uint64_t finish = start + port_time;
    for (size_t b = 0; b < words.size(); ++b) {
      if (words[b] == 0) continue;
      bank_free_[b] = std::max(start, bank_free_[b]) + words[b];
      finish = std::max(finish, bank_free_[b]);
    }
    port_free_ = finish;
    Timing t;
    t.conflict = finish - (start + port_time);
    t.stall = finish - (now + port_time);
    t.end = finish + c_.latency_cycles;
    return t;
  }

  const L2Config& c_;
  uint64_t port_free_ = 0;
  std::vector<uint64_t> bank_free_;
};

// What the pipeline needs of one tile.
struct TilePlan {
  SteppedWork work;
  std::vector<Pattern> reads, writes;
  uint64_t read_bytes = 0, write_bytes = 0;
};

TilePlan plan_tile(const OpDesc& op, const ArchConfig& arch) {
  TilePlan t;
  // The strided traversal (rows or one stream) and the hybrid tile are the closed form's choices;
  // the rest is stepped.
  const TileWork closed =
      compute_tile_work(op, arch.l1, arch.neurons, arch.l2.port_bytes_per_cycle);
  const bool hybrid = closed.tail_positions > 0;
  t.work = run_stepped_reference(op, arch.l1, arch.neurons, closed.streamed, hybrid);
  // Input row pieces grouped by (run, kernel row, part, row): one access over their channels.
  std::map<std::tuple<uint64_t, uint32_t, uint32_t, int64_t>, std::vector<InputRead>> rows;
  for (const InputRead& r : t.work.input_reads) rows[{r.run, r.kh, r.part, r.y}].push_back(r);
  for (const auto& [key, reads] : rows) {
    std::set<uint32_t> channels;
    uint64_t addr = reads.front().addr;
    for (const InputRead& r : reads) channels.insert(r.channel), addr = std::min(addr, r.addr);
    Pattern p;
    p.addr = addr;
    p.bytes = reads.front().bytes;
    p.count = channels.size();
    p.stride = op.input.channel_stride;
    p.repeats = reads.size() / channels.size();
    t.reads.push_back(p);
    t.read_bytes += p.bytes * p.count * p.repeats;
  }
  const uint64_t channels = op.ch_end - op.ch_begin;
  uint64_t kernel = 0;
  if (op.op == OpCode::kConv) {
    const uint64_t reduced = op.in_ch_end ? op.in_ch_end - op.in_ch_begin : op.input.c / op.groups;
    const uint64_t per_channel = reduced * op.kernel_h * op.kernel_w;
    if (channels * per_channel <= arch.l1.kernel_bytes) {
      kernel = channels * per_channel;
    } else {  // every run streams each fill group's kernels: every channel once per run
      kernel = t.work.runs * channels * per_channel;
    }
  }
  // A hybrid tile's tail: its lines' weights (the stepped tail's line reads) with the kernels.
  if (hybrid) kernel += t.work.l2_read_bytes;
  if (kernel) t.reads.push_back(Pattern{op.weights.addr, kernel});
  const uint64_t outputs = t.work.valid_outputs;
  if (op.psum_mode & OpDesc::kPsumRead) t.reads.push_back(Pattern{op.psum.addr, 4 * outputs});
  t.read_bytes += kernel + ((op.psum_mode & OpDesc::kPsumRead) ? 4 * outputs : 0);
  const uint64_t acc = arch.neurons.accumulators;
  const uint64_t positions = uint64_t(op.row_end - op.row_begin) * op.output.w;
  const uint64_t tail = t.work.tail_positions;
  if (hybrid) {
    // Then the tail's inputs, from its first position's first stored input (row and column
    // clipped to 0): one piece of each group's positions per input channel, per run of output
    // channels on neurons (one piece of all the tail's positions per channel when they fit the
    // kernel region and stay there); k > 1, the stepped tail's row pieces, the whole groups' at
    // their size, the others at their mean size.
    const uint64_t reduced = op.in_ch_end ? op.in_ch_end - op.in_ch_begin : op.input.c;
    const uint64_t first = positions - tail;
    const int64_t y0 = int64_t(op.row_begin + first / op.output.w) * op.stride_h - op.pad_top;
    const int64_t x0 = int64_t(first % op.output.w) * op.stride_w - op.pad_left;
    const uint32_t y = uint32_t(std::max<int64_t>(0, y0)), x = uint32_t(std::max<int64_t>(0, x0));
    const uint64_t addr = op.input.addr + op.input.offset(op.in_ch_end ? op.in_ch_begin : 0, y, x);
    const uint64_t channel_runs = (channels + arch.neurons.count - 1) / arch.neurons.count;
    const uint64_t stride = op.input.channel_stride;
    const SteppedWork& s = t.work;
    if (op.kernel_h * op.kernel_w > 1) {
      if (s.gather_whole_pieces) {
        t.reads.push_back(Pattern{addr, s.gather_whole_bytes, reduced, stride,
                                  s.gather_whole_pieces / reduced});
      }
      if (s.gather_other_pieces) {
        const uint64_t n = s.gather_other_pieces;
        t.reads.push_back(Pattern{addr, (s.gather_other_bytes + n - 1) / n, reduced, stride,
                                  n / reduced});
      }
    } else if (tail * reduced <= arch.l1.kernel_bytes) {
      t.reads.push_back(Pattern{addr, tail, reduced, stride, 1});
    } else {
      const uint64_t full = tail / acc;
      if (full) t.reads.push_back(Pattern{addr, acc, reduced, stride, channel_runs * full});
      if (tail % acc) t.reads.push_back(Pattern{addr, tail % acc, reduced, stride, channel_runs});
    }
    if (op.kernel_h * op.kernel_w > 1) {  // the pieces as issued (the others' rounded size)
      for (size_t i = t.reads.size() - (s.gather_whole_pieces > 0) - (s.gather_other_pieces > 0);
           i < t.reads.size(); ++i)
        t.read_bytes += t.reads[i].bytes * t.reads[i].count * t.reads[i].repeats;
    } else {
      t.read_bytes += s.gather_bytes;
    }
  }
  const bool psum_out = op.psum_mode & OpDesc::kPsumWrite;
  const TensorRef& o = psum_out ? op.psum : op.output;
  const uint64_t element = psum_out ? 4 : 1;
  Pattern w;
  w.addr = o.addr + o.offset(op.ch_begin, op.row_begin, 0);
  w.bytes = (positions - tail) * element;
  w.count = channels;
  w.stride = o.channel_stride;
  if (tail >= acc) w.bytes += tail % acc * element;  // the tail's partial group (see below)
  t.writes.push_back(w);
  if (tail > 0) {
    // A hybrid tile's tail: one piece per output channel and group of positions, at the tile's
    // first output element like the others (as the store unit issues them; a tail with whole
    // groups and a partial one counts the partial group's pieces with the runs' piece).
    Pattern g = w;
    g.bytes = std::min<uint64_t>(tail, acc) * element;
    g.repeats = std::max<uint64_t>(1, tail / acc);
    t.writes.push_back(g);
  }
  t.write_bytes = positions * channels * element;
  return t;
}

struct Slot {  // a one-entry channel
  bool full = false;
  size_t tile = 0;
  uint64_t visible = 0;
};

}  // namespace

std::vector<PipelineTileResult> run_stepped_pipeline(const std::vector<OpDesc>& ops,
                                                     const std::vector<uint64_t>& gaps,
                                                     const ArchConfig& arch) {
  const size_t n = ops.size();
  std::vector<TilePlan> plans;
  for (const OpDesc& op : ops) plans.push_back(plan_tile(op, arch));
  std::vector<PipelineTileResult> res(n);
  std::vector<uint64_t> load_end(n), neuron_end(n);
  RefL2 load_l2(arch.l2), store_l2(arch.l2);
  const uint64_t latency = arch.l2.latency_cycles, postop = arch.neurons.postop_cycles;
  Slot in, lb, out;
  size_t next = 0, retired = 0;
  uint64_t source_ready = n ? gaps[0] : 0;
  uint64_t load_free = 0, neuron_free = 0, store_free = 0;
  bool holding = false;
  size_t held = 0;
  uint64_t arrived = 0;
  for (uint64_t t = 0; retired < n; ++t) {
    if (t > 100000000) throw std::runtime_error("stepped pipeline did not finish");
    for (bool changed = true; changed;) {
      changed = false;
      if (t >= store_free && out.full && out.visible <= t) {  // store unit
        const size_t k = out.tile;
        const Timing a = store_l2.access_all(plans[k].writes, t);
        res[k].retired = std::max(a.end, neuron_end[k] + 1 + latency);
        res[k].l2_write_bytes = plans[k].write_bytes;
        res[k].conflict += a.conflict;
        res[k].stall_l2 += a.stall;
        store_free = a.end;
        out.full = false, ++retired, changed = true;
      }
      if (t >= neuron_free && !out.full && lb.full && lb.visible <= t) {  // neurons
        const size_t k = lb.tile;
        const SteppedWork& w = plans[k].work;
        const uint64_t mac_end = std::max(t + w.pipeline_cycles - w.first_fill_write_cycles,
                                          load_end[k] + w.last_fill_compute_cycles);
        neuron_end[k] = mac_end + postop;
        res[k].stall_line_buffer = mac_end - (t + w.compute_cycles);
        out = Slot{true, k, t + std::min(neuron_end[k] - t, w.first_output_cycles + postop)};
        neuron_free = neuron_end[k];
        lb.full = false, changed = true;
      }
      if (t >= load_free && !holding && in.full && in.visible <= t) {  // load unit takes a tile
        holding = true, held = in.tile, arrived = t;
        in.full = false, changed = true;
      }
      if (holding && !lb.full) {  // ... and starts it once the line buffer has room
        const size_t k = held;
        const SteppedWork& w = plans[k].work;
        const Timing a = load_l2.access_all(plans[k].reads, t);
        const uint64_t busy = std::max(w.write_span_cycles, a.end - t);
        res[k].load_start = t;
        res[k].backpressure = t - arrived;
        res[k].l2_read_bytes = plans[k].read_bytes;
        res[k].conflict += a.conflict;
        res[k].stall_l2 += a.stall;
        load_end[k] = t + busy;
        lb = Slot{true, k, t + std::min(busy, w.first_fill_write_cycles + latency)};
        load_free = t + busy;
        holding = false, changed = true;
      }
      if (next < n && t >= source_ready && !in.full) {  // source
        in = Slot{true, next, t};
        ++next;
        if (next < n) source_ready = t + gaps[next];
        changed = true;
      }
    }
  }
  return res;
}

}  // namespace strider
