// The L2 bank model against skewed channel planes (planner/lower/activation_layout.h): the load
// unit's row pieces of 16 planes, at the plane stride of mobilenet_v2's 112 x 112 input
// (12,544 = 98 x 128 B) and at its skewed stride (12,552), while the store streams a band.
#include <gtest/gtest.h>

#include "model/l2/l2_sram.h"
#include "planner/lower/activation_layout.h"

namespace strider {
namespace {

// The seed's L2: 16 banks x 8 B (span 128 B), ports of 64 B a cycle (8 words), latency 2.
L2Config seed_l2() {
  L2Config c;
  c.size_bytes = 1 << 20;
  c.banks = 16;
  c.bank_width_bytes = 8;
  c.port_bytes_per_cycle = 64;
  c.latency_cycles = 2;
  return c;
}

AccessPattern planes(uint64_t stride) {
  AccessPattern p;
  p.addr = 0, p.bytes = 64, p.count = 16, p.stride = stride;
  return p;
}

struct Conflicts {
  uint64_t load = 0, store = 0;
};

// At 0: the load's 16 pieces of 64 B (8 words each), then the store of 1,024 contiguous bytes.
Conflicts load_then_store(uint64_t stride) {
  StatRegistry stats;
  const L2Config cfg = seed_l2();
  L2Sram l2(cfg, false, stats);
  Conflicts c;
  c.load = l2.access_pattern(L2Sram::kLoad, planes(stride), 0).conflict;
  c.store = l2.access(L2Sram::kStore, 1 << 19, 1024, 0).conflict;
  EXPECT_EQ(stats.get("l2.conflict_cycles"), c.load + c.store);
  return c;
}

TEST(L2PlaneSkew, SkewedPlanesLeaveTheStoreNoConflict) {
  // Unskewed, 12,544 = 0 (mod 128): every piece is banks 0-7, 16 words each in [0, 16); the
  // port moves 128 words in 128 / 8 = 16 cycles, so the load itself loses 0. The store's 1,024 B
  // are 8 words on each of the 16 banks (port time 16): banks 8-15 serve [0, 8), banks 0-7 only
  // from 16, [16, 24): finish 24, conflict 24 - 16 = 8.
  const Conflicts flat = load_then_store(12544);
  EXPECT_EQ(flat.load, 0u);
  EXPECT_EQ(flat.store, 8u);
  // Skewed, 12,552 = 8 (mod 128): piece k covers words k .. k + 7 (mod 16), so each bank serves
  // 16 x 8 / 16 = 8 load words in [0, 8) and the store's 8 in [8, 16): finish 16, no conflict.
  const L2Config cfg = seed_l2();
  const uint64_t skewed = skewed_plane_stride(12544, cfg);
  EXPECT_EQ(skewed, 12552u);
  const Conflicts skew = load_then_store(skewed);
  EXPECT_EQ(skew.load, 0u);
  EXPECT_EQ(skew.store, 0u);
}

// A channels-mapping column: one 8 B word per plane, 32 planes. At 12,544 every word is on bank
// 0: 32 cycles against a port time of 32 / 8 = 4: 28 conflict cycles. At 12,552 word k is on
// bank k mod 16: 2 words per bank, finish 4, no conflict.
TEST(L2PlaneSkew, OneWordPerPlaneSpreadsOverEveryBank) {
  const L2Config cfg = seed_l2();
  for (const auto& [stride, want] : {std::pair<uint64_t, uint64_t>{12544, 28}, {12552, 0}}) {
    StatRegistry stats;
    L2Sram l2(cfg, false, stats);
    AccessPattern p;
    p.addr = 0, p.bytes = 8, p.count = 32, p.stride = stride;
    EXPECT_EQ(l2.access_pattern(L2Sram::kLoad, p, 0).conflict, want) << stride;
  }
}

}  // namespace
}  // namespace strider
