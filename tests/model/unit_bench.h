// The bench around one unit with a descriptor input channel and a retire output, shared by the
// unit testbenches: `source` writes one item per descriptor into the input channel after that
// descriptor's gap (random back-pressure: the channel takes an item only when it has room) and
// records when the channel took it; `collect` records each retirement's cycle and hands the id
// to on_retire. The derived bench owns the unit and says how a descriptor becomes an item.
#pragma once

#include <systemc>

#include <cstdint>
#include <utility>
#include <vector>

#include "core/arch/arch_config.h"
#include "model/common/clock_domain.h"
#include "model/common/latency_fifo.h"
#include "model/common/retire_channel.h"
#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "core/contract/descriptor.h"

namespace strider {

// configs/arch/tiny.yaml's L2: 64 KiB in 4 banks x 8 B, 16 B/cycle per port, latency 2.
inline L2Config tiny_l2() {
  L2Config c;
  c.size_bytes = 65536;
  c.banks = 4;
  c.bank_width_bytes = 8;
  c.port_bytes_per_cycle = 16;
  c.latency_cycles = 2;
  return c;
}

// configs/arch/tiny.yaml's compute pipeline: 8 neurons x 16 B lines, (default) 4 MAC lanes and
// 8 accumulators, a 512 B kernel region, padding made in the shifted block; its L2 (tiny_l2).
inline ArchConfig tiny_arch() {
  ArchConfig a;
  a.l1.lines = a.neurons.count = 8;
  a.l1.line_bytes = 16;
  a.l1.kernel_bytes = 512;
  a.l2 = tiny_l2();
  return a;
}

template <typename Item>
struct UnitBench : sc_core::sc_module {
  ClockDomain clock{1000.0};
  StatRegistry stats;
  RunRecord record;
  LatencyFifo<Item> in;
  RetireChannel retire{"retire"};
  std::vector<Descriptor> descriptors;
  std::vector<uint64_t> gaps, accepted, retired;

  UnitBench(sc_core::sc_module_name n, std::vector<Descriptor> d, std::vector<uint64_t> g,
            size_t in_depth = 1)
      : sc_core::sc_module(n), in("in", in_depth), descriptors(std::move(d)), gaps(std::move(g)) {
    record.descriptors.resize(descriptors.size());
    retired.assign(descriptors.size(), 0);
    SC_HAS_PROCESS(UnitBench);
    SC_THREAD(source);
    SC_THREAD(collect);
  }

  virtual Item item(const Descriptor& d) = 0;
  virtual void on_retire(uint32_t /*id*/) {}

  void source() {
    for (const Descriptor& d : descriptors) {
      sc_core::wait(clock.cycles(gaps[d.id]));
      in.write(item(d));
      accepted.push_back(clock.now());  // when the channel took it
    }
  }
  void collect() {
    for (;;) {
      sc_core::wait(retire.event());
      uint32_t id;
      while (retire.nb_take(&id)) {
        retired[id] = clock.now();
        on_retire(id);
      }
    }
  }
};

}  // namespace strider
