// The closed-form TileWork (core/timing/tile_work.h) against the cycle-stepped reference
// (stepped_reference.h) on seeded random tiles of every op kind, both mappings and random machines,
// and FillPipeline's extrapolated add against one add per fill.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/timing/fill_pipeline.h"
#include "core/timing/tile_work.h"
#include "model/l1/row_pieces.h"
#include "stepped_reference.h"

namespace strider {
namespace {

using Rng = std::mt19937_64;

uint32_t pick(Rng& rng, uint32_t lo, uint32_t hi) {  // uniform in [lo, hi]
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}
bool coin(Rng& rng, double p = 0.5) { return std::bernoulli_distribution(p)(rng); }

TensorRef tensor(uint32_t c, uint32_t h, uint32_t w, uint8_t element_bytes = 1) {
  return TensorRef{MemSpace::kL2, 0, c, h, w, w * element_bytes, h * w * element_bytes,
                   element_bytes};
}

struct Tile {
  OpDesc op;
  L1Config l1;
  NeuronConfig nc;
  bool stream = false;  // row pieces: the tile walks one stream (TileWork::streamed)
  bool hybrid = false;  // row pieces: the partial last run in the channels form (tail_positions)
};

enum class Kind {
  kConv,
  kPointwise,
  kMaxPool,
  kAvgPool,
  kGlobalPool,
  kFc,
  kAdd,
  kMul,
  kAct,
  kSoftmax
};
constexpr int kKinds = 10;

// Output rows [begin, end) and channels [begin, end) of a random tile of the layer.
void pick_tile(Rng& rng, OpDesc* op) {
  op->row_begin = pick(rng, 0, op->output.h - 1);
  op->row_end = pick(rng, op->row_begin + 1, op->output.h);
  op->ch_begin = pick(rng, 0, op->output.c - 1);
  op->ch_end = pick(rng, op->ch_begin + 1, op->output.c);
}

// A window op (conv or pool) with random kernel, stride, dilation and padding; false if the
// output would be empty.
bool window(Rng& rng, OpDesc* op, uint32_t in_c, uint32_t out_c) {
  const uint32_t h = pick(rng, 1, 9), w = pick(rng, 1, 12);
  op->kernel_h = static_cast<uint16_t>(pick(rng, 1, 4));
  op->kernel_w = static_cast<uint16_t>(pick(rng, 1, coin(rng, 0.9) ? 4 : 7));
  op->stride_h = static_cast<uint16_t>(coin(rng) ? 1 : pick(rng, 1, 3));
  op->stride_w = static_cast<uint16_t>(coin(rng) ? op->stride_h : pick(rng, 1, 3));
  op->dilation_h = static_cast<uint16_t>(coin(rng, 0.8) ? 1 : 2);
  op->dilation_w = static_cast<uint16_t>(coin(rng, 0.8) ? 1 : 2);
  if (coin(rng, 0.6)) {
    op->pad_top = static_cast<uint16_t>(pick(rng, 0, op->kernel_h - 1));
    op->pad_bottom = static_cast<uint16_t>(pick(rng, 0, op->kernel_h - 1));
    op->pad_left = static_cast<uint16_t>(pick(rng, 0, op->kernel_w - 1));
    op->pad_right = static_cast<uint16_t>(pick(rng, 0, op->kernel_w - 1));
  }
  const int64_t eff_h = int64_t(op->kernel_h - 1) * op->dilation_h + 1;
  const int64_t eff_w = int64_t(op->kernel_w - 1) * op->dilation_w + 1;
  const int64_t span_h = int64_t(h) + op->pad_top + op->pad_bottom - eff_h;
  const int64_t span_w = int64_t(w) + op->pad_left + op->pad_right - eff_w;
  if (span_h < 0 || span_w < 0) return false;
  op->input = tensor(in_c, h, w);
  op->output =
      tensor(out_c, uint32_t(span_h / op->stride_h + 1), uint32_t(span_w / op->stride_w + 1));
  return true;
}

Tile random_tile(Rng& rng, Kind kind) {
  Tile t;
  // Some lines narrower than a kernel row (cut into parts).
  t.l1.line_bytes = coin(rng, 0.15) ? pick(rng, 2, 6) : pick(rng, 4, 40);
  t.nc.count = pick(rng, 1, 24);
  t.l1.lines = t.nc.count;
  t.l1.kernel_bytes = pick(rng, 64, 4096);
  t.l1.shift_stride = coin(rng);
  t.l1.pad_in_block = coin(rng);
  static const uint32_t kMacs[] = {1, 2, 3, 4, 8};
  static const uint32_t kAcc[] = {1, 2, 4, 8, 16};
  t.nc.macs_per_cycle = kMacs[pick(rng, 0, 4)];
  t.nc.accumulators = kAcc[pick(rng, 0, 4)];
  OpDesc& op = t.op;
  for (;;) {
    op = OpDesc{};
    switch (kind) {
      case Kind::kConv: {
        op.op = OpCode::kConv;
        const uint32_t shape = pick(rng, 0, 2);  // plain, grouped, depthwise
        uint32_t in_c = pick(rng, 1, 6), out_c = pick(rng, 1, 12);
        if (shape == 1) {
          op.groups = pick(rng, 2, 3);
          in_c = op.groups * pick(rng, 1, 3), out_c = op.groups * pick(rng, 1, 4);
        } else if (shape == 2) {
          op.groups = in_c = out_c = pick(rng, 1, 8);
        }
        if (!window(rng, &op, in_c, out_c)) continue;
        if (op.groups == 1 && coin(rng, 0.3)) {  // an input-channel block with partial sums
          op.in_ch_begin = pick(rng, 0, in_c - 1);
          op.in_ch_end = pick(rng, op.in_ch_begin + 1, in_c);
          op.psum_mode = static_cast<uint8_t>(pick(rng, 1, 3));
        }
        break;
      }
      case Kind::kPointwise: {  // 1x1, unpadded, groups 1: either mapping
        op.op = OpCode::kConv;
        const uint32_t in_c = pick(rng, 1, 40), out_c = pick(rng, 1, 40);
        op.stride_h = op.stride_w = static_cast<uint16_t>(pick(rng, 1, 2));
        const uint32_t h = pick(rng, 1, 8), w = pick(rng, 1, 8);
        op.input = tensor(in_c, h, w);
        op.output = tensor(out_c, (h - 1) / op.stride_h + 1, (w - 1) / op.stride_w + 1);
        if (coin(rng, 0.3)) {
          op.in_ch_begin = pick(rng, 0, in_c - 1);
          op.in_ch_end = pick(rng, op.in_ch_begin + 1, in_c);
          op.psum_mode = static_cast<uint8_t>(pick(rng, 1, 3));
        }
        break;
      }
      case Kind::kMaxPool:
      case Kind::kAvgPool: {
        op.op = kind == Kind::kMaxPool ? OpCode::kMaxPool : OpCode::kAvgPool;
        const uint32_t c = pick(rng, 1, 6);
        if (!window(rng, &op, c, c)) continue;
        op.count_include_pad = coin(rng);
        break;
      }
      case Kind::kGlobalPool: {
        op.op = OpCode::kGlobalAvgPool;
        const uint32_t c = pick(rng, 1, 40), h = pick(rng, 1, 8);
        const uint32_t w = pick(rng, 1, 12);
        op.input = tensor(c, h, w);
        op.output = tensor(c, 1, 1);
        op.kernel_h = static_cast<uint16_t>(h);
        op.kernel_w = static_cast<uint16_t>(w);
        break;
      }
      case Kind::kFc: {
        op.op = OpCode::kFullyConnected;
        op.input = tensor(pick(rng, 1, 120), 1, 1);
        op.output = tensor(pick(rng, 1, 40), 1, 1);
        op.mapping = Mapping::kChannels;
        break;
      }
      case Kind::kAdd:
      case Kind::kMul:
      case Kind::kAct: {
        op.op = kind == Kind::kAdd   ? OpCode::kAdd
                : kind == Kind::kMul ? OpCode::kMul
                                     : OpCode::kActivation;
        const uint32_t c = pick(rng, 1, 6), h = pick(rng, 1, 9), w = pick(rng, 1, 12);
        op.input = op.output = tensor(c, h, w);
        if (kind != Kind::kAct) op.input2 = op.input;
        // Every other such tile with an odd width: the second operand one scalar per channel.
        if (kind != Kind::kAct && w % 2 == 1) op.input2 = tensor(c, 1, 1);
        op.act = kind == Kind::kAct ? PostAct::kRelu : PostAct::kNone;
        break;
      }
      case Kind::kSoftmax: {
        op.op = OpCode::kSoftmax;
        const uint32_t c = pick(rng, 1, 40), h = pick(rng, 1, 4), w = pick(rng, 1, 6);
        op.input = op.output = tensor(c, h, w);
        break;
      }
    }
    break;
  }
  pick_tile(rng, &op);
  if (op.op == OpCode::kSoftmax) op.ch_begin = 0, op.ch_end = op.output.c;
  if (op.op != OpCode::kFullyConnected && channels_mapping_applies(op) && coin(rng)) {
    op.mapping = Mapping::kChannels;
  }
  if (op.psum_mode)
    op.psum = tensor(op.ch_end - op.ch_begin, op.row_end - op.row_begin, op.output.w, 4);
  op.weights = tensor(op.output.c, op.kernel_h, op.input.c / op.groups * op.kernel_w);
  return t;
}

// Compares every field the reference models; returns the mismatches as text and counts them per
// field in `tally`.
std::string compare(const OpDesc& op, const L1Config& l1, const TileWork& w, const SteppedWork& r,
                    std::map<std::string, int>* tally) {
  std::string out;
  auto eq = [&](const char* name, uint64_t closed, uint64_t stepped) {
    if (closed != stepped) {
      ++(*tally)[name];
      out += std::string(" ") + name + ": closed " + std::to_string(closed) + " stepped " +
             std::to_string(stepped) + ";";
    }
  };
  eq("pipeline_cycles", w.pipeline_cycles, r.pipeline_cycles);
  eq("write_span_cycles", w.write_span_cycles, r.write_span_cycles);
  eq("compute_cycles", w.compute_cycles, r.compute_cycles);
  eq("fills", w.fills, r.fills);
  eq("shifted_writes", w.shifted_writes, r.shifted_writes);
  eq("line_writes", w.line_writes, r.line_writes);
  eq("lb_write_cycles", w.lb_write_cycles, r.shifted_writes + r.line_writes);
  eq("lb_write_bytes", w.lb_write_bytes, r.lb_write_bytes);
  eq("first_fill_write_cycles", w.first_fill_write_cycles, r.first_fill_write_cycles);
  eq("last_fill_compute_cycles", w.last_fill_compute_cycles, r.last_fill_compute_cycles);
  eq("acc_updates", w.acc_updates, r.acc_updates);
  eq("first_output_cycles", w.first_output_cycles, r.first_output_cycles);
  eq("active_lines", w.active_lines, r.active_lines);
  eq("macs", w.macs, r.macs);
  eq("valid_outputs", w.valid_outputs, r.valid_outputs);
  eq("discarded_outputs", w.discarded_outputs, r.discarded_outputs);
  // L2 traffic: the stored elements in every mapping (the store pattern); in the channels mapping
  // the bytes read, the kernel bytes, the operand gather's pieces and the stored pieces.
  auto pieces = [](const PiecePattern(&p)[2]) {
    return p[0].count * p[0].repeats + p[1].count * p[1].repeats;
  };
  eq("store_elements", w.store[0].total() + w.store[1].total(), r.store_elements);
  const bool channels = op.op == OpCode::kFullyConnected ||
                        (op.mapping == Mapping::kChannels && channels_mapping_applies(op));
  if (w.tail_positions > 0) {
    // A hybrid tile's tail: its valid positions, the weights its lines are written with, its
    // operand gather and its kernel-region bytes beside the runs' kernels (one per output channel
    // and run when they are not resident). A k > 1 tail's gather counts the pieces of whole
    // groups at their size and the others at their mean size, rounded up (tile_work.h).
    const uint64_t kernel = (op.in_ch_end ? op.in_ch_end - op.in_ch_begin : op.input.c) *
                            uint64_t(op.kernel_h) * op.kernel_w;
    const uint64_t channels = op.ch_end - op.ch_begin;
    const uint64_t runs_kernel =
        channels * kernel <= l1.kernel_bytes ? channels * kernel : r.runs * channels * kernel;
    const bool im2col = op.kernel_h * op.kernel_w > 1;
    const uint64_t other = r.gather_other_pieces;
    const uint64_t gathered =
        im2col ? r.gather_whole_pieces * r.gather_whole_bytes +
                     (other ? other * ((r.gather_other_bytes + other - 1) / other) : 0)
               : r.gather_bytes;
    eq("tail_positions", w.tail_positions, r.tail_positions);
    eq("kernel_bytes", w.kernel_bytes, runs_kernel + (im2col ? gathered : r.kernel_bytes));
    eq("tail_line_bytes", w.tail_line_bytes, r.l2_read_bytes);
    eq("gather_pieces", pieces(w.gather), r.gather_pieces);
    eq("gather_bytes", w.gather[0].total() + w.gather[1].total(), gathered);
  }
  if (channels) {
    // A tile reading partial sums also reads 4 bytes per stored output (int32).
    const uint64_t psums = (op.psum_mode & OpDesc::kPsumRead) ? 4 * r.store_elements : 0;
    eq("l2_read_bytes", w.l2_read_bytes, r.l2_read_bytes + psums);
    eq("kernel_bytes", w.kernel_bytes, r.kernel_bytes);
    eq("gather_pieces", pieces(w.gather), r.gather_pieces);
    eq("gather_bytes", w.gather[0].total() + w.gather[1].total(), r.gather_bytes);
    eq("store_pieces", pieces(w.store), r.store_pieces);
  }
  return out;
}

// The classes of tile a random tile belongs to, to show each is covered.
std::vector<std::string> classes(const Tile& t, const SteppedWork& r) {
  const OpDesc& op = t.op;
  std::vector<std::string> c;
  c.push_back(std::string(to_string(op.op)) + "/" + to_string(op.mapping));
  c.push_back("accumulators=" + std::to_string(t.nc.accumulators));
  c.push_back(std::string("shift_stride=") + (t.l1.shift_stride ? "on" : "off") +
              " pad_in_block=" + (t.l1.pad_in_block ? "on" : "off"));
  if (op.op == OpCode::kConv || op.op == OpCode::kMaxPool || op.op == OpCode::kAvgPool) {
    const bool strided = op.stride_h > 1 || op.stride_w > 1;
    if (strided) c.push_back("window strided");
    if (op.pad_left + op.pad_right > 0)
      c.push_back(strided ? "strided padded" : "stride-1 row-padded");
    if (op.pad_top + op.pad_bottom > 0) c.push_back("window top/bottom padded");
    if (op.dilation_h > 1 || op.dilation_w > 1) c.push_back("window dilated");
    if (op.kernel_w > t.l1.line_bytes) c.push_back("kernel row wider than a line");
    if (r.discarded_outputs > 0) c.push_back("discarded positions");
    if (r.discarded_outputs > 0 && op.pad_left + op.pad_right > 0 && !t.l1.pad_in_block) {
      c.push_back(t.l1.shift_stride ? "row pieces (shifted)" : "row-end crossings (per line)");
    }
  }
  if (op.op == OpCode::kConv && op.groups > 1) {
    c.push_back(op.groups == op.input.c && op.groups == op.output.c ? "depthwise" : "grouped");
  }
  if (op.in_ch_end > 0) c.push_back("input-channel block, partial sums");
  if (r.fills > 2) c.push_back("more than 2 fills");
  return c;
}

TEST(TileWorkStepped, ClosedFormMatchesCycleSteppedReferenceOnRandomTiles) {
  Rng rng(0x5157'1d3e'14u);
  constexpr int kTiles = 20000;
  int failures = 0, channels = 0;
  int per_kind[kKinds] = {};
  std::map<std::string, int> tally, coverage;
  for (int i = 0; i < kTiles; ++i) {
    const Kind kind = static_cast<Kind>(i % kKinds);
    const Tile t = random_tile(rng, kind);
    ++per_kind[int(kind)];
    channels += t.op.mapping == Mapping::kChannels;
    // The closed form picks the strided traversal (rows or one stream, on a 64 B load port); the
    // reference steps the one it picked.
    const TileWork closed = compute_tile_work(t.op, t.l1, t.nc, 64);
    const SteppedWork stepped =
        run_stepped_reference(t.op, t.l1, t.nc, closed.streamed, closed.tail_positions > 0);
    for (const std::string& c : classes(t, stepped)) ++coverage[c];
    if (closed.streamed && !stride_one(t.op)) ++coverage["strided stream"];
    if (!closed.streamed && stride_one(t.op) && t.op.mapping == Mapping::kPositions &&
        rows_back_to_back_applies(t.op, t.l1))
      ++coverage["stride-1 rows back to back"];
    if (closed.tail_positions > 0) ++coverage["hybrid tail"];
    if (scalar_second_operand(t.op)) ++coverage["scalar second operand"];
    std::string diff = compare(t.op, t.l1, closed, stepped, &tally);
    // Every hybrid traversal the tile has (plain, or the other: a strided stream, stride-1 rows
    // back to back), kept or not, is stepped too.
    for (const bool stream : {false, true}) {
      if (closed.tail_positions > 0 && closed.streamed == stream) continue;  // stepped above
      if (!traversal_applies(t.op, t.l1, stream)) continue;
      if (!hybrid_tail_applies(t.op, t.nc, stream)) continue;
      const TileWork h = tile_traversal(t.op, t.l1, t.nc, 64, stream, true);
      const bool k1 = t.op.kernel_h * t.op.kernel_w == 1;
      ++coverage[k1 ? "hybrid tail 1x1 (forced)" : "hybrid tail k>1 (forced)"];
      if (!k1 && h.tail_skipped > h.tail_positions)
        ++coverage["hybrid tail k>1 skipping discarded positions"];
      if (!k1 && stream && !stride_one(t.op)) ++coverage["hybrid tail k>1 strided stream"];
      if (!k1 && !stream && stride_one(t.op)) ++coverage["hybrid tail k>1 stride-1 rows"];
      diff += compare(t.op, t.l1, h, run_stepped_reference(t.op, t.l1, t.nc, stream, true), &tally);
    }
    if (!diff.empty() && ++failures <= 20) {
      ADD_FAILURE() << "tile " << i << ": " << describe_tile(t.op, t.l1, t.nc) << "\n ->" << diff;
    }
  }
  std::string fields;
  for (const auto& [name, count] : tally) fields += " " + name + " x" + std::to_string(count);
  EXPECT_EQ(failures, 0) << "of " << kTiles << " tiles; mismatching fields:" << fields;
  for (int k = 0; k < kKinds; ++k) EXPECT_EQ(per_kind[k], kTiles / kKinds);
  EXPECT_GT(channels, kTiles / 20);  // the channels mapping is well covered
  // Every class of tile is drawn often (the counts are printed to see how often).
  const char* const kClasses[] = {"conv/positions",
                                  "conv/channels",
                                  "maxpool/positions",
                                  "avgpool/positions",
                                  "globalavgpool/positions",
                                  "globalavgpool/channels",
                                  "fc/channels",
                                  "add/positions",
                                  "mul/positions",
                                  "scalar second operand",
                                  "activation/positions",
                                  "softmax/positions",
                                  "accumulators=1",
                                  "accumulators=2",
                                  "accumulators=4",
                                  "accumulators=8",
                                  "accumulators=16",
                                  "shift_stride=on pad_in_block=on",
                                  "shift_stride=on pad_in_block=off",
                                  "shift_stride=off pad_in_block=on",
                                  "shift_stride=off pad_in_block=off",
                                  "window strided",
                                  "strided padded",
                                  "strided stream",
                                  "hybrid tail",
                                  "hybrid tail 1x1 (forced)",
                                  "stride-1 row-padded",
                                  "window top/bottom padded",
                                  "window dilated",
                                  "kernel row wider than a line",
                                  "discarded positions",
                                  "row pieces (shifted)",
                                  "row-end crossings (per line)",
                                  "depthwise",
                                  "grouped",
                                  "input-channel block, partial sums",
                                  "more than 2 fills"};
  std::string counts;
  for (const auto& [name, count] : coverage) counts += "\n  " + name + ": " + std::to_string(count);
  for (const char* c : kClasses) EXPECT_GE(coverage[c], 40) << c << counts;
  std::printf("tiles per class:%s\n", counts.c_str());
}

// The k > 1 hybrid tail (the partial last run's valid positions in the im2col form) on random
// convolutions with groups 1 and small neuron arrays (so most tiles end in a partial run): every
// hybrid traversal (plain, and as a strided stream where that applies), kept by compute_tile_work
// or not, against the stepped reference.
TEST(TileWorkStepped, K3HybridTailMatchesCycleSteppedReferenceOnRandomTiles) {
  Rng rng(0x3a11'5e7du);
  constexpr int kTiles = 4000;
  int failures = 0;
  std::map<std::string, int> tally, coverage;
  for (int i = 0; i < kTiles; ++i) {
    Tile t = random_tile(rng, Kind::kConv);
    OpDesc& op = t.op;
    if (op.groups != 1) {  // make it groups 1 over the same channels
      op.groups = 1;
      op.weights = tensor(op.output.c, op.kernel_h, op.input.c * op.kernel_w);
    }
    t.nc.count = pick(rng, 1, 8);
    t.l1.lines = t.nc.count;
    if (coin(rng)) t.l1.kernel_bytes = pick(rng, 16, 160);  // gathers that do not stay resident
    for (const bool stream : {false, true}) {
      if (!traversal_applies(op, t.l1, stream)) continue;
      if (!hybrid_tail_applies(op, t.nc, stream)) continue;
      const TileWork h = tile_traversal(op, t.l1, t.nc, 64, stream, true);
      const SteppedWork r = run_stepped_reference(op, t.l1, t.nc, stream, true);
      const bool k1 = op.kernel_h * op.kernel_w == 1;
      ++coverage[k1 ? "1x1" : "k>1"];
      if (k1) continue;
      if (h.tail_skipped > h.tail_positions) ++coverage["skipping discarded positions"];
      if (stream && !stride_one(op)) ++coverage["strided stream"];
      if (op.stride_h > 1 && !stream) ++coverage["strided rows"];
      if (stride_one(op) && !stream) ++coverage["stride-1 rows"];
      if (r.gather_other_pieces > 0) ++coverage["gather not resident, partial groups"];
      if (r.gather_whole_pieces > 0 && r.gather_whole_bytes < op.input.w)
        ++coverage["gather not resident, whole groups"];
      if (h.tail_positions > t.nc.accumulators) ++coverage["tail of several groups"];
      if (op.ch_end - op.ch_begin > t.nc.count) ++coverage["several channel runs"];
      if (op.in_ch_end) ++coverage["input-channel block"];
      if (compute_tile_work(op, t.l1, t.nc, 64).tail_positions > 0) ++coverage["kept"];
      const std::string diff = compare(op, t.l1, h, r, &tally);
      if (!diff.empty() && ++failures <= 20) {
        ADD_FAILURE() << "tile " << i << (stream ? " (stream)" : "") << ": "
                      << describe_tile(op, t.l1, t.nc) << "\n ->" << diff;
      }
    }
  }
  std::string fields, counts;
  for (const auto& [name, count] : tally) fields += " " + name + " x" + std::to_string(count);
  for (const auto& [name, count] : coverage) counts += "\n  " + name + ": " + std::to_string(count);
  EXPECT_EQ(failures, 0) << "mismatching fields:" << fields;
  const char* const kClasses[] = {"k>1",
                                  "skipping discarded positions",
                                  "strided stream",
                                  "strided rows",
                                  "gather not resident, partial groups",
                                  "gather not resident, whole groups",
                                  "tail of several groups",
                                  "several channel runs",
                                  "input-channel block",
                                  "kept"};
  for (const char* c : kClasses) EXPECT_GE(coverage[c], 20) << c << counts;
  std::printf("k>1 hybrid tails per class:%s\n", counts.c_str());
}

// The load unit's input row pieces (model/l1/row_pieces.h), expanded to one (address, bytes) per
// channel and repeat, against the stepped reference's tap-by-tap pieces: the same multiset, so
// every piece has the reference's address and length. Returns the mismatch as text.
using Pieces = std::vector<std::pair<uint64_t, uint64_t>>;

Pieces expand(const std::vector<AccessPattern>& patterns) {
  Pieces out;
  for (const AccessPattern& p : patterns) {
    for (uint64_t r = 0; r < p.repeats; ++r) {
      for (uint64_t i = 0; i < p.count; ++i) out.emplace_back(p.addr + i * p.stride, p.bytes);
    }
  }
  return out;
}

std::string compare_pieces(Pieces model, Pieces ref) {
  std::sort(model.begin(), model.end());
  std::sort(ref.begin(), ref.end());
  if (model == ref) return "";
  uint64_t model_bytes = 0, ref_bytes = 0;
  for (const auto& p : model) model_bytes += p.second;
  for (const auto& p : ref) ref_bytes += p.second;
  std::string out = " pieces: model " + std::to_string(model.size()) + " (" +
                    std::to_string(model_bytes) + " B), stepped " + std::to_string(ref.size()) +
                    " (" + std::to_string(ref_bytes) + " B)";
  for (size_t i = 0; i < std::min(model.size(), ref.size()); ++i) {
    if (model[i] != ref[i]) {
      out += "; first difference: model " + std::to_string(model[i].first) + "+" +
             std::to_string(model[i].second) + " stepped " + std::to_string(ref[i].first) + "+" +
             std::to_string(ref[i].second);
      break;
    }
  }
  return out;
}

// A random positions-mapping window tile (conv incl. grouped / depthwise / channel blocks, 1x1,
// pools, global pooling) with shift-stride writes, its input at a random address with row and
// channel padding in memory so addresses are not just offsets.
Tile random_window_tile(Rng& rng, int i) {
  static const Kind kWindow[] = {Kind::kConv, Kind::kPointwise, Kind::kMaxPool, Kind::kAvgPool,
                                 Kind::kGlobalPool};
  Tile t = random_tile(rng, kWindow[i % 5]);
  t.op.mapping = Mapping::kPositions;
  t.l1.shift_stride = true;
  TensorRef& in = t.op.input;
  in.addr = pick(rng, 0, 4096);
  in.row_stride = in.w + pick(rng, 0, 5);
  in.channel_stride = in.h * in.row_stride + pick(rng, 0, 9);
  return t;
}

// A stride-1 tile walks one stream, a strided one its rows back to back; every other tile that
// may take the other traversal does (whichever is cheaper); three in four tiles that may run their
// partial last run after the others with channels on neurons (the hybrid tile) do, in either
// traversal.
bool streams(const Tile& t, int i) {
  const bool other = i % 2 == 1 && traversal_applies(t.op, t.l1, !stride_one(t.op));
  return stride_one(t.op) != other;
}
bool hybrid(const Tile& t, int i) {
  return i % 4 != 3 && hybrid_tail_applies(t.op, t.nc, t.stream);
}

void row_pieces(const Tile& t, std::vector<AccessPattern>& out) {
  input_row_pieces(t.op, t.l1, t.nc, t.stream,
                   t.hybrid ? hybrid_split(t.op, t.nc, t.stream).skipped : 0, out);
}

// Runs `model` (the row pieces, or a faulty copy) against the reference on random window tiles;
// returns how many tiles mismatched (reporting the first few when `report`) and in `changed` how
// many tiles the model's pieces differ from the row pieces' on.
int check_row_pieces(int tiles,
                     const std::function<void(const Tile&, std::vector<AccessPattern>&)>& model,
                     bool report, int* changed = nullptr) {
  Rng rng(0x0e2f'5a17u);
  int failures = 0, streamed = 0, rows = 0, hybrids = 0;
  uint64_t pieces = 0;
  if (changed) *changed = 0;
  for (int i = 0; i < tiles; ++i) {
    Tile t = random_window_tile(rng, i);
    t.stream = streams(t, i);
    t.hybrid = hybrid(t, i);
    streamed += t.stream && !stride_one(t.op);
    rows += !t.stream && stride_one(t.op);
    hybrids += t.hybrid;
    std::vector<AccessPattern> patterns, right;
    model(t, patterns);
    const SteppedWork ref = run_stepped_reference(t.op, t.l1, t.nc, t.stream, t.hybrid);
    pieces += ref.input_pieces.size();
    const std::string diff = compare_pieces(expand(patterns), ref.input_pieces);
    if (!diff.empty() && ++failures <= 10 && report) {
      ADD_FAILURE() << "tile " << i << ": " << describe_tile(t.op, t.l1, t.nc) << "\n ->" << diff;
    }
    row_pieces(t, right);
    if (changed && !compare_pieces(expand(patterns), expand(right)).empty()) ++*changed;
  }
  if (report) {
    EXPECT_GT(pieces, uint64_t(tiles) * 4);  // tiles read several pieces
    EXPECT_GT(streamed, tiles / 100);        // strided streams are covered
    EXPECT_GT(rows, tiles / 100);            // stride-1 rows back to back are covered
    EXPECT_GT(hybrids, tiles / 100);         // hybrid tiles' runs are covered
  }
  return failures;
}

TEST(RowPiecesStepped, LoadUnitPiecesMatchTheTapByTapReferenceOnRandomTiles) {
  EXPECT_EQ(check_row_pieces(5000, row_pieces, true), 0);
}

// The check catches a wrong model: each injected fault (a piece one byte short, a pattern one
// channel short, the pad columns read as if stored, every piece one byte further) changes the
// pieces of many tiles, and the check reports every one of them.
TEST(RowPiecesStepped, InjectedFaultsAreCaught) {
  auto short_piece = [](const Tile& t, std::vector<AccessPattern>& out) {
    row_pieces(t, out);
    if (!out.empty() && out.back().bytes > 1) --out.back().bytes;
  };
  auto short_count = [](const Tile& t, std::vector<AccessPattern>& out) {
    row_pieces(t, out);
    for (AccessPattern& p : out) {
      if (p.count > 1) {
        --p.count;
        break;
      }
    }
  };
  auto no_pad_clip = [](const Tile& t, std::vector<AccessPattern>& out) {
    Tile u = t;  // the padding read as stored columns: every row wider by the pads
    u.op.input.w += u.op.pad_left + u.op.pad_right;
    u.op.pad_left = u.op.pad_right = 0;
    u.op.output.w = t.op.output.w;
    row_pieces(u, out);
  };
  auto shifted = [](const Tile& t, std::vector<AccessPattern>& out) {
    row_pieces(t, out);
    for (AccessPattern& p : out) ++p.addr;
  };
  // Each fault changes many tiles' pieces and the check fails on exactly those tiles.
  using Model = std::function<void(const Tile&, std::vector<AccessPattern>&)>;
  const Model faults[] = {short_piece, short_count, no_pad_clip, shifted};
  for (const Model& fault : faults) {
    int changed = 0;
    const int caught = check_row_pieces(2000, fault, false, &changed);
    EXPECT_GT(changed, 200);
    EXPECT_EQ(caught, changed);
  }
}

}  // namespace
}  // namespace strider
