// libFuzzer target for the memory-planning problem CSV reader (planner/memory/csv_io.h). A problem
// that parses gets its lower bound and peak live set computed and is written back as a solution
// (all offsets 0), as every consumer of the reader does next.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>

#include "fuzz/fuzz_input.h"
#include "planner/memory/csv_io.h"
#include "planner/memory/problem.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > strider::fuzz::kMaxInputBytes) return -1;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const std::string source = "fuzz.csv";
  try {
    const strider::memory::Problem p = strider::memory::read_problem_csv(in, source);
    (void)strider::memory::lower_bound(p);
    (void)strider::memory::peak_live_set(p);
    strider::memory::Solution s;
    s.offsets.assign(p.buffers.size(), 0);
    std::ostringstream out;
    strider::memory::write_solution_csv(out, p, s);
  } catch (const std::exception& e) {
    static const bool strict = std::getenv("STRIDER_FUZZ_STRICT") != nullptr;
    if (strict && std::string(e.what()).find(source) == std::string::npos) {
      std::fprintf(stderr, "error message does not name the source: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
