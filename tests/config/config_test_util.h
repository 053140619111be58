// Helpers for the configuration tests: a fresh temporary directory per test to write YAML files
// into, a guard that switches the current directory for the duration of a test, and
// errors_of(), which runs a load expected to fail and returns ConfigError::errors().
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/arch/config_error.h"

namespace strider::testing {

class TempDir {
 public:
  TempDir() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("strider_config_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to `name` (parent folders created) and returns the file's full path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

// Switches the current directory until destroyed.
class CwdGuard {
 public:
  explicit CwdGuard(const std::filesystem::path& dir) : old_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~CwdGuard() { std::filesystem::current_path(old_); }
  CwdGuard(const CwdGuard&) = delete;
  CwdGuard& operator=(const CwdGuard&) = delete;

 private:
  std::filesystem::path old_;
};

// Runs `load`; returns the errors of the ConfigError it throws (a test failure if it does not).
template <typename F>
std::vector<std::string> errors_of(F&& load) {
  try {
    load();
  } catch (const ConfigError& e) {
    return e.errors();
  }
  ADD_FAILURE() << "expected a ConfigError";
  return {};
}

inline std::string source_path(const std::string& rel) {
  return std::string(STRIDER_SOURCE_DIR) + "/" + rel;
}

}  // namespace strider::testing
