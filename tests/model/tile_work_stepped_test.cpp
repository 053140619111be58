// The closed-form TileWork (core/timing/tile_work.h) against the cycle-stepped reference
// (stepped_reference.h) on seeded random tiles of every op kind, both mappings and random machines
// (random_tiles.h), and FillPipeline's extrapolated add against one add per fill.
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
#include "tests/model/random_tiles.h"

namespace strider {
namespace {

using namespace random_tiles;


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
    if (op.pad_left + op.pad_right > 0 && stride_one(op) && t.l1.shift_stride &&
        t.l1.pad_in_block) {  // the stream's pitch (tile_work.h stream_pitch)
      c.push_back(t.l1.shared_pad ? "stride-1 row-padded, shared pad columns"
                                  : "stride-1 row-padded, own pad columns");
    }
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
      if (!hybrid_tail_applies(t.op, t.l1, t.nc, stream)) continue;
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
                                  "stride-1 row-padded, shared pad columns",
                                  "stride-1 row-padded, own pad columns",
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
      if (!hybrid_tail_applies(op, t.l1, t.nc, stream)) continue;
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

// Shared pad columns on every small stride-1 row padding, including pads as wide as the window or
// wider (a padded 1x1 or 1x2, which random_tiles never draws: its pads stay below the kernel):
// virtual rows of max(W + max(pad_left, pad_right), W_out) (tile_work.h stream_pitch), which the
// stepped reference finds by trial, tap by tap. The stream's closed form against the reference,
// and the load unit's row pieces (model/l1/row_pieces.h) against its tap-by-tap pieces, shared
// pad columns on and off.
TEST(TileWorkStepped, SharedPadColumnsMatchTheReferenceOnEveryRowPadding) {
  int tiles = 0, failures = 0, wider = 0;
  std::map<std::string, int> tally;
  for (uint32_t w = 1; w <= 6; ++w) {
    for (uint16_t kw = 1; kw <= 3; ++kw) {
      for (uint16_t pl = 0; pl <= 3; ++pl) {
        for (uint16_t pr = 0; pr <= 3; ++pr) {
          if (w + pl + pr < kw) continue;
          for (const bool shared : {true, false}) {
            OpDesc op;
            op.op = OpCode::kConv;
            op.kernel_h = 2, op.kernel_w = kw;
            op.pad_top = 1, op.pad_left = pl, op.pad_right = pr;
            op.input = tensor(2, 3, w);
            op.input.addr = 100;
            op.output = tensor(3, 3, w + pl + pr - kw + 1);
            op.output.addr = 4096;
            op.row_end = 3, op.ch_end = 3;
            L1Config l1;
            l1.lines = 5, l1.line_bytes = 8, l1.kernel_bytes = 4096, l1.shared_pad = shared;
            NeuronConfig nc;
            nc.count = 5, nc.macs_per_cycle = 2, nc.accumulators = 2;
            ++tiles;
            wider += shared && std::min(pl, pr) >= kw;
            const TileWork closed = tile_traversal(op, l1, nc, 64, true, false);
            const SteppedWork ref = run_stepped_reference(op, l1, nc, true, false);
            std::string diff = compare(op, l1, closed, ref, &tally);
            std::vector<AccessPattern> patterns;
            input_row_pieces(op, l1, nc, true, 0, patterns);
            std::vector<std::pair<uint64_t, uint64_t>> model, stepped = ref.input_pieces;
            for (const AccessPattern& p : patterns) {
              for (uint64_t r = 0; r < p.repeats; ++r) {
                for (uint64_t c = 0; c < p.count; ++c) model.emplace_back(p.addr + c * p.stride, p.bytes);
              }
            }
            std::sort(model.begin(), model.end());
            std::sort(stepped.begin(), stepped.end());
            if (model != stepped) diff += " row pieces differ;";
            if (!diff.empty() && ++failures <= 10) {
              ADD_FAILURE() << describe_tile(op, l1, nc) << "\n ->" << diff;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0) << "of " << tiles;
  // Every (W, kernel_w, pads) but those whose window is wider than the padded row (kernel 2:
  // W 1 unpadded; kernel 3: W 1 with pads 0-0, 0-1, 1-0, W 2 unpadded), shared and not.
  EXPECT_EQ(tiles, 2 * (6 * 3 * 16 - 5));
  // Pads as wide as the window: kernel 1 pads 1..3 each (9 pairs), kernel 2 pads 2..3 (4),
  // kernel 3 pads 3 and 3 (1), for each W.
  EXPECT_EQ(wider, 6 * (9 + 4 + 1));
}

}  // namespace
}  // namespace strider
