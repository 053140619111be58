// Hostile and careless inputs (issue 17): each defect the issue lists, with its input under
// tests/data/hostile/ (or made here from a planned list), and the exact error or behaviour.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/arch/config_error.h"
#include "core/arch/config_loader.h"
#include "core/arch/yaml_limits.h"
#include "core/common/sha256.h"
#include "core/contract/descriptor.h"
#include "tb/commands.h"
#include "tb/sweep_results.h"
#include "tb/version.h"
#include "tests/e2e/report_util.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

const std::string kDir = STRIDER_SOURCE_DIR;
const std::string kData = kDir + "/tests/data/hostile/";
const std::string kDefault = kDir + "/configs/runs/default.yaml";
const std::string kSeed = kDir + "/configs/arch/seed.yaml";

struct Result {
  int code = 0;
  std::string out, err;
};

Result strider(const Args& args) {
  std::ostringstream out, err;
  Result r;
  r.code = dispatch(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A fresh directory under /tmp (created), removed at the end of the test.
struct Scratch : report_test::Scratch {
  explicit Scratch(const std::string& tag) : report_test::Scratch("hostile_" + tag) {
    fs::create_directories(str());
  }
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `strider run` in a child process (SystemC elaborates once per process); its exit code.
int run_child(const Args& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::ostringstream out, err;
    const int rc = dispatch(args, out, err);
    std::fflush(nullptr);
    ::_exit(rc);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

TEST(HostileInputs, ClockFrequencyOutsideOneKilohertzToHundredGigahertzIsRefused) {
  for (const char* f : {"1e9", "1e-9", "1e-300"}) {
    const Result r = strider({"run", kDefault, "--set", std::string("arch.clock.frequency_mhz=") + f});
    EXPECT_EQ(r.code, 1);
    std::ostringstream shown;
    shown << std::stod(f);
    EXPECT_EQ(r.err, std::string("--set arch.clock.frequency_mhz=") + f +
                         ": must be between 0.001 (1 kHz) and 100000 (100 GHz), got " + shown.str() +
                         "\n");
  }
}

TEST(HostileInputs, LargestWatchdogIsNeverAFalseDeadlock) {
  Scratch s("watchdog");
  const Result r = strider({"run", kDefault, "--out", s.file("r"), "--set",
                            "sim.watchdog_cycles=18446744073709551615", "--set", "sim.trace=false"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  cycles           6282  "), std::string::npos) << r.out;  // as without --set
}

TEST(HostileInputs, AliasBombsAreRefusedQuickly) {
  try {
    load_arch(kData + "alias_bomb_arch.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.errors().at(0), kData + "alias_bomb_arch.yaml:2: e[7][8][8][8][9]: more than "
                                        "100000 values once aliases are expanded (an alias "
                                        "bomb?); the limit of an arch or run file is kMaxNodes "
                                        "in core/arch/config_node.cpp");
  }
  const Result r = strider({"sweep", kData + "alias_bomb_sweep.yaml", "--out", "/nonexistent/x"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "strider sweep: " + yaml_alias_limit_message(kData + "alias_bomb_sweep.yaml") +
                       "\n");
  EXPECT_EQ(yaml_alias_limit_message("s.yaml"),
            "s.yaml: its aliases expand to more than 100000 further values (an alias bomb?); the "
            "limit on values added by aliases is kMaxYamlAliasValues in core/arch/yaml_limits.h: "
            "write the values out or raise it and rebuild");
}

TEST(HostileInputs, InputsThatAreNotRegularFilesAreRefused) {
  Result r = strider({"run", kData + "urandom_arch_run.yaml"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "/dev/urandom: is a character device, expected a regular file\n");
  r = strider({"pack", "/dev/zero"});
  EXPECT_EQ(r.err, "strider pack: /dev/zero: is a character device, expected a regular file\n");
  r = strider({"pack", kDir + "/tests/data"});
  EXPECT_EQ(r.err, "strider pack: " + kDir +
                       "/tests/data: is a directory, expected a regular file\n");
}

TEST(HostileInputs, PackSaysWhatDoesNotFit) {
  // Both 600-byte buffers are live at time 1: 1200 bytes against a capacity of 1000.
  const Result r = strider({"pack", kData + "two_buffers_1000.csv", "--capacity", "1000"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "strider pack: does not fit: needs 1200 bytes, capacity 1000 (2 buffers live at time 1)\n");
}

TEST(HostileInputs, HugeSweepIsRefusedBeforeItsPointsExist) {
  const Result r = strider({"sweep", kData + "huge_grid_sweep.yaml", "--out", "/nonexistent/x"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "strider sweep: " + kData + "huge_grid_sweep.yaml: the sweep has 10000000000 points (10 x 10 x 10 x "
                           "10 x 10 x 10 x 10 x 10 x 10 x 10), over the limit of 100000 (set "
                           "max_points: in the sweep file to allow more)\n");
}

// Descriptor-list runs: corruption, empty files and lists, and strict option numbers.
TEST(HostileInputs, DescriptorListRunsRefuseCorruptionAndJunk) {
  Scratch s("strd");
  ASSERT_EQ(strider({"plan", kDefault, "--out", s.file("p"), "--emit", s.file("t.strd")}).code, 0);
  std::string bytes = slurp(s.file("t.strd"));
  bytes[200] ^= 4;  // one bit flipped in the middle of the descriptors
  std::ofstream(s.file("flip.strd"), std::ios::binary) << bytes;
  Result r = strider({"run", s.file("flip.strd"), "--arch", kSeed});
  EXPECT_EQ(r.err, s.file("flip.strd") + ": checksum mismatch: the SHA-256 of bytes 0.." +
                       std::to_string(bytes.size() - 32) +
                       " differs from the one stored at the end (the file is corrupted or was "
                       "edited; emit it again)\n");
  std::ofstream(s.file("empty.strd")).close();
  r = strider({"run", s.file("empty.strd"), "--arch", kSeed});
  EXPECT_EQ(r.err, s.file("empty.strd") + ": empty file, expected a Strider descriptor list\n");
  DescriptorList none;
  none.arch_fingerprint = load_arch(kSeed).fingerprint();
  {
    std::ofstream f(s.file("none.strd"), std::ios::binary);
    write_binary(none, f);
  }
  r = strider({"run", s.file("none.strd"), "--arch", kSeed});
  EXPECT_EQ(r.err, s.file("none.strd") + ": the descriptor list has no descriptors, nothing to run\n");
  const std::string kind = "expected an unsigned integer (at most 18446744073709551615)";
  for (const char* bad : {"abc", "-1", "5 junk"}) {
    r = strider({"run", s.file("t.strd"), "--arch", kSeed, "--set",
                 std::string("sim.watchdog_cycles=") + bad});
    EXPECT_EQ(r.err, "--set sim.watchdog_cycles: " + kind + ", got '" + bad + "'\n");
  }
  r = strider({"run", s.file("t.strd"), "--arch", kSeed, "--set", "sim.watchdog_cycles=0"});
  EXPECT_EQ(r.err, "--set sim.watchdog_cycles: must be at least 1, got 0\n");
}

TEST(HostileInputs, PlanWritesItsOwnFilesBesideARun) {
  Scratch s("plan");
  fs::create_directories(s.file("r"));
  std::ofstream(s.file("r/memory_plan.csv")) << "the run's\n";
  ASSERT_EQ(strider({"plan", kDefault, "--out", s.file("r")}).code, 0);
  EXPECT_EQ(slurp(s.file("r/memory_plan.csv")), "the run's\n");
  EXPECT_EQ(slurp(s.file("r/plan_memory.csv")).rfind("tensor,kind,offset,size,first,last\n", 0), 0u);
  EXPECT_TRUE(fs::exists(s.file("r/plan_lowering.csv")));
}

// run.json is written last and lists whole files; a rerun without the trace removes the old one.
TEST(HostileInputs, RunJsonListsTheFilesAndStaleOnesAreRemoved) {
  Scratch s("manifest");
  ASSERT_EQ(run_child({"run", kDefault, "--out", s.file("r")}), 0);
  ASSERT_TRUE(fs::exists(s.file("r/trace.json")));
  std::ofstream(s.file("r/.summary.json.partial")) << "left by a killed run";
  ASSERT_EQ(run_child({"run", kDefault, "--out", s.file("r"), "--set", "sim.trace=false"}), 0);
  EXPECT_FALSE(fs::exists(s.file("r/trace.json")));
  EXPECT_FALSE(fs::exists(s.file("r/.summary.json.partial")));
  const nlohmann::json j = nlohmann::json::parse(slurp(s.file("r/run.json")));
  EXPECT_EQ(j["version"], strider_version());
  EXPECT_EQ(j["git_revision"], strider_git_revision());
  EXPECT_EQ(j["command"], nlohmann::json({"strider", "run", kDefault, "--out", s.file("r"), "--set",
                                          "sim.trace=false"}));
  EXPECT_EQ(j["stale_removed"], nlohmann::json({"trace.json"}));
  std::vector<std::string> names;
  for (const nlohmann::json& f : j["files"]) {
    const std::string p = s.file("r/" + f["name"].get<std::string>());
    names.push_back(f["name"]);
    EXPECT_EQ(f["bytes"].get<uint64_t>(), fs::file_size(p)) << p;
    EXPECT_EQ(f["sha256"], sha256_file_hex(p)) << p;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"summary.json", "layers.csv",
                                             "energy_breakdown.csv", "ert.yaml", "art.yaml",
                                             "descriptors.csv", "occupancy.csv", "memory_plan.csv",
                                             "effective_config.yaml"}));
}

// --resume keys rows by parameter values: after the grid is edited, rows of values no longer in
// the sweep are dropped and rows of values that moved get the new point id.
TEST(HostileInputs, ResumeKeysRowsByTheirParameterValues) {
  Scratch s("resume");
  const std::string path = s.file("results.csv");
  std::ofstream(path) << "point,arch.l2.size_bytes,cycles,error\n0,65536,10,\n1,131072,20,\n";
  SweepResults results(path, {"point", "arch.l2.size_bytes", "cycles", "error"}, true);
  // The edited grid: [131072, 262144]; 65536 is gone, 131072 is now point 0.
  const size_t dropped = results.retain([](const std::vector<std::string>& row) {
    return row[1] == "131072" ? std::optional<size_t>(0) : std::nullopt;
  });
  EXPECT_EQ(dropped, 1u);
  EXPECT_EQ(results.done().size(), 1u);
  EXPECT_EQ(results.done().count(0), 1u);
  EXPECT_EQ(slurp(path), "point,arch.l2.size_bytes,cycles,error\n0,131072,20,\n");
  results.append({"1", "262144", "30", ""});
  EXPECT_EQ(slurp(path), "point,arch.l2.size_bytes,cycles,error\n0,131072,20,\n1,262144,30,\n");
}

}  // namespace
}  // namespace strider
