// Allocator registry and allocate(): see allocator.h.
#include "planner/memory/allocator.h"

#include <chrono>
#include <stdexcept>

#include "planner/memory/auto_allocator.h"
#include "planner/memory/exact_allocator.h"
#include "planner/memory/greedy_allocator.h"
#include "planner/memory/naive_allocator.h"
#include "planner/memory/online_allocator.h"
#include "planner/memory/search_allocator.h"
#include "planner/memory/verifier.h"

namespace strider::memory {

std::unique_ptr<Allocator> make_allocator(const std::string& name) {
  if (name == "auto") return std::make_unique<AutoAllocator>();
  if (name == "naive") return std::make_unique<NaiveAllocator>();
  if (name == "first_fit") return std::make_unique<OnlineAllocator>(false);
  if (name == "best_fit") return std::make_unique<OnlineAllocator>(true);
  if (name == "greedy_by_size") return std::make_unique<GreedyAllocator>(GreedyOrder::kSize);
  if (name == "greedy_by_conflicts") {
    return std::make_unique<GreedyAllocator>(GreedyOrder::kConflicts);
  }
  if (name == "search") return std::make_unique<SearchAllocator>();
  if (name == "exact") return make_exact_allocator();
  std::string valid;
  for (const std::string& n : allocator_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown allocator '" + name + "', valid: " + valid);
}

Solution allocate(const Problem& p, const AllocatorOptions& opt) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Allocator> allocator = make_allocator(opt.name);
  Solution s = allocator->solve(p, opt);
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (p.capacity > 0 && s.offsets.size() != p.buffers.size()) {
    // No candidate fitted (auto keeps only plans inside the capacity).
    const PeakLiveSet peak = peak_live_set(p);
    if (peak.bytes > p.capacity) {
      throw std::runtime_error("does not fit: needs " + std::to_string(peak.bytes) +
                               " bytes, capacity " + std::to_string(p.capacity) + " (" +
                               std::to_string(peak.buffers) + " buffers live at time " +
                               std::to_string(peak.time) + ")");
    }
    throw std::runtime_error("allocator '" + opt.name + "' found no plan within capacity " +
                             std::to_string(p.capacity) + " (lower bound " +
                             std::to_string(peak.bytes) + " bytes)");
  }
  if (p.capacity > 0 && s.height > p.capacity) {
    const PeakLiveSet peak = peak_live_set(p);
    throw std::runtime_error(
        "allocator '" + s.allocator + "': plan height " + std::to_string(s.height) +
        " exceeds capacity " + std::to_string(p.capacity) + " (lower bound " +
        std::to_string(peak.bytes) + "; largest live set: " + std::to_string(peak.buffers) +
        " buffers, " + std::to_string(peak.bytes) + " bytes at time " +
        std::to_string(peak.time) + ")");
  }
  std::vector<std::string> errors = verify(p, s);
  if (!errors.empty()) {
    std::string text = "allocator '" + s.allocator + "' produced an invalid plan:";
    for (const std::string& e : errors) text += "\n  " + e;
    throw std::runtime_error(text);
  }
  return s;
}

}  // namespace strider::memory
