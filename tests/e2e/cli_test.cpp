// The command line (tb/cli_args.*, tb/dispatch.cpp): every subcommand's --help lists exactly its
// options, each described, on stdout; --version; exit codes 0/1/2; the version in summary.json;
// sim.detail=layers; a layer name with a comma quoted in every CSV report (issue 17, defect 13).
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "core/common/csv.h"
#include "tests/e2e/report_util.h"

namespace strider::report_test {
namespace {

// The options of a help text: the long names of the lines under "options:", each of which must
// carry a description.
std::set<std::string> listed_options(const std::string& help) {
  std::set<std::string> names;
  std::istringstream in(help.substr(help.find("\noptions:\n")));
  std::string line;
  const std::regex option(R"(^  (?:-[a-z] \[ )?--([a-z-]+)(?: \])?(?: \S+)?  +(\S.*)$)");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, option)) names.insert(m[1]);
  }
  return names;
}

TEST(Cli, EverySubcommandHelpListsItsOptions) {
  struct Case {
    Args args;
    std::set<std::string> options;
  };
  const std::vector<Case> cases = {
      {{"run", "--help"}, {"help", "out", "set", "dump-tensors", "arch"}},
      {{"plan", "--help"}, {"help", "out", "set", "emit", "text", "check"}},
      {{"pack", "-h"}, {"help", "capacity", "allocator", "time-limit", "seed", "out", "json"}},
      {{"inspect", "--help"}, {"help", "json", "input", "batch"}},
      {{"sweep", "--help"},
       {"help", "jobs", "out", "resume", "shard", "timeout", "list", "emit-slurm", "shards",
        "sbatch"}},
      {{"sweep", "merge", "--help"}, {"help", "out"}},
      {{"regress", "--help"}, {"help", "update", "dir", "out", "case", "jobs"}},
      {{"scalesim", "--help"}, {"help", "arch", "out", "set"}},
      {{"help", "run"}, {"help", "out", "set", "dump-tensors", "arch"}},
  };
  for (const Case& c : cases) {
    const Outcome o = call(c.args);
    EXPECT_EQ(o.code, 0) << c.args[0];
    EXPECT_EQ(o.err, "") << c.args[0];
    EXPECT_EQ(o.out.rfind("usage: strider " + (c.args[0] == "help" ? c.args[1] : c.args[0]), 0), 0u)
        << o.out;
    EXPECT_EQ(listed_options(o.out), c.options) << o.out;
  }
  // -j is the short form of --jobs.
  EXPECT_NE(call({"sweep", "--help"}).out.find("  -j [ --jobs ] N "), std::string::npos);
}

TEST(Cli, TopLevelHelpAndVersion) {
  Outcome o = call({"--help"});
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(o.err, "");
  for (const char* cmd : {"run", "plan", "pack", "inspect", "sweep", "regress", "scalesim"}) {
    EXPECT_NE(o.out.find(std::string("\n  ") + cmd + " "), std::string::npos) << cmd;
  }
  // `strider help` alone is `strider --help` (it used to be refused as an unknown command).
  const Outcome help = call({"help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_EQ(help.out, o.out);
  EXPECT_EQ(help.err, "");
  o = call({});
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err.rfind("usage: strider COMMAND", 0), 0u);
  o = call({"--version"});
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(o.out, "strider " STRIDER_VERSION " (git " STRIDER_GIT_REVISION ")\n");
  EXPECT_EQ(std::string(STRIDER_VERSION), "0.1");  // project(strider VERSION 0.1)
  EXPECT_TRUE(std::regex_match(std::string(STRIDER_GIT_REVISION), std::regex("[0-9a-f]{12}|unknown")));
}

TEST(Cli, ExitCodes) {
  Outcome o = call({"run", kDefaultRun, "--fast"});
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err.rfind("strider run: unknown option '--fast'\nusage: strider run ", 0), 0u) << o.err;
  o = call({"run", kDefaultRun, "--out"});
  EXPECT_EQ(o.code, 2);
  o = call({"pack", "x.csv", "--seed", "-3"});
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err.rfind("strider pack: --seed: expected an unsigned integer (at most 18446744073709551615), got '-3'\n", 0), 0u)
      << o.err;
  o = call({"sweep", std::string(STRIDER_SOURCE_DIR) + "/configs/sweeps/l2_size.yaml", "-j", "0"});
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err.rfind("strider sweep: -j 0: expected a whole number from 1 to 1024\n", 0), 0u)
      << o.err;
  o = call({"run", "/nonexistent/run.yaml"});
  EXPECT_EQ(o.code, 1);
  o = call({"frobnicate"});
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err.rfind("strider: unknown command 'frobnicate'\n", 0), 0u);
}

TEST(Cli, SummaryCarriesTheVersionAndDetailLayersSkipsPerDescriptorFiles) {
  Scratch dir("cli_detail");
  run_strider(dir.str(), {"sim.detail=layers"});
  const nlohmann::json j = read_json(dir.file("summary.json"));
  EXPECT_EQ(j["version"], STRIDER_VERSION);
  EXPECT_EQ(j["git_revision"], STRIDER_GIT_REVISION);
  EXPECT_TRUE(fs::exists(dir.file("layers.csv")));
  EXPECT_TRUE(fs::exists(dir.file("trace.json")));
  EXPECT_FALSE(fs::exists(dir.file("descriptors.csv")));
  EXPECT_FALSE(fs::exists(dir.file("occupancy.csv")));
}

// `strider regress` without --dir, run from a directory without configs/: it finds the suite
// next to the program (build/ -> ../configs/regression).
TEST(Cli, RegressFindsItsSuiteFromAnyDirectory) {
  const fs::path here = fs::current_path();
  fs::current_path(fs::temp_directory_path());
  const Outcome o = call({"regress", "--case", "no_such_case"});
  fs::current_path(here);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err.rfind("strider regress: --case no_such_case: no such case in " +
                            fs::path(STRIDER_SOURCE_DIR).lexically_normal().string() +
                            "/configs/regression/suite.yaml\n",
                        0),
            0u)
      << o.err;
}

// A layer named "conv,1" (issue 17, defect 13): its rows are quoted, and read back whole.
TEST(Cli, LayerNameWithACommaIsQuoted) {
  Scratch dir("cli_comma");
  fs::create_directories(dir.str());
  std::string net = slurp(std::string(STRIDER_SOURCE_DIR) + "/configs/networks/tiny_cnn.yaml");
  net = std::regex_replace(net, std::regex("\\bconv1\\b"), "\"conv,1\"");
  std::ofstream(dir.file("net.yaml")) << net;
  std::ofstream(dir.file("run.yaml")) << "arch: " STRIDER_SOURCE_DIR "/configs/arch/seed.yaml\n"
                                      << "networks: [{path: " << dir.file("net.yaml") << "}]\n";
  run_strider(dir.file("out"), {}, dir.file("run.yaml"));
  const std::string layers = slurp(dir.file("out/layers.csv"));
  EXPECT_NE(layers.find("\n\"conv,1\",conv,"), std::string::npos) << layers;
  std::istringstream in(layers);
  csv::Reader reader(in);
  std::vector<std::string> header, row;
  ASSERT_TRUE(reader.next(header));
  size_t found = 0;
  while (reader.next(row)) {
    EXPECT_EQ(row.size(), header.size()) << reader.text();
    found += row[0] == "conv,1" ? 1 : 0;
  }
  EXPECT_EQ(found, 1u);
  const std::string descriptors = slurp(dir.file("out/descriptors.csv"));
  EXPECT_NE(descriptors.find(",\"conv,1\","), std::string::npos);
}

}  // namespace
}  // namespace strider::report_test

namespace strider::report_test {
namespace {

// `strider pack --json`: the report's figures as numbers (the Python module reads them).
TEST(Cli, PackJsonReportsNumbers) {
  Scratch dir("pack_json");
  fs::create_directories(dir.str());
  {
    std::ofstream f(dir.file("p.csv"));
    // a [0,2) 64 B and b [1,3) 32 B overlap; c [2,4) 64 B reuses a's space: peak 64 + 32 = 96.
    f << "id,lower,upper,size\na,0,2,64\nb,1,3,32\nc,2,4,64\n";
  }
  const Outcome o = call({"pack", dir.file("p.csv"), "--allocator", "greedy_by_size", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["input"], dir.file("p.csv"));
  EXPECT_EQ(j["buffers"], 3);
  EXPECT_EQ(j["lower_bound"], 96);
  EXPECT_EQ(j["height"], 96);
  EXPECT_EQ(j["gap_percent"], 0.0);
  EXPECT_TRUE(j["capacity"].is_null());  // unbounded
  EXPECT_EQ(j["allocator"], "greedy_by_size");
  EXPECT_EQ(j["optimal"], true);
  EXPECT_EQ(j["proven_by_search"], false);
  EXPECT_TRUE(j["seconds"].is_number());
  EXPECT_TRUE(j["solution"].is_null());
}

}  // namespace
}  // namespace strider::report_test

namespace strider::report_test {
namespace {

// The console of a run: each stage's time, and in functional mode what the check compared.
TEST(Cli, RunPrintsStageTimesAndTheFunctionalCheck) {
  Scratch dir("console");
  const Outcome o =
      call({"run", kDefaultRun, "--out", dir.str(), "--set", "sim.functional=true"});
  ASSERT_EQ(o.code, 0) << o.err;
  // tiny_cnn: 7 compute layers checked bit-exactly (the input load is not a layer output; add1
  // is fused into conv2b, pool1 into conv1);
  // 45.9 dB as the fidelity table of docs/figures.md (36.2 before uint8 activations and the
  // global average pool's own scale).
  EXPECT_NE(o.out.find("\n  functional check 7 layers checked against the reference, 0 mismatches, "
                       "output SQNR 45.9 dB against the float network\n"),
            std::string::npos)
      << o.out;
  // Each stage's time (tb/stage_progress.h), calibration in functional mode only.
  EXPECT_TRUE(std::regex_search(
      o.out, std::regex("\n  stages           import [0-9]+\\.[0-9]{3} s, calibration [0-9]+\\.[0-9]{3} s, "
                        "planning [0-9]+\\.[0-9]{3} s, simulate [0-9]+\\.[0-9]{3} s, reports "
                        "[0-9]+\\.[0-9]{3} s\n")))
      << o.out;
}

TEST(Cli, TimingRunPrintsNoFunctionalCheck) {
  Scratch dir("console_timing");
  const Outcome o = call({"run", kDefaultRun, "--out", dir.str()});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.find("functional check"), std::string::npos) << o.out;  // nothing was checked
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\n  stages           import [0-9]+\\.[0-9]{3} s, "
                                                  "planning [0-9]+\\.[0-9]{3} s, simulate ")))
      << o.out;  // no calibration in timing mode
}

}  // namespace
}  // namespace strider::report_test
