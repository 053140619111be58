// See packing_search.h.
#include "planner/memory/exact/packing_search.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace strider::memory::exact {
namespace {
constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;
}  // namespace

PackingSearch::PackingSearch(const ExactInstance& inst, std::string order)
    : inst_(inst), order_(std::move(order)) {
  const int n = inst_.num_buffers();
  rank_.assign(n, 0);
  key_t_.assign(n, 0);
  placed_.assign(n, 0);
  minoff_.assign(n, 0);
  sol_.assign(n, 0);
  floor_.assign(inst_.num_sections(), kInf);
  total_.assign(inst_.num_sections(), 0);
  cuts_.assign(std::max(0, inst_.num_sections() - 1), 0);
  at_floor_.assign(inst_.num_sections(), 0);
  saved_.assign(inst_.num_sections(), 0);
  unplaced_in_.assign(inst_.num_sections(), 0);
  mem_start_.assign(inst_.num_sections() + 1, 0);
  for (int s = 0; s < inst_.num_sections(); ++s) {
    mem_start_[s + 1] = mem_start_[s] + static_cast<int>(inst_.members_end(s) - inst_.members_begin(s));
  }
  mem_.resize(mem_start_[inst_.num_sections()]);
  pos_start_.assign(n + 1, 0);
  for (int b = 0; b < n; ++b) {
    pos_start_[b + 1] = pos_start_[b] + inst_.section_hi(b) - inst_.section_lo(b);
  }
  mem_pos_.resize(pos_start_[n]);
  raised_.assign(inst_.num_sections(), 0);
  plain_ = !inst_.has_obstacles();
  for (int b = 0; b < n; ++b) plain_ = plain_ && inst_.alignment(b) == 1;
}

PackingSearch::Outcome PackingSearch::run(int64_t cap, int64_t node_budget,
                                          Clock::time_point deadline,
                                          const std::atomic<bool>* stop) {
  stop_ = stop;
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
    unplaced_in_[s] = mem_start_[s + 1] - mem_start_[s];
    int i = 0;
    for (const int* c = inst_.members_begin(s); c != inst_.members_end(s); ++c, ++i) {
      mem_[mem_start_[s] + i] = *c;
      mem_pos_[pos_start_[*c] + (s - inst_.section_lo(*c))] = i;
    }
    total_[s] = inst_.section_total(s);
    recompute_floor(s);
    if (total_[s] > 0 && floor_[s] + total_[s] > cap_) return Outcome::kInfeasible;
  }
  minoff_trail_.clear();
  section_trail_.clear();
  list_.clear();
  cand_.clear();
  rank_trail_.clear();
  for (int b = 0; b < n; ++b) list_.push_back(b);
  return solve_parts(0, ns, 0, n, 0, -1);
}

void PackingSearch::rank_part(int lb, int le) {
  for (int i = lb; i < le; ++i) {
    const int b = list_[i];
    int64_t t = 0;
    for (int s = inst_.section_lo(b); s < inst_.section_hi(b); ++s) t = std::max(t, total_[s]);
    key_t_[b] = t;
  }
  // Keys as doubles: size x lifetime may not fit in 64 bits; near-ties only change the order.
  auto key = [&](char c, int b) -> double {
    switch (c) {
      case 'W': return static_cast<double>(inst_.lifetime_length(b));
      case 'A': return static_cast<double>(inst_.size(b)) * inst_.lifetime_length(b);
      case 'T': return static_cast<double>(key_t_[b]);
      case 'Z': return static_cast<double>(inst_.size(b));
      default: return 0.0;
    }
  };
  std::vector<int> part(list_.begin() + lb, list_.begin() + le);
  std::sort(part.begin(), part.end(), [&](int x, int y) {
    for (const char c : order_) {
      const double kx = key(c, x);
      const double ky = key(c, y);
      if (kx != ky) return kx > ky;
    }
    return x < y;
  });
  for (size_t i = 0; i < part.size(); ++i) {
    rank_trail_.emplace_back(part[i], rank_[part[i]]);
    rank_[part[i]] = static_cast<int>(i);
  }
}

bool PackingSearch::out_of_budget() {
  ++nodes_;
  if (budget_ > 0 && nodes_ > budget_) aborted_ = true;
  if ((nodes_ & 63) == 0 &&
      (Clock::now() >= deadline_ || (stop_ != nullptr && stop_->load(std::memory_order_relaxed)))) {
    aborted_ = true;
  }
  return aborted_;
}

// Placed buffers have minoff_ == kInf, so the minimum runs over the unplaced ones.
void PackingSearch::recompute_floor(int s) {
  const int* begin = mem_.data() + mem_start_[s];
  const int* end = begin + unplaced_in_[s];
  int64_t m = kInf;
  for (const int* c = begin; c != end; ++c) m = std::min(m, minoff_[*c]);
  int count = 0;
  for (const int* c = begin; c != end; ++c) count += minoff_[*c] == m;
  save_section(s);
  floor_[s] = m;
  at_floor_[s] = count;
}

void PackingSearch::save_section(int s) {
  if (saved_[s] == stamp_) return;
  saved_[s] = stamp_;
  section_trail_.push_back({s, floor_[s], at_floor_[s]});
}

// A buffer of section s leaves the floor (placed, or its lowest offset rose).
void PackingSearch::leave_floor(int s) {
  save_section(s);
  if (--at_floor_[s] == 0) dirty_list_.push_back(s);
}

// Splits [slo, shi) at boundaries no unplaced buffer crosses and solves each part on its own.
PackingSearch::Outcome PackingSearch::solve_parts(int slo, int shi, int lb, int le,
                                                  int64_t last_off, int last_rank) {
  int start = slo;
  for (int s = slo; s < shi; ++s) {
    const bool end = s + 1 == shi || cuts_[s] == 0;
    if (!end) continue;
    if (start == slo && s + 1 == shi && last_rank >= 0) {
      return search(slo, shi, lb, le, last_off, last_rank);
    }
    const int pb = static_cast<int>(list_.size());
    for (int i = lb; i < le; ++i) {
      const int c = list_[i];
      if (!placed_[c] && inst_.section_lo(c) >= start && inst_.section_hi(c) <= s + 1) {
        list_.push_back(c);
      }
    }
    const int pe = static_cast<int>(list_.size());
    Outcome r = Outcome::kFound;
    if (pe > pb) {
      // A fresh static order for the part; equal-offset ties with the last buffer are open.
      const size_t rt = rank_trail_.size();
      rank_part(pb, pe);
      r = search(start, s + 1, pb, pe, last_off, -1);
      while (rank_trail_.size() > rt) {
        rank_[rank_trail_.back().first] = rank_trail_.back().second;
        rank_trail_.pop_back();
      }
    }
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
    cand_.push_back(b);
  }
  const int ce = static_cast<int>(cand_.size());
  // minoff_ and rank_ of these buffers are the same whenever this node runs its loop.
  std::sort(cand_.begin() + cb, cand_.begin() + ce, [&](int x, int y) {
    return minoff_[x] != minoff_[y] ? minoff_[x] < minoff_[y] : rank_[x] < rank_[y];
  });
  // A quick necessary test per candidate: sections outside its span keep their totals and must
  // fit above its offset. Prefix and suffix maxima of the totals answer it; they are built on
  // demand and dropped before each recursion, so memory does not grow with the depth.
  const int ns = shi - slo;
  int64_t tmax = 0;
  for (int s = slo; s < shi; ++s) tmax = std::max(tmax, total_[s]);
  const size_t pb = span_max_.size();
  Outcome result = Outcome::kInfeasible;
  for (int k = cb; k < ce; ++k) {
    const int b = cand_[k];
    const int64_t off = minoff_[b];
    if (off + tmax > cap_) {
      if (span_max_.size() == pb) {
        span_max_.resize(pb + 2 * (ns + 1));
        int64_t* pre = span_max_.data() + pb;  // pre[i]: max over [slo, slo + i)
        int64_t* suf = pre + ns + 1;           // suf[i]: max over [slo + i, shi)
        pre[0] = 0;
        suf[ns] = 0;
        for (int i = 0; i < ns; ++i) pre[i + 1] = std::max(pre[i], total_[slo + i]);
        for (int i = ns - 1; i >= 0; --i) suf[i] = std::max(suf[i + 1], total_[slo + i]);
      }
      const int64_t* pre = span_max_.data() + pb;
      const int64_t* suf = pre + ns + 1;
      const int blo = inst_.section_lo(b);
      const int bhi = inst_.section_hi(b);
      if (off + std::max(pre[blo - slo], suf[bhi - slo]) > cap_) continue;
      // Inside the span the others will sit above b: off + total must fit.
      const int64_t size = inst_.size(b);
      bool fits = true;
      for (int s = blo; s < bhi && fits; ++s) fits = total_[s] == size || off + total_[s] <= cap_;
      if (!fits) continue;
    }
    span_max_.resize(pb);
    bool hatless = false;
    const Outcome r = place(b, off, slo, shi, mb, me, &hatless);
    if (r != Outcome::kInfeasible) {
      result = r;
      break;
    }
    if (hatless) break;
  }
  cand_.resize(cb);
  span_max_.resize(pb);
  return result;
}

PackingSearch::Outcome PackingSearch::place(int b, int64_t off, int slo, int shi, int lb, int le,
                                            bool* hatless) {
  const int64_t size = inst_.size(b);
  const int64_t top = off + size;
  const int blo = inst_.section_lo(b);
  const int bhi = inst_.section_hi(b);
  const size_t mt = minoff_trail_.size();
  const size_t ft = section_trail_.size();
  ++stamp_;
  placed_[b] = 1;
  minoff_[b] = kInf;
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
      if (plain_ && s >= blo && s < bhi) {
        ++raised_[s];  // now exactly at top: handled with b's span below
      } else if (floor_[s] == old) {
        leave_floor(s);
      }
    }
  }
  bool split = false;
  for (int s = blo; s < bhi; ++s) {
    // Swap b behind the unplaced prefix of section s; undoing is just growing the prefix back.
    int* region = mem_.data() + mem_start_[s];
    const int last = --unplaced_in_[s];
    const int at = mem_pos_[pos_start_[b] + (s - blo)];
    const int other = region[last];
    region[at] = other;
    mem_pos_[pos_start_[other] + (s - inst_.section_lo(other))] = at;
    region[last] = b;
    mem_pos_[pos_start_[b] + (s - blo)] = last;
    total_[s] -= size;
    if (raised_[s] > 0) {
      // Every unplaced buffer of s overlaps b, so none is below top any more, and the raised
      // ones sit exactly on it: the floor is top. The count may miss buffers that were at top
      // already; a count that reaches 0 too early only costs a recompute.
      save_section(s);
      floor_[s] = top;
      at_floor_[s] = raised_[s];
      raised_[s] = 0;
    } else if (floor_[s] == off) {
      leave_floor(s);
    }
    if (s + 1 < bhi && --cuts_[s] == 0) split = true;
  }
  for (int s : dirty_list_) recompute_floor(s);
  // Sections outside the span whose floor did not move passed search()'s test; check the rest.
  bool ok = true;
  for (int s = blo; s < bhi && ok; ++s) {
    ok = total_[s] == 0 || std::max(floor_[s], off) + total_[s] <= cap_;
  }
  for (size_t i = 0; i < dirty_list_.size() && ok; ++i) {
    const int s = dirty_list_[i];
    ok = total_[s] == 0 || std::max(floor_[s], off) + total_[s] <= cap_;
  }
  dirty_list_.clear();
  Outcome r = Outcome::kInfeasible;
  if (ok) {
    r = split ? solve_parts(slo, shi, lb, le, off, rank_[b])
              : search(slo, shi, lb, le, off, rank_[b]);
  }
  for (int s = blo; s < bhi; ++s) {
    ++unplaced_in_[s];
    total_[s] += size;
    if (s + 1 < bhi) ++cuts_[s];
  }
  while (section_trail_.size() > ft) {
    const SectionChange& c = section_trail_.back();
    floor_[c.section] = c.floor;
    at_floor_[c.section] = c.at_floor;
    section_trail_.pop_back();
  }
  while (minoff_trail_.size() > mt) {
    minoff_[minoff_trail_.back().first] = minoff_trail_.back().second;
    minoff_trail_.pop_back();
  }
  placed_[b] = 0;
  minoff_[b] = off;
  if (r == Outcome::kFound) sol_[b] = off;
  return r;
}

}  // namespace strider::memory::exact
