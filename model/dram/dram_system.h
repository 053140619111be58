// DramSystem: a JEDEC DRAM (every channel of a preset, configs/dram/*.yaml) behind one request
// interface, in plain C++ and DRAM clock cycles. A request (arrival, byte address, bytes, read or
// write) is split into bursts of the preset's burst size; the address mapping places each burst
// on a channel, rank, bank group, bank, row and column; consecutive bursts of one row of one bank
// form a segment in that channel's queue (DramChannel schedules them). Two ways to serve them:
//   - the trace replay queues every request, then drain() serves them all;
//   - the full simulation (model/dram/dram.cpp) calls advance(T) before queuing a request that
//     arrives at T (every command before T issues, none after), so the requests outstanding at a
//     time compete FR-FCFS for every command after their arrival. speculate() tells when each
//     queued request would end if no other request arrived: it saves the channels and drains
//     them; the next advance(T) keeps that work when every command it issued is before T (then
//     it is exactly what advance(T) would issue) and otherwise restores the saved state and
//     issues the commands before T. complete() serves queued requests until one has moved its
//     last burst, for a requester that must know its end at once (the descriptor fetch).
// Rows above the organisation's count wrap (the address is taken modulo the capacity).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/arch/dram_spec.h"
#include "model/dram/dram_channel.h"

namespace strider {

struct DramLocation {
  uint32_t channel = 0, rank = 0, bankgroup = 0, bank = 0, row = 0, column = 0;
};

struct DramTotals {
  std::array<uint64_t, kDramCmdCount> commands{};
  uint64_t read_bursts = 0, write_bursts = 0, row_hits = 0, refresh_cycles = 0;
  uint64_t last_data = 0;
  uint64_t active_cycles = 0;  // rank-cycles with a bank open (DramChannel::finish)
  uint64_t powerdown_entries = 0, powerdown_active_cycles = 0, powerdown_precharged_cycles = 0;
};

// State residency in rank-cycles over `rank_cycles` (ranks x the run's DRAM cycles): active /
// precharge standby (a bank open / all closed, outside power-down) and active / precharge
// power-down; the four add up to rank_cycles.
struct DramResidency {
  uint64_t active_standby = 0, precharged_standby = 0;
  uint64_t active_powerdown = 0, precharged_powerdown = 0;
};
DramResidency dram_residency(const DramTotals& t, uint64_t rank_cycles);

// The scheduling policy of arch.dram (page_policy, scheduler, queue_depth, refresh_postpone,
// refresh_idle_cycles, row_hit_cap).
DramPolicy dram_policy(const std::string& page_policy, const std::string& scheduler,
                       uint32_t queue_depth, uint32_t refresh_postpone = 0,
                       uint64_t refresh_idle = 0, uint32_t row_hit_cap = 0);

class DramSystem {
 public:
  DramSystem(const DramSpec& spec, const DramPolicy& policy);

  DramLocation map(uint64_t burst_index) const;
  // Queues a request (background: served behind demand requests, DramChannel); the state stays
  // valid until release().
  DramRequestState* submit(uint64_t arrival, uint64_t addr, uint64_t bytes, bool write,
                           bool background = false);
  // Ends a speculation (see above) and issues every command that can issue before DRAM cycle
  // `horizon` on every channel.
  void advance(uint64_t horizon);
  // Saves the state and serves every queued request: each one's `end` is then its predicted end.
  void speculate();
  bool speculating() const { return speculating_; }
  // Serves queued requests until `req` has moved every burst; returns its last data cycle.
  uint64_t complete(DramRequestState* req);
  void drain();
  // Keeps a speculation, issues the refreshes owed before DRAM cycle `end` and closes every
  // channel's state residency there (DramChannel::finish). Once, at the end.
  void finish(uint64_t end) {
    speculating_ = false;  // (a speculation drained the queues: no request arrives any more)
    for (DramChannel& c : channels_) c.finish(end);
  }
  // The owner is done with `req`; states are freed oldest first once released and finished
  // (outside a speculation).
  void release(DramRequestState* req);
  size_t live_requests() const { return requests_.size(); }

  DramTotals totals() const;
  const DramSpec& spec() const { return spec_; }
  DramChannel& channel(size_t c) { return channels_[c]; }

 private:
  const DramSpec& spec_;
  std::vector<DramChannel> channels_;
  void free_released();
  std::deque<DramRequestState> requests_;
  // The saved state of a speculation: the channels, and the requests unfinished then (restored
  // but for `released`: an owner may release a request during the speculation).
  bool speculating_ = false;
  std::vector<DramChannel> saved_channels_;
  std::vector<std::pair<DramRequestState*, DramRequestState>> saved_requests_;
  size_t saved_count_ = 0;  // saved_requests_ in use (the rest: storage kept for the next one)
  std::vector<uint32_t> shift_, bits_;  // per DramField: position and width above the offset
  uint32_t offset_bits_ = 0;
};

}  // namespace strider
