// Channel shuffle as a layout (docs/planner.md; memory/activation_problem.h): on two ShuffleNet
// units (tests/e2e/data/shuffle_units.yaml) the concats and channel shuffles become views of the
// shuffled tensors, the branch convs write straight into their interleaved planes, only the
// pass-through half is copied (one 2-D move under the next branch's first conv), and a
// functional run matches the reference bit for bit with exact cycles, against the same run with
// lowering.shuffle_layout off.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

std::string source(const std::string& rel) { return std::string(STRIDER_SOURCE_DIR) + "/" + rel; }

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0;
  uint64_t shuffle_layers = 0, concat_layers = 0, copy_moves = 0, copy_bytes = 0;
  uint64_t copy_start = 0, copy_end = 0, c2pw1_start = 0, c2pw1_end = 0;
  // Planned addresses relative to the shuffled tensor's, and plane strides.
  int64_t b1pw_at = -1, b2pw2_at = -1, c2pw2_at = -1, half1_at = -1;
  uint64_t b1pw_stride = 0, b2pw2_stride = 0, c2pw2_stride = 0, shuf1_stride = 0;
  uint32_t copy_rows = 0, copy_row_bytes = 0, copy_dst_stride = 0;
  bool shuf1_spilled = false, shuf2_spilled = false, copy_in_dram = false;
  int status = -1;
  char detail[160] = {};
};

int tensor_named(const Graph& g, const std::string& name) {
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].name == name) return int(t);
  }
  return -1;
}

// In list order (dma.background_priority false): the cycles below were derived with the DMA
// taking every move in list order. With background priority (the default) the deep prefetches
// of b2pw2 and c2pw2 run behind the later c2pw1's and c2dw's demand weight moves, b2pw2 starts
// at 1,124 instead of 1,006 and the run takes 1,923 cycles instead of 1,765 (docs/figures.md,
// background moves).
Figures run(bool layout, const std::string& more = "sim.vcd=false") {
  return simulate_in_child<Figures>(
      source("configs/runs/default.yaml"),
      {"networks[0].path=" + source("tests/e2e/data/shuffle_units.yaml"), "sim.functional=true",
       "sim.trace=false", "arch.dma.background_priority=false",
       std::string("arch.lowering.shuffle_layout=") + (layout ? "true" : "false"), more},
      [](const RunResult& r, Figures& f) {
        f.cycles = r.cycles;
        f.checked = r.checked_tensors;
        f.mismatches = r.mismatches;
        const Lowered& l = r.lowered;
        for (size_t k = 0; k < l.layers.size(); ++k) {
          f.shuffle_layers += l.layers[k].op == "channel_shuffle";
          f.concat_layers += l.layers[k].op == "concat";
          f.copy_bytes += l.layers[k].copy_bytes;
        }
        for (const Descriptor& d : l.list.descriptors) {
          const std::string& layer = l.list.layers[d.layer];
          const DescriptorRecord& rec = r.record.descriptors[d.id];
          if (d.kind == DescKind::kMove && layer == "cat2") {
            ++f.copy_moves;
            f.copy_rows = d.move.rows;
            f.copy_row_bytes = d.move.row_bytes;
            f.copy_dst_stride = d.move.dst_stride;
            f.copy_in_dram =
                d.move.src_space == MemSpace::kDram && d.move.dst_space == MemSpace::kDram;
            f.copy_start = rec.start;
            f.copy_end = rec.end;
          }
          if (d.kind == DescKind::kOp && layer == "c2pw1") {
            f.c2pw1_start = rec.start;
            f.c2pw1_end = rec.end;
          }
        }
        const Graph& g = r.graph;
        const int s1 = tensor_named(g, "shuf1"), s2 = tensor_named(g, "shuf2");
        f.shuf1_spilled = s1 >= 0 && l.tensor_spilled[size_t(s1)];
        f.shuf2_spilled = s2 >= 0 && l.tensor_spilled[size_t(s2)];
        auto at = [&](const char* name, int base) {
          const int t = tensor_named(g, name);
          return t < 0 || base < 0
                     ? int64_t(-1)
                     : int64_t(l.tensor_addr[size_t(t)]) - int64_t(l.tensor_addr[size_t(base)]);
        };
        auto stride = [&](const char* name) {
          const int t = tensor_named(g, name);
          return t < 0 ? uint64_t(0) : l.tensor_channel_stride[size_t(t)];
        };
        f.b1pw_at = at("b1pw", s1);
        f.b2pw2_at = at("b2pw2", s1);
        f.half1_at = at("half.1", s1);
        f.c2pw2_at = at("c2pw2", s2);
        f.b1pw_stride = stride("b1pw");
        f.b2pw2_stride = stride("b2pw2");
        f.c2pw2_stride = stride("c2pw2");
        f.shuf1_stride = stride("shuf1");
      });
}

TEST(ShuffleLayout, UnitsRunBitExactWithoutShuffleOrConcatCopies) {
  const Figures on = run(true), off = run(false);
  ASSERT_EQ(on.status, 0) << on.detail;
  ASSERT_EQ(off.status, 0) << off.detail;
  EXPECT_EQ(on.mismatches, 0u) << on.detail;
  EXPECT_EQ(off.mismatches, 0u) << off.detail;
  // The 11 compute layers (gap fused into head, whose result it alone reads: head's checked
  // output is the pool's), every one's output read back and compared.
  EXPECT_EQ(on.checked, 11u);
  EXPECT_EQ(off.checked, 11u);

  // The planned layout: shuf1 (32 planes of 4 x 4 = 16 B) holds b1pw in its even planes (byte 0)
  // and b2pw2 in its odd ones (byte 16), 32 B between each one's planes; its second half (the
  // split's half.1) is the dense view at 16 planes = 256 B; c2pw2 is shuf2's odd planes.
  EXPECT_EQ(on.b1pw_at, 0);
  EXPECT_EQ(on.b2pw2_at, 16);
  EXPECT_EQ(on.half1_at, 256);
  EXPECT_EQ(on.c2pw2_at, 16);
  EXPECT_EQ(on.b1pw_stride, 32u);
  EXPECT_EQ(on.b2pw2_stride, 32u);
  EXPECT_EQ(on.c2pw2_stride, 32u);
  EXPECT_EQ(on.shuf1_stride, 16u);
  EXPECT_EQ(off.b2pw2_stride, 16u);

  // No shuffle layer is left and cat1 (both branches in place) moves nothing; cat2 copies the
  // pass-through half.0 (16 planes of 16 B) into shuf2's even planes by one 2-D move. Off: shuf1
  // and shuf2 copy 512 B each and cat2 copies half.0's 256 B.
  EXPECT_EQ(on.shuffle_layers, 0u);
  EXPECT_EQ(on.concat_layers, 1u);
  EXPECT_EQ(on.copy_moves, 1u);
  EXPECT_EQ(on.copy_rows, 16u);
  EXPECT_EQ(on.copy_row_bytes, 16u);
  EXPECT_EQ(on.copy_dst_stride, 32u);
  EXPECT_EQ(on.copy_bytes, 256u);
  EXPECT_EQ(off.shuffle_layers, 2u);
  EXPECT_EQ(off.concat_layers, 1u);
  EXPECT_EQ(off.copy_bytes, 512u + 512u + 256u);

  // On: the copy is listed after c2pw1 (the first op after the split), ready once the previous
  // step's last op, b2pw2, retired (1,097), behind c2pw1's weight moves: it gets DMA channel 0 when
  // the first weight move ends (1,141), its setup (8 cycles) made while that move streamed, and
  // retires after its 15 further row addresses (dma.row_setup_cycles 1 each; the 256 B stream
  // in less): 1,141 + 15 = 1,156, while c2pw1 runs (1,147-1,238): the concat costs no cycle of
  // its own.
  EXPECT_EQ(on.copy_start, 1141u);
  EXPECT_EQ(on.copy_end, 1156u);
  EXPECT_EQ(on.c2pw1_start, 1147u);
  EXPECT_EQ(on.c2pw1_end, 1238u);
  // Off: shuf1's two moves (one per group, 16 rows of 16 B) start after b2pw2 (1,097) at 1,098
  // and retire at 1,098 + 8 setup + 15 rows = 1,121 and (L2 bank conflicts with the first)
  // 1,126; c2pw1's two weight moves (ready since 942) wait behind them
  // in the in-order load queue, so c2pw1 runs 1,303-1,394 instead of 1,147-1,238 (156 later);
  // after c2pw2 cat2's move (1,640-1,660) and shuf2's two (1,661-1,699) run alone before head.
  // On, head follows c2pw2 at 1,499 (its weights in at 1,498), off at 1,744: 245 cycles, 2,010 -
  // 245 = 1,765. (With the gap a layer of its own, 1,897 and 2,061: the list is one descriptor
  // longer, 13 descriptor fetch batches from DRAM instead of 12, and head's two weight moves,
  // from 1,390 as now, end at 1,584 instead of 1,498, the run taking 4 more DRAM row
  // activations (dram.cmd_act 50 against 46); head started at 1,585 and gap took 46 cycles after
  // it.)
  EXPECT_EQ(off.c2pw1_start, 1303u);
  EXPECT_EQ(on.cycles, 1765u);
  EXPECT_EQ(off.cycles, 2010u);
}

// With 2 KiB of L2 the shuffled tensors live in DRAM: the branch convs write their strided planes
// there through out-band buffers (the spill move's destination stride is the plane stride), the
// next unit fills them back by bands, and the pass-through copy is a DRAM-to-DRAM 2-D move; the
// run stays bit-exact.
TEST(ShuffleLayout, SpilledShuffledTensorsStayBitExact) {
  const Figures f = run(true, "arch.l2.size_bytes=2048");
  ASSERT_EQ(f.status, 0) << f.detail;
  EXPECT_EQ(f.mismatches, 0u) << f.detail;
  EXPECT_EQ(f.checked, 11u);
  EXPECT_TRUE(f.shuf1_spilled);
  EXPECT_TRUE(f.shuf2_spilled);
  EXPECT_TRUE(f.copy_in_dram);
  EXPECT_EQ(f.b2pw2_stride, 32u);
  EXPECT_EQ(f.shuffle_layers, 0u);
}

}  // namespace
}  // namespace strider
