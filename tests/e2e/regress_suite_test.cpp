// `strider regress` end to end on a temporary copy of a regression case (the single-conv case
// of configs/regression on the tiny arch): --update writes goldens that then pass; changing one
// latency (DRAM access latency 20 -> 21 cycles) makes regress exit 1 and name the moved figures
// with golden, now and delta.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/program_run.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) { return slurp_file(p); }

Ran strider(const std::vector<std::string>& args, const fs::path& dir) {
  return run_program(std::string(STRIDER_BINARY_DIR) + "/strider", args, dir);
}

// The case conv3x3_tiny_shift_on of configs/regression/suite.yaml with absolute paths, plus
// `extra` set entries.
void write_suite(const fs::path& dir, const std::string& extra) {
  const std::string src = STRIDER_SOURCE_DIR;
  std::ofstream(dir / "suite.yaml")
      << "cases:\n"
      << "  - name: conv3x3_tiny\n"
      << "    run: " << src << "/configs/runs/default.yaml\n"
      << "    set: {arch.file: " << src << "/configs/arch/tiny.yaml,\n"
      << "          \"networks[0].path\": " << src << "/configs/regression/networks/conv3x3.yaml,\n"
      << "          sim.trace: false" << extra << "}\n";
}

// The fields of the table row `case figure golden now delta` for `figure`, or {}.
std::vector<std::string> table_row(const std::string& out, const std::string& figure) {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.size() == 5 && w[0] == "conv3x3_tiny" && w[1] == figure) return w;
  }
  return {};
}

TEST(RegressSuite, ALatencyChangeFailsAndNamesTheMovedFigures) {
  const fs::path dir =
      fs::temp_directory_path() / ("strider_regress_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "suite");
  const std::string suite = (dir / "suite").string(), out = (dir / "out").string();
  write_suite(suite, "");

  const Ran missing = strider({"regress", "--dir", suite, "--out", out}, dir);
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.out.find("conv3x3_tiny                 NEW      no golden figures"),
            std::string::npos)
      << missing.out;

  const Ran update = strider({"regress", "--dir", suite, "--out", out, "--update"}, dir);
  ASSERT_EQ(update.code, 0) << update.out << update.err;
  const std::string golden = slurp(dir / "suite" / "golden.yaml");
  const nlohmann::json before =
      nlohmann::json::parse(slurp(dir / "out" / "conv3x3_tiny" / "summary.json"));
  const std::string golden_cycles = std::to_string(before["cycles"].get<uint64_t>());
  EXPECT_NE(golden.find("conv3x3_tiny:\n  cycles: " + golden_cycles + "\n"), std::string::npos)
      << golden;

  const Ran pass = strider({"regress", "--dir", suite, "--out", out}, dir);
  EXPECT_EQ(pass.code, 0) << pass.out;
  EXPECT_NE(pass.out.find("PASS: 1 ok, 0 moved, 0 failed\n"), std::string::npos) << pass.out;

  // The tiny arch's DRAM latency is 20 cycles; one more cycle per access moves the timing.
  write_suite(suite, ", arch.dram.latency_cycles: 21");
  const Ran moved = strider({"regress", "--dir", suite, "--out", out}, dir);
  EXPECT_EQ(moved.code, 1);
  const nlohmann::json after =
      nlohmann::json::parse(slurp(dir / "out" / "conv3x3_tiny" / "summary.json"));
  const uint64_t now = after["cycles"].get<uint64_t>();
  ASSERT_GT(now, before["cycles"].get<uint64_t>());
  const std::vector<std::string> row = table_row(moved.out, "cycles");
  ASSERT_EQ(row.size(), 5u) << moved.out;
  EXPECT_EQ(row[2], golden_cycles);
  EXPECT_EQ(row[3], std::to_string(now));
  EXPECT_EQ(row[4], "+" + std::to_string(now - before["cycles"].get<uint64_t>()));
  // The input load (a DRAM read) takes one more cycle; the conv's span starts at its first tile,
  // after its weights arrived, so it does not move.
  EXPECT_EQ(table_row(moved.out, "layer.input:x.cycles").size(), 5u) << moved.out;
  EXPECT_TRUE(table_row(moved.out, "layer.conv.cycles").empty()) << moved.out;
  EXPECT_TRUE(table_row(moved.out, "macs").empty()) << "MACs do not depend on a latency";
  EXPECT_NE(moved.out.find("conv3x3_tiny                 MOVED    "), std::string::npos)
      << moved.out;
  EXPECT_NE(moved.out.find("FAIL: 0 ok, 1 moved, 0 failed\n"), std::string::npos) << moved.out;
  // The goldens are untouched until --update.
  EXPECT_EQ(slurp(dir / "suite" / "golden.yaml"), golden);
  fs::remove_all(dir);
}

TEST(RegressSuite, BadSuiteNamesFileLineAndKey) {
  const fs::path dir =
      fs::temp_directory_path() / ("strider_regress_bad_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "suite.yaml")
      << "cases:\n  - {name: a, run: nowhere.yaml, colour: red}\n  - {run: x}\n";
  const Ran r = strider({"regress", "--dir", dir.string(), "--out", (dir / "out").string()}, dir);
  EXPECT_EQ(r.code, 1);
  const std::string f = (dir / "suite.yaml").string();
  EXPECT_EQ(r.err, "strider regress: " + f +
                       ":2: cases[0].colour: unknown key (expected name, run or set)\n" + f +
                       ":2: cases[0].run: file not found: " + (dir / "nowhere.yaml").string() +
                       "\n" + f + ":3: cases[1].name: expected a case name without / or spaces\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace strider
