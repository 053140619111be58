// The row-hit cap (DramPolicy::row_hit_cap, FR-FCFS+Cap, model/dram/dram_channel.h) on a
// hand-built sequence of the small test spec (tests/dram/dram_test_spec.h: nRCD 10, nRP 10,
// nRAS 24, nRC 34, RD -> RD in one bank group nCCDL 6, RD -> PRE nRTP 5, read latency 14; mapping
// RoBaBgCo, 16 bursts of 64 B a row, byte address bit 13 up = row): a younger stream's row hits
// pass an older request to the same bank at most `row_hit_cap` times, every cycle by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/dram/dram_system.h"
#include "tests/dram/command_log.h"
#include "tests/dram/dram_test_spec.h"

namespace strider {
namespace {

std::string text(const std::vector<DramCommandRecord>& log) {
  return test::command_text(log, false, true);
}

struct CapRun {
  explicit CapRun(uint32_t cap) : sys(spec, policy(cap)) {
    sys.channel(0).set_command_log(&log);
    // All at cycle 0, in this order, bank 0 of bank group 0: A reads 64 B of row 0; O (older)
    // reads 64 B of row 1; Y (younger) reads 1 KB, the whole of row 0 (16 bursts).
    a = sys.submit(0, 0, 64, false);
    o = sys.submit(0, 1 << 13, 64, false);
    y = sys.submit(0, 0, 1024, false);
    sys.drain();
  }
  static DramPolicy policy(uint32_t cap) {
    DramPolicy p;
    p.row_hit_cap = cap;
    return p;
  }
  DramSpec spec = test::small_dram_spec();
  DramSystem sys;
  std::vector<DramCommandRecord> log;
  DramRequestState *a = nullptr, *o = nullptr, *y = nullptr;
};

TEST(DramRowHitCap, AYoungerStreamPassesAnOlderRequestAtMostCapTimes) {
  // No cap (plain FR-FCFS): ACT@0 row 0, A's RD@10 (nRCD). O needs row 1, but Y's arrived row
  // hits hold its PRE: Y's 16 RD@16 .. 16 + 15 x 6 = 106 (nCCDL), Y ends 106 + 14 = 120. Then
  // O: PRE@max(RD 106 + nRTP 5, ACT 0 + nRAS 24) = 111, ACT@121, RD@131, O ends 145.
  CapRun none(0);
  EXPECT_EQ(none.a->end, 24u);
  EXPECT_EQ(none.y->end, 120u);
  EXPECT_EQ(none.o->end, 145u);
  EXPECT_EQ(none.sys.totals().row_hits, 16u);
  // Cap 4: Y's hits RD@16, 22, 28, 34 pass O (4); the 5th waits and O's PRE goes:
  // PRE@max(34 + 5, 0 + 24) = 39, ACT@49 (nRP; nRC from ACT 0: 34), RD@59, O ends 73. Then Y
  // reopens row 0 (O done, nothing holds row 1): PRE@max(RD 59 + 5, ACT 49 + 24) = 73, ACT@83
  // (nRP, nRC 49 + 34 = 83), its 12 left RD@93 .. 93 + 11 x 6 = 159, Y ends 173.
  CapRun cap(4);
  EXPECT_EQ(text(cap.log),
            "ACT@0r0 RD@10r0 RD@16r0 RD@22r0 RD@28r0 RD@34r0 PRE@39r1 ACT@49r1 RD@59r1 PRE@73r0 "
            "ACT@83r0 RD@93r0 RD@99r0 RD@105r0 RD@111r0 RD@117r0 RD@123r0 RD@129r0 RD@135r0 "
            "RD@141r0 RD@147r0 RD@153r0 RD@159r0 ");
  EXPECT_EQ(cap.a->end, 24u);
  EXPECT_EQ(cap.o->end, 73u);   // 72 cycles earlier
  EXPECT_EQ(cap.y->end, 173u);  // 53 later
  // Cap 16: Y's 16 hits all fit under it, as with no cap.
  CapRun sixteen(16);
  EXPECT_EQ(text(sixteen.log), text(none.log));
  // Cap 1: RD@16 passes O; PRE@max(16 + 5, 24) = 24, ACT@34 (nRP; nRC 0 + 34), RD@44, O ends 58;
  // Y: PRE@max(44 + 5, 34 + 24) = 58, ACT@68, its 15 left RD@78 .. 78 + 14 x 6 = 162, ends 176.
  CapRun one(1);
  EXPECT_EQ(one.o->end, 58u);
  EXPECT_EQ(one.y->end, 176u);
}

}  // namespace
}  // namespace strider
