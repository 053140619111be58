// The heavily overlapping memory-planning instance of issue 31, item 4: 10^6 buffers, each live
// alongside about 3,000 others. Buffer i: live [i / 8, i / 8 + 200 + i % 400), 16..4111 bytes.
// Used by tests/planner/memory_deadline_test.cpp (in-process) and tests/e2e/pack_deadline_test.cpp
// (as a CSV file for `strider pack`).
#pragma once

#include <time.h>

#include <cstdint>
#include <string>

#include "planner/memory/problem.h"

namespace strider::memory {

inline Problem heavy_problem() {
  Problem q;
  const int n = 1000000;
  q.buffers.resize(n);
  for (int i = 0; i < n; ++i) {
    Buffer& b = q.buffers[i];
    b.id = "b" + std::to_string(i);
    b.lower = i / 8;
    b.upper = b.lower + 200 + i % 400;
    b.size = 16 + int64_t((uint64_t(i) * 2654435761u) % 4096);
  }
  return q;
}

// Processor time in seconds of `clock` (CLOCK_THREAD_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID): the
// figure that does not depend on what else the machine runs.
inline double cpu_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// A processor-time bound for a test, scaled by 4 under AddressSanitizer (make test-asan), where
// every step past an allocator's deadline (stacking the rest, verifying, reading) runs 2-4x slower.
inline double sanitizer_scaled(double seconds) {
#if defined(__SANITIZE_ADDRESS__)
  return 4 * seconds;
#else
  return seconds;
#endif
}

}  // namespace strider::memory
