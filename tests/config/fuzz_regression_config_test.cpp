// Regression tests for inputs the config fuzzer (fuzz/fuzz_config_yaml.cpp) found. Each load runs
// in a forked child with a time limit, so that a hang fails the test in seconds instead of
// running into ctest's timeout.
//
// config_stray_comma*.yaml: a YAML stream with a stray top-level ',' makes yaml-cpp 0.7's
// YAML::LoadAll (used by config::load_yaml_file) return null documents forever, growing memory
// (jbeder/yaml-cpp#1040; fixed upstream by #1319, after the Debian 0.7 package). The loaders must
// instead refuse the file with a ConfigError naming it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <string>

#include "core/arch/config_error.h"
#include "core/arch/config_loader.h"

namespace strider {
namespace {

constexpr unsigned kTimeLimitSeconds = 10;

std::string fuzz_input(const std::string& name) {
  return std::string(STRIDER_SOURCE_DIR) + "/tests/data/fuzz/" + name;
}

// Runs `load` in a child process killed after kTimeLimitSeconds. Returns "ok" when it threw a
// ConfigError whose message names `path`, else what happened instead.
std::string outcome_in_child(const std::function<void()>& load, const std::string& path) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(kTimeLimitSeconds);  // SIGALRM ends the child if the load hangs
    int code = 2;                // returned normally
    try {
      load();
    } catch (const ConfigError& e) {
      code = std::string(e.what()).find(path) != std::string::npos ? 0 : 3;
    } catch (...) {
      code = 4;
    }
    ::_exit(code);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return "fork failed";
  if (WIFSIGNALED(status)) {
    return WTERMSIG(status) == SIGALRM ? "hung (killed after time limit)"
                                       : "killed by signal " + std::to_string(WTERMSIG(status));
  }
  switch (WEXITSTATUS(status)) {
    case 0: return "ok";
    case 2: return "accepted the file";
    case 3: return "ConfigError not naming the file";
    default: return "threw something other than ConfigError";
  }
}

TEST(FuzzRegressionConfig, StrayCommaArchFileIsRefusedNotHung) {
  const std::string path = fuzz_input("config_stray_comma.yaml");  // the single byte ","
  EXPECT_EQ(outcome_in_child([&] { load_arch(path); }, path), "ok");
}

TEST(FuzzRegressionConfig, StrayCommaRunFileIsRefusedNotHung) {
  const std::string path = fuzz_input("config_stray_comma.yaml");
  EXPECT_EQ(outcome_in_child([&] { load_run(path); }, path), "ok");
}

TEST(FuzzRegressionConfig, FuzzerFoundStrayCommaAfterCommentsIsRefusedNotHung) {
  // The input as the fuzzer found it: two comment lines, a flow sequence, then ','.
  const std::string path = fuzz_input("config_stray_comma_sets.yaml");
  EXPECT_EQ(outcome_in_child([&] { load_arch(path); }, path), "ok");
}

}  // namespace
}  // namespace strider
