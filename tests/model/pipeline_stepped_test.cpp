// The compute pipeline's hand-offs (load unit -> neuron array -> store unit) and L2 traffic against
// the cycle-stepped pipeline reference (pipeline_reference.h) on seeded random tiles with random
// source gaps: every tile's load start, back-pressure wait, retirement, L2 bytes, bank-conflict
// and stall cycles must be equal; and injected faults must be reported.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model/l1/load_unit.h"
#include "model/l1/store_unit.h"
#include "model/l2/l2_sram.h"
#include "model/neuron/neuron_array.h"
#include "pipeline_reference.h"
#include "tests/model/unit_bench.h"

namespace strider {
namespace {

using Rng = std::mt19937_64;
uint32_t pick(Rng& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

// A random positions-mapping tile: a convolution (groups 1, maybe an input-channel block with
// partial sums, or depthwise) or a max / average pool, with random kernel, stride, dilation and
// padding; planes and rows padded in memory at random addresses.
OpDesc random_tile(Rng& rng) {
  for (;;) {
    OpDesc op;
    const uint32_t kind = pick(rng, 0, 3);  // conv, depthwise, max pool, average pool
    op.op = kind == 2 ? OpCode::kMaxPool : kind == 3 ? OpCode::kAvgPool : OpCode::kConv;
    uint32_t in_c = pick(rng, 1, 6), out_c = kind == 0 ? pick(rng, 1, 12) : in_c;
    if (kind == 1) op.groups = in_c;
    const uint32_t h = pick(rng, 1, 9), w = pick(rng, 1, 14);
    op.kernel_h = uint16_t(pick(rng, 1, 3));
    op.kernel_w = uint16_t(pick(rng, 1, 4));
    op.stride_h = op.stride_w = uint16_t(pick(rng, 1, 2));
    if (pick(rng, 0, 3) == 0) op.stride_w = uint16_t(pick(rng, 1, 3));
    op.dilation_h = uint16_t(pick(rng, 0, 4) == 0 ? 2 : 1);
    op.dilation_w = uint16_t(pick(rng, 0, 4) == 0 ? 2 : 1);
    if (pick(rng, 0, 2) != 0) {
      op.pad_top = uint16_t(pick(rng, 0, op.kernel_h - 1));
      op.pad_bottom = uint16_t(pick(rng, 0, op.kernel_h - 1));
      op.pad_left = uint16_t(pick(rng, 0, op.kernel_w - 1));
      op.pad_right = uint16_t(pick(rng, 0, op.kernel_w - 1));
    }
    const int64_t span_h =
        int64_t(h) + op.pad_top + op.pad_bottom - (int64_t(op.kernel_h - 1) * op.dilation_h + 1);
    const int64_t span_w =
        int64_t(w) + op.pad_left + op.pad_right - (int64_t(op.kernel_w - 1) * op.dilation_w + 1);
    if (span_h < 0 || span_w < 0) continue;
    const uint32_t oh = uint32_t(span_h / op.stride_h + 1), ow = uint32_t(span_w / op.stride_w + 1);
    const uint32_t row = w + pick(rng, 0, 6);
    op.input = TensorRef{MemSpace::kL2, pick(rng, 0, 2048),         in_c, h, w,
                         row,           h * row + pick(rng, 0, 12), 1};
    op.weights = TensorRef{MemSpace::kL2,
                           16384 + pick(rng, 0, 64),
                           out_c,
                           op.kernel_h,
                           in_c / op.groups * op.kernel_w,
                           0,
                           0,
                           1};
    op.output = TensorRef{
        MemSpace::kL2, 32768 + pick(rng, 0, 64), out_c, oh, ow, ow, oh * ow + pick(rng, 0, 12), 1};
    op.row_begin = pick(rng, 0, oh - 1);
    op.row_end = pick(rng, op.row_begin + 1, oh);
    op.ch_begin = pick(rng, 0, out_c - 1);
    op.ch_end = pick(rng, op.ch_begin + 1, out_c);
    if (kind == 0 && pick(rng, 0, 3) == 0) {
      op.in_ch_begin = pick(rng, 0, in_c - 1);
      op.in_ch_end = pick(rng, op.in_ch_begin + 1, in_c);
      op.psum_mode = uint8_t(pick(rng, 1, 3));
      const uint32_t rows = op.row_end - op.row_begin, chans = op.ch_end - op.ch_begin;
      op.psum = TensorRef{MemSpace::kL2, 49152, chans, rows, ow, 4 * ow, 4 * rows * ow, 4};
      op.psum.first_channel = op.ch_begin;
      op.psum.first_row = op.row_begin;
    }
    return op;
  }
}

// A random 1x1 convolution (groups 1, unpadded, stride 1 or 2, maybe an input-channel block with
// partial sums) in the positions mapping: the hybrid tile's candidates.
OpDesc random_pointwise(Rng& rng) {
  OpDesc op;
  op.op = OpCode::kConv;
  op.kernel_h = op.kernel_w = 1;
  op.stride_h = op.stride_w = uint16_t(pick(rng, 0, 3) == 0 ? 2 : 1);
  const uint32_t in_c = pick(rng, 1, 40), out_c = pick(rng, 1, 20);
  const uint32_t h = pick(rng, 2, 9), w = pick(rng, 2, 14);
  const uint32_t oh = (h - 1) / op.stride_h + 1, ow = (w - 1) / op.stride_w + 1;
  const uint32_t row = w + pick(rng, 0, 6);
  op.input = TensorRef{MemSpace::kL2, pick(rng, 0, 2048), in_c, h, w, row,
                       h * row + pick(rng, 0, 12), 1};
  op.weights = TensorRef{MemSpace::kL2, 16384 + pick(rng, 0, 64), out_c, 1, in_c, 0, 0, 1};
  op.output = TensorRef{
      MemSpace::kL2, 32768 + pick(rng, 0, 64), out_c, oh, ow, ow, oh * ow + pick(rng, 0, 12), 1};
  op.row_begin = pick(rng, 0, oh - 1);
  op.row_end = pick(rng, op.row_begin + 1, oh);
  op.ch_begin = pick(rng, 0, out_c - 1);
  op.ch_end = pick(rng, op.ch_begin + 1, out_c);
  if (pick(rng, 0, 3) == 0) {
    op.in_ch_begin = pick(rng, 0, in_c - 1);
    op.in_ch_end = pick(rng, op.in_ch_begin + 1, in_c);
    op.psum_mode = uint8_t(pick(rng, 1, 3));
    const uint32_t rows = op.row_end - op.row_begin, chans = op.ch_end - op.ch_begin;
    op.psum = TensorRef{MemSpace::kL2, 49152, chans, rows, ow, 4 * ow, 4 * rows * ow, 4};
    op.psum.first_channel = op.ch_begin;
    op.psum.first_row = op.row_begin;
  }
  return op;
}

// Source -> load unit -> line buffer -> neurons -> output channel -> store unit -> retire; the
// load and store ports on two L2 models (see pipeline_reference.h).
struct Bench : UnitBench<const Descriptor*> {
  ArchConfig arch = tiny_arch();  // 4 MAC lanes, 8 accumulators, 4 L2 banks x 8 B
  StatRegistry store_stats;
  L2Sram load_l2{arch.l2, false, stats}, store_l2{arch.l2, false, store_stats};
  LatencyFifo<TileToken> lb{"lb", 1}, out{"out", 1};
  std::unique_ptr<LoadUnit> load;
  std::unique_ptr<NeuronArray> neurons;
  std::unique_ptr<StoreUnit> store;

  Bench(sc_core::sc_module_name n, std::vector<Descriptor> d, std::vector<uint64_t> g)
      : UnitBench(n, std::move(d), std::move(g)) {
    load = std::make_unique<LoadUnit>("load", arch, clock, load_l2, in, lb, record, stats);
    neurons = std::make_unique<NeuronArray>("neurons", arch.neurons, clock, false, load_l2, lb, out,
                                            record, stats);
    store = std::make_unique<StoreUnit>("store", clock, false, store_l2, out, retire, record,
                                        store_stats);
  }
  const Descriptor* item(const Descriptor& d) override { return &d; }
};

constexpr int kRandomTiles = 400, kPointwiseTiles = 80;
constexpr int kTiles = kRandomTiles + kPointwiseTiles;

struct Case {
  std::vector<OpDesc> ops;
  std::vector<uint64_t> gaps;
};

Case random_case(uint64_t seed) {
  Rng rng(seed);
  Case c;
  for (int i = 0; i < kTiles; ++i) {
    c.ops.push_back(i < kRandomTiles ? random_tile(rng) : random_pointwise(rng));
    c.gaps.push_back(pick(rng, 0, 3) == 0 ? pick(rng, 0, 400) : pick(rng, 0, 8));
  }
  return c;
}

// Compares the bench's records with the reference's; returns the mismatching tiles (the first
// few described in `text`).
int compare(const Bench& b, const std::vector<PipelineTileResult>& ref, std::string* text) {
  int bad = 0;
  for (size_t k = 0; k < ref.size(); ++k) {
    const DescriptorRecord& r = b.record.descriptors[k];
    std::string d;
    auto eq = [&](const char* name, uint64_t model, uint64_t stepped) {
      if (model != stepped) {
        d += std::string(" ") + name + ": model " + std::to_string(model) + " stepped " +
             std::to_string(stepped) + ";";
      }
    };
    eq("load start", r.start, ref[k].load_start);
    eq("backpressure", r.stall_backpressure, ref[k].backpressure);
    eq("retired", b.retired[k], ref[k].retired);
    eq("l2_read_bytes", r.l2_read_bytes, ref[k].l2_read_bytes);
    eq("l2_write_bytes", r.l2_write_bytes, ref[k].l2_write_bytes);
    eq("bank conflicts", r.l2_bank_conflict_cycles, ref[k].conflict);
    eq("l2 stalls", r.stall_l2_conflict, ref[k].stall_l2);
    eq("line-buffer stalls", r.stall_line_buffer, ref[k].stall_line_buffer);
    if (!d.empty() && ++bad <= 5) *text += "\n tile " + std::to_string(k) + ":" + d;
  }
  return bad;
}

std::vector<Descriptor> descriptors(const Case& c) {
  std::vector<Descriptor> ds;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    Descriptor d;
    d.id = uint32_t(i);
    d.kind = DescKind::kOp;
    d.op = c.ops[i];
    ds.push_back(d);
  }
  return ds;
}

// One SystemC elaboration per test process: both tests share one bench run.
struct PipelineRun {
  Case c = random_case(0x91fe'2024u);
  Bench bench{"bench", descriptors(c), c.gaps};
  PipelineRun() { sc_core::sc_start(); }
};
PipelineRun& pipeline_run() {
  static PipelineRun r;
  return r;
}

TEST(PipelineStepped, HandOffsAndL2TrafficMatchTheSteppedReference) {
  PipelineRun& r = pipeline_run();
  const Bench& b = r.bench;
  ASSERT_EQ(b.accepted.size(), size_t(kTiles));
  const std::vector<PipelineTileResult> ref = run_stepped_pipeline(r.c.ops, r.c.gaps, b.arch);
  std::string text;
  EXPECT_EQ(compare(b, ref, &text), 0) << "of " << kTiles << " tiles:" << text;
  // The random tiles exercise what the comparison is about.
  uint64_t backpressured = 0, conflicted = 0, line_buffer_stalled = 0, psums = 0, hybrids = 0;
  for (size_t k = 0; k < ref.size(); ++k) {
    hybrids += compute_tile_work(r.c.ops[k], b.arch.l1, b.arch.neurons,
                                 b.arch.l2.port_bytes_per_cycle)
                   .tail_positions > 0;
    backpressured += ref[k].backpressure > 0;
    conflicted += ref[k].conflict > 0;
    line_buffer_stalled += ref[k].stall_line_buffer > 0;
    psums += r.c.ops[k].psum_mode != 0;
  }
  std::printf(
      "tiles backpressured %llu, with bank conflicts %llu, line-buffer stalled %llu, psums %llu, "
      "hybrid %llu\n",
      (unsigned long long)backpressured, (unsigned long long)conflicted,
      (unsigned long long)line_buffer_stalled, (unsigned long long)psums,
      (unsigned long long)hybrids);
  EXPECT_GT(backpressured, 20u);
  EXPECT_GE(conflicted, 20u);  // 20 since small strided tiles may run as one stream
  EXPECT_GT(line_buffer_stalled, 20u);
  EXPECT_GT(psums, 20u);
  EXPECT_GE(hybrids, 20u);  // 1x1 tiles whose partial last run goes to the channels form
}

// Injected faults: the reference run as if the model read every input row piece 4 bytes further
// (other bank words), had one more post-op stage, or one more L2 latency cycle; each must
// mismatch many tiles.
TEST(PipelineStepped, InjectedFaultsAreCaught) {
  PipelineRun& r = pipeline_run();
  std::string text;
  Case moved = r.c;
  for (OpDesc& op : moved.ops) op.input.addr += 4;
  EXPECT_GT(compare(r.bench, run_stepped_pipeline(moved.ops, moved.gaps, r.bench.arch), &text), 10);
  ArchConfig postop = r.bench.arch;
  ++postop.neurons.postop_cycles;
  EXPECT_GT(compare(r.bench, run_stepped_pipeline(r.c.ops, r.c.gaps, postop), &text), 100);
  ArchConfig latency = r.bench.arch;
  ++latency.l2.latency_cycles;
  EXPECT_GT(compare(r.bench, run_stepped_pipeline(r.c.ops, r.c.gaps, latency), &text), 100);
}

}  // namespace
}  // namespace strider
