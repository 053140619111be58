// PackJob: see pack_job.h.
#include "planner/memory/pack_job.h"

#include <chrono>
#include <cstdio>

#include "planner/memory/allocator.h"
#include "planner/memory/csv_io.h"

namespace strider::memory {

double gap_percent(int64_t height, int64_t lb) {
  if (lb <= 0) return 0.0;
  return 100.0 * static_cast<double>(height - lb) / static_cast<double>(lb);
}

PackResult PackJob::run() const {
  const auto start = std::chrono::steady_clock::now();
  PackResult r;
  r.problem = read_problem_csv_file(request_.input);
  r.problem.capacity = request_.capacity ? *request_.capacity
                                         : capacity_from_file_name(request_.input);
  r.read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.lower_bound = lower_bound(r.problem);
  AllocatorOptions opt;
  opt.name = request_.allocator;
  opt.time_limit_s = request_.time_limit_s;
  opt.seed = request_.seed;
  r.solution = allocate(r.problem, opt);
  if (!request_.output.empty()) write_solution_csv_file(request_.output, r.problem, r.solution);
  return r;
}

void PackJob::report(const PackResult& r, std::ostream& out, bool with_time) const {
  char gap[32];
  std::snprintf(gap, sizeof gap, "%.4f", gap_percent(r.solution.height, r.lower_bound));
  const bool at_lb = r.solution.height <= r.lower_bound;
  out << "pack: " << request_.input << "\n"
      << "  buffers      " << r.problem.buffers.size() << "\n"
      << "  lower bound  " << r.lower_bound << "\n"
      << "  height       " << r.solution.height << "\n"
      << "  gap          " << gap << " %\n"
      << "  capacity     "
      << (r.problem.capacity > 0 ? std::to_string(r.problem.capacity) : std::string("unbounded"))
      << "\n"
      << "  allocator    " << r.solution.allocator << "\n"
      << "  optimal      "
      << (at_lb ? "yes (height = lower bound)"
                : r.solution.proven_optimal ? "yes (proven by search)" : "not proven")
      << "\n";
  if (r.solution.stacked > 0) {
    out << "  time limit   passed: " << r.solution.stacked << " of " << r.problem.buffers.size()
        << " buffers stacked on top without a gap search (the allocator's fallback)\n";
  }
  if (with_time) {
    char time[64];
    std::snprintf(time, sizeof time, "%.3f s (read %.3f s)", r.solution.seconds, r.read_seconds);
    out << "  time         " << time << "\n";
  }
  if (!request_.output.empty()) out << "  solution     " << request_.output << "\n";
}

}  // namespace strider::memory
