#include "model/dram/dram_channel.h"

#include <algorithm>

#include "core/common/ceil_div.h"

namespace strider {

DramChannel::DramChannel(const DramSpec& spec, const DramPolicy& policy, uint32_t index)
    : spec_(&spec),
      policy_(policy),
      index_(index),
      banks_per_rank_(spec.banks_per_rank()),
      banks_per_group_(spec.banks),
      groups_per_rank_(spec.bankgroups),
      open_row_(size_t(spec.ranks) * spec.banks_per_rank(), -1),
      refresh_due_(spec.ranks, spec.refresh_interval),
      refresh_bank_(spec.ranks),
      hit_arrival_(size_t(spec.ranks) * spec.banks_per_rank(), kNever),
      demand_hit_arrival_(size_t(spec.ranks) * spec.banks_per_rank(), kNever),
      bypass_(size_t(spec.ranks) * spec.banks_per_rank(), 0),
      residency_(spec.ranks),
      rank_last_(spec.ranks, 0),
      rank_quiet_(spec.ranks, 0),
      rank_work_(spec.ranks, 0),
      rank_arrivals_(spec.ranks) {
  if (policy_.queue_depth == 0) policy_.queue_depth = 1;
  for (uint32_t r = 0; r < spec.ranks; ++r) refresh_bank_[r] = r * banks_per_rank_;
  for (int c = 0; c < kDramCmdCount; ++c) {
    self_spacing_[c] = spec.command_cycles[c];  // the command bus, at least
    channel_spacing_[c] = spec.command_cycles[c];
  }
  const size_t inst[4] = {1, spec.ranks, size_t(spec.ranks) * spec.bankgroups,
                          size_t(spec.ranks) * spec.banks_per_rank()};
  for (int s = 0; s < 4; ++s) next_[s].assign(inst[s] * kDramCmdCount, 0);
  for (const DramConstraint& c : spec.constraints) {
    const int f = static_cast<int>(c.first);
    if (c.window > 1) has_window_first_[f] = 1;
    if (c.window == 1 && c.first == c.second) {
      self_spacing_[f] = std::max<uint64_t>(self_spacing_[f], c.cycles);
      if (c.scope == DramScope::kChannel)
        channel_spacing_[f] = std::max<uint64_t>(channel_spacing_[f], c.cycles);
    }
    if (c.window > 1) {
      windows_by_second_[static_cast<int>(c.second)].push_back(static_cast<int>(windows_.size()));
      windows_.push_back({c, std::vector<std::deque<uint64_t>>(inst[static_cast<int>(c.scope)])});
    } else {
      by_first_[static_cast<int>(c.first)].push_back(c);
    }
  }
}

namespace {
// Instance of `scope` that holds bank `bank` (flat in the channel) of bank group `bg`.
inline uint32_t instance(DramScope s, uint32_t rank, uint32_t bg, uint32_t bank) {
  switch (s) {
    case DramScope::kChannel:
      return 0;
    case DramScope::kRank:
      return rank;
    case DramScope::kBankGroup:
      return bg;
    default:
      return bank;
  }
}
}  // namespace

uint64_t DramChannel::earliest(DramCmd cmd, uint32_t rank, uint32_t bg, uint32_t bank) const {
  uint64_t t = std::max(next(DramScope::kChannel, 0, cmd), next(DramScope::kRank, rank, cmd));
  if (rank_command(cmd)) {
    // A rank command must respect what any bank or bank group of its rank left behind.
    for (uint32_t g = 0; g < groups_per_rank_; ++g)
      t = std::max(t, next(DramScope::kBankGroup, rank * groups_per_rank_ + g, cmd));
    for (uint32_t b = 0; b < banks_per_rank_; ++b)
      t = std::max(t, next(DramScope::kBank, rank * banks_per_rank_ + b, cmd));
  } else {
    t = std::max({t, next(DramScope::kBankGroup, bg, cmd), next(DramScope::kBank, bank, cmd)});
  }
  for (int w : windows_by_second_[static_cast<int>(cmd)]) {
    const Window& win = windows_[w];
    const auto& h = win.history[instance(win.c.scope, rank, bg, bank)];
    if (h.size() == win.c.window) t = std::max(t, h.front() + win.c.cycles);
  }
  return t;
}

DramChannel::PowerDown DramChannel::pending_powerdown(uint32_t rank) const {
  if (spec_->powerdown_idle == 0) return {};
  const uint64_t entry = std::max(rank_last_[rank] + spec_->powerdown_idle, rank_quiet_[rank]);
  uint64_t trigger = refresh_wanted(rank);
  if (!rank_arrivals_[rank].empty()) trigger = std::min(trigger, *rank_arrivals_[rank].begin());
  if (trigger <= entry) return {};
  return {entry, std::max(trigger, entry + spec_->powerdown_min)};
}

// A stay [p.entry, min(p.exit, until)); the rank's banks are as its last command left them.
void DramChannel::record_powerdown(uint32_t rank, const PowerDown& p, uint64_t until) {
  const uint64_t exit = std::min(p.exit, until);
  if (exit <= p.entry) return;
  const bool active = rank_open(rank);
  ++stats_.powerdown_entries;
  (active ? stats_.powerdown_active_cycles : stats_.powerdown_precharged_cycles) += exit - p.entry;
  if (pd_log_) pd_log_->push_back({p.entry, exit, rank, active});
}

void DramChannel::issue(DramCmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint32_t row,
                        uint64_t t, bool bus, bool refresh) {
  if (bus && spec_->powerdown_idle > 0) {  // (an auto-precharge belongs to its column command)
    const PowerDown p = pending_powerdown(rank);
    if (p.valid() && t >= p.entry) record_powerdown(rank, p, kNever);
  }
  rank_last_[rank] = std::max(rank_last_[rank], t);
  if (!refresh) rank_work_[rank] = std::max(rank_work_[rank], t);
  uint64_t quiet = t;
  if (cmd == DramCmd::kRd) quiet += spec_->read_latency;
  if (cmd == DramCmd::kWr) quiet += spec_->write_latency;
  if (cmd == DramCmd::kRef || cmd == DramCmd::kRefpb) quiet += spec_->refresh_cycles;
  rank_quiet_[rank] = std::max(rank_quiet_[rank], quiet);
  const bool whole_rank = rank_command(cmd);
  for (const DramConstraint& c : by_first_[static_cast<int>(cmd)]) {
    const uint64_t v = t + c.cycles;
    if (whole_rank && c.scope == DramScope::kBankGroup) {
      for (uint32_t g = 0; g < groups_per_rank_; ++g) {
        uint64_t& n = next(c.scope, rank * groups_per_rank_ + g, c.second);
        n = std::max(n, v);
      }
    } else if (whole_rank && c.scope == DramScope::kBank) {
      for (uint32_t b = 0; b < banks_per_rank_; ++b) {
        uint64_t& n = next(c.scope, rank * banks_per_rank_ + b, c.second);
        n = std::max(n, v);
      }
    } else {
      uint64_t& n = next(c.scope, instance(c.scope, rank, bg, bank), c.second);
      n = std::max(n, v);
    }
  }
  for (Window& win : windows_) {
    if (win.c.first != cmd) continue;
    auto& h = win.history[instance(win.c.scope, rank, bg, bank)];
    h.push_back(t);
    if (h.size() > win.c.window) h.pop_front();
  }
  residency_event(cmd, rank, bank, t);
  apply(cmd, rank, bank, row);
  if (bus) bus_free_ = t + spec_->command_cycles[static_cast<int>(cmd)];
  last_command_ = std::max(last_command_, t);
  ++stats_.commands[static_cast<int>(cmd)];
  if (log_) log_->push_back({t, cmd, rank, bank, row});
}

void DramChannel::apply(DramCmd cmd, uint32_t rank, uint32_t bank, uint32_t row) {
  switch (cmd) {
    case DramCmd::kAct:
      open_row_[bank] = row;
      break;
    case DramCmd::kPre:
      open_row_[bank] = -1;
      bypass_[bank] = 0;
      break;
    case DramCmd::kPrea:
      std::fill(open_row_.begin() + size_t(rank) * banks_per_rank_,
                open_row_.begin() + size_t(rank + 1) * banks_per_rank_, -1);
      std::fill(bypass_.begin() + size_t(rank) * banks_per_rank_,
                bypass_.begin() + size_t(rank + 1) * banks_per_rank_, 0);
      break;
    case DramCmd::kRef:
      refresh_due_[rank] += spec_->refresh_interval;
      stats_.refresh_cycles += spec_->refresh_cycles;
      break;
    case DramCmd::kRefpb:  // the rank's next bank in turn
      refresh_due_[rank] += spec_->refresh_interval;
      stats_.refresh_cycles += spec_->refresh_cycles;
      refresh_bank_[rank] =
          rank * banks_per_rank_ + (bank + 1 - rank * banks_per_rank_) % banks_per_rank_;
      break;
    default:
      break;
  }
}

// Called before the command changes open_row_: the change in the rank's open banks.
void DramChannel::residency_event(DramCmd cmd, uint32_t rank, uint32_t bank, uint64_t t) {
  Residency& r = residency_[rank];
  int delta = 0;
  if (cmd == DramCmd::kAct && open_row_[bank] < 0) delta = 1;
  if (cmd == DramCmd::kPre && open_row_[bank] >= 0) delta = -1;
  if (cmd == DramCmd::kPrea) {
    for (uint32_t b = 0; b < banks_per_rank_; ++b)
      delta -= open_row_[size_t(rank) * banks_per_rank_ + b] >= 0 ? 1 : 0;
  }
  if (delta != 0) r.events.emplace_back(t, delta);
  if (cmd == DramCmd::kRef) fold(r);
}

void DramChannel::fold(Residency& r) {
  std::stable_sort(r.events.begin(), r.events.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [t, delta] : r.events) {
    if (r.open > 0 && t > r.since) stats_.active_cycles += t - r.since;
    r.since = std::max(r.since, t);
    r.open += delta;
  }
  r.events.clear();
}

void DramChannel::finish(uint64_t end) {
  run_until(end);  // the refreshes owed before the end
  for (uint32_t r = 0; r < residency_.size(); ++r) record_powerdown(r, pending_powerdown(r), end);
  for (Residency& r : residency_) {
    fold(r);
    if (r.open > 0 && end > r.since) stats_.active_cycles += end - r.since;
    r.since = std::max(r.since, end);
  }
  if (policy_.refresh_postpone == 0) return;
  // The refreshes still owed (postponed, at most refresh_postpone per rank, or due too close to the
  // end to issue before it) are charged: the device must still do them, after the run's end (its
  // power-down and residency stop at the end; each one's PRE / PREA when its banks are open).
  const auto charge = [&](DramCmd cmd, uint32_t rank, uint32_t bank) {
    ++stats_.commands[static_cast<int>(cmd)];
    apply(cmd, rank, bank, 0);
  };
  for (uint32_t r = 0; r < refresh_due_.size(); ++r) {
    while (refresh_due_[r] < end) {
      if (spec_->per_bank_refresh) {
        const uint32_t b = refresh_bank_[r];
        if (open_row_[b] >= 0) charge(DramCmd::kPre, r, b);
        charge(DramCmd::kRefpb, r, b);
      } else {
        if (rank_open(r)) charge(DramCmd::kPrea, r, 0);
        charge(DramCmd::kRef, r, 0);
      }
    }
  }
}

bool DramChannel::rank_open(uint32_t rank) const {
  for (uint32_t b = 0; b < banks_per_rank_; ++b) {
    if (open_row_[size_t(rank) * banks_per_rank_ + b] >= 0) return true;
  }
  return false;
}

void DramChannel::column_moved(DramSegment& s, uint64_t t) {
  DramRequestState& rq = *s.req;
  const uint64_t data_end = t + (s.write ? spec_->write_latency : spec_->read_latency);
  rq.end = std::max(rq.end, data_end);
  stats_.last_data = std::max(stats_.last_data, data_end);
  --rq.bursts_left;
  --rq.channel_bursts[index_];
  if (!s.activated) {
    ++stats_.row_hits;
    ++rq.row_hits;
  }
  s.activated = false;
  ++(s.write ? stats_.write_bursts : stats_.read_bursts);
  --s.bursts;
}

uint64_t DramChannel::stream(DramSegment& s, uint64_t limit, bool younger_hits, uint64_t cap_from) {
  const DramCmd cmd = s.write ? DramCmd::kWr : DramCmd::kRd;
  const int c = static_cast<int>(cmd);
  const bool cap = policy_.row_hit_cap > 0 && cap_from != kNever;
  uint64_t n = 0;
  while (s.bursts > 0) {
    const uint64_t t = std::max(earliest(cmd, s.rank, s.bankgroup, s.bank), bus_free_);
    if (t >= refresh_block(s.rank) || t >= limit) break;  // (per bank: step() decides)
    if (younger_hits && t > std::max(next(DramScope::kChannel, 0, cmd), bus_free_)) break;
    if (cap && t >= cap_from && capped(s.bank)) break;  // the older segment's turn
    issue(cmd, s.rank, s.bankgroup, s.bank, s.row, t, true);
    column_moved(s, t);
    if (cap && t >= cap_from) ++bypass_[s.bank];
    ++n;
    if (s.bursts == 0 || has_window_first_[c]) break;
    // The following bursts in closed form: every constraint an older command left was met at t,
    // so the next burst waits only for this one's: spacing = max(its column-to-column
    // constraints, its command-bus cycles). With younger row hits waiting, only while that is the
    // channel's own spacing (else a hit in another bank group may go first).
    const uint64_t d = self_spacing_[c];
    if (younger_hits && d > channel_spacing_[c]) break;
    const uint64_t end = std::min(refresh_block(s.rank), limit);  // first cycle not allowed
    if (t + d >= end) break;
    uint64_t k = std::min<uint64_t>(s.bursts, (end - 1 - t) / d);
    uint64_t counted = 0;  // of bursts t + d .. t + k d, those the row-hit cap counts (>= cap_from)
    if (cap) {
      const uint64_t first = cap_from <= t + d ? 1 : ceil_div(cap_from - t, d);  // its j
      const uint64_t allowed = policy_.row_hit_cap - bypass_[s.bank];
      if (k >= first && k - first + 1 > allowed) k = first - 1 + allowed;
      if (k == 0) break;
      counted = k >= first ? k - first + 1 : 0;
    }
    bypass_[s.bank] += static_cast<uint32_t>(counted);
    const uint64_t last = t + k * d;
    if (log_) {
      for (uint64_t j = 1; j < k; ++j) log_->push_back({t + j * d, cmd, s.rank, s.bank, s.row});
    }
    stats_.commands[c] += k - 1;  // issue() counts the last
    issue(cmd, s.rank, s.bankgroup, s.bank, s.row, last, true);
    DramRequestState& rq = *s.req;
    rq.bursts_left -= k - 1;
    rq.channel_bursts[index_] -= k - 1;
    rq.row_hits += k - 1;
    stats_.row_hits += k - 1;
    (s.write ? stats_.write_bursts : stats_.read_bursts) += k - 1;
    s.bursts -= static_cast<uint32_t>(k - 1);
    column_moved(s, last);
    n += k;
  }
  return n;
}

bool DramChannel::step(uint64_t horizon) {
  if (queue_.empty() && horizon == kNever) return false;  // (refreshes alone: up to a horizon)
  const size_t n = policy_.fcfs ? std::min<size_t>(1, queue_.size())
                                : std::min<size_t>(policy_.queue_depth, queue_.size());
  // Banks whose open row a queued segment still needs: no PRE may close them once that segment
  // has arrived (hit_arrival_: the earliest such arrival per bank; demand_hit_arrival_: of a
  // demand segment, the only ones that hold a demand segment's PRE).
  for (size_t i = 0; i < n; ++i) {
    const DramSegment& s = queue_[i];
    if (open_row_[s.bank] == int64_t(s.row)) {
      hit_arrival_[s.bank] = std::min(hit_arrival_[s.bank], s.arrival);
      if (!s.background)
        demand_hit_arrival_[s.bank] = std::min(demand_hit_arrival_[s.bank], s.arrival);
    }
  }
  Choice best;
  // A lower bound of each candidate's next command cycle (for stream()).
  cand_t_.assign(n, kNever);
  cand_hit_.assign(n, 1);              // not scanned: assume the worst (an older hit)
  cand_cmd_.assign(n, DramCmd::kRef);  // not scanned: no command known
  for (size_t i = 0; i < n; ++i) {
    const DramSegment& s = queue_[i];
    cand_t_[i] = s.arrival;
    if (s.arrival > best.t) continue;  // cannot issue before the best choice so far
    const int64_t open = open_row_[s.bank];
    DramCmd cmd;
    bool hit = false;
    if (open == int64_t(s.row)) {
      cmd = s.write ? DramCmd::kWr : DramCmd::kRd;
      hit = true;
    } else if (open < 0) {
      cmd = DramCmd::kAct;
    } else {
      cmd = DramCmd::kPre;
    }
    const uint64_t t =
        std::max({earliest(cmd, s.rank, s.bankgroup, s.bank), s.arrival, bus_free_, awake(s.rank)});
    cand_t_[i] = t;
    cand_hit_[i] = hit;
    cand_cmd_[i] = cmd;
    // Blocked while the row is still needed, or until the rank's refresh: never before this
    // step's column stream ends (the stream stops at the refresh). Row-hit cap reached: a row
    // hit waits while an older segment of the bank waits for another row, and a PRE is held
    // only by an older row hit.
    // A background segment's row hit never holds a demand segment's PRE.
    bool held =
        cmd == DramCmd::kPre && (s.background ? hit_arrival_ : demand_hit_arrival_)[s.bank] <= t;
    if (held && capped(s.bank)) {
      held = false;
      for (size_t j = 0; j < i && !held; ++j)
        held = queue_[j].bank == s.bank && open == int64_t(queue_[j].row) &&
               queue_[j].arrival <= t && (s.background || !queue_[j].background);
    }
    if (hit && capped(s.bank) && older_conflict(i, n) <= t) held = true;
    if (held || (t >= refresh_block(s.rank) && refresh_blocks(s.rank, s.bank))) {
      cand_t_[i] = kNever;
      continue;
    }
    // At equal cycles: a demand segment before a background one, then a row hit, then the oldest.
    const bool first =
        best.index < 0 || (s.background == best.background ? hit && !best.hit : best.background);
    if (t < best.t || (t == best.t && first)) best = {t, int(i), cmd, hit, 0, s.background};
  }
  for (size_t i = 0; i < n; ++i) {
    hit_arrival_[queue_[i].bank] = kNever;
    demand_hit_arrival_[queue_[i].bank] = kNever;
  }
  // Refresh: PREA when a bank of the rank is open, then REF (per bank: PRE when the bank is
  // open, then REFPB); first at equal cycles.
  for (uint32_t r = 0; r < refresh_due_.size(); ++r) {
    if (refresh_due_[r] > best.t) continue;
    const uint32_t b = refresh_bank_[r];
    const DramCmd cmd = spec_->per_bank_refresh
                            ? (open_row_[b] >= 0 ? DramCmd::kPre : DramCmd::kRefpb)
                        : rank_open(r) ? DramCmd::kPrea
                                       : DramCmd::kRef;
    uint64_t t =
        std::max({earliest(cmd, r, b / banks_per_group_, b), refresh_due_[r], bus_free_, awake(r)});
    if (policy_.refresh_postpone > 0) {
      // Postponed while a request of the rank is queued: at the first idle cycle, else forced.
      const uint64_t idle = std::max(t, rank_work_[r] + policy_.refresh_idle);
      t = rank_busy(r, idle) ? std::max(t, refresh_block(r)) : idle;
    }
    if (t <= best.t) best = {t, -1 - int(r), cmd, false, b};
  }
  if (best.t >= horizon) return false;  // (kNever: cannot happen with work queued)
  if (best.index < 0) {
    const uint32_t b = spec_->per_bank_refresh ? best.bank : 0;  // (all-bank: rank commands)
    issue(best.cmd, uint32_t(-1 - best.index), b / banks_per_group_, b, 0, best.t, true, true);
    return true;
  }
  DramSegment& s = queue_[best.index];
  issue(best.cmd, s.rank, s.bankgroup, s.bank, s.row, best.t, true);
  DramRequestState& rq = *s.req;
  rq.first_command = std::min(rq.first_command, best.t);
  if (!best.hit) {
    s.activated = best.cmd == DramCmd::kAct;
    return true;
  }
  // A column command: one burst of the segment moves.
  column_moved(s, best.t);
  const uint64_t cap_from = policy_.row_hit_cap > 0 ? older_conflict(best.index, n) : kNever;
  if (cap_from <= best.t) ++bypass_[s.bank];
  if (s.bursts > 0) {
    // Streaming: no other candidate can issue before `others` (its commands only get later as
    // this segment's column commands add constraints), so this segment's next bursts issue
    // back to back up to then (or a refresh) without the scan above, at the same cycles.
    // A candidate beats this segment's burst at cycle t when its command can issue before t, or
    // at t when it is an older row hit (or was not scanned). A younger row hit of the same kind
    // (RD or WR) can only beat it when this segment's burst waits for more than the channel's
    // column constraints (a bank-group or bank constraint): stream() checks that each burst.
    // Classes: a demand candidate beats a background segment's burst at equal cycles; a
    // background candidate never beats a demand one's at equal cycles (a background row hit of
    // the same kind is then one of the `younger_hits`).
    uint64_t limit = horizon;  // stream while t < limit
    bool younger_hits = false;
    for (size_t i = 0; i < cand_t_.size(); ++i) {
      if (int(i) == best.index || cand_t_[i] == kNever) continue;
      const bool same_class = queue_[i].background == s.background;
      const bool lower = same_class ? int(i) > best.index : queue_[i].background;
      if (lower && cand_hit_[i] && cand_cmd_[i] == best.cmd) {
        younger_hits = true;
        continue;
      }
      const bool ties = same_class ? int(i) < best.index && cand_hit_[i] : !lower;
      limit = std::min(limit, ties ? cand_t_[i] : cand_t_[i] + 1);
    }
    stream(s, limit, younger_hits, cap_from);
    if (s.bursts > 0) return true;
  }
  const uint32_t rank = s.rank, bg = s.bankgroup, bank = s.bank, row = s.row;
  rank_arrivals_[rank].erase(rank_arrivals_[rank].find(s.arrival));
  queue_.erase(queue_.begin() + best.index);
  if (policy_.closed_page) {
    bool needed = false;
    for (size_t i = 0; i < std::min<size_t>(policy_.queue_depth, queue_.size()) && !needed; ++i)
      needed = queue_[i].bank == bank && queue_[i].row == row && queue_[i].arrival <= best.t;
    if (!needed)
      issue(DramCmd::kPre, rank, bg, bank, row, earliest(DramCmd::kPre, rank, bg, bank), false);
  }
  return true;
}

uint64_t DramChannel::older_conflict(size_t i, size_t n) const {
  const DramSegment& s = queue_[i];
  uint64_t t = kNever;
  for (size_t j = 0; j < i && j < n; ++j) {
    const DramSegment& o = queue_[j];
    if (o.bank == s.bank && open_row_[s.bank] != int64_t(o.row)) t = std::min(t, o.arrival);
  }
  return t;
}

void DramChannel::run(const DramRequestState* req) {
  while ((req == nullptr || req->channel_bursts[index_] > 0) && step(kNever)) {
  }
}

void DramChannel::run_until(uint64_t horizon) {
  while (step(horizon)) {
  }
}

}  // namespace strider
