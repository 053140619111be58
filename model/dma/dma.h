// Dma: executes move descriptors DRAM<->L2 and L2<->L2, 1-D and 2-D.
//
// Models: `dma.channels` channels, each an engine (a SystemC thread) with one move transferring; a
// move takes the channel that freed first (the unit stalls its input when all are busy). Background
// moves (MoveDesc::background, with `dma.background_priority`): a background move read from the
// input joins a queue of its own (pointers to dispatched descriptors: bounded by the list) and the
// input is read on; a demand move takes any free channel first; a background move starts, oldest
// first, only when no demand move waits and fewer than channels - 1 channels hold background moves
// (one stays free for demand; with one channel, whenever it is idle). It is programmed once it
// has its channel (setup from then), and its DRAM requests are of the background class (the
// JEDEC controller serves them when no demand request can issue: Dram). A move
// reads its source and writes its destination as one streamed transaction on each side; DRAM is
// read and written in whole bursts of `dma.burst_bytes` per row (the partial last burst of a row
// still costs a whole burst). The DRAM thus sees up to `dma.channels` requests outstanding, which
// its controller schedules together (Dram::transfer). A move with dst_step s > 1 scatters each
// row to every s-th destination byte (an upsample's or an interleave's phase): it reads the
// source row as usual and writes the row's span ((row_bytes - 1) x s + 1 bytes) with byte masks,
// so the L2 charges every bank word the span touches (the other phases' bytes kept) and DRAM
// every burst of it; one move thus carries a whole row of a phase, not one element per row.
// Cycles: setup = `dma.setup_cycles` (channel programming), made while the channel's previous
// move still transfers (a second register set: from the later of the move's arrival and the end
// of the previous move's setup), so back-to-back moves on a channel cost max(setup, transfer)
// each rather than their sum; a move takes the channel that frees first. The source and
// destination accesses start at t0 = max(setup end, the channel's previous move's end). The
// address of each further row of a 2-D move (`dma.row_setup_cycles` each: the stride add) is
// generated while the previous rows stream, so it costs cycles only when the rows are shorter
// than their address generation: the move retires when both sides have ended and the last
// row's address is out, at max(side ends, t0 + (rows - 1) x row_setup_cycles) (each side's
// cycles come from Dram / L2Sram, including their queueing and bank conflicts; the L2 side is
// reserved when the move gets its channel, the DRAM request queued at t0; the flat pipe of
// dram.model: simple is reserved when the move gets its channel, in dispatch order).
// Ports: in (LatencyFifo<const Descriptor*>), retire (RetireChannel); memories by the
// TimedMemory interface.
// Stats: dma.moves, dma.bytes, dma.busy_cycles, dma.background_moves.
// Observation (for waves.vcd, never read by the model): channel_busy(ch) is true while channel ch
// holds a move, from its start to its end.
#pragma once

#include <systemc>

#include <deque>
#include <vector>

#include "model/common/clock_domain.h"
#include "model/common/latency_fifo.h"
#include "model/common/retire_channel.h"
#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "model/common/timed_memory.h"
#include "model/dram/dram.h"
#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"

namespace strider {

class Dma : public sc_core::sc_module {
 public:
  Dma(sc_core::sc_module_name name, const DmaConfig& cfg, const ClockDomain& clock,
      bool functional, Dram& dram, TimedMemory& l2, LatencyFifo<const Descriptor*>& in,
      RetireChannel& retire, RunRecord& record, StatRegistry& stats);

  // Bytes a move occupies on the DRAM bus: every row (the destination's: its span) rounded up to
  // whole bursts.
  static uint64_t dram_bus_bytes(const MoveDesc& m, uint32_t burst_bytes, bool dst);

  size_t channels() const { return channel_busy_.size(); }
  const sc_core::sc_signal<bool>& channel_busy(size_t ch) const { return channel_busy_[ch]; }

 private:
  static constexpr uint64_t kBusy = UINT64_MAX;  // channel_free_ of a channel with a move
  struct Job {
    const Descriptor* d = nullptr;
    uint64_t t0 = 0;         // the end of the move's setup, when its sides start
    uint64_t busy_from = 0;  // when it took the channel (the channel's previous move had ended)
    bool background = false;  // a background move (the DRAM serves it behind demand requests)
    Access src, dst;
    sc_core::sc_event go;  // a move was handed to the engine
  };
  void run();
  // Hands move d (arrived at the DMA at `arrived`) to free channel c.
  void dispatch(const Descriptor* d, uint64_t arrived, size_t c);
  bool background(const Descriptor* d) const;  // its flag, with dma.background_priority on
  void engine(size_t channel);  // the thread of one channel
  void copy(const MoveDesc& m);
  void update_busy();
  TimedMemory& space(MemSpace s) {
    return s == MemSpace::kDram ? static_cast<TimedMemory&>(dram_) : l2_;
  }

  const DmaConfig& cfg_;
  const ClockDomain& clock_;
  bool functional_;
  Dram& dram_;
  TimedMemory& l2_;
  LatencyFifo<const Descriptor*>& in_;
  RetireChannel& retire_;
  RunRecord& record_;
  std::vector<uint64_t> channel_free_;  // cycle each channel freed; kBusy while it holds a move
  std::vector<uint64_t> setup_free_;    // cycle each channel can be programmed for its next move
  std::deque<Job> jobs_;  // per channel (a deque: Job holds an sc_event, which cannot move)
  // Background moves read from the input and not yet started, oldest first (pointers into the
  // dispatched list: bounded by it).
  std::deque<const Descriptor*> waiting_;
  size_t background_busy_ = 0;  // channels holding a background move
  sc_core::sc_event freed_;  // an engine finished its move
  sc_core::sc_vector<sc_core::sc_signal<bool>> channel_busy_;
  sc_core::sc_event_queue busy_change_;  // a move started or ended: refresh channel_busy_
  uint64_t& moves_;
  uint64_t& bytes_;
  uint64_t& busy_;
  uint64_t& background_moves_;
};

}  // namespace strider
