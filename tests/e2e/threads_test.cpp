// Threads: default_threads() (core/common/parallel_for.h) from the machine or STRIDER_THREADS,
// and a functional run on one thread gives byte-identical reports and tensors to a run on two.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/common/parallel_for.h"

namespace strider {
namespace {

std::string source(const std::string& rel) { return std::string(STRIDER_SOURCE_DIR) + "/" + rel; }

TEST(Threads, DefaultThreadsFromTheMachineOrTheEnvironment) {
  unsetenv("STRIDER_THREADS");
  EXPECT_EQ(default_threads(),
            int(std::clamp(std::thread::hardware_concurrency(), 1u, kDefaultThreadsMax)));
  setenv("STRIDER_THREADS", "1", 1);
  EXPECT_EQ(default_threads(), 1);
  setenv("STRIDER_THREADS", "3", 1);
  EXPECT_EQ(default_threads(), 3);
  for (const char* bad : {"0", "65", "two", "2x", ""}) {
    setenv("STRIDER_THREADS", bad, 1);
    try {
      default_threads();
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("STRIDER_THREADS: '") + bad +
                                           "', expected a whole number from 1 to 64");
    }
  }
  unsetenv("STRIDER_THREADS");
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// summary.json without its timing fields (wall and stage seconds, simulation speed).
nlohmann::json untimed(nlohmann::json j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      const bool timing = (k.find("seconds") != std::string::npos && k != "seconds_at_clock") ||
                          k.find("per_second") != std::string::npos || k == "stages";
      if (!timing) out[k] = untimed(it.value());
    }
    return out;
  }
  if (j.is_array()) {
    for (auto& v : j) v = untimed(v);
  }
  return j;
}

// Functional resnet50 on one thread (calibration, weights, the reference, trace.json) and on two:
// the same reports and tensors, byte for byte (summary.json apart from its timing fields).
TEST(Threads, OneThreadedRunIsByteIdenticalToTwo) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("strider_threads_" + std::to_string(getpid()));
  fs::remove_all(dir);
  for (const char* threads : {"1", "2"}) {
    const fs::path out = dir / threads;
    // Under AddressSanitizer the two-thread run skips LeakSanitizer's exit-time check, whose
    // tracer crashes at random after worker threads (core/common/parallel_for.h).
    const std::string lsan = kDefaultThreadsMax == 1 ? "ASAN_OPTIONS=detect_leaks=0 " : "";
    const std::string cmd = lsan + "STRIDER_THREADS=" + threads + " " + STRIDER_BINARY_DIR +
                            "/strider run " + source("configs/runs/resnet50.yaml") +
                            " --set sim.functional=true --out " + (out / "run").string() +
                            " --dump-tensors " + (out / "dump").string() + " > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  int compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "1")) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), dir / "1");
    const fs::path other = dir / "2" / rel;
    ASSERT_TRUE(fs::exists(other)) << rel;
    if (rel.filename() == "run.json" || rel.filename() == "effective_config.yaml") continue;
    if (rel.filename() == "summary.json") {
      EXPECT_EQ(untimed(nlohmann::json::parse(read_file(e.path()))),
                untimed(nlohmann::json::parse(read_file(other))));
    } else {
      EXPECT_TRUE(read_file(e.path()) == read_file(other)) << rel << " differs";
    }
    ++compared;
  }
  EXPECT_GT(compared, 56);  // the reports and a dump per checked layer
  fs::remove_all(dir);
}

}  // namespace
}  // namespace strider
