// See packing_search.h.
#include "planner/memory/exact/packing_search.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace strider::memory::exact {
namespace {
constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;
}  // namespace

PackingSearch::PackingSearch(const ExactInstance& inst, std::vector<int> rank)
    : inst_(inst), rank_(std::move(rank)) {
  const int n = inst_.num_buffers();
  placed_.assign(n, 0);
  minoff_.assign(n, 0);
  sol_.assign(n, 0);
  floor_.assign(inst_.num_sections(), kInf);
  total_.assign(inst_.num_sections(), 0);
  cuts_.assign(std::max(0, inst_.num_sections() - 1), 0);
  dirty_.assign(inst_.num_sections(), 0);
}

PackingSearch::Outcome PackingSearch::run(int64_t cap, int64_t node_budget,
                                          Clock::time_point deadline) {
  const int n = inst_.num_buffers();
  const int ns = inst_.num_sections();
  cap_ = cap;
  budget_ = node_budget;
  deadline_ = deadline;
  nodes_ = 0;
  aborted_ = false;
  std::fill(placed_.begin(), placed_.end(), 0);
  std::fill(cuts_.begin(), cuts_.end(), 0);
  for (int b = 0; b < n; ++b) {
    minoff_[b] = inst_.first_fit(b, 0);
    if (minoff_[b] + inst_.size(b) > cap_) return Outcome::kInfeasible;
    for (int s = inst_.section_lo(b); s + 1 < inst_.section_hi(b); ++s) ++cuts_[s];
  }
  for (int s = 0; s < ns; ++s) {
    total_[s] = inst_.section_total(s);
    floor_[s] = kInf;
    recompute_floor(s);
    if (total_[s] > 0 && floor_[s] + total_[s] > cap_) return Outcome::kInfeasible;
  }
  minoff_trail_.clear();
  floor_trail_.clear();
  list_.clear();
  cand_.clear();
  for (int b = 0; b < n; ++b) list_.push_back(b);
  return solve_parts(0, ns, 0, n, 0, -1);
}

bool PackingSearch::out_of_budget() {
  ++nodes_;
  if (budget_ > 0 && nodes_ > budget_) aborted_ = true;
  if ((nodes_ & 1023) == 0 && Clock::now() >= deadline_) aborted_ = true;
  return aborted_;
}

void PackingSearch::recompute_floor(int s) {
  int64_t m = kInf;
  for (const int* c = inst_.members_begin(s); c != inst_.members_end(s); ++c) {
    if (!placed_[*c]) m = std::min(m, minoff_[*c]);
  }
  if (m != floor_[s]) {
    floor_trail_.emplace_back(s, floor_[s]);
    floor_[s] = m;
  }
}

// Splits [slo, shi) at boundaries no unplaced buffer crosses and solves each part on its own.
PackingSearch::Outcome PackingSearch::solve_parts(int slo, int shi, int lb, int le,
                                                  int64_t last_off, int last_rank) {
  int start = slo;
  for (int s = slo; s < shi; ++s) {
    const bool end = s + 1 == shi || cuts_[s] == 0;
    if (!end) continue;
    if (start == slo && s + 1 == shi) return search(slo, shi, lb, le, last_off, last_rank);
    const int pb = static_cast<int>(list_.size());
    for (int i = lb; i < le; ++i) {
      const int c = list_[i];
      if (!placed_[c] && inst_.section_lo(c) >= start && inst_.section_hi(c) <= s + 1) {
        list_.push_back(c);
      }
    }
    const int pe = static_cast<int>(list_.size());
    Outcome r = Outcome::kFound;
    if (pe > pb) r = search(start, s + 1, pb, pe, last_off, last_rank);
    list_.resize(pb);
    if (r != Outcome::kFound) return r;
    start = s + 1;
  }
  return Outcome::kFound;
}

PackingSearch::Outcome PackingSearch::search(int slo, int shi, int lb, int le, int64_t last_off,
                                             int last_rank) {
  if (out_of_budget()) return Outcome::kAborted;
  // Compact the unplaced list and find the lowest top any unplaced buffer could reach now.
  const int mb = static_cast<int>(list_.size());
  int64_t min_top = kInf;
  for (int i = lb; i < le; ++i) {
    const int b = list_[i];
    if (placed_[b]) continue;
    list_.push_back(b);
    min_top = std::min(min_top, minoff_[b] + inst_.size(b));
  }
  const int me = static_cast<int>(list_.size());
  if (me == mb) return Outcome::kFound;
  const int cb = static_cast<int>(cand_.size());
  for (int i = mb; i < me; ++i) {
    const int b = list_[i];
    const int64_t o = minoff_[b];
    if (o >= min_top || o < last_off || (o == last_off && rank_[b] < last_rank)) continue;
    if (o + inst_.size(b) > cap_) continue;
    cand_.push_back({o, rank_[b], b});
  }
  const int ce = static_cast<int>(cand_.size());
  std::sort(cand_.begin() + cb, cand_.begin() + ce, [](const Candidate& x, const Candidate& y) {
    return x.offset != y.offset ? x.offset < y.offset : x.rank < y.rank;
  });
  Outcome result = Outcome::kInfeasible;
  for (int k = cb; k < ce; ++k) {
    const Candidate c = cand_[k];
    bool hatless = false;
    const Outcome r = place(c.buffer, c.offset, slo, shi, mb, me, &hatless);
    if (r != Outcome::kInfeasible) {
      result = r;
      break;
    }
    if (hatless) break;
  }
  cand_.resize(cb);
  return result;
}

PackingSearch::Outcome PackingSearch::place(int b, int64_t off, int slo, int shi, int lb, int le,
                                            bool* hatless) {
  const int64_t size = inst_.size(b);
  const int64_t top = off + size;
  // Necessary condition, before any update: every unplaced buffer of a section b spans will sit
  // above b (so the section needs off + its total), and no section's floor drops.
  const int blo = inst_.section_lo(b);
  const int bhi = inst_.section_hi(b);
  *hatless = false;
  for (int s = slo; s < shi; ++s) {
    const int64_t t = total_[s];
    if (t == 0) continue;
    const bool in = s >= blo && s < bhi;
    if (in ? (t > size && off + t > cap_) : (std::max(floor_[s], off) + t > cap_)) {
      return Outcome::kInfeasible;
    }
  }
  const size_t mt = minoff_trail_.size();
  const size_t ft = floor_trail_.size();
  placed_[b] = 1;
  *hatless = true;
  for (const int* p = inst_.overlaps_begin(b); p != inst_.overlaps_end(b); ++p) {
    const int c = *p;
    if (placed_[c]) continue;
    *hatless = false;
    const int64_t old = minoff_[c];
    if (old >= top) continue;
    minoff_trail_.emplace_back(c, old);
    minoff_[c] = inst_.first_fit(c, top);
    for (int s = inst_.section_lo(c); s < inst_.section_hi(c); ++s) {
      if (floor_[s] == old && dirty_[s] != stamp_) {
        dirty_[s] = stamp_;
        dirty_list_.push_back(s);
      }
    }
  }
  bool split = false;
  for (int s = inst_.section_lo(b); s < inst_.section_hi(b); ++s) {
    total_[s] -= size;
    if (floor_[s] == off && dirty_[s] != stamp_) {
      dirty_[s] = stamp_;
      dirty_list_.push_back(s);
    }
    if (s + 1 < inst_.section_hi(b) && --cuts_[s] == 0) split = true;
  }
  for (int s : dirty_list_) recompute_floor(s);
  dirty_list_.clear();
  ++stamp_;
  bool ok = true;
  for (int s = slo; s < shi; ++s) {
    if (total_[s] > 0 && std::max(floor_[s], off) + total_[s] > cap_) {
      ok = false;
      break;
    }
  }
  Outcome r = Outcome::kInfeasible;
  if (ok) {
    r = split ? solve_parts(slo, shi, lb, le, off, rank_[b])
              : search(slo, shi, lb, le, off, rank_[b]);
  }
  for (int s = inst_.section_lo(b); s < inst_.section_hi(b); ++s) {
    total_[s] += size;
    if (s + 1 < inst_.section_hi(b)) ++cuts_[s];
  }
  while (floor_trail_.size() > ft) {
    floor_[floor_trail_.back().first] = floor_trail_.back().second;
    floor_trail_.pop_back();
  }
  while (minoff_trail_.size() > mt) {
    minoff_[minoff_trail_.back().first] = minoff_trail_.back().second;
    minoff_trail_.pop_back();
  }
  placed_[b] = 0;
  if (r == Outcome::kFound) sol_[b] = off;
  return r;
}

}  // namespace strider::memory::exact
