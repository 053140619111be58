// The load unit's input row pieces (model/l1/row_pieces.h) against the stepped reference's
// tap-by-tap pieces (stepped_reference.h) on seeded random window tiles (random_tiles.h), and
// faulty copies of them caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/timing/tile_work.h"
#include "model/l1/row_pieces.h"
#include "stepped_reference.h"
#include "tests/model/random_tiles.h"

namespace strider {
namespace {

using namespace random_tiles;

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
  return i % 4 != 3 && hybrid_tail_applies(t.op, t.l1, t.nc, t.stream);
}

void row_pieces(const Tile& t, std::vector<AccessPattern>& out) {
  input_row_pieces(t.op, t.l1, t.nc, t.stream,
                   t.hybrid ? hybrid_split(t.op, t.l1, t.nc, t.stream).skipped : 0, out);
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
// channel short, the pad columns read as if stored, every piece one byte further, the stream's
// rows not sharing their pad columns) changes the pieces of many tiles, and the check reports
// every one of them.
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
  // The first stream's pitch (W + pad_left + pad_right) where the pad columns are shared
  // (tile_work.h stream_pitch): only stride-1 streams with row padding made in the block change,
  // and of those only tiles whose runs end inside the stream (a single run's block is the whole
  // stream, cut into the same stored pieces whatever the pitch): 8 of the 2,000.
  // TileWorkStepped.SharedPadColumnsMatchTheReferenceOnEveryRowPadding checks more.
  auto own_pad_columns = [](const Tile& t, std::vector<AccessPattern>& out) {
    Tile u = t;
    u.l1.shared_pad = false;
    row_pieces(u, out);
  };
  int changed = 0;
  const int caught = check_row_pieces(2000, own_pad_columns, false, &changed);
  EXPECT_GE(changed, 8);
  EXPECT_EQ(caught, changed);
}

}  // namespace
}  // namespace strider
