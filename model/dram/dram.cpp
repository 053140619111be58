#include "model/dram/dram.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "model/common/clock_domain.h"

namespace strider {

Dram::Dram(const DramConfig& cfg, double clock_mhz, StatRegistry& stats)
    : cfg_(cfg),
      open_row_(cfg.banks, -1),
      read_bytes_(stats.add("dram.read_bytes", "bytes read from DRAM")),
      write_bytes_(stats.add("dram.write_bytes", "bytes written to DRAM")),
      busy_cycles_(stats.add("dram.busy_cycles", "cycles the DRAM data bus was transferring")),
      misses_(stats.add("dram.row_misses",
                        "row-buffer misses (jedec: ACTs issued; simple: with row_buffer only)")) {
  if (cfg.model != "jedec") return;
  if (cfg.spec.constraints.empty() || cfg.spec.timing.count("nBL") == 0) {
    throw std::invalid_argument("dram.model jedec: preset '" + cfg.preset +
                                "' was not loaded (an ArchConfig built in code needs "
                                "read_dram_spec, or dram.model: simple)");
  }
  acc_fs_ = static_cast<uint64_t>(std::llround(1e9 / clock_mhz));
  tck_fs_ = uint64_t(cfg.spec.tck_ps) * 1000;
  const uint64_t g = std::gcd(acc_fs_, tck_fs_);
  acc_fs_ /= g;
  tck_fs_ /= g;
  jedec_ = std::make_unique<DramSystem>(
      cfg.spec, dram_policy(cfg.page_policy, cfg.scheduler, cfg.queue_depth, cfg.refresh_postpone,
                            cfg.spec.powerdown_idle, cfg.row_hit_cap));
  for (int c = 0; c < kDramCmdCount; ++c) {
    const DramCmd cmd = static_cast<DramCmd>(c);
    js_.commands[c] = &stats.add(dram_command_stat(cmd),
                                 std::string(to_string(cmd)) + " commands issued (all channels)");
  }
  js_.row_hits = &stats.add("dram.row_hits", "bursts whose row was already open");
  js_.bursts = &stats.add("dram.bursts", "DRAM bursts (column commands)");
  js_.refresh_cycles =
      &stats.add("dram.refresh_cycles", "accelerator cycles ranks spent refreshing (nRFC per REF)");
  js_.read_requests = &stats.add("dram.read_requests", "read requests");
  js_.read_latency = &stats.add("dram.read_latency_cycles",
                                "sum over read requests of arrival to last data, in cycles");
  js_.read_latency_p99 =
      &stats.add("dram.read_latency_p99_cycles", "99th percentile read latency, in cycles");
  js_.active_cycles =
      &stats.add("dram.rank_active_cycles",
                 "DRAM cycles x ranks with at least one bank open, outside power-down (active "
                 "standby)");
  js_.precharged_cycles =
      &stats.add("dram.rank_precharged_cycles",
                 "DRAM cycles x ranks with every bank precharged, outside power-down (precharge "
                 "standby)");
  js_.powerdown_active_cycles =
      &stats.add("dram.rank_active_powerdown_cycles",
                 "DRAM cycles x ranks in active power-down (idle with a bank open)");
  js_.powerdown_precharged_cycles =
      &stats.add("dram.rank_precharged_powerdown_cycles",
                 "DRAM cycles x ranks in precharge power-down (idle, every bank precharged)");
  js_.powerdown_entries = &stats.add(
      "dram.powerdown_entries",
      "times a rank entered power-down (after dram.powerdown_idle_cycles idle DRAM cycles)");
}

// The periods are reduced by their gcd (1 ns : 0.625 ns = 8 : 5), so the products stay small.
uint64_t Dram::to_dram(uint64_t cycle) const { return ceil_div(cycle * acc_fs_, tck_fs_); }

uint64_t Dram::from_dram(uint64_t dram_cycle) const {
  return ceil_div(dram_cycle * tck_fs_, acc_fs_);
}

uint64_t Dram::row_misses(uint64_t addr, uint64_t bytes) {
  if (!cfg_.row_buffer || bytes == 0) return 0;
  uint64_t misses = 0;
  for (uint64_t row = addr / cfg_.row_bytes; row <= (addr + bytes - 1) / cfg_.row_bytes; ++row) {
    int64_t& open = open_row_[row % cfg_.banks];
    if (open != static_cast<int64_t>(row)) {
      ++misses;
      open = static_cast<int64_t>(row);
    }
  }
  return misses;
}

Access Dram::access(int port, uint64_t addr, uint64_t bytes, uint64_t now) {
  (port == kWrite ? write_bytes_ : read_bytes_) += bytes;
  return jedec_ ? jedec_access(port, addr, bytes, now) : simple_access(port, addr, bytes, now);
}

Access Dram::simple_access(int, uint64_t addr, uint64_t bytes, uint64_t now) {
  Access a;
  a.start = std::max(now, bus_free_);
  a.stall = a.start - now;
  uint64_t misses = row_misses(addr, bytes);
  // Bus time: the transfer at bytes_per_cycle plus one row activation per miss.
  uint64_t busy = ceil_div(bytes, cfg_.bytes_per_cycle) + misses * cfg_.row_miss_cycles;
  bus_free_ = a.start + busy;
  a.end = a.start + cfg_.latency_cycles + busy;
  busy_cycles_ += busy;
  misses_ += misses;
  return a;
}

Access Dram::jedec_access(int port, uint64_t addr, uint64_t bytes, uint64_t now) {
  jedec_->advance(to_dram(now));
  DramRequestState* r = jedec_->submit(to_dram(now), addr, bytes, port == kWrite);
  jedec_->complete(r);
  changed_.notify();  // its commands are fixed: the transfers in flight see a changed future
  return jedec_finish(port, r, now);
}

Access Dram::transfer(int port, uint64_t addr, uint64_t bytes, const ClockDomain& clock,
                      bool background) {
  const uint64_t now = clock.now();
  if (!jedec_) {
    const Access a = access(port, addr, bytes, now);
    clock.wait_until(a.end);
    return a;
  }
  (port == kWrite ? write_bytes_ : read_bytes_) += bytes;
  jedec_->advance(to_dram(now));  // every command before the arrival is fixed
  DramRequestState* r = jedec_->submit(to_dram(now), addr, bytes, port == kWrite, background);
  changed_.notify();  // the transfers in flight: their predicted ends change
  for (;;) {
    // The predicted ends of every queued request, when a request arrived since the last ones.
    if (!jedec_->speculating()) jedec_->speculate();
    const uint64_t t = clock.now(), e = from_dram(r->end);
    if (e <= t) break;  // no request arrived before its end: the prediction held
    sc_core::wait(clock.cycles(e - t), changed_);
  }
  return jedec_finish(port, r, now);
}

Access Dram::jedec_finish(int port, DramRequestState* r, uint64_t now) {
  Access a;
  a.start = now;
  a.end = std::max(now, from_dram(r->end));
  // Cycles before the request's first command could issue (the bus, banks and refresh held by
  // other requests).
  a.stall = r->first_command == UINT64_MAX
                ? 0
                : from_dram(r->first_command) - std::min(now, from_dram(r->first_command));
  a.bursts = r->bursts;
  a.row_hits = r->row_hits;
  if (port != kWrite) {
    ++*js_.read_requests;
    *js_.read_latency += a.end - now;
    read_latencies_.add(a.end - now);
  }
  jedec_->release(r);
  return a;
}

void Dram::update_totals() {
  const DramTotals t = jedec_->totals();
  for (int c = 0; c < kDramCmdCount; ++c) *js_.commands[c] = t.commands[c];
  *js_.row_hits = t.row_hits;
  *js_.bursts = t.read_bursts + t.write_bursts;
  *js_.refresh_cycles = from_dram(t.refresh_cycles);
  busy_cycles_ = from_dram(*js_.bursts * cfg_.spec.burst_cycles());
  misses_ = t.commands[static_cast<int>(DramCmd::kAct)];
}

void Dram::finish(uint64_t end) {
  if (!jedec_) return;
  const uint64_t dram_end = to_dram(end);
  jedec_->finish(dram_end);  // the refreshes of the idle tail, the tail's power-down
  update_totals();           // commands issued after the last request finished
  const uint64_t ranks = uint64_t(cfg_.spec.channels) * cfg_.spec.ranks;
  const DramTotals t = jedec_->totals();
  const DramResidency r = dram_residency(t, ranks * dram_end);
  *js_.active_cycles = r.active_standby;
  *js_.precharged_cycles = r.precharged_standby;
  *js_.powerdown_active_cycles = r.active_powerdown;
  *js_.powerdown_precharged_cycles = r.precharged_powerdown;
  *js_.powerdown_entries = t.powerdown_entries;
  // p99: the nearest-rank value, to the histogram's resolution (latency_histogram.h).
  *js_.read_latency_p99 = read_latencies_.percentile(99);
}

}  // namespace strider
