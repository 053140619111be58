#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn: one engine thread per channel
#include "model/dma/dma.h"

#include <algorithm>

#include "model/dram/dram.h"
#include "model/l2/l2_sram.h"

namespace strider {

Dma::Dma(sc_core::sc_module_name name, const DmaConfig& cfg, const ClockDomain& clock,
         bool functional, Dram& dram, TimedMemory& l2, LatencyFifo<const Descriptor*>& in,
         RetireChannel& retire, RunRecord& record, StatRegistry& stats)
    : sc_core::sc_module(name),
      cfg_(cfg),
      clock_(clock),
      functional_(functional),
      dram_(dram),
      l2_(l2),
      in_(in),
      retire_(retire),
      record_(record),
      channel_free_(cfg.channels, 0),
      setup_free_(cfg.channels, 0),
      jobs_(cfg.channels),
      channel_busy_("channel_busy", cfg.channels),
      busy_change_("busy_change"),
      moves_(stats.add("dma.moves", "move descriptors executed")),
      bytes_(stats.add("dma.bytes", "payload bytes moved")),
      busy_(stats.add("dma.busy_cycles", "channel-cycles spent on moves (summed over channels)")),
      background_moves_(stats.add("dma.background_moves",
                                  "background moves executed (prefetches run behind demand "
                                  "moves; 0 with dma.background_priority false)")) {
  SC_HAS_PROCESS(Dma);
  SC_THREAD(run);
  for (size_t c = 0; c < cfg.channels; ++c) {
    sc_core::sc_spawn_options opt;
    sc_core::sc_spawn([this, c] { engine(c); }, ("engine_" + std::to_string(c)).c_str(), &opt);
  }
  SC_METHOD(update_busy);
  sensitive << busy_change_;
  dont_initialize();
}

void Dma::update_busy() {
  const uint64_t now = clock_.now();
  for (size_t ch = 0; ch < channel_free_.size(); ++ch) {
    channel_busy_[ch].write(channel_free_[ch] == kBusy || channel_free_[ch] > now);
  }
}

uint64_t Dma::dram_bus_bytes(const MoveDesc& m, uint32_t burst_bytes, bool dst) {
  return uint64_t(m.rows) * ceil_div(dst ? m.dst_row_span() : m.row_bytes, burst_bytes) *
         burst_bytes;
}

void Dma::copy(const MoveDesc& m) {
  std::vector<int8_t> row(m.row_bytes);
  for (uint32_t r = 0; r < m.rows; ++r) {
    space(m.src_space).read(m.src_addr + uint64_t(r) * m.src_stride, row.data(), m.row_bytes);
    const uint64_t dst = m.dst_addr + uint64_t(r) * m.dst_stride;
    if (m.dst_step == 1) {
      space(m.dst_space).write(dst, row.data(), m.row_bytes);
      continue;
    }
    for (uint32_t i = 0; i < m.row_bytes; ++i)
      space(m.dst_space).write(dst + uint64_t(i) * m.dst_step, &row[i], 1);
  }
}

bool Dma::background(const Descriptor* d) const {
  return cfg_.background_priority && d->move.background;
}

void Dma::run() {
  const Descriptor* demand = nullptr;  // the demand move waiting for a channel (input stalled)
  uint64_t demand_arrived = 0;
  for (;;) {
    // The input is read while no demand move waits for a channel: a background move joins the
    // background queue and the next one is read.
    const Descriptor* d = nullptr;
    while (demand == nullptr && in_.nb_read(&d)) {
      if (background(d)) {
        waiting_.push_back(d);
      } else {
        demand = d;
        demand_arrived = clock_.now();
      }
    }
    // The channel that freed first (ties: the lowest).
    auto ch = std::min_element(channel_free_.begin(), channel_free_.end());
    if (*ch != kBusy && demand != nullptr) {  // a demand move takes any free channel
      clock_.wait_until(*ch);
      dispatch(demand, demand_arrived, size_t(ch - channel_free_.begin()));
      demand = nullptr;
      continue;
    }
    // A background move, oldest first, when no demand move waits and, with two channels or more,
    // one channel stays free of background moves (with one, it runs whenever the channel is idle).
    const size_t limit = std::max<size_t>(1, channel_free_.size() - 1);
    if (*ch != kBusy && demand == nullptr && !waiting_.empty() && background_busy_ < limit) {
      clock_.wait_until(*ch);
      // Programmed once it has its channel: it was not the move waiting in a register set.
      dispatch(waiting_.front(), clock_.now(), size_t(ch - channel_free_.begin()));
      waiting_.pop_front();
      continue;
    }
    // Nothing can start: wait for a channel to free or (no demand move waiting) for the input.
    if (demand != nullptr) {
      sc_core::wait(freed_);
    } else if (in_.size() > 0) {
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      const sc_core::sc_time at = in_.front_visible();
      sc_core::wait(at > now ? at - now : sc_core::SC_ZERO_TIME, freed_);
    } else {
      sc_core::wait(in_.data_written_event() | freed_);
    }
  }
}

void Dma::dispatch(const Descriptor* d, uint64_t arrived, size_t c) {
  const MoveDesc& m = d->move;
  // The channel is programmed for the move (setup) while its previous move still transfers,
  // from the later of the move's arrival and the end of the previous move's own setup (one
  // register set waiting behind the active one); the transfer starts once both are done.
  const uint64_t start = std::max(arrived, setup_free_[c]);
  const uint64_t t0 = std::max(start + cfg_.setup_cycles, clock_.now());
  setup_free_[c] = t0;
  // The L2 side is reserved now (as every L2 requester reserves its port on issue); the DRAM
  // side (jedec) is queued at t0 by the channel's engine, which waits for both.
  Job& job = jobs_[c];
  job.d = d;
  job.background = background(d);
  job.busy_from = clock_.now();  // the channel's previous move has ended
  job.t0 = t0;
  job.src = job.dst = Access{};
  auto l2_side = [&](uint64_t addr, bool write) {
    // One range, or one piece per row at the row stride (a 2-D move); a destination row with a
    // step is written as the whole span of bank words it touches (byte-masked).
    const uint32_t stride = write ? m.dst_stride : m.src_stride;
    const uint64_t row = write ? m.dst_row_span() : m.row_bytes;
    if (m.rows <= 1 || stride == row) return l2_.access(L2Sram::kDma, addr, m.rows * row, t0);
    AccessPattern p;
    p.addr = addr;
    p.bytes = row;
    p.count = m.rows;
    p.stride = stride;
    return l2_.access_pattern(L2Sram::kDma, p, t0);
  };
  // The flat DRAM pipe (dram.model: simple) is reserved now too, in dispatch order.
  auto now_side = [&](MemSpace s, uint64_t addr, bool write, Access& out) {
    if (s == MemSpace::kL2) {
      out = l2_side(addr, write);
    } else if (!dram_.queued()) {
      out = dram_.access(write ? Dram::kWrite : Dram::kRead, addr,
                         dram_bus_bytes(m, cfg_.burst_bytes, write), t0);
    }
  };
  now_side(m.src_space, m.src_addr, false, job.src);
  now_side(m.dst_space, m.dst_addr, true, job.dst);
  if (functional_) copy(m);
  channel_free_[c] = kBusy;
  if (job.background) ++background_busy_;
  busy_change_.notify(sc_core::SC_ZERO_TIME);
  job.go.notify(sc_core::SC_ZERO_TIME);
}

void Dma::engine(size_t c) {
  Job& job = jobs_[c];
  for (;;) {
    sc_core::wait(job.go);
    const MoveDesc& m = job.d->move;
    clock_.wait_until(job.t0);
    if (m.src_space == MemSpace::kDram && dram_.queued())
      job.src = dram_.transfer(Dram::kRead, m.src_addr, dram_bus_bytes(m, cfg_.burst_bytes, false),
                               clock_, job.background);
    if (m.dst_space == MemSpace::kDram && dram_.queued())
      job.dst = dram_.transfer(Dram::kWrite, m.dst_addr, dram_bus_bytes(m, cfg_.burst_bytes, true),
                               clock_, job.background);
    // The rows' addresses are generated behind the first one, while the data streams.
    const uint64_t rows_out = job.t0 + uint64_t(m.rows - 1) * cfg_.row_setup_cycles;
    const uint64_t end = std::max({job.src.end, job.dst.end, rows_out});
    clock_.wait_until(end);
    DescriptorRecord& r = record_.descriptors[job.d->id];
    r.unit = Unit::kDma;
    r.is_move = true;
    r.channel = static_cast<int>(c);
    // Its slice on the channel: from when it took the channel (its setup, made while the
    // previous move transferred, is hidden), so a channel's moves never overlap.
    r.start = job.busy_from;
    (m.src_space == MemSpace::kDram ? r.dram_read_bytes : r.l2_read_bytes) +=
        m.src_space == MemSpace::kDram ? dram_bus_bytes(m, cfg_.burst_bytes, false) : m.bytes();
    (m.dst_space == MemSpace::kDram ? r.dram_write_bytes : r.l2_write_bytes) +=
        m.dst_space == MemSpace::kDram ? dram_bus_bytes(m, cfg_.burst_bytes, true) : m.bytes();
    const Access& dram_side = m.src_space == MemSpace::kDram ? job.src : job.dst;
    const Access& l2_side = m.src_space == MemSpace::kL2 ? job.src : job.dst;
    if (m.src_space == MemSpace::kDram || m.dst_space == MemSpace::kDram) {
      r.stall_dram = dram_side.stall;
      r.dram_bursts += dram_side.bursts;
      r.dram_row_hits += dram_side.row_hits;
    }
    r.stall_l2_conflict = l2_side.stall;
    r.l2_bank_conflict_cycles = l2_side.conflict;
    ++moves_;
    if (job.background) {
      ++background_moves_;
      --background_busy_;
    }
    bytes_ += m.bytes();
    busy_ += end - job.busy_from;
    channel_free_[c] = end;
    busy_change_.notify(sc_core::SC_ZERO_TIME);
    freed_.notify();
    retire_.post(job.d->id, sc_core::SC_ZERO_TIME);
  }
}

}  // namespace strider
