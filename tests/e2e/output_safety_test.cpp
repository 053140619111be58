// Output folders (issue 31, item 1): strider removes only files it can prove it wrote (named in
// its report set and listed in its own manifest with their SHA-256), never a user's file, even
// under a forged run.json; an output that is an input is refused; temporaries are cleaned.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/common/sha256.h"
#include "tests/e2e/program_run.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

const std::string kSrc = STRIDER_SOURCE_DIR;
const std::string kStrider = std::string(STRIDER_BINARY_DIR) + "/strider";
const std::string kDefault = kSrc + "/configs/runs/default.yaml";
const std::string kNotes = "my notes\n\x01\xff binary too\n";
const std::string kDraft = "a user's draft\n";

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kStrider)) << kStrider << " missing: build the strider target first";
    dir_ = fs::temp_directory_path() /
           ("strider_outsafe_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
  }
  Ran strider(const std::vector<std::string>& args) { return run_program(kStrider, args, dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // `d` with a user's notes.txt and .draft.partial, and forged manifests (run.json and
  // plan.json) that list both, and a report name, with the notes' true SHA-256.
  std::string plant(const std::string& name) {
    const fs::path d = dir_ / name;
    fs::create_directories(d);
    std::ofstream(d / "notes.txt", std::ios::binary) << kNotes;
    std::ofstream(d / ".draft.partial", std::ios::binary) << kDraft;
    const std::string sha = sha256_file_hex((d / "notes.txt").string());
    const std::string forged = "{\"files\":[{\"name\":\"notes.txt\",\"sha256\":\"" + sha +
                               "\"},{\"name\":\".draft.partial\"},{\"name\":\"../x\"}]}";
    std::ofstream(d / "run.json") << forged;
    std::ofstream(d / "plan.json") << forged;
    return d.string();
  }
  void expect_user_files(const std::string& d) {
    EXPECT_EQ(slurp_file(d + "/notes.txt"), kNotes) << d;
    EXPECT_EQ(slurp_file(d + "/.draft.partial"), kDraft) << d;
  }

  fs::path dir_;
};

TEST_F(OutputSafety, ForgedManifestDeletesNothingUnderRunPlanSweepAndRegress) {
  const std::string r = plant("run");
  const Ran run = strider({"run", kDefault, "--out", r, "--set", "sim.trace=false"});
  EXPECT_EQ(run.code, 0) << run.err;
  expect_user_files(r);
  EXPECT_FALSE(fs::exists(r + "/.summary.json.partial"));
  EXPECT_FALSE(fs::exists(r + "/.run.json.partial"));  // the in-progress manifest is gone
  // Rerun into the same folder: its own files are proven and replaced, the user's stay.
  EXPECT_EQ(strider({"run", kDefault, "--out", r}).code, 0);
  expect_user_files(r);

  const std::string p = plant("plan");
  const Ran plan = strider({"plan", kDefault, "--out", p});
  EXPECT_EQ(plan.code, 0) << plan.err;
  expect_user_files(p);
  EXPECT_TRUE(fs::exists(p + "/plan.json"));

  const std::string s = plant("sweep");
  plant("sweep/points/0");
  const std::string sweep = path("one.yaml");
  std::ofstream(sweep) << "base: " << kDefault << "\nset: {sim.trace: false}\n"
                       << "grid:\n  arch.l1.shift_stride: [true]\n";
  const Ran sw = strider({"sweep", sweep, "--out", s});
  EXPECT_EQ(sw.code, 0) << sw.err;
  expect_user_files(s);
  expect_user_files(s + "/points/0");

  const std::string g = plant("regress");
  plant("regress/conv3x3_tiny_shift_on");
  const Ran reg = strider({"regress", "--dir", kSrc + "/configs/regression", "--case",
                           "conv3x3_tiny_shift_on", "--out", g});
  EXPECT_EQ(reg.code, 0) << reg.out << reg.err;
  expect_user_files(g);
  expect_user_files(g + "/conv3x3_tiny_shift_on");
}

// A report-set file that no manifest proves (the user's own, or one a forged manifest lists
// with a wrong SHA-256) is never overwritten: the command refuses before writing anything.
TEST_F(OutputSafety, UnprovenReportFileIsRefusedAndKeptByteIdentical) {
  const fs::path d = dir_ / "mine";
  fs::create_directories(d);
  std::ofstream(d / "summary.json") << "{\"mine\": true}\n";
  std::ofstream(d / "run.json") << "{\"files\":[{\"name\":\"summary.json\",\"sha256\":\""
                                << std::string(64, '0') << "\"}]}";
  const Ran r = strider({"run", kDefault, "--out", d.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, d.string() + "/summary.json: not written by strider (" + d.string() +
                       "/run.json does not list it with this SHA-256); refusing to overwrite it: "
                       "move it away or choose another output directory\n");
  EXPECT_EQ(slurp_file(d / "summary.json"), "{\"mine\": true}\n");
  EXPECT_TRUE(fs::exists(d / "run.json"));
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 2);

  std::ofstream(d / "plan_memory.csv") << "mine\n";
  const Ran p = strider({"plan", kDefault, "--out", d.string()});
  EXPECT_EQ(p.code, 1);
  EXPECT_EQ(p.err, d.string() + "/plan_memory.csv: not written by strider (" + d.string() +
                       "/plan.json does not list it with this SHA-256); refusing to overwrite "
                       "it: move it away or choose another output directory\n");
  EXPECT_EQ(slurp_file(d / "plan_memory.csv"), "mine\n");
}

// A run whose input is one of its own earlier reports (effective_config.yaml) into that folder.
TEST_F(OutputSafety, OutputThatIsAnInputIsRefused) {
  const std::string d = path("again");
  ASSERT_EQ(strider({"run", kDefault, "--out", d, "--set", "sim.trace=false"}).code, 0);
  const std::string input = d + "/effective_config.yaml";
  const std::string before = slurp_file(input);
  const Ran r = strider({"run", input, "--out", d});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "output file " + input + ": is an input of this command (" + input +
                       "); refusing to overwrite it\n");
  EXPECT_EQ(slurp_file(input), before);
}

// Issue 31 item 8: `plan R.yaml --emit R.yaml` (or --text) refuses to overwrite its run file;
// --emit naming a directory leaves nothing behind.
TEST_F(OutputSafety, PlanEmitOverItsInputOrADirectoryIsRefused) {
  const std::string run = path("R.yaml");
  std::ofstream(run) << "arch: " << kSrc
                     << "/configs/arch/seed.yaml\nnetworks:\n  - {path: " << kSrc
                     << "/configs/networks/tiny_cnn.yaml}\n";
  const std::string before = slurp_file(run);
  for (const char* opt : {"--emit", "--text"}) {
    const Ran r = strider({"plan", run, "--out", path("p"), opt, run});
    EXPECT_EQ(r.code, 1) << opt;
    EXPECT_EQ(r.err, std::string(opt) + " " + run + ": is an input of this command (" + run +
                         "); refusing to overwrite it\n");
    EXPECT_EQ(slurp_file(run), before);
  }
  fs::create_directories(path("d"));
  const Ran r = strider({"plan", run, "--out", path("p"), "--emit", path("d")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "--emit " + path("d") + ": is a directory\n");
  EXPECT_TRUE(fs::is_empty(path("d")));
  std::vector<std::string> left;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
    const std::string n = e.path().filename().string();
    if (n != "cmd_stdout.txt" && n != "cmd_stderr.txt") left.push_back(n);
  }
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"R.yaml", "d"}));  // refused before --out was made
}

// Issue 31, item 10: an empty output_dir on a .strd run said ": ...Invalid argument".
TEST_F(OutputSafety, EmptyOutputDirOnAListRunIsNamed) {
  const std::string list = path("l.strd");
  ASSERT_EQ(strider({"plan", kDefault, "--out", path("p"), "--emit", list}).code, 0);
  const Ran r =
      strider({"run", list, "--arch", kSrc + "/configs/arch/seed.yaml", "--set", "output_dir="});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(
      r.err,
      "output_dir is empty: name the results directory (--out DIR or --set output_dir=DIR)\n");
}

}  // namespace
}  // namespace strider
