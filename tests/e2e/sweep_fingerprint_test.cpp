// Sweep fingerprints (issue 31, item 2): `--resume` reruns the rows of a sweep whose base run
// content, `set:` or program changed (it kept the old figures and said "already"), and `sweep
// merge` refuses shards of different sweeps, naming the difference.
#include "tb/sweep_fingerprint.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tb/sweep_results.h"
#include "tests/e2e/program_run.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

const std::string kSrc = STRIDER_SOURCE_DIR;
const std::string kStrider = std::string(STRIDER_BINARY_DIR) + "/strider";

class SweepFingerprint : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kStrider)) << kStrider << " missing: build the strider target first";
    dir_ = fs::temp_directory_path() /
           ("strider_sweepfp_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    base_ = path("base.yaml");
    write_base("");
    sweep_ = path("s.yaml");
    write_sweep("{sim.trace: false}");
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
  }
  // The default run (tiny_cnn on the seed) with `extra` appended.
  void write_base(const std::string& extra) {
    std::ofstream(base_) << "arch: " << kSrc
                         << "/configs/arch/seed.yaml\nnetworks:\n  - {path: " << kSrc
                         << "/configs/networks/tiny_cnn.yaml}\n"
                         << extra;
  }
  void write_sweep(const std::string& set) {
    std::ofstream(sweep_) << "base: " << base_ << "\nset: " << set
                          << "\ngrid:\n  arch.l1.shift_stride: [true, false]\n";
  }
  Ran strider(const std::vector<std::string>& args) { return run_program(kStrider, args, dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
  std::string base_, sweep_;
};

TEST_F(SweepFingerprint, ResumeRerunsRowsWhoseBaseOrSetChanged) {
  ASSERT_EQ(strider({"sweep", sweep_, "--out", path("o")}).code, 0);
  const ResultsTable first = read_results(path("o/results.csv"));
  const Ran same = strider({"sweep", sweep_, "--out", path("o"), "--resume"});
  EXPECT_EQ(same.code, 0);
  EXPECT_EQ(same.err,
            "sweep " + sweep_ + ": 2 points, 2 already in results.csv, running 0 with -j 1\n");

  // set: changed (the L2 halved): both rows are stale and run again.
  write_sweep("{sim.trace: false, arch.l2.size_bytes: 524288}");
  const Ran set = strider({"sweep", sweep_, "--out", path("o"), "--resume"});
  EXPECT_EQ(set.code, 0);
  EXPECT_EQ(set.err.substr(0, set.err.find(" with -j")),
            "sweep: 2 rows of results.csv made with another base run, set: or program version "
            "(fingerprint differs): running them again\nsweep " +
                sweep_ + ": 2 points, 0 already in results.csv, running 2");
  const ResultsTable after_set = read_results(path("o/results.csv"));
  const size_t fp = after_set.header.size() - 2;
  ASSERT_EQ(after_set.header[fp], "fingerprint");
  EXPECT_NE(after_set.rows.at(0)[fp], first.rows.at(0)[fp]);

  // The base run's content changed (its time limit, no figure moves): rerun too.
  write_base("planner: {time_limit_s: 9}\n");
  const Ran base = strider({"sweep", sweep_, "--out", path("o"), "--resume"});
  EXPECT_EQ(base.code, 0);
  EXPECT_EQ(base.err.substr(0, base.err.find("\n")),
            "sweep: 2 rows of results.csv made with another base run, set: or program version "
            "(fingerprint differs): running them again");
}

TEST_F(SweepFingerprint, MergeRefusesShardsOfDifferentSweeps) {
  ASSERT_EQ(strider({"sweep", sweep_, "--shard", "1/2", "--out", path("a")}).code, 0);
  write_sweep("{sim.trace: false, arch.l2.size_bytes: 524288}");
  ASSERT_EQ(strider({"sweep", sweep_, "--shard", "2/2", "--out", path("b")}).code, 0);
  const Ran m = strider({"sweep", "merge", path("a"), path("b")});
  EXPECT_EQ(m.code, 1);
  EXPECT_EQ(m.err, "strider sweep: " + path("b") + ": a shard of a different sweep than " +
                       path("a/sweep.json") +
                       ": set: differs ([sim.trace=false] vs [sim.trace=false, "
                       "arch.l2.size_bytes=524288])\n");
  // The results files alone (no sweep.json beside them): the rows' fingerprints still differ.
  fs::create_directories(path("ca"));
  fs::create_directories(path("cb"));
  fs::copy_file(path("a/results.csv"), path("ca/r.csv"));
  fs::copy_file(path("b/results.csv"), path("cb/r.csv"));
  const std::string ka = fingerprint_key(
                        read_results(path("a/results.csv"))
                            .rows.at(0)
                            .at(read_results(path("a/results.csv")).header.size() - 2)),
                    kb = fingerprint_key(
                        read_results(path("b/results.csv"))
                            .rows.at(1)
                            .at(read_results(path("b/results.csv")).header.size() - 2));
  const Ran c = strider({"sweep", "merge", path("ca/r.csv"), path("cb/r.csv")});
  EXPECT_EQ(c.code, 1);
  EXPECT_EQ(c.err, "strider sweep: " + path("cb/r.csv") +
                       ": point 1 was run from another base run, set: or program version than " +
                       path("ca/r.csv") + " (point 0) (fingerprint " + kb + " vs " + ka + ")\n");
  // The same sweep's shards still merge.
  write_sweep("{sim.trace: false}");
  ASSERT_EQ(strider({"sweep", sweep_, "--shard", "2/2", "--out", path("b2")}).code, 0);
  const Ran ok = strider({"sweep", "merge", path("a"), path("b2"), "--out", path("m")});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(read_results(path("m/results.csv")).rows.size(), 2u);
}

}  // namespace
}  // namespace strider
