// The progress bar: its text, and a run with it drawn from inside the simulation that ends (the
// thread stops with the run) with the same cycle count as without it.
#include "core/arch/config_loader.h"
#include "model/top/top.h"
#include "tb/progress_bar.h"
#include "tb/run_harness.h"
#include "tb/stage_progress.h"
#include "tests/e2e/report_util.h"

namespace strider::report_test {
namespace {

TEST(ReportProgress, RendersDoneOfTotal) {
  // 5 of 20 = 25 %: 10 x 5 / 20 = 2 of 10 cells filled.
  EXPECT_EQ(ProgressBar::render(5, 20, 1234, 10),
            "  simulating [##........] 25 %  5/20 descriptors  cycle 1234");
  EXPECT_EQ(ProgressBar::render(0, 0, 0, 4), "  simulating [####] 100 %  0/0 descriptors  cycle 0");
}

// Import, calibration and planning (tb/stage_progress.h): "layer k of N" and the elapsed time on
// a terminal only, every stage's seconds for the run's "stages" line either way.
TEST(ReportProgress, StageLinesOnATerminalOnlyAndTheirTimes) {
  EXPECT_EQ(StageProgress::render("calibration", 12, 480, 1.5),
            "  calibration  layer 12 of 480  1.5 s");
  // A stage met again (a second network's import) adds to its first place: 0.25 + 0.5.
  EXPECT_EQ(StageProgress::summary({{"import", 0.25}, {"calibration", 0.125}, {"import", 0.5}}),
            "import 0.750 s, calibration 0.125 s");
  std::ostringstream log;
  {
    StageProgress s(log, false, std::chrono::milliseconds(0));  // not a terminal
    const ProgressFn f = s.stage("import");
    f(1, 3);
    f(3, 3);
    s.stage("planning")(2, 2);
    s.finish();
    ASSERT_EQ(s.times().size(), 2u);
    EXPECT_EQ(s.times()[0].first, "import");
    EXPECT_EQ(s.times()[1].first, "planning");
  }
  EXPECT_EQ(log.str(), "");  // nothing drawn into a log
  std::ostringstream tty;
  StageProgress t(tty, true, std::chrono::milliseconds(0));
  t.stage("import")(1, 3);
  t.finish();
  const std::string text = tty.str();
  EXPECT_EQ(text.rfind("\r  import       layer 1 of 3  ", 0), 0u) << text;
  EXPECT_EQ(text.substr(text.size() - 3), " s\n") << text;  // the line ends with its stage
}

TEST(ReportProgress, DrawsDuringTheRunAndLeavesItsCyclesAlone) {
  RunResult r;
  r.config = load_run(kDefaultRun);
  plan_run(r);
  std::ostringstream bar;
  Top top("top", r.config.arch, r.config.sim, r.lowered.list, r.stats, r.record);
  // Wake every 1000 cycles, draw at every wake-up.
  ProgressBar progress("progress", r.record, bar, 1000, std::chrono::milliseconds(0),
                       std::chrono::milliseconds(0));
  progress.attach(top.clock());
  const uint64_t cycles = top.run();
  // The run's own end (the last retirement), not the progress thread's last wake-up.
  EXPECT_EQ(cycles, r.record.cycles);
  const uint64_t last_end =
      std::max_element(r.record.descriptors.begin(), r.record.descriptors.end(),
                       [](const auto& a, const auto& b) { return a.end < b.end; })
          ->end;
  EXPECT_EQ(cycles, last_end);
  const std::string text = bar.str();
  const size_t n = r.record.descriptors.size();
  EXPECT_EQ(text.rfind("\r  simulating [", 0), 0u) << text;
  const std::string final_line = "\r" + ProgressBar::render(n, n, cycles) + "\n";
  ASSERT_GE(text.size(), final_line.size());
  EXPECT_EQ(text.substr(text.size() - final_line.size()), final_line);
  // The simulation stopped within one wake-up period after the last retirement.
  EXPECT_LE(sc_core::sc_time_stamp(), top.clock().cycles(cycles + 1000));
}

}  // namespace
}  // namespace strider::report_test
