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
#include "tests/dram/dram_test_spec.h"

namespace strider {
namespace {

std::vector<test::RefRequest> random_stream(uint32_t seed, uint64_t span_bytes, int count) {
  std::mt19937_64 rng(seed);
  std::vector<test::RefRequest> out;
  uint64_t t = 0;
  for (int i = 0; i < count; ++i) {
    test::RefRequest r;
    t += rng() % 40;  // bursts of arrivals and gaps
    r.arrival = t;
    r.addr = (rng() % span_bytes) & ~uint64_t(31);
    r.bytes = 32 + rng() % 480;
    r.write = rng() % 3 == 0;
    out.push_back(r);
  }
  return out;
}

std::string text(const std::vector<DramCommandRecord>& log) {
  std::string s;
  for (const DramCommandRecord& c : log)
    s += std::string(to_string(c.cmd)) + "@" + std::to_string(c.cycle) + "b" +
         std::to_string(c.bank) + "r" + std::to_string(c.row) + "\n";
  return s;
}

void check(const DramSpec& spec, const DramPolicy& policy, uint32_t seed) {
  std::vector<test::RefRequest> reqs = random_stream(seed, 1 << 16, 120);
  std::vector<DramCommandRecord> log;
  DramSystem sys(spec, policy);
  sys.channel(0).set_command_log(&log);
  std::vector<DramRequestState*> states;
  for (const test::RefRequest& r : reqs)
    states.push_back(sys.submit(r.arrival, r.addr, r.bytes, r.write));
  sys.drain();
  test::DramSteppedReference ref(spec, policy);
  const std::vector<DramCommandRecord> expect = ref.run(reqs);
  ASSERT_EQ(text(log), text(expect)) << "seed " << seed;
  for (size_t i = 0; i < reqs.size(); ++i) EXPECT_EQ(states[i]->end, reqs[i].end) << i;
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

TEST(DramReference, MatchesOnOneChannelOfThePresets) {
  for (const char* name : {"lpddr4_3200", "ddr4_3200", "lpddr5_6400", "hbm2"}) {
    const DramSpec spec = one_channel_preset(name);
    check(spec, DramPolicy{false, false, 16}, 31);
    check(spec, DramPolicy{true, false, 8}, 32);
  }
}

}  // namespace
}  // namespace strider
