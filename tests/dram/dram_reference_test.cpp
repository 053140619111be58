// The event-driven DRAM scheduler (DramSystem / DramChannel) against the cycle-stepped reference
// (dram_stepped_reference.h) on seeded random request streams: every command at the same cycle
// and every request's last data at the same cycle, under FR-FCFS and FCFS, open and closed page,
// on the small test spec and on one channel of the LPDDR4-3200 and DDR4-3200 presets.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/arch/config_node.h"
#include "model/dram/dram_system.h"
#include "tests/dram/dram_stepped_reference.h"
#include "tests/dram/command_log.h"
#include "tests/dram/dram_test_spec.h"

namespace strider {
namespace {

// background: the share of requests of the background class (drawn from a generator of their own,
// so a stream's requests are the same with and without classes).
std::vector<test::RefRequest> random_stream(uint32_t seed, uint64_t span_bytes, int count,
                                            uint64_t gap = 40, double background = 0) {
  std::mt19937_64 rng(seed), classes(seed + 1000);
  std::vector<test::RefRequest> out;
  uint64_t t = 0;
  for (int i = 0; i < count; ++i) {
    test::RefRequest r;
    t += rng() % gap;  // bursts of arrivals and gaps
    r.arrival = t;
    r.addr = (rng() % span_bytes) & ~uint64_t(31);
    r.bytes = 32 + rng() % 480;
    r.write = rng() % 3 == 0;
    r.background = background > 0 && double(classes() % 1000) < background * 1000;
    out.push_back(r);
  }
  return out;
}

std::string text(const std::vector<DramCommandRecord>& log) {
  return test::command_text(log, true, true, '\n');
}

std::string text(const std::vector<DramPowerDownRecord>& log) {
  std::string s;
  for (const DramPowerDownRecord& p : log)
    s += std::string(p.active ? "A" : "P") + std::to_string(p.entry) + "-" +
         std::to_string(p.exit) + "\n";
  return s;
}

// Returns the number of power-down stays (both agree on them).
size_t check(const DramSpec& spec, const DramPolicy& policy, uint32_t seed, uint64_t gap = 40,
             double background = 0) {
  std::vector<test::RefRequest> reqs = random_stream(seed, 1 << 16, 120, gap, background);
  std::vector<DramCommandRecord> log;
  std::vector<DramPowerDownRecord> pd;
  DramSystem sys(spec, policy);
  sys.channel(0).set_command_log(&log);
  sys.channel(0).set_powerdown_log(&pd);
  std::vector<DramRequestState*> states;
  for (const test::RefRequest& r : reqs)
    states.push_back(sys.submit(r.arrival, r.addr, r.bytes, r.write, r.background));
  sys.drain();
  test::DramSteppedReference ref(spec, policy);
  const std::vector<DramCommandRecord> expect = ref.run(reqs);
  EXPECT_EQ(text(log), text(expect)) << "seed " << seed;
  EXPECT_EQ(text(pd), text(ref.powerdowns())) << "seed " << seed;
  for (size_t i = 0; i < reqs.size(); ++i) EXPECT_EQ(states[i]->end, reqs[i].end) << i;
  return pd.size();
}

DramSpec one_channel_preset(const std::string& name) {
  std::vector<std::string> tried;
  const std::string file =
      find_dram_preset(name, std::string(STRIDER_SOURCE_DIR) + "/configs/arch", tried);
  config::Diagnostics diags;
  DramSpec spec;
  EXPECT_TRUE(read_dram_spec(file, diags, spec)) << file;
  spec.channels = 1;
  return spec;
}

TEST(DramReference, MatchesOnRandomStreamsFrFcfsOpenPage) {
  const DramSpec spec = test::small_dram_spec();
  for (uint32_t seed = 1; seed <= 4; ++seed) check(spec, DramPolicy{false, false, 16}, seed);
  for (uint32_t seed = 5; seed <= 6; ++seed) check(spec, DramPolicy{false, false, 3}, seed);
}

TEST(DramReference, MatchesOnRandomStreamsFcfs) {
  const DramSpec spec = test::small_dram_spec();
  for (uint32_t seed = 11; seed <= 13; ++seed) check(spec, DramPolicy{false, true, 16}, seed);
}

TEST(DramReference, MatchesOnRandomStreamsClosedPage) {
  const DramSpec spec = test::small_dram_spec();
  for (uint32_t seed = 21; seed <= 23; ++seed) check(spec, DramPolicy{true, false, 16}, seed);
}

TEST(DramReference, MatchesOnRandomStreamsPerBankRefresh) {
  const DramSpec spec = test::small_dram_spec_per_bank();
  for (uint32_t seed = 41; seed <= 43; ++seed) check(spec, DramPolicy{false, false, 16}, seed);
  check(spec, DramPolicy{true, false, 8}, 44);
  for (const char* name : {"lpddr4_3200", "lpddr5_6400"}) {
    DramSpec p = one_channel_preset(name);
    p.per_bank_refresh = true;  // refresh: per_bank
    p.refresh_interval = p.timing.at("nREFIpb");
    p.refresh_cycles = p.timing.at("nRFCpb");
    check(p, DramPolicy{false, false, 16}, 45);
  }
}

// Power-down: gaps up to 160 cycles against an idle threshold of 20 (and the presets' own, 48-96
// DRAM cycles), open and closed page, all-bank and per-bank refresh; each stream must enter
// power-down (else the test would not test it).
TEST(DramReference, MatchesOnRandomStreamsWithPowerDown) {
  const DramSpec spec = test::small_dram_spec_powerdown();
  for (uint32_t seed = 51; seed <= 53; ++seed)
    EXPECT_GT(check(spec, DramPolicy{false, false, 16}, seed, 160), 5u);
  EXPECT_GT(check(spec, DramPolicy{true, false, 8}, 54, 160), 5u);
  EXPECT_GT(check(spec, DramPolicy{false, true, 16}, 55, 160), 5u);
  DramSpec per_bank = test::small_dram_spec_per_bank();
  per_bank.timing["nXP"] = 6;
  per_bank.timing["nCKE"] = 5;
  per_bank.powerdown_idle = 20;
  ASSERT_EQ(dram_powerdown_timings(per_bank), "");
  EXPECT_GT(check(per_bank, DramPolicy{false, false, 16}, 56, 160), 5u);
  for (const char* name : {"lpddr4_3200", "ddr4_3200", "lpddr5_6400", "hbm2"}) {
    const DramSpec p = one_channel_preset(name);
    ASSERT_GT(p.powerdown_idle, 0u) << name;
    EXPECT_GT(check(p, DramPolicy{false, false, 16}, 57, 400), 5u) << name;
  }
}

// Refresh postponement: up to 8 (JEDEC's) or 1 owed, paid after 0 or 30 idle cycles, on the
// small spec (gaps up to 40 or 120 cycles), per-bank refresh, power-down (gaps up to 160) and
// the LPDDR4 preset; each stream must issue refreshes (else the test would not test them).
TEST(DramReference, MatchesOnRandomStreamsWithRefreshPostponement) {
  const auto policy = [](uint32_t postpone, uint64_t idle, bool closed = false) {
    DramPolicy p{closed, false, 16};
    p.refresh_postpone = postpone;
    p.refresh_idle = idle;
    return p;
  };
  const auto refreshes = [](const DramSpec& spec, const DramPolicy& p, uint32_t seed,
                            uint64_t gap) {
    check(spec, p, seed, gap);
    DramSystem sys(spec, p);
    for (const test::RefRequest& r : random_stream(seed, 1 << 16, 120, gap))
      sys.submit(r.arrival, r.addr, r.bytes, r.write);
    sys.drain();
    const DramTotals t = sys.totals();
    return t.commands[int(DramCmd::kRef)] + t.commands[int(DramCmd::kRefpb)];
  };
  const DramSpec spec = test::small_dram_spec();
  for (uint32_t seed = 61; seed <= 63; ++seed) {
    EXPECT_GT(refreshes(spec, policy(8, 0), seed, 120), 0u);
    EXPECT_GT(refreshes(spec, policy(1, 30), seed, 40), 0u);
  }
  EXPECT_GT(refreshes(spec, policy(2, 0, true), 64, 80), 0u);
  EXPECT_GT(refreshes(test::small_dram_spec_per_bank(), policy(8, 10), 65, 40), 0u);
  EXPECT_GT(refreshes(test::small_dram_spec_powerdown(), policy(8, 20), 66, 160), 0u);
  EXPECT_GT(refreshes(test::small_dram_spec_powerdown(), policy(1, 20), 67, 160), 0u);
  const DramSpec lp = one_channel_preset("lpddr4_3200");
  EXPECT_GT(refreshes(lp, policy(8, lp.powerdown_idle), 68, 400), 0u);
}

TEST(DramReference, MatchesOnOneChannelOfThePresets) {
  for (const char* name : {"lpddr4_3200", "ddr4_3200", "lpddr5_6400", "hbm2"}) {
    const DramSpec spec = one_channel_preset(name);
    check(spec, DramPolicy{false, false, 16}, 31);
    check(spec, DramPolicy{true, false, 8}, 32);
  }
}

// Row-hit cap (FR-FCFS+Cap): caps 1, 2 and 4 on the small spec (open and closed page, per-bank
// refresh, postponement and power-down), each stream's commands differing from the uncapped
// scheduler's (else the test would not test the cap); and 4 / 16 on one channel of two presets
// (their rows are wider than the streams' 64 KB: no conflict, the cap must change nothing).
TEST(DramReference, MatchesOnRandomStreamsWithRowHitCap) {
  const auto policy = [](uint32_t cap, bool closed = false, uint32_t postpone = 0) {
    DramPolicy p{closed, false, 16};
    p.row_hit_cap = cap;
    p.refresh_postpone = postpone;
    return p;
  };
  const auto capped = [&](const DramSpec& spec, const DramPolicy& p, uint32_t seed,
                          uint64_t gap = 40) {
    check(spec, p, seed, gap);
    DramPolicy uncapped = p;
    uncapped.row_hit_cap = 0;
    std::string logs[2];
    for (int k = 0; k < 2; ++k) {
      std::vector<DramCommandRecord> log;
      DramSystem sys(spec, k == 0 ? p : uncapped);
      sys.channel(0).set_command_log(&log);
      for (const test::RefRequest& r : random_stream(seed, 1 << 16, 120, gap))
        sys.submit(r.arrival, r.addr, r.bytes, r.write);
      sys.drain();
      logs[k] = text(log);
    }
    EXPECT_TRUE(logs[0] != logs[1]) << "seed " << seed << ": the cap never acted";
  };
  const DramSpec spec = test::small_dram_spec();
  for (uint32_t seed = 71; seed <= 73; ++seed) {
    capped(spec, policy(1), seed);
    capped(spec, policy(2), seed, 10);
    capped(spec, policy(4), seed, 4);
  }
  capped(spec, policy(2, true), 74, 10);
  capped(spec, policy(2, false, 8), 75, 10);
  capped(test::small_dram_spec_per_bank(), policy(2), 76, 10);
  capped(test::small_dram_spec_powerdown(), policy(2, false, 8), 77, 40);
  for (const char* name : {"lpddr4_3200", "ddr4_3200"}) {
    check(one_channel_preset(name), policy(4), 78, 4);
    check(one_channel_preset(name), policy(16), 79, 2);
  }
}

// Request classes (a third, then half, of the requests background): open and closed page, a short
// window, per-bank refresh, the row-hit cap, postponement, power-down and one channel of two
// presets; each stream's commands differ from the all-demand scheduler's (else the test would
// not test the classes), and FCFS ignores them (the same commands).
TEST(DramReference, MatchesOnRandomStreamsWithRequestClasses) {
  const auto classes = [](const DramSpec& spec, const DramPolicy& p, uint32_t seed,
                          uint64_t gap = 40, double share = 1.0 / 3) {
    check(spec, p, seed, gap, share);
    std::string logs[2];
    for (int k = 0; k < 2; ++k) {
      std::vector<DramCommandRecord> log;
      DramSystem sys(spec, p);
      sys.channel(0).set_command_log(&log);
      for (const test::RefRequest& r : random_stream(seed, 1 << 16, 120, gap, share))
        sys.submit(r.arrival, r.addr, r.bytes, r.write, k == 0 && r.background);
      sys.drain();
      logs[k] = text(log);
    }
    return logs[0] != logs[1];
  };
  const DramSpec spec = test::small_dram_spec();
  for (uint32_t seed = 81; seed <= 83; ++seed) {
    EXPECT_TRUE(classes(spec, DramPolicy{false, false, 16}, seed)) << seed;
    EXPECT_TRUE(classes(spec, DramPolicy{false, false, 16}, seed, 10, 0.5)) << seed;
  }
  EXPECT_TRUE(classes(spec, DramPolicy{false, false, 3}, 84, 10));
  EXPECT_TRUE(classes(spec, DramPolicy{true, false, 16}, 85, 10));
  EXPECT_FALSE(classes(spec, DramPolicy{false, true, 16}, 86, 10));  // FCFS: classes ignored
  DramPolicy cap{false, false, 16};
  cap.row_hit_cap = 2;
  EXPECT_TRUE(classes(spec, cap, 87, 10));
  DramPolicy postpone{false, false, 16};
  postpone.refresh_postpone = 8;
  EXPECT_TRUE(classes(spec, postpone, 88, 40));
  EXPECT_TRUE(classes(test::small_dram_spec_per_bank(), DramPolicy{false, false, 16}, 89, 10));
  EXPECT_TRUE(classes(test::small_dram_spec_powerdown(), DramPolicy{false, false, 16}, 90, 80));
  for (const char* name : {"lpddr4_3200", "ddr4_3200"})
    classes(one_channel_preset(name), DramPolicy{false, false, 16}, 91, 4, 0.5);
}

}  // namespace
}  // namespace strider
