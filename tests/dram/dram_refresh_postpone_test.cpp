// Refresh postponement (DramPolicy::refresh_postpone, model/dram/dram_channel.h) on hand-built
// sequences of the small test spec (tests/dram/dram_test_spec.h: nREFI 1000, nRFC 50, PREA ->
// REF 10, REF -> ACT 50, RD -> PREA nRTP 5, nRCD 10, RD -> RD in one bank group nCCDL 6, read
// latency 14), every cycle worked out by hand: a refresh due under a stream waits for the rank's
// first idle cycle; at most `refresh_postpone` are owed (the next one due is forced); the owed
// ones are paid back to back when the rank goes idle; those still owed at the end are charged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/dram/dram_system.h"
#include "tests/dram/dram_test_spec.h"

namespace strider {
namespace {

// Every command but RD (the streams below are thousands of row hits), as "CMD@cycle".
std::string no_reads(const std::vector<DramCommandRecord>& log) {
  std::string s;
  for (const DramCommandRecord& c : log) {
    if (c.cmd != DramCmd::kRd)
      s += std::string(to_string(c.cmd)) + "@" + std::to_string(c.cycle) + " ";
  }
  return s;
}

size_t reads(const std::vector<DramCommandRecord>& log) {
  size_t n = 0;
  for (const DramCommandRecord& c : log) n += c.cmd == DramCmd::kRd;
  return n;
}

DramPolicy postpone(uint32_t n, uint64_t idle) {
  DramPolicy p;
  p.refresh_postpone = n;
  p.refresh_idle = idle;
  return p;
}

struct PostponeRun {
  explicit PostponeRun(const DramPolicy& p) : sys(spec, p) { sys.channel(0).set_command_log(&log); }
  DramSpec spec = test::small_dram_spec();
  DramSystem sys;
  std::vector<DramCommandRecord> log;
  std::vector<DramRequestState*> r;
  // 64 B reads of bank 0, row 0 arriving every `gap` cycles from 0 to `last`, queued as they
  // arrive (every command before an arrival issued first, as the full simulation does).
  void reads_every(uint64_t gap, uint64_t last) {
    for (uint64_t t = 0; t <= last; t += gap) {
      sys.advance(t);
      r.push_back(sys.submit(t, 0, 64, false));
    }
    sys.drain();
  }
};

// The stream of DramTiming.RefreshInTheMiddleOfAStreamBlocksTheRank: a read every 100 cycles.
TEST(DramRefreshPostpone, ARefreshDueUnderAStreamWaitsForTheIdleRank) {
  PostponeRun on(postpone(8, 20));
  on.reads_every(100, 1100);
  // ACT@0, RD@10, a row hit per arrival RD@100 ... RD@1000. The refresh due at nREFI 1000 finds
  // the read arriving at 1000 queued: postponed (forced only at 1000 + 8 x 1000). It issues once
  // the rank is idle: no queued read has arrived and 20 cycles since the rank's last request
  // command, RD@1000: PREA@max(1000 + 20, RD 1000 + nRTP 5) = 1020, REF@PREA + 10 = 1030. The
  // read at 1100 finds the row closed: ACT@1100 (REF 1030 + nRFC 50 = 1080 is past), RD@1110.
  EXPECT_EQ(no_reads(on.log), "ACT@0 PREA@1020 REF@1030 ACT@1100 ");
  EXPECT_EQ(reads(on.log), 12u);
  EXPECT_EQ(on.r[10]->end, 1014u);  // RD 1000 + 14: the refresh does not delay it
  EXPECT_EQ(on.r[11]->end, 1124u);  // RD 1110 + 14: it reopens the row (+10)
  EXPECT_EQ(on.sys.totals().refresh_cycles, 50u);
  // Issued when due (refresh_postpone 0): PREA@1000, REF@1010, the read at 1000 waits for ACT
  // @1060, RD@1070 (end 1084, 70 later); the read at 1100 hits that row (end 1114).
  PostponeRun off(postpone(0, 20));
  off.reads_every(100, 1100);
  EXPECT_EQ(no_reads(off.log), "ACT@0 PREA@1000 REF@1010 ACT@1060 ");
  EXPECT_EQ(off.r[10]->end, 1084u);
  EXPECT_EQ(off.r[11]->end, 1114u);
}

// Reads arriving every 5 cycles, served one per nCCDL 6: the queue never empties, so the rank is
// never idle until the stream ends. With 8 postponable the refreshes due at 1000 ... 8000 are
// owed; the one due at 9000 would be the 9th: from 9000 the rank is blocked and a REF issues.
TEST(DramRefreshPostpone, TheNinthOwedRefreshIsForced) {
  PostponeRun f(postpone(8, 0));
  f.reads_every(5, 5 * 1653);  // 1654 reads, the last arriving at 8265
  // Read k issues RD@10 + 6k (its arrival 5k is earlier): k = 1498 at 8998 is the last before
  // 9000. PREA@max(9000, RD 8998 + nRTP 5) = 9003, REF@9013, ACT@9063 (nRFC 50), then the 155
  // reads left RD@9073 + 6j, the last (j = 154) at 9997, before the next forced cycle: 8 owed
  // (due 2000 ... 9000) block the rank from 2000 + 8 x 1000 = 10000. Idle after RD@9997: the 9
  // refreshes then owed (due 2000 ... 10000) go back to back, PREA@9997 + 5 = 10002, REF@10012
  // and every nRFC 50 after: the 9th @10012 + 8 x 50 = 10412.
  std::string expect = "ACT@0 PREA@9003 REF@9013 ACT@9063 PREA@10002 ";
  for (int i = 0; i < 9; ++i) expect += "REF@" + std::to_string(10012 + 50 * i) + " ";
  f.sys.advance(10500);  // (the idle refreshes issue up to the next arrival, here 10500)
  EXPECT_EQ(no_reads(f.log), expect);
  EXPECT_EQ(reads(f.log), 1654u);
  EXPECT_EQ(f.r[1498]->end, 9012u);   // 8998 + 14
  EXPECT_EQ(f.r[1499]->end, 9087u);   // RD@9073 + 14: waited for the forced refresh
  EXPECT_EQ(f.r[1653]->end, 10011u);  // 9997 + 14
  // 10 REF by 10,500: nREFI 1000 on average, as due (one per 1000 cycles up to 10000).
  EXPECT_EQ(f.sys.totals().commands[int(DramCmd::kRef)], 10u);
  EXPECT_EQ(f.sys.totals().refresh_cycles, 500u);
  // With 1 postponable: the refresh due at 1000 is forced at 2000 (RD k = 331 @1996 the last
  // before): PREA@2001, REF@2011; the one due at 2000 is then owed, forced at 3000, ...
  PostponeRun one(postpone(1, 0));
  one.reads_every(5, 5 * 400);  // 401 reads
  // After REF@2011: ACT@2061, RD@2071 + 6j for the 69 reads left (k = 332 ... 400), the last
  // @2071 + 6 x 68 = 2479; idle: PREA@2484, REF@2494 (the one due at 2000).
  one.sys.advance(3000);
  EXPECT_EQ(no_reads(one.log), "ACT@0 PREA@2001 REF@2011 ACT@2061 PREA@2484 REF@2494 ");
  EXPECT_EQ(one.r[400]->end, 2493u);  // 2479 + 14
}

// finish(end): the refreshes owed at the end are charged (the device must still do them), so a
// run owes the same REF count, one per nREFI before its end, however they were postponed.
TEST(DramRefreshPostpone, RefreshesStillOwedAtTheEndAreCharged) {
  PostponeRun f(postpone(8, 20));
  f.reads_every(100, 1000);
  // RD@1000 is the last command; the refresh due at 1000 would issue at PREA@1020, REF@1030 (as
  // above), after the end 1014 (the last data): charged with its PREA (the row is open).
  f.sys.finish(1014);
  EXPECT_EQ(no_reads(f.log), "ACT@0 ");
  const DramTotals t = f.sys.totals();
  EXPECT_EQ(t.commands[int(DramCmd::kRef)], 1u);
  EXPECT_EQ(t.commands[int(DramCmd::kPrea)], 1u);
  EXPECT_EQ(t.refresh_cycles, 50u);
  // Ending at 2500 instead: REF@1030 issues in the idle tail, and the one due at 2000 at 2000
  // (no PREA: every bank closed); 2 REF either way.
  PostponeRun g(postpone(8, 20));
  g.reads_every(100, 1000);
  g.sys.finish(2500);
  EXPECT_EQ(no_reads(g.log), "ACT@0 PREA@1020 REF@1030 REF@2000 ");
  EXPECT_EQ(g.sys.totals().commands[int(DramCmd::kRef)], 2u);
}

}  // namespace
}  // namespace strider
