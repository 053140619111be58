// Depth-first search for a packing of an ExactInstance within a given height (a decision
// problem), over canonical solutions only: buffers are placed in non-decreasing offset order
// (equal offsets in static rank order), each at the lowest offset its placed time-neighbours
// and the fixed obstacles allow. Pruning: a buffer is never placed at or above the top another
// unplaced buffer could reach now (that would leave a needless gap); for every time section,
// max(lowest offset of its unplaced buffers, current offset) + their total size must fit; after
// a buffer that overlaps no unplaced buffer fails, its siblings are not tried. When no unplaced
// buffer crosses a section boundary the remaining problem splits into independent parts.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "planner/memory/exact/exact_instance.h"

namespace strider::memory::exact {

class PackingSearch {
 public:
  enum class Outcome { kFound, kInfeasible, kAborted };
  using Clock = std::chrono::steady_clock;

  // `order`: the static preorder, letters compared in turn, each descending: 'W' lifetime
  // length, 'A' size x lifetime, 'T' largest unplaced total over the buffer's sections (taken
  // afresh for each independent part), 'Z' size; then buffer index. E.g. "TWA".
  PackingSearch(const ExactInstance& inst, std::string order);

  // Looks for a packing of height <= cap (units). Stops with kAborted after `node_budget` nodes
  // (0: no limit), at `deadline`, or once `*stop` is set (both checked every 64 nodes).
  Outcome run(int64_t cap, int64_t node_budget, Clock::time_point deadline,
              const std::atomic<bool>* stop = nullptr);

  // Offsets in units of the last packing found (valid after kFound).
  const std::vector<int64_t>& offsets() const { return sol_; }
  int64_t nodes() const { return nodes_; }

 private:
  Outcome solve_parts(int slo, int shi, int lb, int le, int64_t last_off, int last_rank);
  Outcome search(int slo, int shi, int lb, int le, int64_t last_off, int last_rank);
  Outcome place(int b, int64_t off, int slo, int shi, int lb, int le, bool* hatless);
  void recompute_floor(int s);
  void leave_floor(int s);
  void save_section(int s);  // trails section s once per placement
  // Ranks list_[lb, le) by the static preorder (current totals); old ranks go to rank_trail_.
  void rank_part(int lb, int le);
  bool out_of_budget();

  const ExactInstance& inst_;
  std::string order_;
  std::vector<int> rank_;
  std::vector<int64_t> key_t_;
  std::vector<std::pair<int, int>> rank_trail_;
  int64_t cap_ = 0;
  int64_t budget_ = 0;
  Clock::time_point deadline_;
  const std::atomic<bool>* stop_ = nullptr;
  int64_t nodes_ = 0;
  bool aborted_ = false;

  std::vector<char> placed_;
  std::vector<int64_t> minoff_;   // lowest offset each unplaced buffer could take now
  std::vector<int64_t> floor_;    // per section: min minoff_ over its unplaced buffers
  std::vector<int64_t> total_;    // per section: total size of its unplaced buffers
  std::vector<int> cuts_;         // per boundary s|s+1: unplaced buffers crossing it
  std::vector<int> at_floor_;     // per section: unplaced buffers with minoff_ == floor_
  struct SectionChange {
    int section;
    int64_t floor;
    int at_floor;
  };
  std::vector<std::pair<int, int64_t>> minoff_trail_;
  std::vector<SectionChange> section_trail_;
  std::vector<int> list_;         // arena of unplaced-buffer lists, one per open node
  std::vector<int> cand_;         // arena of candidate lists
  std::vector<int64_t> span_max_;  // arena of per-node prefix / suffix maxima of total_
  std::vector<int64_t> sol_;
  std::vector<int> dirty_list_;   // sections whose floor must be recomputed
  // Per section, its buffers with the unplaced ones first: mem_[mem_start_[s] + i] for
  // i < unplaced_in_[s]; mem_pos_[pos_start_[b] + (s - section_lo(b))] is b's index there.
  std::vector<int> mem_, mem_start_, unplaced_in_, mem_pos_, pos_start_;
  std::vector<uint64_t> saved_;
  // With no alignment or obstacles, a raised buffer's lowest offset is exactly the new top, so
  // the floors of the placed buffer's sections follow without a rescan (raised_: per section).
  bool plain_ = false;
  std::vector<int> raised_;   // per section: stamp_ of the placement that trailed it
  uint64_t stamp_ = 0;
};

}  // namespace strider::memory::exact
