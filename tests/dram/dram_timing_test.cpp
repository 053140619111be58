// Exact command timing of the JEDEC DRAM model (model/dram/dram_channel.h) on hand-built
// sequences, with the spec of dram_test_spec.h (timings in DRAM cycles listed there).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/dram/dram_system.h"
#include "tests/dram/dram_test_spec.h"

namespace strider {
namespace {

// Burst index -> byte address for bank group g, bank b, row r, column burst c (RoBaBgCo).
uint64_t addr(uint32_t g, uint32_t b, uint32_t r, uint32_t c = 0) {
  return ((uint64_t(r) << 7) | (uint64_t(b) << 5) | (uint64_t(g) << 4) | c) * 64;
}

std::string log_text(const std::vector<DramCommandRecord>& log) {
  std::string s;
  for (const DramCommandRecord& c : log) {
    s += std::string(to_string(c.cmd)) + "@" + std::to_string(c.cycle) + "b" +
         std::to_string(c.bank) + " ";
  }
  return s;
}

struct Fixture {
  DramSpec spec = test::small_dram_spec();
  DramPolicy policy;
  std::vector<DramCommandRecord> log;
  DramSystem sys{spec, policy};
  Fixture() { sys.channel(0).set_command_log(&log); }
};

TEST(DramTiming, ActReadPrechargeActivateOneBank) {
  Fixture f;
  DramRequestState* a = f.sys.submit(0, addr(0, 0, 0), 64, false);
  DramRequestState* b = f.sys.submit(0, addr(0, 0, 1), 64, false);  // same bank, next row
  f.sys.drain();
  // ACT row 0 @0; RD @0 + nRCD 10 = 10 (the second request may not close the row its elder
  // still needs); PRE @max(ACT 0 + nRAS 24, RD 10 + nRTP 5) = 24; ACT row 1 @max(PRE 24 + nRP
  // 10, ACT 0 + nRC 34) = 34; RD @34 + 10 = 44.
  EXPECT_EQ(log_text(f.log), "ACT@0b0 RD@10b0 PRE@24b0 ACT@34b0 RD@44b0 ");
  EXPECT_EQ(a->end, 24u);  // RD 10 + nCL 10 + nBL 4
  EXPECT_EQ(b->end, 58u);  // RD 44 + 14
  EXPECT_EQ(f.sys.totals().row_hits, 0u);
}

TEST(DramTiming, FiveActivatesWaitForTheFourActivateWindow) {
  Fixture f;
  // Banks alternating bank groups: (g0,b0) (g1,b0) (g0,b1) (g1,b1) (g0,b2).
  const uint32_t g[5] = {0, 1, 0, 1, 0}, b[5] = {0, 0, 1, 1, 2};
  std::vector<DramRequestState*> r;
  for (int i = 0; i < 5; ++i) r.push_back(f.sys.submit(0, addr(g[i], b[i], 0), 64, false));
  f.sys.drain();
  // ACTs: 0; 4 (nRRDS); 8 (nRRDS from 4 > nRRDL from 0 = 6); 12 (nRRDS). RD b0 @10 (ACT + nRCD)
  // goes before ACT b3 @12; RD b4 @14 (ACT 4 + 10; nCCDS from 10); RD b1 @18 (ACT 8 + 10).
  // The fifth ACT: nRRDS from 12 gives 16, but the window of the last four ACTs (0, 4, 8, 12)
  // holds it to 0 + nFAW 20 = 20. RD b5 @22 (ACT 12 + 10); RD b2 @30 (ACT 20 + 10).
  EXPECT_EQ(log_text(f.log),
            "ACT@0b0 ACT@4b4 ACT@8b1 RD@10b0 ACT@12b5 RD@14b4 RD@18b1 ACT@20b2 RD@22b5 RD@30b2 ");
  EXPECT_EQ(r[4]->end, 44u);  // 30 + 14
}

TEST(DramTiming, ReadAfterWriteInOneBankGroupWaitsForWtrL) {
  Fixture f;
  DramRequestState* w = f.sys.submit(0, addr(0, 0, 0), 64, true);
  DramRequestState* rd = f.sys.submit(0, addr(0, 1, 0), 64, false);  // same bank group 0
  f.sys.drain();
  // ACT b0 @0, ACT b1 @6 (nRRDL), WR @10; RD @max(ACT 6 + 10, WR 10 + nCWL 8 + nBL 4 + nWTRL 6
  // = 28) = 28.
  EXPECT_EQ(log_text(f.log), "ACT@0b0 ACT@6b1 WR@10b0 RD@28b1 ");
  EXPECT_EQ(w->end, 22u);   // 10 + nCWL 8 + nBL 4
  EXPECT_EQ(rd->end, 42u);  // 28 + 14
}

TEST(DramTiming, ReadAfterWriteInTheOtherBankGroupWaitsForWtrS) {
  Fixture f;
  f.sys.submit(0, addr(0, 0, 0), 64, true);
  DramRequestState* rd = f.sys.submit(0, addr(1, 0, 0), 64, false);  // bank group 1
  f.sys.drain();
  // ACT b4 @4 (nRRDS); RD @max(4 + 10, WR 10 + 8 + 4 + nWTRS 2 = 24) = 24.
  EXPECT_EQ(log_text(f.log), "ACT@0b0 ACT@4b4 WR@10b0 RD@24b4 ");
  EXPECT_EQ(rd->end, 38u);
}

TEST(DramTiming, RefreshInTheMiddleOfAStreamBlocksTheRank) {
  Fixture f;
  std::vector<DramRequestState*> r;
  for (uint64_t t = 0; t <= 1100; t += 100) r.push_back(f.sys.submit(t, addr(0, 0, 0), 64, false));
  f.sys.drain();
  // ACT @0, RD @10, then one row hit per arrival (RD @100 ... @900). The refresh is due at
  // nREFI 1000: the read arriving at 1000 waits; PREA @max(1000, RD 900 + nRTP 5) = 1000, REF @
  // PREA + nRP 10 = 1010, ACT @REF + nRFC 50 = 1060, RD @1070. The read at 1100 hits the row.
  std::string expect = "ACT@0b0 RD@10b0 ";
  for (int t = 100; t <= 900; t += 100) expect += "RD@" + std::to_string(t) + "b0 ";
  expect += "PREA@1000b0 REF@1010b0 ACT@1060b0 RD@1070b0 RD@1100b0 ";
  EXPECT_EQ(log_text(f.log), expect);
  EXPECT_EQ(r[10]->end - r[10]->arrival, 84u);  // 1070 + 14 - 1000
  EXPECT_EQ(r[11]->end, 1114u);
  EXPECT_EQ(f.sys.totals().refresh_cycles, 50u);
}

TEST(DramTiming, PerBankRefreshHoldsOnlyItsBank) {
  const DramSpec spec = test::small_dram_spec_per_bank();
  std::vector<DramCommandRecord> log;
  DramSystem sys(spec, DramPolicy{});
  sys.channel(0).set_command_log(&log);
  for (uint64_t t = 0; t <= 200; t += 100) sys.submit(t, addr(0, 0, 0), 64, false);  // bank 0
  DramRequestState* other = sys.submit(250, addr(1, 0, 0), 64, false);  // bank 4 (group 1)
  DramRequestState* after = sys.submit(265, addr(0, 0, 0), 64, false);  // bank 0 again
  sys.drain();
  // ACT b0 @0, RD @10, row hits @100, @200. Bank 0's refresh is due at nREFIpb 250 and it is
  // open: PRE b0 @max(250, RD 200 + nRTP 5, ACT 0 + nRAS 24) = 250, first at equal cycles with
  // the ACT bank 4 wants, which goes @251 (command bus). REFPB b0 @max(PRE 250 + nRP 10,
  // ACT b0 0 + nRC 34, ACT b4 251 + nRRDS 4) = 260; RD b4 @ACT 251 + nRCD 10 = 261: bank 4 is
  // not held. The read of bank 0 at 265 waits for REFPB 260 + nRFCpb 30: ACT @290, RD @300.
  // (All-bank refresh would hold bank 4 too: PREA @250, REF @260, its ACT @310, RD @320.)
  EXPECT_EQ(log_text(log),
            "ACT@0b0 RD@10b0 RD@100b0 RD@200b0 PRE@250b0 ACT@251b4 REFPB@260b0 RD@261b4 ACT@290b0 "
            "RD@300b0 ");
  EXPECT_EQ(other->end, 275u);  // 261 + 14
  EXPECT_EQ(after->end, 314u);  // 300 + 14
  EXPECT_EQ(sys.totals().refresh_cycles, 30u);
  EXPECT_EQ(sys.totals().commands[static_cast<int>(DramCmd::kRefpb)], 1u);
}

TEST(DramTiming, ClosedPagePrechargesAfterTheLastBurstOfARow) {
  Fixture f;
  f.policy.closed_page = true;
  DramSystem sys(f.spec, f.policy);
  sys.channel(0).set_command_log(&f.log);
  sys.submit(0, addr(0, 0, 0), 128, false);  // two bursts of one row
  DramRequestState* b = sys.submit(100, addr(0, 0, 0), 64, false);
  sys.drain();
  // ACT @0, RD @10, RD @16 (nCCDL 6 in one bank group), auto-precharge @max(ACT + nRAS 24,
  // RD 16 + nRTP 5) = 24; the later read of the same row opens it again: ACT @100, RD @110.
  EXPECT_EQ(log_text(f.log), "ACT@0b0 RD@10b0 RD@16b0 PRE@24b0 ACT@100b0 RD@110b0 PRE@124b0 ");
  EXPECT_EQ(b->end, 124u);
}

TEST(DramTiming, SequentialBurstsOfOneRowAreRowHits) {
  Fixture f;
  DramRequestState* r = f.sys.submit(0, addr(0, 0, 0), 1024, false);  // one whole row, 16 bursts
  f.sys.drain();
  // ACT @0, RDs every nCCDL 6 from 10: the last @10 + 15 x 6 = 100, data ends 114; 15 of 16
  // bursts hit the row the ACT opened.
  EXPECT_EQ(r->end, 114u);
  EXPECT_EQ(f.sys.totals().row_hits, 15u);
}

TEST(DramTiming, AddressMappingPlacesFieldsByName) {
  DramSpec spec = test::small_dram_spec();
  DramSystem sys(spec, DramPolicy{});
  const DramLocation l = sys.map((5u << 7) | (3u << 5) | (1u << 4) | 9u);
  EXPECT_EQ(l.row, 5u);
  EXPECT_EQ(l.bankgroup, 1u);
  EXPECT_EQ(l.bank, 1u * 4 + 3u);  // flat: bank group x banks + bank
  EXPECT_EQ(l.column, 9u);
}

}  // namespace
}  // namespace strider
