// Exact cycles of the L2 banks/ports and the DRAM bus, at transaction granularity.
#include <gtest/gtest.h>

#include <vector>

#include "model/dram/dram.h"
#include "model/l2/l2_sram.h"

namespace strider {
namespace {

L2Config small_l2() {
  L2Config c;
  c.size_bytes = 65536;
  c.banks = 4;
  c.bank_width_bytes = 8;  // 4 x 8 = 32 B/cycle over all banks
  c.port_bytes_per_cycle = 32;
  c.latency_cycles = 2;
  c.fast_region_bytes = 1024;
  c.fast_latency_cycles = 1;
  return c;
}

TEST(L2Sram, SinglePortTransfer) {
  StatRegistry stats;
  L2Config cfg = small_l2();
  L2Sram l2(cfg, false, stats);
  // 4096 B at 32 B/cycle = 128 cycles; each bank serves 4096/8/4 = 128 words in those cycles;
  // + 2 latency (slow region) = 130.
  Access a = l2.access(L2Sram::kLoad, 4096, 4096, 0);
  EXPECT_EQ(a.start, 0u);
  EXPECT_EQ(a.end, 130u);
  EXPECT_EQ(a.stall, 0u);
}

TEST(L2Sram, ConcurrentPortsConflictOnBanks) {
  StatRegistry stats;
  L2Config cfg = small_l2();
  L2Sram l2(cfg, false, stats);
  l2.access(L2Sram::kLoad, 4096, 4096, 0);
  // The store port wants the same banks at cycle 0: they are reserved until 128, so its 128 words
  // per bank finish at 256: 128 conflict cycles; end = 256 + 2 latency.
  Access b = l2.access(L2Sram::kStore, 8192, 4096, 0);
  EXPECT_EQ(b.start, 0u);
  EXPECT_EQ(b.stall, 128u);
  EXPECT_EQ(b.end, 258u);
  EXPECT_EQ(stats.get("l2.conflict_cycles"), 128u);
}

// A port that queues its accesses ahead leaves the banks idle between them; another port's access
// issued later fills those idle cycles instead of queueing behind the last reservation (the load
// unit's row pieces of a tile against the store of the previous tile's band, mobilenet_v2).
TEST(L2Sram, LaterAccessFillsTheBanksIdleCyclesBetweenQueuedOnes) {
  StatRegistry stats;
  L2Config cfg = small_l2();
  cfg.port_bytes_per_cycle = 16;  // a port moves 2 of the 4 words a cycle the banks serve
  L2Sram l2(cfg, false, stats);
  // Load A: 1024 B, port time 1024 / 16 = 64, each bank's 1024 / 8 / 4 = 32 words in [0, 32).
  EXPECT_EQ(l2.access(L2Sram::kLoad, 4096, 1024, 0).stall, 0u);
  // Load B, issued at 0 too: starts when the port frees at 64; its banks serve [64, 96).
  const Access b = l2.access(L2Sram::kLoad, 5120, 1024, 0);
  EXPECT_EQ(b.start, 64u);
  EXPECT_EQ(b.end, 64u + 64 + 2);
  // The store at 0: 1024 B, port time 64, 32 words per bank fill the idle [32, 64) of every bank:
  // finish max(0 + 64, 64) = 64, no conflict; end = 64 + 2 latency. (Queued behind the last
  // reservation, at 96, it would finish at 128: 64 conflict cycles.)
  const Access s = l2.access(L2Sram::kStore, 8192, 1024, 0);
  EXPECT_EQ(s.conflict, 0u);
  EXPECT_EQ(s.end, 66u);
  // A third port at 0 finds every bank busy over [0, 96): 32 words each from 96, finish 128 against
  // a port time of 64: 64 conflict cycles; end 130.
  const Access d = l2.access(L2Sram::kDma, 12288, 1024, 0);
  EXPECT_EQ(d.conflict, 64u);
  EXPECT_EQ(d.end, 130u);
  EXPECT_EQ(stats.get("l2.conflict_cycles"), 64u);
}

AccessPattern pattern(uint64_t addr, uint64_t bytes, uint64_t count, uint64_t stride,
                      uint64_t repeats = 1) {
  AccessPattern p;
  p.addr = addr, p.bytes = bytes, p.count = count, p.stride = stride, p.repeats = repeats;
  return p;
}

// A channel-plane gather: 32 pieces of 8 B, one per channel. small_l2: 4 banks x 8 B interleave
// every 32 B; the port moves 32 / 8 = 4 words a cycle.
TEST(L2Sram, GatherAtAPlaneStrideThatIsAMultipleOfTheBanksSerialises) {
  StatRegistry stats;
  L2Config cfg = small_l2();
  L2Sram l2(cfg, false, stats);
  // Plane stride 1024 B = 32 x (4 x 8 B): every piece is one word on bank (4096 / 8) % 4 = 0, so
  // bank 0 serves 32 words in 32 cycles while the port could move the 32 words in 32 / 4 = 8:
  // 32 - 8 = 24 conflict cycles; end = 32 + 2 latency = 34.
  const Access a = l2.access_pattern(L2Sram::kLoad, pattern(4096, 8, 32, 1024), 0);
  EXPECT_EQ(a.conflict, 24u);
  EXPECT_EQ(a.stall, 24u);
  EXPECT_EQ(a.end, 34u);
  EXPECT_EQ(stats.get("l2.bank_conflict_cycles.load"), 24u);
  EXPECT_EQ(stats.get("l2.load_bytes"), 256u);
}

TEST(L2Sram, GatherAtAStrideSpreadOverTheBanksHasNoConflict) {
  StatRegistry stats;
  L2Config cfg = small_l2();
  L2Sram l2(cfg, false, stats);
  // Stride 1032 B: piece i starts at word 512 + 129 i, bank (512 + 129 i) % 4 = i % 4, so the 32
  // one-word pieces put 8 words on each bank: 8 cycles = the port's 32 / 4: no conflict;
  // end = 8 + 2 = 10.
  const Access a = l2.access_pattern(L2Sram::kLoad, pattern(4096, 8, 32, 1032), 0);
  EXPECT_EQ(a.conflict, 0u);
  EXPECT_EQ(a.end, 10u);
}

TEST(L2Sram, MisalignedPiecesTouchTwoWordsAndRepeatsAddUp) {
  StatRegistry stats;
  L2Config cfg = small_l2();
  L2Sram l2(cfg, false, stats);
  // 4 pieces of 8 B at 4100 + 1024 i: each starts 4 B into word 512 (bank 0) and ends in word 513
  // (bank 1): 4 words on each of banks 0 and 1 per repeat; 3 repeats: 12 words on each, 24 words
  // in all. Port: 24 words x 8 B / 32 = 6 cycles; banks: 12 cycles; conflict 12 - 6 = 6;
  // end = 12 + 2 = 14. The store port's stat counts them.
  const AccessPattern p = pattern(4100, 8, 4, 1024, 3);
  const Access a = l2.access_pattern(L2Sram::kStore, p, 0);
  EXPECT_EQ(a.conflict, 6u);
  EXPECT_EQ(a.end, 14u);
  EXPECT_EQ(stats.get("l2.bank_conflict_cycles.store"), 6u);
  EXPECT_EQ(stats.get("l2.store_bytes"), 96u);
  std::vector<uint64_t> words;
  L2Sram::bank_words(cfg, p, words);  // the first repeat
  EXPECT_EQ(words, (std::vector<uint64_t>{4, 4, 0, 0}));
}

TEST(L2Sram, OnePieceIsAContiguousRange) {
  StatRegistry stats;
  L2Config cfg = small_l2();
  L2Sram l2(cfg, false, stats);
  // 100 B at 4100: words 512..525 (4 + 100 = 104 B -> 13 words), banks 0..3 get 4, 3, 3, 3;
  // one piece streams at the port's byte rate: ceil(100 / 32) = 4 cycles, bank 0 needs 4: no
  // conflict; end = 4 + 2 = 6, as access(port, 4100, 100).
  const AccessPattern p = pattern(4100, 100, 1, 0);
  std::vector<uint64_t> words;
  L2Sram::bank_words(cfg, p, words);
  EXPECT_EQ(words, (std::vector<uint64_t>{4, 3, 3, 3}));
  EXPECT_EQ(l2.access_pattern(L2Sram::kDma, p, 0).end, 6u);
  StatRegistry stats2;
  L2Sram other(cfg, false, stats2);
  EXPECT_EQ(other.access(L2Sram::kLoad, 4100, 100, 0).end, 6u);
}

TEST(L2Sram, FastRegionLatency) {
  StatRegistry stats;
  L2Config cfg = small_l2();
  L2Sram l2(cfg, false, stats);
  // 64 B = 2 cycles of port time; fast region latency 1 -> 3.
  EXPECT_EQ(l2.access(L2Sram::kDma, 0, 64, 10).end, 13u);
  EXPECT_EQ(l2.latency(1023), 1u);
  EXPECT_EQ(l2.latency(1024), 2u);
}

TEST(L2Sram, FunctionalStoreRoundTrips) {
  StatRegistry stats;
  L2Config cfg = small_l2();
  L2Sram l2(cfg, true, stats);
  const int8_t in[3] = {1, -2, 3};
  int8_t out[3] = {};
  l2.write(100, in, 3);
  l2.read(100, out, 3);
  EXPECT_EQ(out[1], -2);
  EXPECT_THROW(l2.read(65535, out, 2), std::out_of_range);
}

TEST(Dram, BusQueuesRequestsInOrder) {
  StatRegistry stats;
  DramConfig cfg;  // 16 B/cycle, latency 100
  cfg.model = "simple";
  Dram dram(cfg, 1000.0, stats);
  // ceil(1000 / 16) = 63 bus cycles; end = 100 latency + 63 = 163.
  Access a = dram.access(Dram::kRead, 0, 1000, 0);
  EXPECT_EQ(a.end, 163u);
  // The second request waits for the bus until 63: end = 63 + 100 + 63 = 226.
  Access b = dram.access(Dram::kWrite, 4096, 1000, 0);
  EXPECT_EQ(b.stall, 63u);
  EXPECT_EQ(b.end, 226u);
  EXPECT_EQ(stats.get("dram.read_bytes"), 1000u);
  EXPECT_EQ(stats.get("dram.write_bytes"), 1000u);
}

TEST(Dram, RowBufferMissesCostActivations) {
  StatRegistry stats;
  DramConfig cfg;
  cfg.model = "simple";
  cfg.row_buffer = true;  // 8 banks, 2 KiB rows, 30 cycles per miss
  Dram dram(cfg, 1000.0, stats);
  // 4096 B touch rows 0 and 1 (banks 0 and 1): 2 misses; 256 + 2 x 30 = 316 bus cycles + 100.
  EXPECT_EQ(dram.access(Dram::kRead, 0, 4096, 0).end, 416u);
  // Row 0 is open now: a re-read costs no activation: starts at 316, 256 bus + 100 latency.
  EXPECT_EQ(dram.access(Dram::kRead, 0, 2048, 316).end, 316u + 128 + 100);
  EXPECT_EQ(stats.get("dram.row_misses"), 2u);
}

}  // namespace
}  // namespace strider
