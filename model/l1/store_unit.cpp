#include "model/l1/store_unit.h"

#include <algorithm>

#include "model/l2/l2_sram.h"

namespace strider {

StoreUnit::StoreUnit(sc_core::sc_module_name name, const ClockDomain& clock, bool functional,
                     TimedMemory& l2, LatencyFifo<TileToken>& in, RetireChannel& retire,
                     RunRecord& record, StatRegistry& stats)
    : sc_core::sc_module(name),
      clock_(clock),
      functional_(functional),
      l2_(l2),
      in_(in),
      retire_(retire),
      record_(record),
      tiles_(stats.add("store.tiles", "operation tiles stored")),
      bytes_(stats.add("store.bytes", "output bytes written to L2")),
      discarded_(stats.add("store.discarded_outputs",
                           "positions computed across row ends and dropped")),
      busy_flag_("busy") {
  SC_HAS_PROCESS(StoreUnit);
  SC_THREAD(run);
}

// Where a tile's results go: its output, or its int32 partial sums.
const TensorRef& StoreUnit::destination(const OpDesc& op) {
  return (op.psum_mode & OpDesc::kPsumWrite) ? op.psum : op.output;
}

void StoreUnit::write_output(const TileToken& t) {
  const OpDesc& op = t.desc->op;
  const TensorRef& o = destination(op);
  const uint64_t row_bytes = uint64_t(o.w) * o.element_bytes;
  const int8_t* src = t.output.data();
  for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
    for (uint32_t y = op.row_begin; y < op.row_end; ++y, src += row_bytes) {
      l2_.write(o.addr + o.offset(c, y, 0), src, row_bytes);  // o may be a band buffer
    }
  }
}

void StoreUnit::run() {
  for (;;) {
    TileToken t = in_.read();
    const uint64_t now = clock_.now();
    const TensorRef& o = destination(t.desc->op);
    busy_flag_.write(true);
    const Access a = l2_.access(L2Sram::kStore, o.addr, t.work.output_bytes, now);
    const uint64_t end = std::max(a.end, t.neuron_end + 1 + l2_.latency(o.addr));
    if (functional_) write_output(t);
    DescriptorRecord& r = record_.descriptors[t.desc->id];
    r.l2_write_bytes = t.work.output_bytes;
    r.discarded_outputs = t.work.discarded_outputs;
    r.stall_l2_conflict += a.stall;
    ++tiles_;
    bytes_ += t.work.output_bytes;
    discarded_ += t.work.discarded_outputs;
    retire_.post(t.desc->id, clock_.cycles(end - now));
    clock_.wait_until(a.end);
    busy_flag_.write(false);
  }
}

}  // namespace strider
