// `strider sweep` end to end: the tests run the strider program (built next to this binary) on
// a small tiny_cnn sweep of 8 points: a full run with -j 2 and a plot of it, resume after a torn
// row and after SIGTERM, the per-directory lock, failed points, shards merged back together, and
// the emitted Slurm scripts run locally with bash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tb/sweep_results.h"
#include "tests/e2e/program_run.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) { return slurp_file(p); }

Ran run(const std::string& program, const std::vector<std::string>& args, const fs::path& dir,
        const std::vector<std::string>& env = {}) {
  return run_program(program, args, dir, env);
}

const std::string kStrider = std::string(STRIDER_BINARY_DIR) + "/strider";

class SweepRun : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kStrider)) << kStrider << " missing: build the strider target first";
    dir_ = fs::temp_directory_path() /
           ("strider_sweeprun_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // 8 points: 2 L2 sizes x 2 neuron counts (with the line count) x shift stride on/off.
    sweep_ = (dir_ / "tiny.yaml").string();
    std::ofstream(sweep_) << "base: " << STRIDER_SOURCE_DIR << "/configs/runs/default.yaml\n"
                          << "set: {sim.trace: false}\n"
                          << "grid:\n"
                          << "  arch.l2.size_bytes: [131072, 1048576]\n"
                          << "  [arch.neurons.count, arch.l1.lines]: [[16, 16], [64, 64]]\n"
                          << "  arch.l1.shift_stride: [true, false]\n";
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
  }
  Ran strider(const std::vector<std::string>& args) { return run(kStrider, args, dir_); }
  std::string out(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
  std::string sweep_;
};

size_t column(const ResultsTable& t, const std::string& name) {
  for (size_t i = 0; i < t.header.size(); ++i)
    if (t.header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST_F(SweepRun, RunsEveryPointThenResumesAfterATornRow) {
  const Ran first = strider({"sweep", sweep_, "-j", "2", "--out", out("full")});
  ASSERT_EQ(first.code, 0) << first.err;
  const ResultsTable full = read_results(out("full") + "/results.csv");
  ASSERT_EQ(full.rows.size(), 8u);
  const size_t l2 = column(full, "arch.l2.size_bytes"),
               neurons = column(full, "arch.neurons.count"),
               shift = column(full, "arch.l1.shift_stride"), cycles = column(full, "cycles"),
               error = column(full, "error");
  EXPECT_EQ(full.header[0], "point");
  EXPECT_EQ(full.header.back(), "error");
  // Point 5 = l2 step 1 (x4) + neurons step 0 (x2) + shift step 1.
  EXPECT_EQ(full.rows.at(5)[l2], "1048576");
  EXPECT_EQ(full.rows.at(5)[neurons], "16");
  EXPECT_EQ(full.rows.at(5)[shift], "false");
  for (const auto& kv : full.rows) {
    EXPECT_EQ(kv.second[error], "") << "point " << kv.first;
    EXPECT_NE(kv.second[cycles], "") << "point " << kv.first;
    EXPECT_TRUE(fs::exists(out("full") + "/points/" + std::to_string(kv.first) + "/summary.json"));
  }
  // Shift stride off costs line-buffer writes: more cycles at the same size and neurons.
  EXPECT_GT(std::stoull(full.rows.at(1)[cycles]), std::stoull(full.rows.at(0)[cycles]));

  // The plot script draws a PNG from it (matplotlib, Agg) and names a missing column.
  const std::string plot = std::string(STRIDER_SOURCE_DIR) + "/scripts/plot_sweep.py";
  const Ran png = run(
      "/usr/bin/python3",
      {plot, out("full") + "/results.csv", "--x", "arch.l2.size_bytes", "--y", "cycles", "--hue",
       "arch.neurons.count", "--where", "arch.l1.shift_stride=true", "--out", out("c.png")},
      dir_);
  ASSERT_EQ(png.code, 0) << png.err;
  EXPECT_EQ(png.out, out("c.png") + "\n");
  EXPECT_EQ(slurp(out("c.png")).substr(0, 8), "\x89PNG\r\n\x1a\n");
  const Ran bad = run("/usr/bin/python3",
                      {plot, out("full") + "/results.csv", "--x", "nope", "--y", "cycles"}, dir_);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err.rfind("plot_sweep.py: " + out("full") +
                              "/results.csv: no column 'nope'; columns: point, "
                              "arch.l2.size_bytes, arch.neurons.count, arch.l1.lines, "
                              "arch.l1.shift_stride, cycles, ",
                          0),
            0u)
      << bad.err;

  // Running again without --resume refuses to mix two sweeps into one file.
  const Ran again = strider({"sweep", sweep_, "--out", out("full")});
  EXPECT_EQ(again.code, 1);
  EXPECT_EQ(
      again.err,
      "strider sweep: " + out("full") +
          "/results.csv already holds 8 results; use --resume to continue it or another --out\n");

  // Simulated kill: keep the header and 6 rows, then half of the 7th row.
  const std::string text = slurp(out("full") + "/results.csv");
  size_t cut = 0;
  for (int line = 0; line < 7; ++line) cut = text.find('\n', cut) + 1;
  const size_t seventh_end = text.find('\n', cut);
  std::ofstream(out("full") + "/results.csv", std::ios::binary | std::ios::trunc)
      << text.substr(0, cut + (seventh_end - cut) / 2);
  const Ran resumed = strider({"sweep", sweep_, "-j", "2", "--out", out("full"), "--resume"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(": 8 points, 6 already in results.csv, running 2 with -j 2\n"),
            std::string::npos)
      << resumed.err;
  const std::string after = slurp(out("full") + "/results.csv");
  EXPECT_EQ(std::count(after.begin(), after.end(), '\n'), 9);         // header + exactly 8 rows
  const ResultsTable t = read_results(out("full") + "/results.csv");  // throws on a duplicate id
  ASSERT_EQ(t.rows.size(), 8u);
  for (const auto& kv : t.rows)
    EXPECT_EQ(kv.second[cycles], full.rows.at(kv.first)[cycles]) << kv.first;
  EXPECT_EQ(resumed.out.rfind("8 of 8 points in " + out("full") + "/results.csv; ran 2 in ", 0), 0u)
      << resumed.out;
}

TEST_F(SweepRun, StopsOnSigtermAndResumesToExactlyEveryPoint) {
  std::ofstream(sweep_)
      << "base: " << STRIDER_SOURCE_DIR << "/configs/runs/default.yaml\n"
      << "set: {sim.trace: false}\n"
      << "grid:\n  arch.l2.size_bytes: [131072, 262144, 524288, 1048576, 2097152]\n"
      << "  [arch.neurons.count, arch.l1.lines]: [[16, 16], [64, 64]]\n"
      << "  arch.l1.shift_stride: [true, false]\n";
  const std::string results = out("s") + "/results.csv";
  std::vector<std::string> words = {kStrider, "sweep", sweep_, "--out", out("s")};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!std::freopen(out("stop_stderr.txt").c_str(), "w", stderr)) _exit(125);
    ::execv(kStrider.c_str(), argv.data());
    _exit(127);
  }
  // Stop it once the first point has its row (20 points of ~50 ms each remain to run).
  auto lines = [&] {
    const std::string t = slurp(results);
    return std::count(t.begin(), t.end(), '\n');
  };
  while (lines() < 2) ::usleep(2000);
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string err = slurp(out("stop_stderr.txt"));
  EXPECT_NE(err.find("strider sweep: interrupted by Terminated with "), std::string::npos) << err;
  const size_t kept = read_results(results).rows.size();
  EXPECT_GE(kept, 1u);
  EXPECT_LT(kept, 20u);
  const Ran resumed = strider({"sweep", sweep_, "--out", out("s"), "--resume", "-j", "2"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const std::string text = slurp(results);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 21);  // header + 20 rows
  EXPECT_EQ(read_results(results).rows.size(), 20u);
}

TEST_F(SweepRun, OneSweepPerDirectoryAtATime) {
  fs::create_directories(out("busy"));
  const int fd = ::open((out("busy") + "/.sweep.lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const Ran r = strider({"sweep", sweep_, "--out", out("busy")});
  ::close(fd);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "strider sweep: " + out("busy") + " is in use by another strider sweep (lock " +
                       out("busy") + "/.sweep.lock)\n");
}

TEST_F(SweepRun, FailedPointGetsItsErrorRowAndTheSweepGoesOn) {
  std::ofstream(sweep_)
      << "base: " << STRIDER_SOURCE_DIR << "/configs/runs/default.yaml\n"
      << "points:\n  - {planner.allocator: bogus}\n  - {planner.allocator: best_fit}\n"
      << "  - {arch.l2.banks: 6}\n";
  const Ran r = strider({"sweep", sweep_, "--out", out("f")});
  EXPECT_EQ(r.code, 1);
  const ResultsTable t = read_results(out("f") + "/results.csv");
  ASSERT_EQ(t.rows.size(), 3u);
  const size_t error = column(t, "error"), cycles = column(t, "cycles");
  EXPECT_EQ(t.rows.at(0)[error].rfind("exit status 1: --set planner.allocator=bogus: expected one of auto, naive, ", 0), 0u)
      << t.rows.at(0)[error];
  EXPECT_EQ(t.rows.at(0)[cycles], "");
  EXPECT_EQ(t.rows.at(1)[error], "");
  // The config check (banks a power of two) fails point 2 before it simulates. (It used
  // arch.neurons.count alone, which l1.lines now follows: a valid point.)
  EXPECT_EQ(t.rows.at(2)[error].rfind("exit status 1: ", 0), 0u);
  EXPECT_NE(t.rows.at(2)[error].find("arch.l2.banks"), std::string::npos)
      << t.rows.at(2)[error];
  EXPECT_NE(
      r.out.find("3 of 3 points in " + out("f") + "/results.csv, 2 failed (see the error column)"),
      std::string::npos)
      << r.out;
}

TEST_F(SweepRun, ShardsMergeBackIntoTheFullSweep) {
  ASSERT_EQ(strider({"sweep", sweep_, "-j", "2", "--out", out("full")}).code, 0);
  const ResultsTable full = read_results(out("full") + "/results.csv");
  std::vector<std::string> merge = {"sweep", "merge"};
  for (int k = 1; k <= 3; ++k) {
    const std::string d = out("shard" + std::to_string(k));
    const Ran r = strider({"sweep", sweep_, "--shard", std::to_string(k) + "/3", "--out", d});
    ASSERT_EQ(r.code, 0) << r.err;
    const ResultsTable s = read_results(d + "/results.csv");
    std::vector<size_t> ids;
    for (const auto& kv : s.rows) ids.push_back(kv.first);
    // Round-robin: shard k holds the points i with i % 3 == k - 1.
    const std::vector<std::vector<size_t>> want = {{0, 3, 6}, {1, 4, 7}, {2, 5}};
    EXPECT_EQ(ids, want[k - 1]);
    merge.push_back(d);
  }
  merge.push_back(out("shard1"));  // a repeated input: its rows are duplicates and dropped
  merge.push_back("--out");
  merge.push_back(out("merged"));
  const Ran m = strider(merge);
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(m.out,
            "merged 8 rows into " + out("merged") + "/results.csv (3 duplicate rows dropped)\n");
  const ResultsTable merged = read_results(out("merged") + "/results.csv");
  EXPECT_EQ(merged.header, full.header);
  ASSERT_EQ(merged.rows.size(), 8u);
  const size_t cycles = column(full, "cycles");
  for (const auto& kv : merged.rows) EXPECT_EQ(kv.second[cycles], full.rows.at(kv.first)[cycles]);
  // Merging only two shards names the points the third one would have run.
  const Ran partial = strider({"sweep", "merge", out("shard1"), out("shard2")});
  EXPECT_EQ(partial.code, 1);
  EXPECT_EQ(partial.err, "strider sweep merge: 2 of 8 points have no row: 2 5\n");
}

TEST_F(SweepRun, SlurmScriptsRunLocally) {
  const std::string scripts = out("slurm"), results = out("cluster");
  const Ran e = strider({"sweep", sweep_, "--emit-slurm", scripts, "--shards", "3", "--out",
                         results, "--sbatch", "--partition=cpu"});
  ASSERT_EQ(e.code, 0) << e.err;
  const std::string array = slurp(scripts + "/sweep_array.sbatch");
  EXPECT_NE(array.find("#SBATCH --array=1-3\n"), std::string::npos) << array;
  EXPECT_NE(array.find("#SBATCH --partition=cpu\n"), std::string::npos) << array;
  EXPECT_NE(array.find("' sweep '" + sweep_ + "' --shard \"$K/3\" --out '" + results +
                       "/shards'/\"$K\" --resume -j 1\n"),
            std::string::npos)
      << array;
  EXPECT_TRUE(fs::exists(scripts + "/submit.sh"));
  // What Slurm would do: each array task with its SLURM_ARRAY_TASK_ID, then the merge.
  for (int k = 1; k <= 3; ++k) {
    const Ran t = run("bash", {scripts + "/sweep_array.sbatch"}, dir_,
                      {"SLURM_ARRAY_TASK_ID=" + std::to_string(k)});
    ASSERT_EQ(t.code, 0) << t.err;
  }
  const Ran m = run("bash", {scripts + "/merge.sbatch"}, dir_);
  ASSERT_EQ(m.code, 0) << m.err;
  const std::string text = slurp(results + "/results.csv");
  const ResultsTable t = read_results(results + "/results.csv");
  ASSERT_EQ(t.rows.size(), 8u);
  // Sorted by point id: row i of the file is point i.
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  for (size_t i = 0; std::getline(lines, line); ++i)
    EXPECT_EQ(line.substr(0, line.find(',')), std::to_string(i));
}

}  // namespace
}  // namespace strider
