#include "planner/lower/data_flow_check.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "core/common/saturating.h"

namespace strider {
namespace {

constexpr uint64_t kVisitBudget = uint64_t{1} << 14;  // per descriptor
// Pieces of one access past which its bounding interval is taken (and the access not checked).
constexpr uint64_t kMaxPieces = 16384;

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

// A byte interval [lo, hi).
struct Piece {
  uint64_t lo, hi;
};

// The bytes one field of a descriptor touches: pieces [first, first + count) of the checker's
// piece buffer, or, past kMaxPieces, their bounding interval (exact = false: not checked).
struct Access {
  MemSpace space;
  bool exact;
  size_t first, count;
  const char* field;
};

// A hazard to prove: `earlier` must precede the current descriptor.
struct Need {
  uint32_t earlier;
  const char* field;
  const char* what;  // "reads", "overwrites"
  const char* kind;  // "read after write", ...
  MemSpace space;
  uint64_t lo, hi;
};

struct Seg {
  uint64_t end = 0;
  int64_t writer = -1;  // the last descriptor that wrote these bytes (-1: none in the list)
  // Reads since the last write: the last op of each issue queue (it is ordered after the
  // earlier ops of its queue) and every move.
  uint32_t last_op[2] = {UINT32_MAX, UINT32_MAX};
  std::vector<uint32_t> move_readers;
};

// Disjoint byte intervals of one memory space, keyed by their start.
class SpaceMap {
 public:
  template <typename F>
  void for_overlaps(uint64_t lo, uint64_t hi, F&& f) {
    auto it = segs_.upper_bound(lo);
    if (it != segs_.begin() && std::prev(it)->second.end > lo) --it;
    for (; it != segs_.end() && it->first < hi; ++it) f(it->first, it->second);
  }
  // Replaces [lo, hi) by one segment (none: forgets it).
  void write(uint64_t lo, uint64_t hi, Seg* s) {
    split(lo);
    split(hi);
    segs_.erase(segs_.lower_bound(lo), segs_.lower_bound(hi));
    if (s == nullptr) return;
    s->end = hi;
    segs_.emplace(lo, std::move(*s));
  }

 private:
  void split(uint64_t at) {
    auto it = segs_.upper_bound(at);
    if (it == segs_.begin()) return;
    --it;
    if (it->first < at && it->second.end > at) {
      Seg right = it->second;
      it->second.end = at;
      segs_.emplace(at, std::move(right));
    }
  }
  std::map<uint64_t, Seg> segs_;
};

// Collects the pieces of one access, merging each with the previous one when they touch.
class Pieces {
 public:
  explicit Pieces(std::vector<Piece>& buf) : buf_(buf), first_(buf.size()) {}
  // `count` runs of `len` bytes, `stride` apart from `base`: one interval when they touch.
  void runs(uint64_t base, uint64_t count, uint64_t stride, uint64_t len) {
    if (count == 0 || len == 0) return;
    if (count == 1 || stride <= len) {
      add(base, saturating_add(base, saturating_add(saturating_mul(count - 1, stride), len)));
      return;
    }
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t lo = saturating_add(base, saturating_mul(i, stride));
      add(lo, saturating_add(lo, len));
    }
  }
  // How many pieces runs() would add (at most).
  static uint64_t count(uint64_t count, uint64_t stride, uint64_t len) {
    return count <= 1 || stride <= len ? 1 : count;
  }
  Access done(MemSpace space, const char* field) const {
    return {space, true, first_, buf_.size() - first_, field};
  }

 private:
  void add(uint64_t lo, uint64_t hi) {
    if (buf_.size() > first_ && lo >= buf_.back().lo && lo <= buf_.back().hi) {
      buf_.back().hi = std::max(buf_.back().hi, hi);
    } else {
      buf_.push_back({lo, hi});
    }
  }
  std::vector<Piece>& buf_;
  size_t first_;
};

class Checker {
 public:
  Checker(
      const DescriptorList& list,
      const std::function<void(const Descriptor&, const std::string&, const std::string&)>& fail)
      : list_(list), fail_(fail), dependents_(list.descriptors.size()) {
    // latest_[q][v]: the latest op of issue queue q (0 compute, 1 vector) that is v or one of its
    // ancestors. The compute pipeline and the vector unit each take their ops in list order and
    // finish them in order, so an op follows the previous op of its queue.
    const size_t n = list.descriptors.size();
    for (auto& l : latest_) l.assign(n, 0);
    uint32_t last[2] = {0, 0};  // 1 + the id of the queue's last op so far (0: none)
    for (const Descriptor& d : list.descriptors) {
      uint32_t best[2] = {0, 0};
      if (d.kind == DescKind::kOp && last[queue_of(d)] != 0) {
        const uint32_t prev = last[queue_of(d)] - 1;  // the previous op of its queue
        for (int q = 0; q < 2; ++q) best[q] = latest_[q][prev];
      }
      for (uint32_t p : d.deps) {
        dependents_[p].push_back(d.id);
        for (int q = 0; q < 2; ++q) best[q] = std::max(best[q], latest_[q][p]);
      }
      if (d.kind == DescKind::kOp) {
        best[queue_of(d)] = d.id + 1;
        last[queue_of(d)] = d.id + 1;
      }
      latest_[0][d.id] = best[0];
      latest_[1][d.id] = best[1];
    }
  }

  DataFlowStats run() {
    std::vector<Access> reads, writes;
    for (const Descriptor& d : list_.descriptors) {
      reads.clear();
      writes.clear();
      pieces_.clear();
      accesses(d, reads, writes);
      needs_.clear();
      for (const Access& a : reads) read(d.id, a);
      for (const Access& a : writes) write(d.id, a);
      resolve(d);
    }
    return stats_;
  }

 private:
  // Channels [c0, c1) x rows [y0, y1) of `t`, clipped to what it holds: per channel one piece
  // when its rows touch, else one per row.
  Access block(const TensorRef& t, uint64_t c0, uint64_t c1, uint64_t y0, uint64_t y1,
               const char* field) {
    c0 = std::max<uint64_t>(c0, t.first_channel);
    c1 = std::min<uint64_t>(c1, uint64_t(t.first_channel) + t.held_channels());
    y0 = std::max<uint64_t>(y0, t.first_row);
    y1 = std::min<uint64_t>(y1, uint64_t(t.first_row) + t.held_rows());
    if (c0 >= c1 || y0 >= y1) return {t.space, true, pieces_.size(), 0, field};
    const uint64_t len = uint64_t(t.w) * t.element_bytes, ch = c1 - c0, rows = y1 - y0;
    const uint64_t base = saturating_add(
        t.addr, saturating_add(saturating_mul(c0 - t.first_channel, t.channel_stride),
                               saturating_mul(y0 - t.first_row, t.row_stride)));
    const uint64_t channel_len =
        saturating_add(saturating_mul(rows - 1, t.row_stride), len);  // when its rows touch
    const bool rows_touch = Pieces::count(rows, t.row_stride, len) == 1;
    const uint64_t n =
        rows_touch ? Pieces::count(ch, t.channel_stride, channel_len) : saturating_mul(ch, rows);
    if (too_many(t.space, n)) {
      return bounding(t.space, base,
                      saturating_add(saturating_mul(ch - 1, t.channel_stride), channel_len), field);
    }
    Pieces p(pieces_);
    if (rows_touch) {
      p.runs(base, ch, t.channel_stride, channel_len);
    } else {
      for (uint64_t c = 0; c < ch; ++c) {
        p.runs(saturating_add(base, saturating_mul(c, t.channel_stride)), rows, t.row_stride, len);
      }
    }
    return p.done(t.space, field);
  }

  Access whole(const TensorRef& t, const char* field) { return block(t, 0, t.c, 0, t.h, field); }

  // `rows` rows of a move's side.
  // `rows` rows of a move's side; step > 1: each row's bytes `step` apart (MoveDesc::dst_step).
  Access rows(MemSpace space, uint64_t addr, uint32_t rows, uint32_t stride, uint32_t row_bytes,
              const char* field, uint32_t step = 1) {
    const uint64_t span = uint64_t(row_bytes - 1) * step + 1;
    const uint64_t pieces =
        step > 1 ? uint64_t(rows) * row_bytes : Pieces::count(rows, stride, row_bytes);
    if (too_many(space, pieces)) {
      return bounding(space, addr, saturating_add(saturating_mul(uint64_t(rows) - 1, stride), span),
                      field);
    }
    Pieces p(pieces_);
    if (step > 1) {
      for (uint64_t r = 0; r < rows; ++r) p.runs(addr + r * stride, row_bytes, step, 1);
    } else {
      p.runs(addr, rows, stride, row_bytes);
    }
    return p.done(space, field);
  }

  // DRAM: a strided access is taken as its bounding interval (unchecked). Each tensor's home
  // there is written once, by row bands whose pieces interleave: tracked piece by piece, they
  // took 14.7 s and 550 MB on a list of 10^6 descriptors (the chain of scripts/bench_scale.sh).
  static bool too_many(MemSpace space, uint64_t pieces) {
    return space == MemSpace::kDram ? pieces > 1 : pieces > kMaxPieces;
  }

  Access bounding(MemSpace space, uint64_t lo, uint64_t bytes, const char* field) {
    if (space == MemSpace::kL2) ++stats_.bounded;
    pieces_.push_back({lo, saturating_add(lo, bytes)});
    return {space, false, pieces_.size() - 1, 1, field};
  }

  void accesses(const Descriptor& d, std::vector<Access>& reads, std::vector<Access>& writes) {
    if (d.kind == DescKind::kMove) {
      const MoveDesc& m = d.move;
      reads.push_back(rows(m.src_space, m.src_addr, m.rows, m.src_stride, m.row_bytes, "move.src"));
      writes.push_back(
          rows(m.dst_space, m.dst_addr, m.rows, m.dst_stride, m.row_bytes, "move.dst", m.dst_step));
      return;
    }
    const OpDesc& o = d.op;
    const bool windowed = o.op == OpCode::kConv || o.op == OpCode::kMaxPool ||
                          o.op == OpCode::kAvgPool || o.op == OpCode::kAdd ||
                          o.op == OpCode::kMul || o.op == OpCode::kActivation;
    if (windowed) {
      // The input rows the tile's windows cover.
      const int64_t ek_h = int64_t(o.kernel_h - 1) * o.dilation_h + 1;
      const int64_t y0 = int64_t(o.row_begin) * o.stride_h - o.pad_top;
      const int64_t y1 = int64_t(o.row_end - 1) * o.stride_h - o.pad_top + ek_h;
      uint64_t c0 = 0, c1 = o.input.c;
      if (o.in_ch_end != 0) c0 = o.in_ch_begin, c1 = o.in_ch_end;
      reads.push_back(block(o.input, c0, c1, uint64_t(std::max<int64_t>(y0, 0)),
                            uint64_t(std::max<int64_t>(y1, 0)), "op.input"));
    } else {
      reads.push_back(whole(o.input, "op.input"));
    }
    if (o.input2.present()) reads.push_back(whole(o.input2, "op.input2"));
    if (o.input_scale.present()) reads.push_back(whole(o.input_scale.scale, "op.input_scale"));
    // A post-op's operand: the tile's own channels and rows (the store path reads it).
    if (o.post.present() && !(o.psum_mode & OpDesc::kPsumWrite)) {
      reads.push_back(
          block(o.post.operand, o.ch_begin, o.ch_end, o.row_begin, o.row_end, "op.post.operand"));
    }
    if (o.weights.present()) reads.push_back(whole(o.weights, "op.weights"));
    if (o.bias.present()) reads.push_back(whole(o.bias, "op.bias"));
    if ((o.psum_mode & OpDesc::kPsumRead) && o.psum.present())
      reads.push_back(whole(o.psum, "op.psum"));
    if ((o.psum_mode & OpDesc::kPsumWrite) && o.psum.present()) {
      writes.push_back(whole(o.psum, "op.psum"));
    } else if (o.pool.present()) {  // a fused max-pool: every pooled row of the tile's channels
      writes.push_back(
          block(o.pool.output, o.ch_begin, o.ch_end, 0, o.pool.output.h, "op.pool.output"));
    } else if (!o.gap.present() || o.gap.stores_result()) {
      writes.push_back(block(o.output, o.ch_begin, o.ch_end, o.row_begin, o.row_end, "op.output"));
    }
    if (o.gap.present()) {  // a fused global pool: its channels' partial sums, or pooled bytes
      const FusedGap& g = o.gap;
      if (!g.first()) {
        reads.push_back(block(g.partial, o.ch_begin, o.ch_end, 0, 1, "op.gap.partial"));
      }
      if (!g.last()) {
        writes.push_back(block(g.partial, o.ch_begin, o.ch_end, 0, 1, "op.gap.partial"));
      } else {
        writes.push_back(block(g.output, o.ch_begin, o.ch_end, 0, 1, "op.gap.output"));
      }
    }
  }

  SpaceMap& space(MemSpace s) { return s == MemSpace::kL2 ? l2_ : dram_; }

  void read(uint32_t x, const Access& a) {
    if (!a.exact) return;  // a bounding interval would name writers of bytes it does not read
    const Descriptor& d = list_.descriptors[x];
    for (size_t i = a.first; i < a.first + a.count; ++i) {
      const Piece p = pieces_[i];
      space(a.space).for_overlaps(p.lo, p.hi, [&](uint64_t start, Seg& s) {
        if (s.writer >= 0 && uint64_t(s.writer) != x) {
          needs_.push_back({uint32_t(s.writer), a.field, "reads", "read after write", a.space,
                            std::max(start, p.lo), std::min(s.end, p.hi)});
        }
        if (d.kind == DescKind::kOp) {
          s.last_op[queue_of(d)] = x;
        } else if (s.move_readers.empty() || s.move_readers.back() != x) {
          s.move_readers.push_back(x);
        }
      });
    }
  }

  void write(uint32_t x, const Access& a) {
    SpaceMap& m = space(a.space);
    for (size_t i = a.first; i < a.first + a.count; ++i) {
      const Piece p = pieces_[i];
      if (!a.exact) {
        m.write(p.lo, p.hi, nullptr);  // bytes no longer known: forgotten
        continue;
      }
      m.for_overlaps(p.lo, p.hi, [&](uint64_t start, Seg& s) {
        const uint64_t lo = std::max(start, p.lo), hi = std::min(s.end, p.hi);
        if (s.writer >= 0 && uint64_t(s.writer) != x)
          needs_.push_back(
              {uint32_t(s.writer), a.field, "overwrites", "write after write", a.space, lo, hi});
        const auto war = [&](uint32_t r) {
          if (r != x && r != UINT32_MAX)
            needs_.push_back({r, a.field, "overwrites", "write after read", a.space, lo, hi});
        };
        war(s.last_op[0]);
        war(s.last_op[1]);
        for (uint32_t r : s.move_readers) war(r);
      });
      Seg s;
      s.writer = x;
      m.write(p.lo, p.hi, &s);
    }
  }

  // Is `e` an ancestor of `v` (e < v)? An op is when it is not after the latest op of its queue
  // among v's ancestors (the queue chains the earlier ones); a move is when one of the
  // descriptors that depend on it is v or an ancestor of v.
  bool ancestor(uint32_t e, uint32_t v, uint64_t& visits) {
    const Descriptor& d = list_.descriptors[e];
    if (d.kind == DescKind::kOp) return e + 1 <= latest_[queue_of(d)][v];
    for (uint32_t c : dependents_[e]) {
      if (c > v) break;
      if (c == v) return true;
      if (++visits > kVisitBudget) return false;
      if (ancestor(c, v, visits)) return true;
    }
    return false;
  }

  static int queue_of(const Descriptor& d) { return is_vector_op(d.op.op) ? 1 : 0; }

  // Proves every need of `d`, reporting each earlier descriptor once.
  void resolve(const Descriptor& d) {
    if (needs_.empty()) return;
    std::vector<uint32_t> reported;
    for (const Need& n : needs_) {
      ++stats_.checked_pairs;
      if (std::count(reported.begin(), reported.end(), n.earlier)) continue;
      uint64_t visits = 0;
      if (ancestor(n.earlier, d.id, visits)) continue;
      if (visits > kVisitBudget) {
        ++stats_.unproven;
        continue;
      }
      reported.push_back(n.earlier);
      const Descriptor& e = list_.descriptors[n.earlier];
      fail_(
          d, n.field,
          std::string(n.what) + " " + to_string(n.space) + " [" + hex(n.lo) + ", " + hex(n.hi) +
              ") " + (std::string(n.kind) == "write after read" ? "read" : "written") +
              " by descriptor " + std::to_string(e.id) + " (" +
              (e.kind == DescKind::kMove ? std::string("move") : std::string(to_string(e.op.op))) +
              ") without depending on it (" + n.kind + ")");
    }
  }

  const DescriptorList& list_;
  const std::function<void(const Descriptor&, const std::string&, const std::string&)>& fail_;
  std::vector<std::vector<uint32_t>> dependents_;  // per descriptor, the later ones naming it
  std::vector<uint32_t> latest_[2];  // per queue: 1 + the latest op id among v's ancestors-or-self
  std::vector<Need> needs_;
  std::vector<Piece> pieces_;  // the current descriptor's accesses
  SpaceMap l2_, dram_;
  DataFlowStats stats_;
};

}  // namespace

DataFlowStats check_data_flow(
    const DescriptorList& list,
    const std::function<void(const Descriptor&, const std::string&, const std::string&)>& fail) {
  return Checker(list, fail).run();
}

}  // namespace strider
