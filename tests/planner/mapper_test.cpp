// The mapping search (planner/lower/mapper.h) on the two-conv network on the tiny arch: the
// candidates it enumerates (im2col included) and the cost it predicts, re-derived from the
// closed-form tile model.
#include "core/common/ceil_div.h"
#include "planner/lower/mapper.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>
#include <utility>

#include "core/arch/config_loader.h"
#include "core/timing/l2_banks.h"
#include "core/timing/tile_work.h"
#include "planner/import/network_loader.h"
#include "planner/lower/lowering.h"

namespace strider {
namespace {

const std::string kDir = STRIDER_SOURCE_DIR;


// One tile's predicted cycles on tiny (L2 port 16 B/cycle): max(fill pipeline, load-port bytes /
// 16, store-port bytes / 16).
uint64_t tile_cycles(OpDesc op, const ArchConfig& arch, uint32_t r0, uint32_t r1) {
  op.row_begin = r0, op.row_end = r1;
  const TileWork w = compute_tile_work(op, arch.l1, arch.neurons, arch.l2.port_bytes_per_cycle);
  return std::max({w.pipeline_cycles, ceil_div(w.l2_read_bytes, 16), ceil_div(w.output_bytes, 16)});
}

// Bands of `rows` over the 4 output rows, summed, against the weights' DRAM time.
uint64_t layer_cycles(const OpDesc& op, const ArchConfig& arch, uint32_t rows, uint64_t dram) {
  uint64_t sum = 0;
  for (uint32_t r0 = 0; r0 < 4; r0 += rows)
    sum += tile_cycles(op, arch, r0, std::min(4u, r0 + rows));
  return std::max(sum, dram);
}

TEST(Mapper, SearchCostsEveryBandHeightAndKeepsTheCheapest) {
  ArchConfig arch = load_arch(kDir + "/configs/arch/tiny.yaml");
  const Graph g = load_network(kDir + "/tests/planner/data/two_conv.yaml", 0, 0, 1);
  LowerOptions opt;
  opt.allocator = "naive";
  const Lowered a = lower(g, arch, opt);
  EXPECT_TRUE(a.mapping.empty());  // auto searches nothing
  arch.lowering.mapping = "search";
  const Lowered s = lower(g, arch, opt);
  ASSERT_EQ(s.mapping.size(), 2u);
  // Layer a (conv 2 -> 3, 3x3, 4x4): positions and im2col (k > 1, groups 1); its staging slot
  // (64 + 16 B) holds all 3 channels, so one block of 3 (im2col's unit, tiny's 8 neurons, is
  // more); band heights ceil(4 / bands) = 4, 2, 1, each with the inputs outer only (one block is
  // staged once in either order). Auto's (positions, 3, 4) first, then the five others: 6
  // candidates. Its weights and biases, 3 x (18 + 4) = 66 B, take ceil(66 / 8) = 9 DRAM cycles,
  // staged once (tiny's DRAM: 8 B/cycle).
  const MappingRow& ra = s.mapping[0];
  EXPECT_EQ(s.layers.at(ra.layer).name, "a");
  EXPECT_EQ(ra.candidates, 6u);
  OpDesc op = a.list.descriptors[3].op;  // auto's single tile of a
  ASSERT_EQ(op.ch_end, 3u);
  ASSERT_EQ(op.mapping, Mapping::kPositions);
  // One block, staged once for every band: 66 B -> 9 DRAM cycles for any band count.
  OpDesc im = op;
  im.mapping = Mapping::kIm2col;
  struct Cand {
    const char* mapping;
    uint32_t rows;
    const char* order;
    uint64_t cycles;
  };
  const char* in = "inputs_outer";
  const Cand cands[] = {{"positions", 4, in, layer_cycles(op, arch, 4, 9)},
                        {"positions", 2, in, layer_cycles(op, arch, 2, 9)},
                        {"positions", 1, in, layer_cycles(op, arch, 1, 9)},
                        {"im2col", 4, in, layer_cycles(im, arch, 4, 9)},
                        {"im2col", 2, in, layer_cycles(im, arch, 2, 9)},
                        {"im2col", 1, in, layer_cycles(im, arch, 1, 9)}};
  const uint64_t c4 = cands[0].cycles;
  EXPECT_EQ(ra.auto_cycles, c4);
  // Auto's choice stays unless another is strictly cheaper and more than kMinGain (1 %) cheaper
  // than it, the first such minimum in the order positions 4, 2, 1, im2col 4, 2, 1.
  Cand best = cands[0];
  uint64_t worst = 0;
  for (const Cand& c : cands) {
    worst = std::max(worst, c.cycles);
    if (c.cycles < best.cycles && double(c.cycles) < double(c4) * (1 - kMinGain)) best = c;
  }
  EXPECT_EQ(ra.predicted_cycles, best.cycles);
  EXPECT_EQ(ra.worst_cycles, worst);
  EXPECT_EQ(ra.mapping, best.mapping);
  EXPECT_EQ(ra.block, 3u);
  EXPECT_EQ(ra.rows, best.rows);
  EXPECT_EQ(ra.loop_order, best.order);
  const uint32_t rows = best.rows;
  // Layer b (1x1 conv 3 -> 2): positions and channels, one block of 2, three heights each: 6.
  const MappingRow& rb = s.mapping[1];
  EXPECT_EQ(s.layers.at(rb.layer).name, "b");
  EXPECT_EQ(rb.candidates, 6u);
  EXPECT_LE(rb.predicted_cycles, rb.auto_cycles);
  EXPECT_LE(rb.predicted_cycles, rb.alternative_cycles);
  EXPECT_LE(rb.alternative_cycles, rb.worst_cycles);
  // The lowering follows the choice: layer a's tiles are its bands.
  uint32_t tiles_a = 0;
  for (const Descriptor& d : s.list.descriptors) {
    if (d.kind == DescKind::kOp && d.layer == ra.layer) {
      EXPECT_EQ(d.op.row_end - d.op.row_begin, std::min<uint32_t>(rows, 4 - d.op.row_begin));
      EXPECT_STREQ(to_string(d.op.mapping), best.mapping);
      ++tiles_a;
    }
  }
  EXPECT_EQ(tiles_a, ceil_div(4, rows));
}

TEST(Mapper, EnergyObjectiveNeverPredictsWorseThanAuto) {
  // The objective is read and checked with the arch (core/arch/arch_reader.cpp); `energy` picks
  // by the predicted pJ, which the rows report as predicted_cost.
  ArchConfig arch = load_arch(kDir + "/configs/arch/tiny.yaml");
  EXPECT_EQ(arch.lowering.objective, "cycles");
  const Graph g = load_network(kDir + "/tests/planner/data/two_conv.yaml", 0, 0, 1);
  LowerOptions opt;
  opt.allocator = "naive";
  arch.lowering.mapping = "search";
  arch.lowering.objective = "energy";
  const Lowered s = lower(g, arch, opt);
  ASSERT_EQ(s.mapping.size(), 2u);
  for (const MappingRow& r : s.mapping) {
    EXPECT_GT(r.predicted_cost, 0.0);
    EXPECT_LE(r.predicted_cost, r.auto_cost);
  }
}

// The bank-conflict term of the search's cost (core/timing/l2_banks.h, the L2 model's closed
// form): the channels mapping's gather of SCALE-Sim's small_cnn Conv3 (ws_16x16.cfg: 16 banks x
// 8 B, 64 B/cycle port) reads one 8-byte piece per input channel (32) for a group of 8 positions,
// at the 16 x 16 = 256-byte channel stride: 256 % (16 x 8) = 0, so every piece is on one bank.
TEST(Mapper, GatherOnOneBankCostsItsBankConflicts) {
  L2Config l2;
  l2.banks = 16, l2.bank_width_bytes = 8, l2.port_bytes_per_cycle = 64;
  // 32 words on one bank against a port time of ceil(32 x 8 / 64) = 4 cycles: 28 lost.
  EXPECT_EQ(l2_conflict_cycles(l2, 0, 8, 32, 256, 1), 28u);
  EXPECT_EQ(l2_conflict_cycles(l2, 0, 8, 32, 256, 5), 5u * 28u);  // repeated: 160 - 20
  // At a 264-byte stride the pieces walk the banks (264 / 8 = 33 words, 33 % 16 = 1): 2 words
  // on each bank, within the 4 port cycles.
  EXPECT_EQ(l2_conflict_cycles(l2, 0, 8, 32, 264, 1), 0u);
  // Pieces back to back are one range: 256 B contiguous, 32 words over 16 banks, no conflict.
  EXPECT_EQ(l2_conflict_cycles(l2, 0, 8, 32, 8, 1), 0u);
  std::vector<uint64_t> words;
  l2_bank_words(l2, 0, 8, 32, 256, words);
  EXPECT_EQ(words[0], 32u);
  EXPECT_EQ(std::count(words.begin(), words.end(), 0u), 15);
}

// A partial last channel block (planner/lower/mapper.h, `M+positions`): mobilenet_v2's
// features.12 conv.2 (1x1, 576 -> 96 channels at 14 x 14 = 196 positions) on the seed (64
// neurons, 8 accumulators, 4 MACs per neuron and cycle: a 576-element reduction is 144 cycles
// per position or channel). Its 32 KiB staging slot holds 56 channels' weights (56 x 576 =
// 32,256 B, plus biases): blocks of 56 and 40 channels. The split (channels 0-55 on the neurons,
// one run, 196 positions x 144 = 28,224 cycles; channels 56-95 in positions) no longer wins: a
// positions tile is a hybrid tile (core/timing/tile_work.h), 3 runs of 64 positions and the
// 4-position tail in the channels form (the block's channels on neurons, 4 positions x 144 =
// 576 cycles) instead of a fourth run of 64: 3 x 56 x 144 + 576 + 3 x 40 x 144 + 576 = 42,624
// neuron cycles, against 28,224 + 17,856 = 46,080 for the split and 4 x 96 x 144 = 55,296 for
// plain positions. The search keeps auto's positions.
TEST(Mapper, PartialLastChannelBlockRunsInPositions) {
  ArchConfig arch = load_arch(kDir + "/configs/arch/seed.yaml");
  arch.lowering.mapping = "search";
  // The 32 KiB slot (L2 / 32) as given: the weight-slot search takes 64 KiB on this network since
  // the deep prefetch of its classifier (planner/lower/deep_prefetch.cpp), 64-channel blocks.
  arch.lowering.weight_slot_bytes = 32768;
  const Graph g = load_network(kDir + "/configs/networks/mobilenet_v2.onnx", 0, 0, 1);
  const Lowered s = lower(g, arch, LowerOptions());
  const std::string name = "/features/features.12/conv/conv.2/Conv";
  const auto row = std::find_if(s.mapping.begin(), s.mapping.end(), [&](const MappingRow& r) {
    return s.layers.at(r.layer).name == name;
  });
  ASSERT_NE(row, s.mapping.end());
  EXPECT_EQ(row->mapping, "positions");
  EXPECT_EQ(row->block, 56u);
  EXPECT_EQ(row->rows, 14u);
  uint64_t compute = 0, tails = 0;
  std::vector<std::pair<Mapping, uint32_t>> tiles;
  for (const Descriptor& d : s.list.descriptors) {
    if (d.kind != DescKind::kOp || d.layer != row->layer) continue;
    tiles.emplace_back(d.op.mapping, d.op.ch_end - d.op.ch_begin);
    const TileWork w =
        compute_tile_work(d.op, arch.l1, arch.neurons, arch.l2.port_bytes_per_cycle);
    compute += w.compute_cycles;
    tails += w.tail_positions;
  }
  const std::vector<std::pair<Mapping, uint32_t>> want = {{Mapping::kPositions, 56},
                                                          {Mapping::kPositions, 40}};
  EXPECT_EQ(tiles, want);
  EXPECT_EQ(tails, 2u * 4u);
  EXPECT_EQ(compute, 3u * 56 * 144 + 576 + 3u * 40 * 144 + 576);  // 42,624
  // The layer's predicted cycles are at least its neuron cycles; auto's choice is kept.
  EXPECT_GE(row->predicted_cycles, compute);
  EXPECT_EQ(row->predicted_cycles, row->auto_cycles);
}

// Auto takes im2col for a k>1 convolution where the mapper's tile cost (mapper_tile_cycles, bank
// terms included) is more than kMinGain below the positions / channels choice (mapping_choice.cpp).
// wide_3x3 on the seed (64 neurons, 8 accumulators, 4 MACs per cycle, 32-byte lines): a (64 ->
// 64, 3x3, pad 1, 16 x 16) and b (64 -> 16). Auto weighs them before the memory plan, so at
// unskewed planes of 16 x 16 = 256 B (no bank term binds: each tile is compute-bound).
//   positions: the 16 output rows back to back (the padded stream would be 15 x 18 + 16 = 286
//   positions, 5 runs), 256 positions = 4 runs of 4 rows; per run and group of 8 channels, 64 x 3
//   = 192 segments of 3 in fills of 10, each segment 4 shifted writes (one per row): 19 fills x 8
//   x ceil(30 / 4) + 8 x ceil(6 / 4) = 1,216 + 16 = 1,232 compute cycles. a (blocks of 56 and 8,
//   8 groups): 4 x 8 x 1,232 = 39,424, plus per tile the first fill's 40 writes and, at each of
//   its other group starts, a fill of 40 writes after one of 16 compute cycles (24 waiting: 27
//   in the 56-channel tile's 4 runs x 7 groups, 3 in the other's): 39,424 + 80 + 30 x 24 =
//   40,224. b (2 groups): 4 x 2 x 1,232 = 9,856 + 40 + 7 x 24 = 10,064.
//   im2col: 256 positions in 32 groups of 8 accumulators, the 576-element window in 18 fills of 32:
//   32 x 18 x 8 x 8 = 36,864 cycles whatever the channels on the neurons, plus the first fill's
//   line writes (one per channel): a 36,864 + 64 = 36,928 < 40,224 x 0.99 (im2col);
//   b 36,864 + 16 = 36,880 (16 of 64 neurons busy) > 10,064 (positions).
TEST(Mapper, AutoTakesIm2colWhereTheMapperCostSaysItWins) {
  const ArchConfig arch = load_arch(kDir + "/configs/arch/seed.yaml");
  const Graph g = load_network(kDir + "/tests/planner/data/wide_3x3.yaml", 0, 0, 1);
  const Lowered l = lower(g, arch, LowerOptions());
  // Each layer's tiles as lowered, and the same rows cut for the other mapping's block (56
  // channels per 32 KiB slot in positions, 8-channel groups; 64 in im2col, one neuron run).
  auto cost = [&](const std::string& layer, Mapping m, uint32_t block, uint64_t* compute) {
    uint64_t cycles = 0;
    *compute = 0;
    for (const Descriptor& d : l.list.descriptors) {
      if (d.kind != DescKind::kOp || l.layers.at(d.layer).name != layer) continue;
      const uint32_t out_c = d.op.output.c;
      for (uint32_t c0 = 0; c0 < out_c; c0 += block) {
        OpDesc t = d.op;
        t.mapping = m;
        t.input.channel_stride = t.output.channel_stride = 256;
        t.ch_begin = c0, t.ch_end = std::min(out_c, c0 + block);
        const TileWork w =
            compute_tile_work(t, arch.l1, arch.neurons, arch.l2.port_bytes_per_cycle);
        cycles += mapper_tile_cycles(arch.l2, t, w);
        *compute += w.compute_cycles;
      }
      break;  // one tile per layer
    }
    return cycles;
  };
  std::vector<std::pair<std::string, Mapping>> chosen;
  for (const Descriptor& d : l.list.descriptors) {
    if (d.kind == DescKind::kOp) chosen.emplace_back(l.layers.at(d.layer).name, d.op.mapping);
  }
  const std::vector<std::pair<std::string, Mapping>> want = {{"a", Mapping::kIm2col},
                                                             {"b", Mapping::kPositions}};
  EXPECT_EQ(chosen, want);
  uint64_t a_pos = 0, a_im = 0, b_pos = 0, b_im = 0;
  const uint64_t ca_pos = cost("a", Mapping::kPositions, 56, &a_pos);
  const uint64_t ca_im = cost("a", Mapping::kIm2col, 64, &a_im);
  const uint64_t cb_pos = cost("b", Mapping::kPositions, 16, &b_pos);
  const uint64_t cb_im = cost("b", Mapping::kIm2col, 16, &b_im);
  EXPECT_EQ(a_pos, 39424u);
  EXPECT_EQ(ca_pos, 40224u);
  EXPECT_EQ(a_im, 36864u);
  EXPECT_EQ(ca_im, 36928u);
  EXPECT_EQ(b_pos, 9856u);
  EXPECT_EQ(cb_pos, 10064u);
  EXPECT_EQ(b_im, 36864u);
  EXPECT_EQ(cb_im, 36880u);
}

}  // namespace
}  // namespace strider
