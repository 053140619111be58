// Dram: the DRAM as the DMA and the controller see it (TimedMemory), with one of two timing
// models chosen by `arch.dram.model`:
//   jedec (default): the JEDEC model of the preset (DramSystem / DramChannel: banks, row
//     buffers, ACT / PRE / RD / WR / REF and the preset's timing table, FR-FCFS, refresh), in
//     plain C++ driven from the requesters' SystemC threads. transfer() (the DMA: one request
//     outstanding per DMA channel) queues the request at the current cycle after issuing every
//     command before it, then waits until the request's predicted end, waking whenever another
//     request arrives (the prediction changes: the outstanding requests share the controller's
//     queue and are scheduled FR-FCFS across requests, command by command). A request is of the
//     demand or the background class (the DMA's background moves: transfer()'s flag); the
//     scheduler serves a background request's command only when no demand request's can issue at
//     that cycle (DramChannel). access() (the controller's descriptor fetch, demand) schedules its
//     request at once, ahead of later arrivals.
//     Clocks: the DRAM runs at its own period tCK (spec.tck_ps); an accelerator cycle c starts at
//     c x P ps (P = 10^6 / clock.frequency_mhz), so a request arriving at accelerator cycle c
//     arrives at DRAM cycle ceil(c x P / tCK) and data ending at DRAM cycle d is there at
//     accelerator cycle ceil(d x tCK / P) (both exact, in femtoseconds).
//   simple (request classes ignored): one shared data bus of `dram.bytes_per_cycle` (requests
//     queue for it in arrival order), a first-data latency `dram.latency_cycles`, and optionally
//     a bank/row-buffer miss counter (`dram.row_buffer`): each `dram.row_bytes` chunk whose row
//     is not open in its bank costs `dram.row_miss_cycles` more bus time. start = max(now, bus
//     free); busy = ceil(bytes / bytes_per_cycle) + misses; end = start + latency + busy.
// Stats: dram.read_bytes, dram.write_bytes, dram.busy_cycles, dram.row_misses (both models);
// jedec adds dram.cmd_{act,pre,prea,rd,wr,ref}, dram.row_hits, dram.bursts, dram.refresh_cycles,
// dram.read_requests, dram.read_latency_cycles (sum) and dram.read_latency_p99_cycles (set by
// finish() from a bounded histogram, LatencyHistogram: exact below 1024 cycles, else the upper
// end of a bin 1/256 of its power of two wide), and the state residency
// dram.rank_active_cycles / dram.rank_precharged_cycles (standby, outside power-down),
// dram.rank_active_powerdown_cycles / dram.rank_precharged_powerdown_cycles (DRAM clock cycles,
// summed over every rank of every channel, up to the run's end; the four add up to ranks x
// cycles) and dram.powerdown_entries, set by finish() after it has issued the refreshes owed in
// the idle tail (dram.cmd_ref counts them).
#pragma once

#include <systemc>

#include <memory>
#include <vector>

#include "core/arch/arch_config.h"
#include "model/common/clock_domain.h"
#include "model/common/stats.h"
#include "model/common/timed_memory.h"
#include "model/dram/dram_system.h"
#include "model/dram/latency_histogram.h"

namespace strider {

class Dram : public TimedMemory {
 public:
  enum Port { kRead = 0, kWrite = 1 };
  Dram(const DramConfig& cfg, double clock_mhz, StatRegistry& stats);
  // Schedules the request at once (its end does not move with later arrivals).
  Access access(int port, uint64_t addr, uint64_t bytes, uint64_t now) override;
  // True for the jedec model: requests wait in the controller's queue (transfer()).
  bool queued() const { return jedec_ != nullptr; }
  // Queues the request at clock.now() and waits (SystemC thread) until its last data; requests
  // arriving meanwhile compete with it (jedec; a background request is served when no demand
  // request can issue). The simple model waits until access()'s end (the class ignored).
  Access transfer(int port, uint64_t addr, uint64_t bytes, const ClockDomain& clock,
                  bool background = false);
  uint32_t latency(uint64_t) const override { return cfg_.latency_cycles; }
  void read(uint64_t addr, int8_t* dst, uint64_t n) const override { store_.read(addr, dst, n); }
  void write(uint64_t addr, const int8_t* src, uint64_t n) override { store_.write(addr, src, n); }
  // The command counts and derived statistics (the p99 read latency) and, at accelerator cycle
  // `end`, the state residency; call once at the end.
  void finish(uint64_t end);

  // Accelerator cycle <-> DRAM cycle (jedec), rounding up as the header says.
  uint64_t to_dram(uint64_t cycle) const;
  uint64_t from_dram(uint64_t dram_cycle) const;

 private:
  uint64_t row_misses(uint64_t addr, uint64_t bytes);
  Access simple_access(int port, uint64_t addr, uint64_t bytes, uint64_t now);
  Access jedec_access(int port, uint64_t addr, uint64_t bytes, uint64_t now);
  // The statistics of a finished jedec request (arrival at accelerator cycle `now`), then
  // releases its state.
  Access jedec_finish(int port, DramRequestState* r, uint64_t now);
  void update_totals();  // the command and burst stats from the channels (at finish())
  const DramConfig& cfg_;
  BackingStore store_;
  uint64_t bus_free_ = 0;
  std::vector<int64_t> open_row_;
  uint64_t acc_fs_ = 1000000;  // accelerator clock period in femtoseconds
  uint64_t tck_fs_ = 1000000;  // DRAM clock period in femtoseconds
  std::unique_ptr<DramSystem> jedec_;
  LatencyHistogram read_latencies_;  // accelerator cycles, per read request
  sc_core::sc_event changed_;  // a request was queued: the transfers in flight predict again
  uint64_t& read_bytes_;
  uint64_t& write_bytes_;
  uint64_t& busy_cycles_;
  uint64_t& misses_;
  struct JedecStats {
    std::array<uint64_t*, kDramCmdCount> commands{};
    uint64_t* row_hits = nullptr;
    uint64_t* bursts = nullptr;
    uint64_t* refresh_cycles = nullptr;
    uint64_t* read_requests = nullptr;
    uint64_t* read_latency = nullptr;
    uint64_t* read_latency_p99 = nullptr;
    uint64_t* active_cycles = nullptr;
    uint64_t* precharged_cycles = nullptr;
    uint64_t* powerdown_active_cycles = nullptr;
    uint64_t* powerdown_precharged_cycles = nullptr;
    uint64_t* powerdown_entries = nullptr;
  } js_;
};

}  // namespace strider
