// Controller testbench: stand-in DMA and compute units take descriptors from the controller's two
// channels (one entry each) after seeded random delays and retire each a fixed time after taking
// it. Checked: exact cycles of fetch, decode, dispatch and fences on a small list; under random
// back-pressure, every descriptor is issued once, in queue order, never before its dependencies
// retired, never while its channel was full; the run ends when the last one retires; the
// retire observer sees every retirement at its cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "model/ctrl/controller.h"
#include "model/dram/dram.h"

namespace strider {
namespace {

constexpr uint64_t kMoveLatency = 10, kOpLatency = 20;

ArchConfig tiny() {  // configs/arch/tiny.yaml
  ArchConfig a;
  a.controller.prefetch_depth = 4;
  a.controller.descriptor_bytes = 64;
  a.controller.decode_cycles = 1;
  a.controller.dispatch_cycles = 1;
  a.dram.model = "simple";  // the flat pipe the hand arithmetic assumes
  a.dram.bytes_per_cycle = 8;
  a.dram.latency_cycles = 20;
  return a;
}

Descriptor desc(uint32_t id, DescKind kind, std::vector<uint32_t> deps) {
  Descriptor d;
  d.id = id;
  d.kind = kind;
  d.deps = std::move(deps);
  return d;
}

Descriptor store(uint32_t id, std::vector<uint32_t> deps) {  // a move from L2 to DRAM
  Descriptor d = desc(id, DescKind::kMove, std::move(deps));
  d.move.src_space = MemSpace::kL2;
  d.move.dst_space = MemSpace::kDram;
  return d;
}

struct Bench : sc_core::sc_module {
  ArchConfig arch = tiny();
  ClockDomain clock{1000.0};
  StatRegistry stats;
  RunRecord record;
  Dram dram{arch.dram, 1000.0, stats};
  DescriptorList list;
  LatencyFifo<const Descriptor*> to_dma{"to_dma", 1}, to_compute{"to_compute", 1},
      to_vector{"to_vector", 1};
  RetireChannel retire{"retire"};
  std::vector<uint64_t> delays, taken, observed;
  std::vector<uint32_t> dma_order, compute_order, vector_order;
  std::unique_ptr<Controller> ctrl;
  std::mt19937 rng;

  Bench(sc_core::sc_module_name n, std::vector<Descriptor> d, uint32_t seed, uint64_t max_delay)
      : sc_core::sc_module(n), rng(seed) {
    list.layers = {"l0"};
    list.descriptors = std::move(d);
    for (size_t i = 0; i < list.descriptors.size(); ++i) {
      delays.push_back(max_delay ? rng() % max_delay : 0);
    }
    taken.assign(list.descriptors.size(), 0);
    observed.assign(list.descriptors.size(), 0);
    record.descriptors.resize(list.descriptors.size());
    // One 64 B descriptor at the flat pipe's 8 B/cycle: 8 cycles.
    ctrl = std::make_unique<Controller>("ctrl", arch.controller, clock, list, 1000000, dram, 8,
                                        to_dma, to_compute, to_vector, retire, record, stats);
    ctrl->set_retire_observer([this](uint32_t id) { observed[id] = clock.now(); });
    SC_HAS_PROCESS(Bench);
    SC_THREAD(dma_unit);
    SC_THREAD(compute_unit);
    SC_THREAD(vector_unit);
  }
  // A stand-in unit: takes a descriptor, retires it `latency` later, pauses its own delay.
  void unit(LatencyFifo<const Descriptor*>& in, uint64_t latency, std::vector<uint32_t>& order) {
    for (;;) {
      const Descriptor* d = in.read();
      taken[d->id] = clock.now();
      order.push_back(d->id);
      retire.post(d->id, clock.cycles(latency));
      sc_core::wait(clock.cycles(delays[d->id]));
    }
  }
  void dma_unit() { unit(to_dma, kMoveLatency, dma_order); }
  void compute_unit() { unit(to_compute, kOpLatency, compute_order); }
  void vector_unit() { unit(to_vector, kOpLatency, vector_order); }
};

TEST(ControllerTb, FencesExactCycles) {
  Bench b("bench",
          {desc(0, DescKind::kMove, {}), desc(1, DescKind::kOp, {0}), desc(2, DescKind::kMove, {}),
           desc(3, DescKind::kOp, {1, 2})},
          1, 0);
  sc_core::sc_start();
  // One fetch of 4 x 64 B = 256 B at 8 B/cycle = 32 + 20 latency: ends at 52; descriptor i's
  // 64 B are in (3 - i) x 8 cycles earlier: 28, 36, 44, 52, each decoded in 1 cycle behind its
  // bytes: descriptors ready at 29, 37, 45, 53.
  // Move 0 dispatched at 29, taken at 30, retires at 40. Op 1 waits for 0: dispatched 40, taken
  // 41, retires 61. Move 2 decoded at 45, taken 46, retires 56. Op 3 (decoded 53) waits for 1
  // and 2: dispatched 61, taken 62, retires 82 = the end of the run (109 when the batch was
  // decoded only after its last burst: 52 + 4 x 1 = 56 for every descriptor).
  EXPECT_EQ(b.taken, (std::vector<uint64_t>{30, 41, 46, 62}));
  EXPECT_EQ(b.observed, (std::vector<uint64_t>{40, 61, 56, 82}));
  EXPECT_EQ(b.record.cycles, 82u);
  EXPECT_EQ(b.record.descriptors[0].fetched, 29u);
  EXPECT_EQ(b.record.descriptors[3].fetched, 53u);
  EXPECT_EQ(b.record.descriptors[3].ready, 61u);
  EXPECT_EQ(b.stats.get("controller.fetch_batches"), 1u);
}

TEST(ControllerTb, RandomListUnderRandomBackPressure) {
  std::mt19937 gen(4);
  std::vector<Descriptor> list;
  for (uint32_t i = 0; i < 60; ++i) {
    std::vector<uint32_t> deps;
    for (uint32_t k = 0; k < 3 && i > 0; ++k) {
      if (gen() % 2) deps.push_back(gen() % i);
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    list.push_back(desc(i, gen() % 2 ? DescKind::kMove : DescKind::kOp, deps));
    // One move in three a store, which writes back the latest op's tile (waits for it).
    if (list.back().kind == DescKind::kMove && gen() % 3 == 0) {
      list.back() = store(i, deps);
      for (uint32_t k = i; k-- > 0;) {
        if (list[k].kind == DescKind::kOp) {
          list.back().deps.push_back(k);
          break;
        }
      }
      std::sort(list.back().deps.begin(), list.back().deps.end());
      list.back().deps.erase(std::unique(list.back().deps.begin(), list.back().deps.end()),
                             list.back().deps.end());
    }
  }
  Bench b("bench", list, 8, 40);
  sc_core::sc_start();
  ASSERT_FALSE(b.record.deadlock) << b.record.deadlock_report;
  ASSERT_EQ(b.dma_order.size() + b.compute_order.size(), list.size());
  uint64_t last = 0;
  for (const Descriptor& d : list) {
    const uint64_t latency = d.kind == DescKind::kMove ? kMoveLatency : kOpLatency;
    // Retired `latency` after being taken, and the observer saw it then.
    EXPECT_EQ(b.observed[d.id], b.taken[d.id] + latency) << "descriptor " << d.id;
    EXPECT_EQ(b.record.descriptors[d.id].end, b.observed[d.id]);
    // Fences: taken (dispatch 1 cycle after issue) only after every dependency retired.
    for (uint32_t dep : d.deps) EXPECT_GE(b.taken[d.id], b.observed[dep] + 1) << d.id << " on " << dep;
    last = std::max(last, b.observed[d.id]);
  }
  // Each channel holds one entry: a unit takes its next descriptor only after its own delay, so
  // consecutive descriptors of a queue are taken at least that delay apart; the compute queue
  // in list order.
  for (const std::vector<uint32_t>* order : {&b.dma_order, &b.compute_order}) {
    for (size_t i = 1; i < order->size(); ++i) {
      if (order == &b.compute_order) {
        EXPECT_LT((*order)[i - 1], (*order)[i]);
      }
      EXPECT_GE(b.taken[(*order)[i]], b.taken[(*order)[i - 1]] + b.delays[(*order)[i - 1]]);
    }
  }
  // Loads and stores each issue in order; a move overtakes an older one of the other kind only
  // when it became ready (decoded, dependencies retired) before the older one did (the DMA
  // takes moves in dispatch order).
  uint64_t overtaken = 0;
  for (const Descriptor& older : list) {
    for (const Descriptor& newer : list) {
      if (older.kind != DescKind::kMove || newer.kind != DescKind::kMove) continue;
      if (newer.id <= older.id || b.taken[newer.id] >= b.taken[older.id]) continue;
      ++overtaken;
      EXPECT_NE(older.move.dst_space, newer.move.dst_space)
          << "move " << newer.id << " overtook move " << older.id << " of its own queue";
      EXPECT_GT(b.record.descriptors[older.id].ready, b.record.descriptors[newer.id].ready)
          << "move " << newer.id << " overtook ready move " << older.id;
    }
  }
  EXPECT_GT(overtaken, 0u);  // the list has moves that wait while younger ones go
  EXPECT_EQ(b.record.cycles, last);
}

// Vector ops (Softmax, LayerNorm, GELU) take the third queue: a vector op waiting for its
// dependency does not hold back an independent neuron op behind it.
TEST(ControllerTb, VectorOpsIssueToTheVectorUnit) {
  std::vector<Descriptor> d = {desc(0, DescKind::kMove, {}), desc(1, DescKind::kOp, {0}),
                               desc(2, DescKind::kOp, {1}), desc(3, DescKind::kOp, {})};
  d[2].op.op = OpCode::kLayerNorm;
  Bench b("bench", d, 1, 0);
  sc_core::sc_start();
  EXPECT_EQ(b.compute_order, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(b.vector_order, (std::vector<uint32_t>{2}));
  EXPECT_EQ(b.dma_order, (std::vector<uint32_t>{0}));
  // Decodes end at 29, 37, 45, 53 (as above). Move 0: dispatched 29, taken 30, retires 40. Op 1
  // waits for it: dispatched 40, taken 41, retires 61. Vector op 2 (decoded 45) waits for op 1:
  // dispatched 61, taken 62. Op 3 (compute, decoded 53) is taken at 54 although the vector op
  // before it in the list still waits: its queue is not held back by the vector unit's.
  EXPECT_EQ(b.taken, (std::vector<uint64_t>{30, 41, 62, 54}));
}

// A store waiting for its producer (a graph output's write-back) does not hold back a younger
// load whose dependencies have retired (the next layer's weight prefetch): loads and stores
// queue apart.
TEST(ControllerTb, LoadOvertakesAWaitingStore) {
  Bench b("bench",
          {desc(0, DescKind::kOp, {}), store(1, {0}), desc(2, DescKind::kMove, {})}, 1, 0);
  sc_core::sc_start();
  // One fetch of 3 x 64 B = 192 B at 8 B/cycle = 24 + 20 latency: ends at 44; descriptor i's
  // bytes are in (2 - i) x 8 earlier: 28, 36, 44; decoded at 29, 37, 45. Op 0: dispatched 29,
  // taken 30, retires 50. Load 2 (decoded 45, no dependencies) is dispatched at 45, taken 46,
  // retires 56, while store 1 still waits for op 0: dispatched 50, taken 51, retires 61 = the
  // end of the run. In one move queue, load 2 would have been taken after store 1, at 52.
  EXPECT_EQ(b.dma_order, (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(b.taken, (std::vector<uint64_t>{30, 51, 46}));
  EXPECT_EQ(b.observed, (std::vector<uint64_t>{50, 61, 56}));
  EXPECT_EQ(b.record.cycles, 61u);
}

}  // namespace
}  // namespace strider
