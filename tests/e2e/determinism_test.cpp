// Determinism: the same run, simulated twice, writes byte-identical output files. Each
// simulation runs strider::dispatch in a forked child (SystemC elaborates once per process) whose
// working directory is a temporary directory of its own, with the output directory given as the
// same relative path, so that the two runs' configs are identical too. Only the wall-clock
// fields of summary.json (wall_seconds, simulated_cycles_per_second, planner.seconds) and the
// `$date` section SystemC writes at the top of waves.vcd may differ.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tb/commands.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

// A fresh temporary directory, removed at the end of the test.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag)
      : path_(fs::temp_directory_path() /
              ("strider_det_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs `strider ARGS` in a child process whose working directory is `cwd`; returns its exit
// code, or -1 when it did not exit normally.
int run_in_child(const fs::path& cwd, const Args& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int rc = 3;
    if (::chdir(cwd.c_str()) == 0) {
      std::ostringstream out, err;
      rc = dispatch(args, out, err);
      if (rc != 0) std::fprintf(stderr, "%s", err.str().c_str());
    }
    std::fflush(nullptr);
    ::_exit(rc);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// summary.json without its wall-clock fields.
std::string summary_without_wall_clock(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  j.erase("wall_seconds");
  j.erase("simulated_cycles_per_second");
  if (j.contains("planner")) j["planner"].erase("seconds");
  return j.dump(1);
}

// run.json without the checksums of the files that hold wall-clock figures (above).
std::string manifest_without_wall_clock(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  for (nlohmann::json& f : j["files"]) {
    if (f["name"] == "summary.json" || f["name"] == "waves.vcd") f.erase("sha256");
    if (f["name"] == "summary.json") f.erase("bytes");
  }
  return j.dump(1);
}

// waves.vcd without the `$date ... $end` section (the time the file was written).
std::string vcd_without_date(const std::string& text) {
  const size_t begin = text.find("$date");
  if (begin == std::string::npos) return text;
  const size_t end = text.find("$end", begin);
  if (end == std::string::npos) return text;
  return text.substr(0, begin) + text.substr(end + 4);
}

// Every regular file under `dir`, by path relative to it.
std::map<std::string, std::string> output_files(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), dir).string();
    std::string body = read_file(e.path());
    if (rel == "summary.json") body = summary_without_wall_clock(body);
    if (rel == "waves.vcd") body = vcd_without_date(body);
    if (rel == "run.json") body = manifest_without_wall_clock(body);
    files[rel] = std::move(body);
  }
  return files;
}

// Runs configs/runs/default.yaml twice with `sets`, returns both output trees.
void expect_deterministic(const std::string& tag, const std::vector<std::string>& sets) {
  ScratchDir a(tag + "_a"), b(tag + "_b");
  Args args = {"run", std::string(STRIDER_SOURCE_DIR) + "/configs/runs/default.yaml", "--out",
               "out"};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  ASSERT_EQ(run_in_child(a.path(), args), 0);
  ASSERT_EQ(run_in_child(b.path(), args), 0);
  const auto first = output_files(a.path() / "out");
  const auto second = output_files(b.path() / "out");
  // The files every run writes (DESIGN section 5); trace.json because the run sets sim.trace.
  for (const char* f : {"summary.json", "layers.csv", "descriptors.csv", "occupancy.csv",
                        "memory_plan.csv", "trace.json", "effective_config.yaml"}) {
    EXPECT_EQ(first.count(f), 1u) << "missing " << f;
  }
  ASSERT_EQ(first.size(), second.size());
  for (const auto& [name, body] : first) {
    const auto it = second.find(name);
    ASSERT_NE(it, second.end()) << name << " written by the first run only";
    EXPECT_TRUE(body == it->second) << name << " differs between two identical runs";
  }
}

TEST(Determinism, TimingRunWritesIdenticalFiles) {
  expect_deterministic("timing", {"sim.vcd=true"});
}

TEST(Determinism, FunctionalRunWritesIdenticalFiles) {
  expect_deterministic("functional", {"sim.functional=true"});
}

TEST(Determinism, WallClockFieldsAreTheOnlyOnesIgnored) {
  // The filter drops exactly the three wall-clock keys: a change anywhere else still shows.
  const std::string s1 = R"({"cycles": 10, "wall_seconds": 1.5, "simulated_cycles_per_second": 6.6,
                             "planner": {"seconds": 0.1, "peak_bytes": 64}})";
  const std::string s2 = R"({"cycles": 10, "wall_seconds": 2.5, "simulated_cycles_per_second": 4.0,
                             "planner": {"seconds": 0.3, "peak_bytes": 64}})";
  const std::string s3 = R"({"cycles": 11, "wall_seconds": 1.5, "simulated_cycles_per_second": 6.6,
                             "planner": {"seconds": 0.1, "peak_bytes": 64}})";
  EXPECT_EQ(summary_without_wall_clock(s1), summary_without_wall_clock(s2));
  EXPECT_NE(summary_without_wall_clock(s1), summary_without_wall_clock(s3));
  EXPECT_EQ(vcd_without_date("$date\n  Nov 23 2026 $end\n$version x $end\n"),
            "\n$version x $end\n");
}

}  // namespace
}  // namespace strider
