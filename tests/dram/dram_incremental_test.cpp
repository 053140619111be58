// FR-FCFS across requests in the full simulation: DramSystem::advance (issue every command before
// an arrival, then queue it) and speculate (predict every queued request's end, kept or rolled
// back at the next arrival) against draining a fully queued stream (which DramReference.* checks
// against the cycle-stepped reference); and Dram::transfer, two SystemC requesters whose requests
// interleave command by command, with exact cycles.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <systemc>

#include "model/common/clock_domain.h"
#include "model/common/stats.h"
#include "model/dram/dram.h"
#include "model/dram/dram_system.h"
#include "tests/dram/command_log.h"
#include "tests/dram/dram_test_spec.h"

namespace strider {
namespace {

std::string text(const std::vector<DramCommandRecord>& log) {
  return test::command_text(log, true, false);
}

// Byte address of bank group g, bank b, row r, column burst c on the test spec (RoBaBgCo).
uint64_t addr(uint32_t g, uint32_t b, uint32_t r, uint32_t c = 0) {
  return ((uint64_t(r) << 7) | (uint64_t(b) << 5) | (uint64_t(g) << 4) | c) * 64;
}

struct Req {
  uint64_t arrival, addr, bytes;
  bool write;
};

std::vector<Req> stream(uint32_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::vector<Req> out;
  uint64_t t = 0;
  for (int i = 0; i < count; ++i) {
    t += rng() % 60;
    out.push_back({t, (rng() % (1 << 16)) & ~uint64_t(63), 64 + rng() % 900, rng() % 3 == 0});
  }
  return out;
}

// Queues everything, drains; then advances to each arrival (speculating after some) and
// compares commands and ends.
void check(const DramSpec& spec, const DramPolicy& policy, uint32_t seed) {
  const std::vector<Req> reqs = stream(seed, 150);
  std::vector<DramCommandRecord> all_log, inc_log;
  DramSystem all(spec, policy), inc(spec, policy);
  all.channel(0).set_command_log(&all_log);
  inc.channel(0).set_command_log(&inc_log);
  std::vector<DramRequestState*> a, b;
  for (const Req& r : reqs) a.push_back(all.submit(r.arrival, r.addr, r.bytes, r.write));
  all.drain();
  std::mt19937 rng(seed);
  for (const Req& r : reqs) {
    inc.advance(r.arrival);
    b.push_back(inc.submit(r.arrival, r.addr, r.bytes, r.write));
    if (rng() % 2) inc.speculate();  // the next advance keeps it or rolls it back
  }
  inc.drain();
  // A rolled-back speculation leaves its commands in the log: keep the log's last pass, i.e.
  // compare command counts and ends, and the log of a run without speculation below.
  for (size_t i = 0; i < reqs.size(); ++i) EXPECT_EQ(a[i]->end, b[i]->end) << "seed " << seed;
  EXPECT_EQ(all.totals().commands, inc.totals().commands) << "seed " << seed;
  EXPECT_EQ(all.totals().row_hits, inc.totals().row_hits) << "seed " << seed;
  // Without speculation the command log is the same, command by command.
  std::vector<DramCommandRecord> plain_log;
  DramSystem plain(spec, policy);
  plain.channel(0).set_command_log(&plain_log);
  for (const Req& r : reqs) {
    plain.advance(r.arrival);
    plain.submit(r.arrival, r.addr, r.bytes, r.write);
  }
  plain.drain();
  EXPECT_EQ(text(all_log), text(plain_log)) << "seed " << seed;
}

TEST(DramIncremental, AdvancingToEachArrivalMatchesQueuingAll) {
  const DramSpec spec = test::small_dram_spec();
  for (uint32_t seed = 1; seed <= 4; ++seed) check(spec, DramPolicy{false, false, 16}, seed);
  check(spec, DramPolicy{false, false, 3}, 5);
  check(spec, DramPolicy{true, false, 16}, 6);
  check(spec, DramPolicy{false, true, 16}, 7);
  check(test::small_dram_spec_per_bank(), DramPolicy{false, false, 16}, 8);
  // Refresh postponement: whether the rank is idle depends only on arrivals before the cycle.
  for (uint32_t postpone : {1u, 8u}) {
    DramPolicy p;
    p.refresh_postpone = postpone;
    p.refresh_idle = 20;
    check(spec, p, 9 + postpone);
    check(test::small_dram_spec_powerdown(), p, 19 + postpone);
  }
  // Row-hit cap: it counts only hits issued while an older segment has arrived.
  for (uint32_t cap : {1u, 4u}) {
    DramPolicy p;
    p.row_hit_cap = cap;
    check(spec, p, 30 + cap);
    p.refresh_postpone = 8;
    check(spec, p, 40 + cap);
  }
}

TEST(DramIncremental, ALaterRequestGoesBetweenTheBurstsOfAnEarlierOne) {
  const DramSpec spec = test::small_dram_spec();
  std::vector<DramCommandRecord> log;
  DramSystem sys(spec, DramPolicy{});
  sys.channel(0).set_command_log(&log);
  DramRequestState* a = sys.submit(0, addr(0, 0, 0), 4 * 64, false);  // 4 bursts, bank 0
  sys.speculate();
  EXPECT_EQ(a->end, 42u);  // alone: ACT 0, RD 10 16 22 28 (nCCDL 6), 28 + nCL 10 + nBL 4
  sys.advance(2);          // the speculation issued commands after 2: rolled back, ACT @0 kept
  DramRequestState* b = sys.submit(2, addr(1, 0, 0), 64, false);  // bank group 1
  sys.drain();
  // B's ACT @max(ACT 0 + nRRDS 4, arrival 2) = 4; A's RD @10; B's RD @max(ACT 4 + nRCD 10,
  // RD 10 + nCCDS 4) = 14 goes before A's second RD (16 by nCCDL 6 from 10); A's second RD then
  // @max(16, 14 + nCCDS 4) = 18, then 24, 30 (nCCDL 6).
  // (Served one request at a time, B would wait for A's last RD: ACT @29, RD @39, end 53.)
  EXPECT_EQ(text(log).substr(text(log).find("ACT@0b0 ACT@4b4")),
            "ACT@0b0 ACT@4b4 RD@10b0 RD@14b4 RD@18b0 RD@24b0 RD@30b0 ");
  EXPECT_EQ(b->end, 28u);  // 14 + 14
  EXPECT_EQ(a->end, 44u);  // 30 + 14
}

// An owner releases a request while a speculation runs (its predicted end has passed); the next
// arrival rolls the speculation back. The release must survive the rollback, else the request
// is never freed and every later speculation walks it (resnet50 at 128 KiB: 150,000 live states
// and 66 s instead of 8).
TEST(DramIncremental, AReleaseDuringASpeculationSurvivesItsRollback) {
  const DramSpec spec = test::small_dram_spec();  // (DramSystem keeps a reference)
  DramSystem sys(spec, DramPolicy{});
  DramRequestState* a = sys.submit(0, addr(0, 0, 0), 4 * 64, false);
  sys.speculate();
  EXPECT_EQ(a->end, 42u);  // alone (ALaterRequestGoesBetweenTheBurstsOfAnEarlierOne)
  sys.release(a);          // during the speculation: kept until it ends
  EXPECT_EQ(sys.live_requests(), 1u);
  sys.advance(2);  // the speculation issued commands after 2: rolled back
  DramRequestState* b = sys.submit(2, addr(1, 0, 0), 64, false);
  sys.drain();
  EXPECT_EQ(a->end, 44u);
  EXPECT_EQ(b->end, 28u);
  sys.release(b);  // frees both: a (released before the rollback, now finished) and b
  EXPECT_EQ(sys.live_requests(), 0u);
}

// The owner of Dram::transfer on random streams: advance to each arrival, queue, speculate and
// release every request whose predicted end is before the next arrival (the prediction held).
// The ends equal those of draining the whole stream at once, and every request is freed.
TEST(DramIncremental, SpeculatingOwnersFreeEveryRequest) {
  const DramSpec spec = test::small_dram_spec();
  for (uint32_t seed = 11; seed <= 14; ++seed) {
    const std::vector<Req> reqs = stream(seed, 200);
    DramSystem all(spec, DramPolicy{}), inc(spec, DramPolicy{});
    std::vector<DramRequestState*> a, b;
    for (const Req& r : reqs) a.push_back(all.submit(r.arrival, r.addr, r.bytes, r.write));
    all.drain();
    std::vector<uint64_t> ends(reqs.size(), 0);
    std::vector<bool> released(reqs.size(), false);
    size_t most_live = 0;
    for (size_t i = 0; i < reqs.size(); ++i) {
      inc.advance(reqs[i].arrival);
      b.push_back(inc.submit(reqs[i].arrival, reqs[i].addr, reqs[i].bytes, reqs[i].write));
      inc.speculate();
      const uint64_t next = i + 1 < reqs.size() ? reqs[i + 1].arrival : UINT64_MAX;
      for (size_t j = 0; j <= i; ++j) {
        if (released[j] || b[j]->end >= next) continue;
        ends[j] = b[j]->end;
        released[j] = true;
        inc.release(b[j]);
      }
      most_live = std::max(most_live, inc.live_requests());
    }
    for (size_t i = 0; i < reqs.size(); ++i) {
      EXPECT_TRUE(released[i]) << "seed " << seed << " request " << i;
      EXPECT_EQ(ends[i], a[i]->end) << "seed " << seed << " request " << i;
    }
    inc.advance(UINT64_MAX);  // ends the last speculation: frees what was released during it
    EXPECT_EQ(inc.live_requests(), 0u) << "seed " << seed;
    EXPECT_LT(most_live, reqs.size()) << "seed " << seed;
  }
}

// Two requesters of Dram::transfer at 1 GHz on the test spec (tCK 1 ns: one DRAM cycle per
// accelerator cycle): A at cycle 0 (four bursts, bank 0), B at cycle 2 (one burst, bank group 1).
struct TwoRequesters : sc_core::sc_module {
  StatRegistry stats;
  DramConfig cfg;
  ClockDomain clock{1000.0};
  std::unique_ptr<Dram> dram;
  Access a, b;
  explicit TwoRequesters(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    cfg.spec = test::small_dram_spec();
    cfg.preset = "test";
    dram = std::make_unique<Dram>(cfg, 1000.0, stats);
    SC_HAS_PROCESS(TwoRequesters);
    SC_THREAD(first);
    SC_THREAD(second);
  }
  void first() { a = dram->transfer(Dram::kRead, addr(0, 0, 0), 4 * 64, clock); }
  void second() {
    clock.wait_until(2);
    b = dram->transfer(Dram::kRead, addr(1, 0, 0), 64, clock);
  }
};

TEST(DramTransfer, OutstandingRequestsAreScheduledTogether) {
  TwoRequesters t("t");
  sc_core::sc_start();
  t.dram->finish(t.a.end);
  // The cycles of ALaterRequestGoesBetweenTheBurstsOfAnEarlierOne: B ends at 28, A at 44 (A
  // first predicted 42 alone; B's arrival at 2 woke it and moved its prediction to 44).
  EXPECT_EQ(t.b.end, 28u);
  EXPECT_EQ(t.b.start, 2u);
  EXPECT_EQ(t.b.stall, 2u);  // its ACT @4, 2 after its arrival (nRRDS from A's ACT)
  EXPECT_EQ(t.a.end, 44u);
  EXPECT_EQ(t.a.bursts, 4u);
  EXPECT_EQ(t.a.row_hits, 3u);
  EXPECT_EQ(t.stats.get("dram.cmd_act"), 2u);
  EXPECT_EQ(t.stats.get("dram.cmd_rd"), 5u);
  EXPECT_EQ(t.stats.get("dram.read_requests"), 2u);
  EXPECT_EQ(t.stats.get("dram.read_latency_cycles"), 44u + 26u);
  EXPECT_EQ(t.stats.get("dram.read_latency_p99_cycles"), 44u);  // nearest rank 2 of 2
  EXPECT_EQ(sc_core::sc_time_stamp(), t.clock.cycles(44));
}

}  // namespace
}  // namespace strider
