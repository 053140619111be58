// The whole accelerator on hand-made descriptor lists: exact cycles through the controller, DMA,
// DRAM, L2, load unit, neurons and store unit. Each test runs in its own process (ctest), as
// SystemC elaborates once per process.
#include <gtest/gtest.h>

#include "model/top/top.h"

namespace strider {
namespace {

// The hand arithmetic of these tests is the flat DRAM pipe's (dram.model: simple, 16 B/cycle,
// 100 cycles latency); the JEDEC model has tests of its own (tests/dram).
ArchConfig simple_dram() {
  ArchConfig a;
  a.dram.model = "simple";
  return a;
}

struct Sim {
  ArchConfig arch = simple_dram();  // the seed's defaults on the flat DRAM pipe
  SimOptions sim;
  DescriptorList list;
  StatRegistry stats;
  RunRecord record;
  uint64_t run() {
    list.layers = {"layer0"};
    Top top("top", arch, sim, list, stats, record);
    return top.run();
  }
};

Descriptor move(uint32_t id, uint64_t bytes) {
  Descriptor d;
  d.id = id;
  d.kind = DescKind::kMove;
  d.move = MoveDesc{MemSpace::kDram, MemSpace::kL2, 0x10000000, 0, 1, uint32_t(bytes), 0, 0};
  return d;
}

TEST(Top, SingleMove) {
  Sim s;
  s.list.descriptors = {move(0, 4096)};
  // Fetch: one 64 B descriptor = ceil(64/16) = 4 bus cycles + 100 latency = 104, + 2 decode = 106;
  // + 1 dispatch = 107. DMA setup 8 -> 115. DRAM: 4096 B = 64 bursts of 64 B = 256 bus cycles
  // (bus free since 4) -> 115 + 100 + 256 = 471. L2 side ends at 115 + 64 + 4 = 183.
  EXPECT_EQ(s.run(), 471u);
  EXPECT_EQ(s.record.descriptors[0].start, 107u);
  EXPECT_EQ(s.stats.get("dram.read_bytes"), 64u + 4096u);
}

TEST(Top, TwoMovesUseBothChannelsButShareTheDramBus) {
  Sim s;
  s.list.descriptors = {move(0, 4096), move(1, 4096)};
  // One fetch of 2 descriptors: 128 B = 8 bus cycles + 100 -> 108; descriptor 0's 64 B are in 4
  // bus cycles earlier (104), decoded 106; descriptor 1's at 108, decoded 110. Move 0 issues with
  // 1 dispatch cycle -> 107 on channel 0, setup -> 115: DRAM 115..371 on the bus, ends 115 + 100
  // + 256 = 471. Move 1 -> 111 on channel 1, setup -> 119, queues for the bus until 371 (252
  // cycles): ends 371 + 100 + 256 = 727.
  EXPECT_EQ(s.run(), 727u);
  EXPECT_EQ(s.record.descriptors[0].end, 471u);
  EXPECT_EQ(s.record.descriptors[1].channel, 1);
  EXPECT_EQ(s.record.descriptors[1].stall_dram, 252u);
}

TEST(Top, ConvTileThroughTheComputePipeline) {
  Sim s;
  s.arch.neurons.count = s.arch.l1.lines = 8;
  s.arch.l1.line_bytes = 16;
  s.arch.l1.kernel_bytes = 512;
  s.arch.neurons.macs_per_cycle = 2;
  Descriptor d;
  d.kind = DescKind::kOp;
  d.op.op = OpCode::kConv;
  d.op.input = TensorRef{MemSpace::kL2, 0, 3, 8, 8, 8, 64, 1};
  d.op.output = TensorRef{MemSpace::kL2, 4096, 4, 8, 8, 8, 64, 1};
  d.op.kernel_h = d.op.kernel_w = 3;
  d.op.pad_top = d.op.pad_left = d.op.pad_bottom = d.op.pad_right = 1;
  d.op.row_end = 8;
  d.op.ch_end = 4;
  s.list.descriptors = {d};
  // TileWork (tile_work_test, AccumulatorsShare...: the 4 channels share every fill, padding made
  // in the block, the 8 output rows walked back to back): 72 write cycles spanning 401 through
  // the fill buffers, pipeline 453, 448 compute, 684 L2 bytes, first fill 5 writes, last fill 24
  // compute, first group 56 compute, 256 output bytes, nothing discarded.
  // Issue at 107 (as SingleMove). Load: L2 port ceil(684/64) = 11 cycles (no other port busy) ->
  // busy max(401, 11 + 4) = 401, load_end 508; the tile reaches the neurons after 5 writes + 4 L2
  // latency = 116. Neurons: max(116 + 453 - 5, 508 + 24) = 564, + 2 post-op = 566; the first
  // group's results reach the store at 116 + 56 + 2 = 174. Store: 256 B, 4 port cycles, done long
  // before 566 + 1 + 4 = 571.
  EXPECT_EQ(s.run(), 571u);
  const DescriptorRecord& r = s.record.descriptors[0];
  EXPECT_EQ(r.start, 107u);
  EXPECT_EQ(r.stall_line_buffer, 0u);  // 564 - (116 + 448): compute-bound
  EXPECT_EQ(s.stats.get("line_buffer.shifted_writes"), 72u);
  EXPECT_EQ(s.stats.get("store.discarded_outputs"), 0u);
}

TEST(Top, DependencyFenceOrdersMoveBeforeOp) {
  Sim s;
  Descriptor m = move(0, 64);
  Descriptor d;
  d.id = 1;
  d.kind = DescKind::kOp;
  d.deps = {0};
  d.op.op = OpCode::kActivation;
  d.op.input = TensorRef{MemSpace::kL2, 0, 1, 1, 64, 64, 64, 1};
  d.op.output = TensorRef{MemSpace::kL2, 64, 1, 1, 64, 64, 64, 1};
  d.op.row_end = 1;
  d.op.ch_end = 1;
  s.list.descriptors = {m, d};
  s.run();
  // The op may not start before the move retired.
  EXPECT_GE(s.record.descriptors[1].start, s.record.descriptors[0].end);
  EXPECT_EQ(s.record.descriptors[1].ready, s.record.descriptors[0].end);
}

}  // namespace
}  // namespace strider
