// PackJob: the work behind `strider pack FILE.csv`: read a planning problem in the benchmark CSV
// format, plan it with a named allocator (verified), optionally write the solution CSV, and print
// a short report: buffers, lower bound, height, gap, capacity, allocator, optimality and time.
// The capacity is --capacity when given, else the one in the file name ("A.1048576.csv"), else
// unbounded (0).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "planner/memory/problem.h"

namespace strider::memory {

struct PackRequest {
  std::string input;                 // problem CSV
  std::optional<int64_t> capacity;   // overrides the file name's capacity; 0 = unbounded
  std::string allocator = "auto";
  double time_limit_s = 10.0;
  uint64_t seed = 1;
  std::string output;                // solution CSV, empty: none
};

struct PackResult {
  Problem problem;
  Solution solution;
  int64_t lower_bound = 0;
  double read_seconds = 0;
};

class PackJob {
 public:
  explicit PackJob(PackRequest request) : request_(std::move(request)) {}
  // Reads, plans, verifies and writes; throws std::runtime_error or std::invalid_argument with a
  // message naming the file, line, allocator or capacity.
  PackResult run() const;
  // The report; with `with_time` false the time line is left out (for byte-stable output).
  void report(const PackResult& r, std::ostream& out, bool with_time = true) const;

 private:
  PackRequest request_;
};

// 100 * (height - lb) / lb, 0 when lb is 0.
double gap_percent(int64_t height, int64_t lb);

}  // namespace strider::memory
