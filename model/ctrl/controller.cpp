#include "model/ctrl/controller.h"

#include <algorithm>
#include <sstream>

#include "core/common/saturating.h"

namespace strider {

namespace {
constexpr uint64_t kMaxWaitCycles = uint64_t{1} << 32;
}  // namespace

Controller::Controller(sc_core::sc_module_name name, const ControllerConfig& cfg,
                       const ClockDomain& clock, const DescriptorList& list,
                       uint64_t watchdog_cycles, TimedMemory& dram,
                       uint64_t descriptor_transfer_cycles,
                       LatencyFifo<const Descriptor*>& to_dma,
                       LatencyFifo<const Descriptor*>& to_compute,
                       LatencyFifo<const Descriptor*>& to_vector, RetireChannel& retire,
                       RunRecord& record, StatRegistry& stats)
    : sc_core::sc_module(name),
      cfg_(cfg),
      clock_(clock),
      list_(list),
      watchdog_cycles_(watchdog_cycles),
      dram_(dram),
      descriptor_transfer_cycles_(descriptor_transfer_cycles),
      to_dma_(to_dma),
      to_compute_(to_compute),
      to_vector_(to_vector),
      retire_(retire),
      record_(record),
      retired_(list.descriptors.size(), false),
      batches_(stats.add("controller.fetch_batches", "descriptor-list fetches from DRAM")),
      descriptors_(stats.add("controller.descriptors", "descriptors issued")),
      dep_wait_(stats.add("controller.dep_wait_cycles",
                          "cycles descriptors waited for their dependencies after decode")) {
  SC_HAS_PROCESS(Controller);
  SC_THREAD(run);
}

bool Controller::ready(const Descriptor& d) const {
  return std::all_of(d.deps.begin(), d.deps.end(), [&](uint32_t dep) { return retired_[dep]; });
}

void Controller::dispatch(const Descriptor& d, LatencyFifo<const Descriptor*>& unit) {
  DescriptorRecord& r = record_.descriptors[d.id];
  r.ready = r.fetched;
  for (uint32_t dep : d.deps) r.ready = std::max(r.ready, record_.descriptors[dep].end);
  dep_wait_ += r.ready - r.fetched;
  unit.write(&d, clock_.cycles(cfg_.dispatch_cycles));
  ++descriptors_;
}

void Controller::issue(std::deque<uint32_t>& queue, LatencyFifo<const Descriptor*>& unit) {
  while (!queue.empty() && !unit.full() && ready(list_.descriptors[queue.front()])) {
    dispatch(list_.descriptors[queue.front()], unit);
    queue.pop_front();
  }
}

void Controller::issue_moves() {
  while (!to_dma_.full()) {
    std::deque<uint32_t>* from = nullptr;
    for (std::deque<uint32_t>* q : {&loads_, &stores_}) {
      if (q->empty() || !ready(list_.descriptors[q->front()])) continue;
      if (from == nullptr || q->front() < from->front()) from = q;
    }
    if (from == nullptr) return;
    dispatch(list_.descriptors[from->front()], to_dma_);
    from->pop_front();
  }
}

void Controller::run() {
  const size_t n = list_.descriptors.size();
  size_t next = 0, retired = 0;
  // The descriptors read but not yet decoded, each with the cycle its decode ends; the cycle the
  // last burst of the reads in flight arrives; the cycle the decoder frees.
  std::deque<std::pair<size_t, uint64_t>> decoding;
  uint64_t reads_done = 0, decode_free = 0, last_retire = clock_.now();
  while (retired < n) {
    uint32_t id;
    while (retire_.nb_take(&id)) {
      retired_[id] = true;
      record_.descriptors[id].end = clock_.now();
      last_retire = clock_.now();
      ++retired;
      if (retire_observer_) retire_observer_(id);
    }
    const uint64_t now = clock_.now();
    while (!decoding.empty() && decoding.front().second <= now) {
      const Descriptor& d = list_.descriptors[decoding.front().first];
      record_.descriptors[d.id].fetched = decoding.front().second;
      (d.kind == DescKind::kMove ? (d.move.dst_space == MemSpace::kDram ? stores_ : loads_)
       : is_vector_op(d.op.op)    ? vector_ops_
                                  : ops_)
          .push_back(d.id);
      decoding.pop_front();
    }
    const size_t window =
        loads_.size() + stores_.size() + ops_.size() + vector_ops_.size() + decoding.size();
    if (next < n && now >= reads_done && window < cfg_.prefetch_depth) {
      // One DRAM read for a batch of k descriptors; each is decoded as soon as its own bytes
      // have arrived and the decoder is free, so the first issues before the batch's last byte.
      const size_t k = std::min<size_t>(cfg_.prefetch_depth - window, n - next);
      const Access a =
          dram_.access(0, kListBase + next * cfg_.descriptor_bytes, k * cfg_.descriptor_bytes, now);
      for (size_t i = 0; i < k; ++i, ++next) {
        // The read streams at the DRAM's peak rate and ends at a.end: descriptor i's bytes are
        // in (k - 1 - i) descriptor transfers earlier, not before the read started.
        const uint64_t later = (k - 1 - i) * descriptor_transfer_cycles_;
        const uint64_t arrived = std::max(a.start, a.end > later ? a.end - later : 0);
        decode_free = std::max(decode_free, arrived) + cfg_.decode_cycles;
        decoding.emplace_back(next, decode_free);
      }
      reads_done = a.end;
      ++batches_;
    }
    issue_moves();
    issue(ops_, to_compute_);
    issue(vector_ops_, to_vector_);
    if (retired == n) break;
    // Saturating: a watchdog of 2^64-1 cycles means "never", not a deadline that wrapped to the
    // past. One wait lasts at most kMaxWaitCycles (2^32: at the slowest clock, 1 kHz, that is
    // 4.3e18 ps, inside SystemC's 64-bit time); the loop simply waits again.
    const uint64_t deadline = saturating_add(last_retire, watchdog_cycles_);
    const uint64_t now_cycles = clock_.now();
    uint64_t wait_cycles = deadline > now_cycles ? deadline - now_cycles : watchdog_cycles_;
    if (!decoding.empty()) {
      const uint64_t t = decoding.front().second;
      wait_cycles = std::min(wait_cycles, t > now_cycles ? t - now_cycles : 0);
    }
    if (next < n && reads_done > now_cycles) {
      wait_cycles = std::min(wait_cycles, reads_done - now_cycles);
    }
    sc_core::wait(clock_.cycles(std::min(wait_cycles, kMaxWaitCycles)),
                  retire_.event() | to_dma_.data_read_event() | to_compute_.data_read_event() |
                      to_vector_.data_read_event());
    if (clock_.now() >= deadline && retire_.pending() == 0) {
      report_deadlock();
      break;
    }
  }
  record_.cycles = clock_.now();
  // The units now wait on empty channels, so the simulation ends by itself; a deadlock stops it.
  if (record_.deadlock) sc_core::sc_stop();
}

void Controller::report_deadlock() {
  std::ostringstream os;
  os << "deadlock: no descriptor retired for " << watchdog_cycles_ << " cycles (at cycle "
     << clock_.now() << ")";
  for (const std::deque<uint32_t>* q : {&loads_, &stores_, &ops_, &vector_ops_}) {
    if (q->empty()) continue;
    const Descriptor& d = list_.descriptors[q->front()];
    os << "\n  " << to_string(d.kind) << " queue head: descriptor " << d.id << " (layer "
       << list_.layers[d.layer] << ") waits for";
    for (uint32_t dep : d.deps) {
      if (!retired_[dep]) os << " " << dep;
    }
  }
  for (size_t i = 0; i < retired_.size(); ++i) {
    const DescriptorRecord& r = record_.descriptors[i];
    if (!retired_[i] && r.start != 0) {
      os << "\n  in flight: descriptor " << i << " on " << to_string(r.unit) << " since cycle "
         << r.start;
    }
  }
  record_.deadlock = true;
  record_.deadlock_report = os.str();
}

}  // namespace strider
