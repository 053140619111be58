// ParallelFor: runs f(i) for every i in [0, count) on up to `threads` threads (the caller's
// thread included), each thread taking the next index until none is left. Which thread runs
// which index varies from run to run: f(i) must write only what index i owns, so that results
// do not depend on the thread count. default_threads(): how many threads Strider's passes use.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace strider {

// The machine's cores, at most 2 (CI's); the environment variable STRIDER_THREADS (1 to 64)
// overrides it, 1 running every pass on the caller's thread. Outputs are the same at any count.
// Throws std::runtime_error on a STRIDER_THREADS that is not such a number.
// Built with AddressSanitizer the default is 1: LeakSanitizer's exit-time tracer crashes at random
// (signal 11, ~1 run in 4 of the default run here) in a process whose worker threads have ended
// (google/sanitizers#1353); STRIDER_THREADS still selects more.
#ifdef __SANITIZE_ADDRESS__
inline constexpr unsigned kDefaultThreadsMax = 1;
#else
inline constexpr unsigned kDefaultThreadsMax = 2;
#endif
inline int default_threads() {
  if (const char* e = std::getenv("STRIDER_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(e, &end, 10);
    if (end == e || *end != '\0' || n < 1 || n > 64) {
      throw std::runtime_error(std::string("STRIDER_THREADS: '") + e +
                               "', expected a whole number from 1 to 64");
    }
    return int(n);
  }
  return int(std::clamp(std::thread::hardware_concurrency(), 1u, kDefaultThreadsMax));
}

template <typename F>
void parallel_for(int count, int threads, F f) {
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int i = next++; i < count; i = next++) f(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min(threads, count); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace strider
