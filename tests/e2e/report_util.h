// Helpers for the report tests: a scratch output directory, a run through strider::dispatch, and
// readers for the CSV / JSON files a run writes.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/common/csv.h"
#include "tb/commands.h"

namespace strider::report_test {

namespace fs = std::filesystem;

inline const std::string kDefaultRun =
    std::string(STRIDER_SOURCE_DIR) + "/configs/runs/default.yaml";

// A fresh temporary directory, removed at the end of the test.
class Scratch {
 public:
  explicit Scratch(const std::string& tag)
      : path_(fs::temp_directory_path() /
              ("strider_report_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string str() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// `strider run RUN --out DIR [--set ...]`; fails the test unless it exits 0.
inline void run_strider(const std::string& out_dir, const std::vector<std::string>& sets = {},
                        const std::string& run = kDefaultRun) {
  Args args = {"run", run, "--out", out_dir};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  std::ostringstream out, err;
  ASSERT_EQ(dispatch(args, out, err), 0) << err.str();
}

// A command run in-process: its exit status and what it printed.
struct Outcome {
  int code;
  std::string out, err;
};
inline Outcome call(const Args& args) {
  std::ostringstream out, err;
  const int code = dispatch(args, out, err);
  return {code, out.str(), err.str()};
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << path;
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

inline nlohmann::json read_json(const std::string& path) {
  return nlohmann::json::parse(slurp(path));
}

// A CSV file with a header row, read with the program's own reader.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  uint64_t u(size_t row, const std::string& col) const { return std::stoull(rows[row].at(col)); }
  uint64_t sum(const std::string& col) const {
    uint64_t s = 0;
    for (size_t i = 0; i < rows.size(); ++i) s += u(i, col);
    return s;
  }
};

inline Csv read_csv(const std::string& path) {
  Csv c;
  std::istringstream in(slurp(path));
  csv::Reader reader(in);
  reader.next(c.header);
  std::vector<std::string> f;
  while (reader.next(f)) {
    EXPECT_EQ(f.size(), c.header.size()) << path << ": " << reader.text();
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < f.size() && i < c.header.size(); ++i) row[c.header[i]] = f[i];
    c.rows.push_back(row);
  }
  return c;
}

}  // namespace strider::report_test
