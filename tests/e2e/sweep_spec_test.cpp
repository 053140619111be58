// SweepSpec expansion (ids, order, multi-key dimensions, zip, points), shard slices, and the
// errors a bad sweep file gives; plus results.csv crash safety (SweepResults) at unit level.
#include "tb/sweep_spec.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/arch/config_error.h"
#include "tb/sweep_command.h"
#include "tb/sweep_results.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& tag) {
  const fs::path p =
      fs::temp_directory_path() / ("strider_sweepspec_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string base_line() {
  return std::string("base: ") + STRIDER_SOURCE_DIR + "/configs/runs/default.yaml\n";
}

std::string load_error(const std::string& path) {
  try {
    SweepSpec::load(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SweepSpec, ExpandsPointsZipAndGridLastDimensionFastest) {
  const fs::path d = scratch("expand");
  const std::string f =
      write(d / "s.yaml", base_line() +
                              "set: {sim.trace: false}\n"
                              "points:\n"
                              "  - {planner.allocator: best_fit}\n"
                              "  - {planner.allocator: naive, sim.functional: true}\n"
                              "zip:\n"
                              "  arch.dram.bytes_per_cycle: [8, 16]\n"
                              "  arch.dram.latency_cycles: [40, 20]\n"
                              "grid:\n"
                              "  arch.l2.size_bytes: [65536, 131072, 262144]\n"
                              "  [arch.neurons.count, arch.l1.lines]: [[16, 16], [32, 32]]\n"
                              "  networks[0].input: [[32, 32]]\n"
                              "  sim.trace_name: ['true']\n");
  const SweepSpec s = SweepSpec::load(f);
  // 2 points x 2 zip steps x 3 sizes x 2 neuron counts x 1 x 1 = 24 points.
  ASSERT_EQ(s.points().size(), 24u);
  EXPECT_EQ(s.columns(), (std::vector<std::string>{
                             "planner.allocator", "sim.functional", "arch.dram.bytes_per_cycle",
                             "arch.dram.latency_cycles", "arch.l2.size_bytes", "arch.neurons.count",
                             "arch.l1.lines", "networks[0].input", "sim.trace_name"}));
  EXPECT_EQ(s.base(), std::string(STRIDER_SOURCE_DIR) + "/configs/runs/default.yaml");
  EXPECT_EQ(s.dir(), d.string());
  // id 0: every factor at its first step; the first point sets no sim.functional ("").
  EXPECT_EQ(s.points()[0].values, (std::vector<std::string>{"best_fit", "", "8", "40", "65536",
                                                            "16", "16", "[32, 32]", "\"true\""}));
  EXPECT_EQ(s.points()[0].sets,
            (std::vector<std::string>{
                "sim.trace=false", "planner.allocator=best_fit", "arch.dram.bytes_per_cycle=8",
                "arch.dram.latency_cycles=40", "arch.l2.size_bytes=65536", "arch.neurons.count=16",
                "arch.l1.lines=16", "networks[0].input=[32, 32]", "sim.trace_name=\"true\""}));
  // id 19 = point 1 (x12) + zip 1 (x6) + size 0 (x2) + neurons 1: 12 + 6 + 0 + 1 = 19.
  EXPECT_EQ(s.points()[19].id, 19u);
  EXPECT_EQ(s.points()[19].values, (std::vector<std::string>{"naive", "true", "16", "20", "65536",
                                                             "32", "32", "[32, 32]", "\"true\""}));
  fs::remove_all(d);
}

TEST(SweepSpec, ShardsAreDisjointAndCoverTheSweep) {
  for (size_t count : {1u, 7u, 24u}) {
    for (size_t n = 1; n <= 9; ++n) {
      std::multiset<size_t> all;
      for (size_t k = 1; k <= n; ++k) {
        for (size_t id : shard_ids(count, k, n)) {
          EXPECT_EQ(id % n, k - 1);
          all.insert(id);
        }
      }
      ASSERT_EQ(all.size(), count) << "count " << count << " n " << n;
      for (size_t id = 0; id < count; ++id) EXPECT_EQ(all.count(id), 1u);
    }
  }
  EXPECT_EQ(shard_ids(24, 2, 5), (std::vector<size_t>{1, 6, 11, 16, 21}));
  size_t k = 0, n = 0;
  parse_shard("3/4", k, n);
  EXPECT_EQ(k, 3u);
  EXPECT_EQ(n, 4u);
  for (const char* bad : {"0/4", "5/4", "3", "a/4", "3/", "/4", "-1/4"}) {
    try {
      parse_shard(bad, k, n);
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("--shard ") + bad + ": expected K/N with 1 <= K <= N");
    }
  }
}

TEST(SweepSpec, BadFilesNameFileLineAndKey) {
  const fs::path d = scratch("errors");
  const std::string f1 = write(d / "zip.yaml", base_line() +
                                                   "zip:\n"
                                                   "  arch.neurons.count: [16, 32]\n"
                                                   "  arch.l1.lines: [16, 32, 64]\n");
  EXPECT_EQ(load_error(f1),
            f1 + ":4: zip.arch.l1.lines: has 3 values but zip.arch.neurons.count has 2; "
                 "zip lists step together and need one length");
  const std::string f2 =
      write(d / "multi.yaml", base_line() +
                                  "grid:\n"
                                  "  [arch.neurons.count, arch.l1.lines]: [[16, 16], [32]]\n"
                                  "  arch.l2.size_bytes: []\n"
                                  "colour: red\n");
  EXPECT_EQ(load_error(f2),
            f2 + ":5: colour: unknown key (expected base, set, grid, zip, points or max_points)\n" + f2 +
                ":3: grid.[arch.neurons.count, arch.l1.lines]: expected a list of 2 values (one "
                "per key), got [32]\n" +
                f2 + ":4: grid.arch.l2.size_bytes: expected a non-empty list of values");
  const std::string f3 =
      write(d / "nobase.yaml", "base: missing_run.yaml\ngrid: {arch.l1.shift_stride: [true]}\n");
  EXPECT_EQ(load_error(f3), f3 + ":1: base: file not found: " + (d / "missing_run.yaml").string());
  const std::string f4 =
      write(d / "twice.yaml", base_line() +
                                  "points: [{arch.l1.shift_stride: true}]\n"
                                  "grid: {arch.l1.shift_stride: [true, false]}\n");
  EXPECT_EQ(
      load_error(f4),
      f4 + ":1: arch.l1.shift_stride: is varied twice (in more than one of points, zip and grid)");
  fs::remove_all(d);
}

TEST(SweepResults, ResumeDropsATornRowAndKeepsCompleteOnes) {
  const fs::path d = scratch("results");
  const std::string path = (d / "results.csv").string();
  const std::vector<std::string> header = {"point", "k", "cycles", "error"};
  {
    SweepResults r(path, header, false);
    r.append({"2", "a,b", "100", ""});
    r.append({"0", "x", "", "exit status 1: bad \"value\""});
  }
  EXPECT_EQ(slurp(path),
            "point,k,cycles,error\n2,\"a,b\",100,\n0,x,,\"exit status 1: bad \"\"value\"\"\"\n");
  // A kill in the middle of a row: append half a line.
  std::ofstream(path, std::ios::app | std::ios::binary) << "1,y,12";
  try {
    SweepResults again(path, header, false);
    ADD_FAILURE() << "reopened without --resume";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              path + " already holds 2 results; use --resume to continue it or another --out");
  }
  try {
    SweepResults other(path, {"point", "j", "cycles", "error"}, true);
    ADD_FAILURE() << "opened with another header";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path +
                                         ": its header differs from this sweep's columns "
                                         "(point,j,cycles,error); it belongs to another sweep");
  }
  {
    SweepResults r(path, header, true);
    ASSERT_EQ(r.done().size(), 2u);
    EXPECT_EQ(r.done().at(2), (std::vector<std::string>{"2", "a,b", "100", ""}));
    EXPECT_EQ(r.done().at(0)[3], "exit status 1: bad \"value\"");
    r.append({"1", "y", "123", ""});
  }
  // The torn "1,y,12" is gone; the complete rows are kept once each.
  EXPECT_EQ(slurp(path),
            "point,k,cycles,error\n2,\"a,b\",100,\n0,x,,\"exit status 1: bad "
            "\"\"value\"\"\"\n1,y,123,\n");
  const ResultsTable t = read_results(path);
  EXPECT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.partial_bytes, 0u);
  EXPECT_EQ(csv::split("a,\"b,\"\"c\"\"\",,d"),
            (std::vector<std::string>{"a", "b,\"c\"", "", "d"}));
  fs::remove_all(d);
}

}  // namespace
}  // namespace strider
