// l2_shared_cycles (core/timing/l2_banks.h, the mapper's closed form for a tile's gather and store
// together) against the L2 model (model/l2/l2_sram.h) on random patterned accesses issued at the
// same cycle on distinct ports of an idle L2.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/timing/l2_banks.h"
#include "model/l2/l2_sram.h"

namespace strider {
namespace {

AccessPattern to_access(const L2Pattern& p) {
  AccessPattern a;
  a.addr = p.addr, a.bytes = p.bytes, a.count = p.count, a.stride = p.stride;
  a.repeats = p.repeats;
  return a;
}

// When the accesses' last one finishes in the model (end minus the access latency).
uint64_t model_cycles(const L2Config& cfg, const std::vector<L2Pattern>& accesses) {
  StatRegistry stats;
  L2Sram l2(cfg, false, stats);
  uint64_t finish = 0;
  for (size_t i = 0; i < accesses.size(); ++i) {
    const Access a = l2.access_pattern(int(i), to_access(accesses[i]), 0);
    finish = std::max(finish, a.end - l2.latency(accesses[i].addr));
  }
  return finish;
}

// The seed's banks (16 x 8 B, 64 B ports): the load's 16 pieces of 64 B at mobilenet_v2's plane
// stride 12,544 (banks 0-7, 16 words each) and the store's 1,024 contiguous bytes (8 words on
// every bank): banks 0-7 serve 16 + 8 = 24 words, the ports need 16 cycles each: 24. Each alone
// has no conflict (l2_conflict_cycles 0); at the skewed stride 12,552 every bank serves 8 + 8.
TEST(L2SharedBanks, GatherAndStoreShareTheBanks) {
  L2Config cfg;
  cfg.banks = 16, cfg.bank_width_bytes = 8, cfg.port_bytes_per_cycle = 64;
  const L2Pattern store{1 << 19, 1024, 1, 0, 1};
  EXPECT_EQ(l2_shared_cycles(cfg, {{0, 64, 16, 12544, 1}, store}), 24u);
  EXPECT_EQ(l2_conflict_cycles(cfg, 0, 64, 16, 12544, 1), 0u);
  EXPECT_EQ(l2_shared_cycles(cfg, {{0, 64, 16, 12552, 1}, store}), 16u);
  EXPECT_EQ(model_cycles(cfg, {{0, 64, 16, 12544, 1}, store}), 24u);
}

TEST(L2SharedBanks, MatchesTheModelOnRandomAccesses) {
  std::mt19937_64 rng(30);
  auto pick = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  int checked = 0, contended = 0;
  for (int i = 0; i < 3000; ++i) {
    L2Config cfg;
    cfg.banks = uint32_t(pick(0, 1) ? 16 : 4);
    cfg.bank_width_bytes = 8;
    cfg.port_bytes_per_cycle = pick(0, 1) ? 64 : 16;
    cfg.latency_cycles = uint32_t(pick(1, 4));
    const uint64_t span = uint64_t(cfg.banks) * cfg.bank_width_bytes;
    std::vector<L2Pattern> accesses(pick(2, 3));
    for (L2Pattern& p : accesses) {
      p.addr = pick(0, 1 << 16);
      p.bytes = pick(1, 200);
      p.count = pick(1, 40);
      const uint64_t kind = pick(0, 2);  // contiguous, a multiple of the span, anything
      p.stride = kind == 0 ? p.bytes : kind == 1 ? span * pick(1, 100) : pick(1, 20000);
      p.repeats = pick(1, 4);
    }
    uint64_t alone = 0;  // the slowest access with the banks to itself
    for (const L2Pattern& p : accesses) alone = std::max(alone, l2_shared_cycles(cfg, {p}));
    const uint64_t want = model_cycles(cfg, accesses);
    ASSERT_EQ(l2_shared_cycles(cfg, accesses), want) << "case " << i;
    contended += want > alone;
    ++checked;
  }
  EXPECT_EQ(checked, 3000);
  EXPECT_GT(contended, 300);  // the accesses do meet on the banks in many of the cases
}

}  // namespace
}  // namespace strider
