// DramChannel: the command scheduler and bank / rank timing state of one DRAM channel, in plain
// C++ (no SystemC), so a whole request's bursts are scheduled in one call.
//
// Models: a queue of row segments (consecutive bursts of one request that fall in one row of
// one bank); the controller issues one command at a time on the channel's command bus. Each step
// it looks at the first `queue_depth` segments and, for each, at the command its next burst needs
// (RD / WR when its row is open, ACT when the bank is closed, PRE when another row is open and no
// segment that has arrived by then still hits it) and at the earliest cycle that command may issue:
// the maximum of the segment's arrival, the command bus, and every constraint of the preset's table
// that an earlier command left on this channel, rank, bank group or bank (window constraints such
// as tFAW hold the later command until `cycles` after the w-th most recent earlier one). FR-FCFS
// issues the command that can issue first, a column command (row hit) before a row command at the
// same cycle, then the oldest segment; FCFS only serves the oldest segment. Request classes
// (FR-FCFS; FCFS ignores them): at equal cycles a demand segment's command goes before a
// background segment's (then row hits first within the class, then the oldest), so a background
// command issues only at a cycle at which no demand command can; a background segment's row hit
// does not hold a demand segment's PRE (a demand one holds either class's). Refresh: every rank
// owes one REF each nREFI; from its due cycle no other command may target the rank until a PREA
// (when a bank is open) and the REF have issued, and REF holds the rank for nRFC (a REF -> ACT
// constraint). Per-bank refresh (spec.per_bank_refresh): every nREFIpb the next bank of the rank
// in turn is due; from then no command may target that bank until a PRE (when it is open) and the
// REFPB have issued (REFPB -> ACT holds it for nRFCpb); the other banks go on. A due refresh
// command goes first at equal cycles. Refresh postponement (policy.refresh_postpone = P > 0):
// the rank's oldest owed refresh, due at D, blocks the rank only from D + P x nREFI (the cycle a
// (P+1)-th falls due: never more than P postponed); before that it is issued at the first cycle
// t >= D, >= the rank's last request command + policy.refresh_idle, at which no queued segment of
// the rank has arrived (so owed refreshes are paid back to back, nRFC apart, in idle time).
// Row-hit cap (policy.row_hit_cap = N > 0, FR-FCFS+Cap): per bank, a column command of a segment
// while an older segment of the window, arrived by then, waits for another row of the bank counts
// as a bypass; the count restarts when the bank's row closes (PRE, PREA). Once it reaches N, the
// younger segments' row hits to the bank wait and the older segment's PRE is no longer held by
// them (only by an arrived row hit older than it).
// Page policy: open keeps rows open; closed precharges a
// bank (auto-precharge, no command-bus slot) after a column command that no arrived segment
// follows in the same row.
// Cycles: DRAM clock cycles. A burst's data ends read_latency (RD) / write_latency (WR) after
// its column command.
// Incremental use (the full simulation): run_until(T) issues only the commands before cycle T,
// so requests that arrive at T or later still compete for every later command (FR-FCFS across
// requests); issuing up to each arrival and then draining gives the same commands as queuing every
// request first and draining (tests/dram DramIncremental.*).
// Idle refresh: run_until(T) issues the refreshes due before T also while nothing is queued (so a
// request after a gap does not pay the gap's refreshes); run() stops when the queue is empty.
// Power-down (spec.powerdown_idle = N > 0): a rank enters power-down at
// E = max(its last command + N, the end of its last burst's data / refresh) unless by then a
// segment for it is queued (arrived) or its refresh is due; precharge power-down when every bank
// is closed, active power-down when a row is open. The first such trigger at T wakes it: it leaves
// at X = max(T, E + nCKE) (a stay lasts at least nCKE) and its next command waits until X + nXP.
// Nothing is issued to a rank in power-down, so the state is decided when its next command is
// (pending_powerdown()), and at finish() for the run's idle tail.
// This is an event-driven scheduler: it visits the cycles at which commands issue, never idle
// cycles, and matches a cycle-by-cycle controller that applies the same rules (tests/dram).
// State residency (for the energy model's background power): per rank, the cycles during which
// at least one bank is open (active standby); the rest of the run is precharged standby. Commands
// are not issued in cycle order across banks (a closed-page precharge or a streamed burst is
// placed ahead), so each rank's open/close events are kept until its next REF (no later command
// of the rank can precede a REF: REF -> ACT holds nRFC) or finish(), then sorted and summed.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <set>
#include <vector>

#include "core/arch/dram_spec.h"

namespace strider {

struct DramRequestState {
  uint64_t arrival = 0;                 // DRAM cycle
  uint64_t bursts = 0;                  // over all channels
  uint64_t bursts_left = 0;             // over all channels, not yet moved
  uint64_t row_hits = 0;                // of the moved bursts, those whose row was open
  uint64_t first_command = UINT64_MAX;  // first command issued for it
  uint64_t end = 0;                     // last data beat
  bool write = false;
  bool background = false;               // served behind demand requests (DramChannel)
  bool released = false;                 // its owner has read it (DramSystem::release)
  std::vector<uint64_t> channel_bursts;  // bursts left on each channel
};

struct DramSegment {
  DramRequestState* req = nullptr;
  uint64_t arrival = 0;
  uint32_t rank = 0, bankgroup = 0, bank = 0;  // bankgroup and bank flat within the channel
  uint32_t row = 0;
  uint32_t bursts = 0;  // bursts left
  bool write = false;
  bool activated = false;   // an ACT was issued for it and its next burst has not moved yet
  bool background = false;  // its request's class
};

struct DramChannelStats {
  std::array<uint64_t, kDramCmdCount> commands{};  // issued, by command (auto-precharges in PRE)
  uint64_t read_bursts = 0, write_bursts = 0;
  uint64_t row_hits = 0;        // column commands whose row was already open
  uint64_t refresh_cycles = 0;  // nRFC per REF
  uint64_t last_data = 0;       // cycle the last data beat ended
  uint64_t active_cycles = 0;   // rank-cycles with at least one bank open (complete at finish())
  uint64_t powerdown_entries = 0;
  uint64_t powerdown_active_cycles = 0;      // rank-cycles in active power-down (a row open)
  uint64_t powerdown_precharged_cycles = 0;  // rank-cycles in precharge power-down
};

// One stay in power-down, for tests: [entry, exit) of `rank`, active (a row open) or precharge.
struct DramPowerDownRecord {
  uint64_t entry = 0, exit = 0;
  uint32_t rank = 0;
  bool active = false;
};

// One command as issued, for tests and traces.
struct DramCommandRecord {
  uint64_t cycle = 0;
  DramCmd cmd = DramCmd::kAct;
  uint32_t rank = 0, bank = 0;  // bank flat within the channel (rank * banks_per_rank + ...)
  uint32_t row = 0;
};

struct DramPolicy {
  bool closed_page = false;
  bool fcfs = false;
  uint32_t queue_depth = 16;
  // Refresh postponement (arch.dram.refresh_postpone, JEDEC: at most 8): a refresh that falls
  // due while the rank has an arrived request queued waits, up to this many owed, and is issued
  // once the rank has had no request command for `refresh_idle` DRAM cycles and none is queued;
  // when one more falls due the rank is blocked for it. 0: every refresh is issued when due.
  uint32_t refresh_postpone = 0;
  uint64_t refresh_idle = 0;
  // Row-hit cap (arch.dram.row_hit_cap, FR-FCFS+Cap; 0: none): at most this many column commands
  // of younger segments may issue to a bank's open row while an older arrived segment of the same
  // bank waits for another row; then those hits wait and the older segment's PRE may issue.
  uint32_t row_hit_cap = 0;
};

class DramChannel {
 public:
  DramChannel(const DramSpec& spec, const DramPolicy& policy, uint32_t index = 0);

  void enqueue(const DramSegment& s) {
    queue_.push_back(s);
    rank_arrivals_[s.rank].insert(s.arrival);
  }
  bool idle() const { return queue_.empty(); }
  // Issues commands until every burst of `req` on this channel has moved (req nullptr: until the
  // queue is empty). Requests already queued compete with it under the scheduling policy.
  void run(const DramRequestState* req);
  // Issues every command that can issue before cycle `horizon` (and no later one).
  void run_until(uint64_t horizon);
  // The cycle of the latest command issued so far (auto-precharges included; 0 before any).
  uint64_t last_command() const { return last_command_; }

  const DramChannelStats& stats() const { return stats_; }
  // Issues the refreshes owed before DRAM cycle `end`, counts the idle tail's power-down and closes
  // the residency count there (banks still open count as open until then). Once, at the end.
  void finish(uint64_t end);
  // Records every issued command into `log` (nullptr: off).
  void set_command_log(std::vector<DramCommandRecord>* log) { log_ = log; }
  // Records every power-down stay into `log` (nullptr: off).
  void set_powerdown_log(std::vector<DramPowerDownRecord>* log) { pd_log_ = log; }

 private:
  static constexpr uint64_t kNever = UINT64_MAX;
  struct Choice {
    uint64_t t = kNever;
    int index = -1;  // queue index; -1 - rank for a refresh command
    DramCmd cmd = DramCmd::kAct;
    bool hit = false;
    uint32_t bank = 0;        // a refresh command's bank (per-bank refresh)
    bool background = false;  // the segment's class
  };
  uint64_t earliest(DramCmd cmd, uint32_t rank, uint32_t bg, uint32_t bank) const;
  void issue(DramCmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint32_t row, uint64_t t,
             bool bus, bool refresh = false);
  // The bank, row-hit-cap and refresh state a command leaves (open rows, the refresh due and the
  // rank's next bank to refresh, refresh_cycles); issue() and finish()'s owed refreshes.
  void apply(DramCmd cmd, uint32_t rank, uint32_t bank, uint32_t row);
  // Issues one command before `horizon` (and, while no other segment can go first, the
  // segment's following bursts: stream()); false when nothing can issue before it.
  bool step(uint64_t horizon);
  void column_moved(DramSegment& s, uint64_t t);  // a column command of `s` issued at t
  // Issues s's next bursts before cycle `limit` and the next refresh (and, with younger_hits,
  // while no younger row hit could go first); returns how many.
  // cap_from: the first cycle at which an older segment of the bank waits for another row (the
  // row-hit cap counts s's bursts from then; kNever: none).
  uint64_t stream(DramSegment& s, uint64_t limit, bool younger_hits, uint64_t cap_from);
  // Row-hit cap: the first cycle at which a segment of the window older than queue index i, of
  // i's bank, waits for another row than the open one (kNever: none).
  uint64_t older_conflict(size_t i, size_t n) const;
  bool capped(uint32_t bank) const {
    return policy_.row_hit_cap > 0 && bypass_[bank] >= policy_.row_hit_cap;
  }
  bool rank_open(uint32_t rank) const;
  // The power-down the rank is in before its next command (none: exit <= entry), and the first
  // cycle that command may issue (0 without power-down).
  struct PowerDown {
    uint64_t entry = 0, exit = 0;
    bool valid() const { return exit > entry; }
  };
  PowerDown pending_powerdown(uint32_t rank) const;
  uint64_t awake(uint32_t rank) const {
    if (spec_->powerdown_idle == 0) return 0;
    const PowerDown p = pending_powerdown(rank);
    return p.valid() ? p.exit + spec_->powerdown_exit : 0;
  }
  void record_powerdown(uint32_t rank, const PowerDown& p, uint64_t until);
  // Residency: a rank's pending (cycle, change in open banks) events, summed up to its last one.
  struct Residency {
    std::vector<std::pair<uint64_t, int>> events;
    int open = 0;
    uint64_t since = 0;  // cycle of the last summed event
  };
  void residency_event(DramCmd cmd, uint32_t rank, uint32_t bank, uint64_t t);
  void fold(Residency& r);
  uint64_t& next(DramScope s, uint32_t inst, DramCmd c) {
    return next_[static_cast<int>(s)][inst * kDramCmdCount + static_cast<int>(c)];
  }
  uint64_t next(DramScope s, uint32_t inst, DramCmd c) const {
    return next_[static_cast<int>(s)][inst * kDramCmdCount + static_cast<int>(c)];
  }

  const DramSpec* spec_;  // (a pointer: DramSystem copy-assigns channels to save a speculation)
  DramPolicy policy_;
  uint32_t index_;  // channel within the system
  uint32_t banks_per_rank_, banks_per_group_, groups_per_rank_;
  std::deque<DramSegment> queue_;
  std::vector<int64_t> open_row_;              // per bank, -1 closed
  std::array<std::vector<uint64_t>, 4> next_;  // per scope instance x command: earliest cycle
  // Constraints indexed by their earlier command.
  std::array<std::vector<DramConstraint>, kDramCmdCount> by_first_;
  // Window constraints: per constraint, per scope instance, the last `window` issue cycles.
  struct Window {
    DramConstraint c;
    std::vector<std::deque<uint64_t>> history;
  };
  std::vector<Window> windows_;
  std::array<std::vector<int>, kDramCmdCount> windows_by_second_;
  // Per command: the spacing of two in a row to one bank (the largest constraint from the command
  // to itself, or its command-bus cycles), the part of it at channel scope, and whether a window
  // constraint starts with it (then stream() goes burst by burst).
  std::array<uint64_t, kDramCmdCount> self_spacing_{}, channel_spacing_{};
  std::array<uint8_t, kDramCmdCount> has_window_first_{};
  std::vector<uint64_t> refresh_due_;   // per rank
  std::vector<uint32_t> refresh_bank_;  // per rank: the bank its next REFPB refreshes (flat)
  // Whether the rank's due refresh keeps commands off `bank`.
  bool refresh_blocks(uint32_t rank, uint32_t bank) const {
    return !spec_->per_bank_refresh || bank == refresh_bank_[rank];
  }
  // Postponement: the cycle from which the rank's owed refresh blocks its commands, and the
  // first cycle it may issue while the rank is idle (its power-down trigger).
  uint64_t refresh_block(uint32_t rank) const {
    return refresh_due_[rank] + uint64_t(policy_.refresh_postpone) * spec_->refresh_interval;
  }
  uint64_t refresh_wanted(uint32_t rank) const {
    if (policy_.refresh_postpone == 0) return refresh_due_[rank];
    return std::max(refresh_due_[rank], rank_work_[rank] + policy_.refresh_idle);
  }
  // Whether a queued segment of `rank` has arrived by cycle t.
  bool rank_busy(uint32_t rank, uint64_t t) const {
    return !rank_arrivals_[rank].empty() && *rank_arrivals_[rank].begin() <= t;
  }
  uint64_t bus_free_ = 0;  // command bus
  uint64_t last_command_ = 0;
  std::vector<uint64_t> hit_arrival_;         // per bank, scratch of step()
  std::vector<uint64_t> demand_hit_arrival_;  // per bank, scratch of step(): demand segments'
  std::vector<uint32_t> bypass_;              // per bank: row-hit cap count since the row opened
  // Per window candidate, scratch of step(): a lower bound of its next command's cycle (kNever:
  // blocked), whether that command is a row hit, and which command it is.
  std::vector<uint64_t> cand_t_;
  std::vector<uint8_t> cand_hit_;
  std::vector<DramCmd> cand_cmd_;
  DramChannelStats stats_;
  std::vector<Residency> residency_;  // per rank
  // Power-down, per rank: the latest command (auto-precharges included), the end of its data or
  // refresh, and the arrivals of its queued segments.
  std::vector<uint64_t> rank_last_, rank_quiet_;
  std::vector<uint64_t> rank_work_;  // per rank: the latest command of a request (no refresh's)
  std::vector<std::multiset<uint64_t>> rank_arrivals_;
  std::vector<DramCommandRecord>* log_ = nullptr;
  std::vector<DramPowerDownRecord>* pd_log_ = nullptr;
};

}  // namespace strider
