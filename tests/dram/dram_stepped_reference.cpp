#include "tests/dram/dram_stepped_reference.h"

#include <algorithm>

#include "model/dram/dram_system.h"

namespace strider::test {

namespace {
// Does a command at (rank, bg, bank) share `scope` with one at (r2, g2, b2)? A rank command
// (PREA, REF) covers every bank group and bank of its rank.
bool same(DramScope scope, bool rank_cmd, uint32_t r, uint32_t g, uint32_t b, uint32_t r2,
          uint32_t g2, uint32_t b2) {
  if (scope == DramScope::kChannel) return true;
  if (r != r2) return false;
  if (scope == DramScope::kRank || rank_cmd) return true;
  return scope == DramScope::kBankGroup ? g == g2 : b == b2;
}
}  // namespace

bool DramSteppedReference::legal(DramCmd cmd, uint32_t rank, uint32_t bg, uint32_t bank,
                                 uint64_t t) const {
  for (const DramConstraint& c : spec_.constraints) {
    if (c.second != cmd) continue;
    uint32_t seen = 0;
    for (auto it = history_.rbegin(); it != history_.rend(); ++it) {
      if (it->cmd != c.first) continue;
      const bool rank_cmd = rank_command(cmd) || rank_command(it->cmd);
      if (!same(c.scope, rank_cmd, rank, bg, bank, it->rank, it->bg, it->bank)) continue;
      if (++seen == c.window) {
        if (it->t + c.cycles > t) return false;
        break;
      }
      if (c.window == 1) break;
    }
    if (c.window == 1) {
      // Any earlier command of the kind, not only the latest, must be far enough back.
      for (const Issued& h : history_) {
        const bool rank_cmd = rank_command(cmd) || rank_command(h.cmd);
        if (h.cmd == c.first && same(c.scope, rank_cmd, rank, bg, bank, h.rank, h.bg, h.bank) &&
            h.t + c.cycles > t)
          return false;
      }
    }
  }
  return true;
}

void DramSteppedReference::record(DramCmd cmd, uint32_t rank, uint32_t bg, uint32_t bank,
                                  uint32_t row, uint64_t t, bool refresh) {
  history_.push_back({t, cmd, rank, bg, bank});
  log_.push_back({t, cmd, rank, bank, row});
  last_[rank] = std::max(last_[rank], t);
  if (!refresh) work_[rank] = std::max(work_[rank], t);
  uint64_t quiet = t;
  if (cmd == DramCmd::kRd) quiet += spec_.read_latency;
  if (cmd == DramCmd::kWr) quiet += spec_.write_latency;
  if (cmd == DramCmd::kRef || cmd == DramCmd::kRefpb) quiet += spec_.refresh_cycles;
  quiet_[rank] = std::max(quiet_[rank], quiet);
  const uint32_t per_rank = spec_.banks_per_rank();
  if (cmd == DramCmd::kAct) open_[bank] = row;
  if (cmd == DramCmd::kPre) open_[bank] = -1;
  if (cmd == DramCmd::kPrea)
    for (uint32_t b = 0; b < per_rank; ++b) open_[rank * per_rank + b] = -1;
  for (size_t b = 0; b < open_.size(); ++b)
    if (open_[b] < 0) bypass_[b] = 0;  // the row-hit cap counts from the row's opening
}

std::vector<DramCommandRecord> DramSteppedReference::run(std::vector<RefRequest>& requests) {
  // Segments exactly as DramSystem cuts them (the mapping is not what is checked here).
  DramSystem mapper(spec_, policy_);
  std::vector<Seg> queue;
  std::vector<uint64_t> left(requests.size(), 0);
  const uint64_t bb = spec_.burst_bytes();
  for (size_t i = 0; i < requests.size(); ++i) {
    const RefRequest& r = requests[i];
    for (uint64_t b = r.addr / bb; b <= (r.addr + r.bytes - 1) / bb; ++b) {
      const DramLocation l = mapper.map(b);
      if (!queue.empty() && queue.back().req == i && queue.back().bank == l.bank &&
          queue.back().row == l.row) {
        ++queue.back().bursts;
      } else {
        queue.push_back(
            {i, r.arrival, l.rank, l.bankgroup, l.bank, l.row, 1, r.write, r.background});
      }
      ++left[i];
    }
  }
  open_.assign(size_t(spec_.ranks) * spec_.banks_per_rank(), -1);
  bypass_.assign(open_.size(), 0);
  last_.assign(spec_.ranks, 0);
  quiet_.assign(spec_.ranks, 0);
  work_.assign(spec_.ranks, 0);
  std::vector<bool> down(spec_.ranks, false);
  std::vector<uint64_t> down_since(spec_.ranks, 0), awake_at(spec_.ranks, 0);
  std::vector<uint64_t> due(spec_.ranks, spec_.refresh_interval);
  const uint32_t per_rank = spec_.banks_per_rank();
  std::vector<uint32_t> refresh_bank(spec_.ranks);  // per-bank refresh: the rank's next bank
  for (uint32_t r = 0; r < spec_.ranks; ++r) refresh_bank[r] = r * per_rank;
  std::vector<bool> activated(queue.size(), false);  // unused: kept simple
  uint64_t bus_free = 0;
  const uint64_t postpone = uint64_t(policy_.refresh_postpone) * spec_.refresh_interval;
  for (uint64_t t = 0; !queue.empty(); ++t) {
    // Postponement: whether rank r's owed refresh may issue at t, and whether it blocks r.
    const auto arrived = [&](uint32_t r) {
      for (const Seg& s : queue)
        if (s.rank == r && s.arrival <= t) return true;
      return false;
    };
    const auto refresh_may = [&](uint32_t r) {
      if (due[r] > t) return false;
      if (policy_.refresh_postpone == 0 || t >= due[r] + postpone) return true;
      return !arrived(r) && t >= work_[r] + policy_.refresh_idle;
    };
    // 0. Power-down state of each rank at t.
    for (uint32_t r = 0; r < spec_.ranks && spec_.powerdown_idle > 0; ++r) {
      bool wanted =
          due[r] <= t && (policy_.refresh_postpone == 0 || t >= work_[r] + policy_.refresh_idle);
      wanted |= arrived(r);
      if (down[r] && wanted && t >= down_since[r] + spec_.powerdown_min) {
        bool active = false;
        for (uint32_t b = 0; b < per_rank; ++b) active |= open_[r * per_rank + b] >= 0;
        pd_log_.push_back({down_since[r], t, r, active});
        down[r] = false;
        awake_at[r] = t + spec_.powerdown_exit;
      } else if (!down[r] && !wanted && t >= last_[r] + spec_.powerdown_idle && t >= quiet_[r]) {
        down[r] = true;
        down_since[r] = t;
      }
    }
    const auto asleep = [&](uint32_t r) { return down[r] || t < awake_at[r]; };
    if (t < bus_free) continue;
    // 1. Refresh of a rank whose refresh is due.
    bool issued = false;
    for (uint32_t r = 0; r < spec_.ranks && !issued; ++r) {
      if (!refresh_may(r) || asleep(r)) continue;
      if (spec_.per_bank_refresh) {  // PRE the bank when open, then REFPB; banks in turn
        const uint32_t b = refresh_bank[r], g = b / spec_.banks;
        const DramCmd cmd = open_[b] >= 0 ? DramCmd::kPre : DramCmd::kRefpb;
        if (legal(cmd, r, g, b, t)) {
          record(cmd, r, g, b, 0, t, true);
          if (cmd == DramCmd::kRefpb) {
            due[r] += spec_.refresh_interval;
            refresh_bank[r] = r * per_rank + (b - r * per_rank + 1) % per_rank;
          }
          bus_free = t + spec_.command_cycles[static_cast<int>(cmd)];
          issued = true;
        }
        continue;
      }
      bool open = false;
      for (uint32_t b = 0; b < spec_.banks_per_rank(); ++b)
        open |= open_[r * spec_.banks_per_rank() + b] >= 0;
      const DramCmd cmd = open ? DramCmd::kPrea : DramCmd::kRef;
      if (legal(cmd, r, 0, 0, t)) {
        record(cmd, r, 0, 0, 0, t, true);
        if (cmd == DramCmd::kRef) due[r] += spec_.refresh_interval;
        bus_free = t + spec_.command_cycles[static_cast<int>(cmd)];
        issued = true;
      }
    }
    if (issued) continue;
    // 2. The segments' commands ready at t: a demand segment's first, then a row hit, then the
    // oldest.
    const size_t n = policy_.fcfs ? 1 : std::min<size_t>(policy_.queue_depth, queue.size());
    int pick = -1;
    bool pick_hit = false, pick_background = false;
    DramCmd pick_cmd = DramCmd::kAct;
    // Row-hit cap: whether a segment older than i, arrived, waits for another row of i's bank.
    const auto older_waits = [&](size_t i) {
      for (size_t j = 0; j < i; ++j)
        if (queue[j].bank == queue[i].bank && queue[j].arrival <= t &&
            open_[queue[i].bank] != int64_t(queue[j].row))
          return true;
      return false;
    };
    const auto capped = [&](uint32_t bank) {
      return policy_.row_hit_cap > 0 && bypass_[bank] >= policy_.row_hit_cap;
    };
    for (size_t i = 0; i < n; ++i) {
      const Seg& s = queue[i];
      if (s.arrival > t || asleep(s.rank)) continue;
      if (due[s.rank] + postpone <= t &&
          (!spec_.per_bank_refresh || s.bank == refresh_bank[s.rank]))
        continue;
      DramCmd cmd;
      const bool hit = open_[s.bank] == int64_t(s.row);
      if (hit) {
        if (capped(s.bank) && older_waits(i)) continue;
        cmd = s.write ? DramCmd::kWr : DramCmd::kRd;
      } else if (open_[s.bank] < 0) {
        cmd = DramCmd::kAct;
      } else {
        // An arrived segment (capped: an older one) still hits the open row; a background one
        // does not hold a demand segment's PRE.
        bool needed = false;
        for (size_t j = 0; j < (capped(s.bank) ? i : n); ++j)
          needed |= queue[j].bank == s.bank && open_[s.bank] == int64_t(queue[j].row) &&
                    queue[j].arrival <= t && (s.background || !queue[j].background);
        if (needed) continue;
        cmd = DramCmd::kPre;
      }
      if (!legal(cmd, s.rank, s.bg, s.bank, t)) continue;
      const bool before =
          pick < 0 || (s.background == pick_background ? hit && !pick_hit : pick_background);
      if (before) {
        pick = static_cast<int>(i);
        pick_hit = hit;
        pick_background = s.background;
        pick_cmd = cmd;
      }
    }
    if (pick < 0) continue;
    Seg& s = queue[pick];
    record(pick_cmd, s.rank, s.bg, s.bank, s.row, t);
    bus_free = t + spec_.command_cycles[static_cast<int>(pick_cmd)];
    if (!pick_hit) continue;
    if (policy_.row_hit_cap > 0 && older_waits(size_t(pick))) ++bypass_[s.bank];
    RefRequest& r = requests[s.req];
    r.end = std::max(r.end, t + (s.write ? spec_.write_latency : spec_.read_latency));
    if (--s.bursts > 0) continue;
    const uint32_t rank = s.rank, bg = s.bg, bank = s.bank, row = s.row;
    queue.erase(queue.begin() + pick);
    if (policy_.closed_page) {
      bool needed = false;
      for (size_t j = 0; j < std::min<size_t>(policy_.queue_depth, queue.size()); ++j)
        needed |= queue[j].bank == bank && queue[j].row == row && queue[j].arrival <= t;
      if (!needed) {
        uint64_t p = t;
        while (!legal(DramCmd::kPre, rank, bg, bank, p)) ++p;
        // Auto-precharge: no command-bus slot.
        history_.push_back({p, DramCmd::kPre, rank, bg, bank});
        log_.push_back({p, DramCmd::kPre, rank, bank, row});
        last_[rank] = std::max(last_[rank], p);
        work_[rank] = std::max(work_[rank], p);
        open_[bank] = -1;
        bypass_[bank] = 0;
      }
    }
  }
  return log_;
}

}  // namespace strider::test
