// ParallelFor: runs f(i) for every i in [0, count) on up to `threads` threads (the caller's
// thread included), each thread taking the next index until none is left. Which thread runs
// which index varies from run to run: f(i) must write only what index i owns, so that results
// do not depend on the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace strider {

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
