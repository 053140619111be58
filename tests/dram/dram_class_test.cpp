// Request classes (model/dram/dram_channel.h): the FR-FCFS scheduler serves a demand request's
// command before a background request's at the same cycle, a background row hit does not hold a
// demand request's PRE, and a background request is served once no demand command can issue.
// Hand-built sequences on the small test spec (tests/dram/dram_test_spec.h: nRCD 10, nRP 10,
// nRAS 24, nRC 34, RD -> RD in one bank group nCCDL 6, in the rank nCCDS 4, RD -> PRE nRTP 5,
// ACT -> ACT in one bank group nRRDL 6, read latency 14; mapping RoBaBgCo, 16 bursts of 64 B a
// row: byte address bit 10 = bank group, bits 11-12 = bank, bit 13 up = row), every cycle by
// hand, each also against the cycle-stepped reference.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/dram/dram_system.h"
#include "tests/dram/dram_stepped_reference.h"
#include "tests/dram/command_log.h"
#include "tests/dram/dram_test_spec.h"

namespace strider {
namespace {

std::string text(const std::vector<DramCommandRecord>& log) {
  return test::command_text(log, true, true);
}

// Serves `reqs` (arrival, address, bytes, background; reads) and returns the commands; each
// request's end in `ends`. The stepped reference must issue the same commands and ends.
std::string serve(const std::vector<test::RefRequest>& reqs, std::vector<uint64_t>* ends) {
  const DramSpec spec = test::small_dram_spec();
  const DramPolicy policy;  // FR-FCFS, open page, window 16
  DramSystem sys(spec, policy);
  std::vector<DramCommandRecord> log;
  sys.channel(0).set_command_log(&log);
  std::vector<DramRequestState*> states;
  for (const test::RefRequest& r : reqs)
    states.push_back(sys.submit(r.arrival, r.addr, r.bytes, r.write, r.background));
  sys.drain();
  std::vector<test::RefRequest> ref_reqs = reqs;
  test::DramSteppedReference ref(spec, policy);
  EXPECT_EQ(text(ref.run(ref_reqs)), text(log));
  ends->clear();
  for (size_t i = 0; i < reqs.size(); ++i) {
    EXPECT_EQ(ref_reqs[i].end, states[i]->end) << i;
    ends->push_back(states[i]->end);
  }
  return text(log);
}

// Whether `log` starts with `prefix` / ends with `suffix`.
bool starts(const std::string& log, const std::string& prefix) { return log.rfind(prefix, 0) == 0; }
bool ends_with(const std::string& log, const std::string& suffix) {
  return log.size() >= suffix.size() &&
         log.compare(log.size() - suffix.size(), suffix.size(), suffix) == 0;
}

test::RefRequest read(uint64_t arrival, uint64_t addr, uint64_t bytes, bool background) {
  test::RefRequest r;
  r.arrival = arrival;
  r.addr = addr;
  r.bytes = bytes;
  r.background = background;
  return r;
}

TEST(DramClass, DemandBeforeAnOlderBackgroundRequest) {
  // B reads all of row 0 of bank 0 (16 bursts), D 64 B of row 1 of the same bank; both at 0,
  // B older. Both demand (FR-FCFS by age): ACT@0 row 0, B's RD@10 .. 10 + 15 x 6 = 100 (nCCDL),
  // B ends 114; D: PRE@max(100 + nRTP 5, 0 + nRAS 24) = 105, ACT@115, RD@125, D ends 139.
  std::vector<uint64_t> ends;
  serve({read(0, 0, 1024, false), read(0, 1 << 13, 64, false)}, &ends);
  EXPECT_EQ(ends, (std::vector<uint64_t>{114, 139}));
  // B background: at cycle 0 both need an ACT, D's goes first: ACT@0 row 1, RD@10, D ends 24.
  // B: PRE@max(10 + 5, 0 + 24) = 24, ACT@max(24 + nRP 10, 0 + nRC 34) = 34, RD@44 .. 44 + 15 x 6
  // = 134, B ends 148. (A PRE is logged with the row of the segment it opens the bank for.)
  std::string log = serve({read(0, 0, 1024, true), read(0, 1 << 13, 64, false)}, &ends);
  EXPECT_EQ(ends, (std::vector<uint64_t>{148, 24}));
  EXPECT_TRUE(starts(log, "ACT@0b0r1 RD@10b0r1 PRE@24b0r0 ACT@34b0r0 RD@44b0r0 ")) << log;
}

TEST(DramClass, ABackgroundRowHitDoesNotHoldADemandPrecharge) {
  // B (background) streams row 0 of bank 0 from 0: ACT@0, RD@10, 16, 22, 28; D (demand) arrives
  // at 30 for row 1 of bank 0. B's row hits would hold D's PRE (as a demand stream's do, below);
  // as background they do not: D's PRE@max(30, RD 28 + 5, ACT 0 + 24) = 33 goes before B's next
  // RD (34). D: ACT@max(33 + 10, 0 + 34) = 43, RD@53, ends 67. B's PRE is then held by D's hit
  // until D's RD; PRE@max(53 + 5, ACT 43 + 24) = 67, ACT@77, its 12 bursts left RD@87 .. 87 +
  // 11 x 6 = 153, ends 167.
  std::vector<uint64_t> ends;
  const std::string log = serve({read(0, 0, 1024, true), read(30, 1 << 13, 64, false)}, &ends);
  EXPECT_EQ(ends, (std::vector<uint64_t>{167, 67}));
  EXPECT_TRUE(starts(log,
                     "ACT@0b0r0 RD@10b0r0 RD@16b0r0 RD@22b0r0 RD@28b0r0 PRE@33b0r1 "
                     "ACT@43b0r1 RD@53b0r1 PRE@67b0r0 ACT@77b0r0 RD@87b0r0 "))
      << log;
  // B demand: its hits hold D's PRE: RD@10 .. 100, B ends 114; D PRE@105, ACT@115, RD@125, 139.
  serve({read(0, 0, 1024, false), read(30, 1 << 13, 64, false)}, &ends);
  EXPECT_EQ(ends, (std::vector<uint64_t>{114, 139}));
}

TEST(DramClass, RowHitsFirstWithinTheBackgroundClass) {
  // D (demand) reads row 0 of bank 0; B1 (background, older) row 1 of bank 0; B2 (background)
  // row 0 of bank 0; all at 0. ACT@0 row 0 for D (demand first), D's RD@10 (ends 24). Within the
  // background class B2's row hit goes before the older B1 (and holds its PRE): RD@16 (nCCDL),
  // ends 30. B1: PRE@max(16 + 5, 0 + 24) = 24, ACT@34, RD@44, ends 58.
  std::vector<uint64_t> ends;
  const std::string log =
      serve({read(0, 0, 64, false), read(0, 1 << 13, 64, true), read(0, 64, 64, true)}, &ends);
  EXPECT_EQ(ends, (std::vector<uint64_t>{24, 58, 30}));
  EXPECT_EQ(log, "ACT@0b0r0 RD@10b0r0 RD@16b0r0 PRE@24b0r1 ACT@34b0r1 RD@44b0r1 ");
}

TEST(DramClass, BackgroundServedOnceDemandStops) {
  // D (demand) streams all of row 0 of bank 0 (bank group 0), B (background) reads row 0 of
  // bank 1 (bank group 0, address 2048); both at 0. D's ACT@0, B's ACT@6 (nRRDL). D's RD@10,
  // and from 16 on every 6 cycles (nCCDL) both can issue a RD at the same cycle: D's goes first
  // each time, RD@10 .. 100, ends 114. B's RD the cycle D has none left: 106, ends 120.
  std::vector<uint64_t> ends;
  const std::string log = serve({read(0, 0, 1024, false), read(0, 2048, 64, true)}, &ends);
  EXPECT_EQ(ends, (std::vector<uint64_t>{114, 120}));
  EXPECT_TRUE(starts(log, "ACT@0b0r0 ACT@6b1r0 RD@10b0r0 RD@16b0r0 ")) << log;
  EXPECT_TRUE(ends_with(log, "RD@94b0r0 RD@100b0r0 RD@106b1r0 ")) << log;
  // B older and both demand: B's ACT@0 and RD@10 go first (ends 24), D's ACT@6, RD@16 .. 16 +
  // 15 x 6 = 106, ends 120. B older but background: as above, B waits for D's last RD.
  serve({read(0, 2048, 64, false), read(0, 0, 1024, false)}, &ends);
  EXPECT_EQ(ends, (std::vector<uint64_t>{24, 120}));
  serve({read(0, 2048, 64, true), read(0, 0, 1024, false)}, &ends);
  EXPECT_EQ(ends, (std::vector<uint64_t>{120, 114}));
}

}  // namespace
}  // namespace strider
