// OrderSearch: the engine of the search allocator. A plan is encoded as a placement order decoded
// by the GapPlacer (best fit or first fit over the gaps left by the buffers whose lifetimes
// overlap). Phases:
//  - seeds(): orders by peak pressure (the largest live total during a buffer's lifetime, so the
//    worst moments are packed first and without holes) with several tie breaks and in bands of
//    1, 3 and 10 % of the lower bound, greedy by size
//    and by conflicts, and PeakSweep plans (a plan becomes the order of its offsets, which first
//    fit reproduces or lowers). Stops at the first that reaches the lower bound.
//  - squeaky_wheel(): chains from the lowest seeds take turns; each step moves the buffers that
//    end above the lower bound to random earlier places in the order and decodes again.
// Plans are ranked by the height over the buffers without a fixed offset (with fixed buffers as
// obstacles, the rest is what the search can change). Honours the time limit from construction.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "planner/memory/allocator.h"
#include "planner/memory/gap_placer.h"

namespace strider::memory {

// Per buffer: the maximum over its lifetime of the total size of live buffers.
std::vector<int64_t> peak_pressure(const Problem& p);

class OrderSearch {
 public:
  using Clock = std::chrono::steady_clock;

  // `time_limit_s` counts from construction; `seed` drives the random moves.
  OrderSearch(const Problem& p, double time_limit_s, uint64_t seed);

  bool expired() const;
  // Restarts the clock: the search may now run `time_limit_s` from here.
  void restart_clock(double time_limit_s);
  bool done() const { return best_.score >= 0 && best_.score <= lb_; }

  void seeds();
  void squeaky_wheel();
  // Decodes the order of `offsets` with first fit (reproducing or lowering that plan).
  void try_plan(const std::vector<int64_t>& offsets);

  int64_t best_height() const { return best_.height; }
  int64_t best_score() const { return best_.score; }
  const std::vector<int64_t>& best_offsets() const { return best_.offsets; }
  Solution solution(const std::string& name) const;

 private:
  struct Candidate {
    std::vector<int> order;
    GapPolicy policy = GapPolicy::kBestFit;
    std::vector<int64_t> offsets;
    int64_t height = -1;  // over all buffers
    int64_t score = -1;   // over the buffers without a fixed offset
    size_t stacked = 0;   // placed on top once the time limit passed
  };
  Candidate decode(std::vector<int> order, GapPolicy policy);
  void try_order(std::vector<int> order, GapPolicy policy);

  const Problem& p_;
  Clock::time_point start_;
  double time_limit_s_;
  const uint64_t seed_;
  const int64_t lb_;
  GapPlacer placer_;
  Deadline deadline_;  // polled by placer_ per buffer
  Candidate best_;
  std::vector<Candidate> starts_;  // every decoded seed, for the chains
};

}  // namespace strider::memory
