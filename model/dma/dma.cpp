#include "model/dma/dma.h"

#include <algorithm>

#include "model/dram/dram.h"
#include "model/l2/l2_sram.h"

namespace strider {

Dma::Dma(sc_core::sc_module_name name, const DmaConfig& cfg, const ClockDomain& clock,
         bool functional, TimedMemory& dram, TimedMemory& l2, LatencyFifo<const Descriptor*>& in,
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
      channel_busy_("channel_busy", cfg.channels),
      busy_change_("busy_change"),
      moves_(stats.add("dma.moves", "move descriptors executed")),
      bytes_(stats.add("dma.bytes", "payload bytes moved")),
      busy_(stats.add("dma.busy_cycles", "channel-cycles spent on moves (summed over channels)")) {
  SC_HAS_PROCESS(Dma);
  SC_THREAD(run);
  SC_METHOD(update_busy);
  sensitive << busy_change_;
  dont_initialize();
}

void Dma::update_busy() {
  const uint64_t now = clock_.now();
  for (size_t ch = 0; ch < channel_free_.size(); ++ch) {
    channel_busy_[ch].write(channel_free_[ch] > now);
  }
}

uint64_t Dma::dram_bus_bytes(const MoveDesc& m, uint32_t burst_bytes) {
  return uint64_t(m.rows) * ceil_div(m.row_bytes, burst_bytes) * burst_bytes;
}

void Dma::copy(const MoveDesc& m) {
  std::vector<int8_t> row(m.row_bytes);
  for (uint32_t r = 0; r < m.rows; ++r) {
    space(m.src_space).read(m.src_addr + uint64_t(r) * m.src_stride, row.data(), m.row_bytes);
    space(m.dst_space).write(m.dst_addr + uint64_t(r) * m.dst_stride, row.data(), m.row_bytes);
  }
}

void Dma::run() {
  for (;;) {
    const Descriptor* d = in_.read();
    const MoveDesc& m = d->move;
    auto ch = std::min_element(channel_free_.begin(), channel_free_.end());
    clock_.wait_until(*ch);  // every channel busy: the input stalls
    const uint64_t start = clock_.now();
    const uint64_t t0 = start + cfg_.setup_cycles + uint64_t(m.rows - 1) * cfg_.row_setup_cycles;
    auto side = [&](MemSpace s, uint64_t addr, bool write) {
      if (s == MemSpace::kDram) {
        return dram_.access(write ? Dram::kWrite : Dram::kRead, addr,
                            dram_bus_bytes(m, cfg_.burst_bytes), t0);
      }
      // The L2 side: one range, or one piece per row at the row stride (a 2-D move).
      const uint32_t stride = write ? m.dst_stride : m.src_stride;
      if (m.rows <= 1 || stride == m.row_bytes) return l2_.access(L2Sram::kDma, addr, m.bytes(), t0);
      AccessPattern p;
      p.addr = addr;
      p.bytes = m.row_bytes;
      p.count = m.rows;
      p.stride = stride;
      return l2_.access_pattern(L2Sram::kDma, p, t0);
    };
    const Access src = side(m.src_space, m.src_addr, false);
    const Access dst = side(m.dst_space, m.dst_addr, true);
    const uint64_t end = std::max(src.end, dst.end);
    if (functional_) copy(m);
    *ch = end;
    busy_change_.notify(sc_core::SC_ZERO_TIME);
    busy_change_.notify(clock_.cycles(end - start));
    DescriptorRecord& r = record_.descriptors[d->id];
    r.unit = Unit::kDma;
    r.is_move = true;
    r.channel = static_cast<int>(ch - channel_free_.begin());
    r.start = start;
    (m.src_space == MemSpace::kDram ? r.dram_read_bytes : r.l2_read_bytes) +=
        m.src_space == MemSpace::kDram ? dram_bus_bytes(m, cfg_.burst_bytes) : m.bytes();
    (m.dst_space == MemSpace::kDram ? r.dram_write_bytes : r.l2_write_bytes) +=
        m.dst_space == MemSpace::kDram ? dram_bus_bytes(m, cfg_.burst_bytes) : m.bytes();
    const Access& dram_side = m.src_space == MemSpace::kDram ? src : dst;
    const Access& l2_side = m.src_space == MemSpace::kL2 ? src : dst;
    if (m.src_space == MemSpace::kDram || m.dst_space == MemSpace::kDram) {
      r.stall_dram = dram_side.stall;
      r.dram_bursts += dram_side.bursts;
      r.dram_row_hits += dram_side.row_hits;
    }
    r.stall_l2_conflict = l2_side.stall;
    r.l2_bank_conflict_cycles = l2_side.conflict;
    ++moves_;
    bytes_ += m.bytes();
    busy_ += end - start;
    retire_.post(d->id, clock_.cycles(end - start));
  }
}

}  // namespace strider
