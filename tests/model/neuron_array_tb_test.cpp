// NeuronArray testbench: a source hands it tokens of conv and max-pool tiles over bytes placed in
// a functional L2; a sink takes the results after seeded random delays (back-pressure). Each
// result must equal a plain C++ convolution / pooling written here, and every tile's start, end
// and hand-over time must follow a plain C++ model of the unit's timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "model/l2/l2_sram.h"
#include "model/neuron/neuron_array.h"
#include "core/contract/quant.h"

namespace strider {
namespace {

constexpr uint64_t kIn = 0, kWeights = 1024, kBias = 1280;

ArchConfig tiny() {  // configs/arch/tiny.yaml: 8 neurons x 4 MACs, 16-byte lines, post-op 2
  ArchConfig a;
  a.l1.lines = a.neurons.count = 8;
  a.l1.line_bytes = 16;
  a.l1.kernel_bytes = 512;
  a.neurons.macs_per_cycle = 4;
  a.neurons.postop_cycles = 2;
  a.l2.size_bytes = 65536;
  return a;
}

// Even ids: 3x3 conv, pad 1, 3x8x8 -> 4x8x8, x 3 / 2^5, ReLU. Odd ids: 2x2 max pool, stride 2.
Descriptor tile(uint32_t id) {
  Descriptor d;
  d.id = id;
  d.kind = DescKind::kOp;
  OpDesc& op = d.op;
  op.input = TensorRef{MemSpace::kL2, kIn, 3, 8, 8, 8, 64, 1};
  if (id % 2 == 0) {
    op.op = OpCode::kConv;
    op.output = TensorRef{MemSpace::kL2, 4096, 4, 8, 8, 8, 64, 1};
    op.weights = TensorRef{MemSpace::kL2, kWeights, 4, 3, 9, 9, 27, 1};
    op.bias = TensorRef{MemSpace::kL2, kBias, 4, 1, 1, 4, 4, 4};
    op.kernel_h = op.kernel_w = 3;
    op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 1;
    op.requant_multiplier = 3;
    op.requant_shift = 5;
    op.act = PostAct::kRelu;
    op.row_end = 8;
    op.ch_end = 4;
  } else {
    op.op = OpCode::kMaxPool;
    op.output = TensorRef{MemSpace::kL2, 8192, 3, 4, 4, 4, 16, 1};
    op.kernel_h = op.kernel_w = op.stride_h = op.stride_w = 2;
    op.row_end = 4;
    op.ch_end = 3;
  }
  return d;
}

// The expected tile output, [channel][row][column].
std::vector<int8_t> expected(const OpDesc& op, const std::vector<int8_t>& in,
                             const std::vector<int8_t>& w, const std::vector<int32_t>& bias) {
  std::vector<int8_t> out;
  for (uint32_t c = 0; c < op.output.c; ++c) {
    for (int y = 0; y < int(op.output.h); ++y) {
      for (int x = 0; x < int(op.output.w); ++x) {
        int32_t acc = op.op == OpCode::kConv ? bias[c] : -128;
        for (int ky = 0; ky < op.kernel_h; ++ky) {
          for (int kx = 0; kx < op.kernel_w; ++kx) {
            const int iy = y * op.stride_h + ky - op.pad_top, ix = x * op.stride_w + kx - op.pad_left;
            if (iy < 0 || iy >= 8 || ix < 0 || ix >= 8) continue;
            if (op.op == OpCode::kMaxPool) {
              acc = std::max<int32_t>(acc, in[(c * 8 + iy) * 8 + ix]);
              continue;
            }
            for (int ci = 0; ci < 3; ++ci) acc += in[(ci * 8 + iy) * 8 + ix] * w[((c * 3 + ci) * 3 + ky) * 3 + kx];
          }
        }
        if (op.op == OpCode::kConv) acc = std::max(0, requantize(acc, 3, 5));
        out.push_back(saturate8(acc));
      }
    }
  }
  return out;
}

struct Bench : sc_core::sc_module {
  ArchConfig arch = tiny();
  ClockDomain clock{1000.0};
  StatRegistry stats;
  RunRecord record;
  L2Sram l2{arch.l2, true, stats};
  LatencyFifo<TileToken> in{"in", 0}, out{"out", 1};
  std::vector<Descriptor> tiles;
  std::vector<uint64_t> delays, taken;
  std::vector<TileToken> results;
  std::vector<int8_t> input, weights;
  std::vector<int32_t> bias = {-700, 0, 350, 1200};
  std::unique_ptr<NeuronArray> unit;

  Bench(sc_core::sc_module_name n, size_t count, uint32_t seed) : sc_core::sc_module(n) {
    std::mt19937 rng(seed);
    for (int i = 0; i < 192; ++i) input.push_back(int8_t(int(rng() % 256) - 128));
    for (int i = 0; i < 108; ++i) weights.push_back(int8_t(int(rng() % 255) - 127));
    l2.write(kIn, input.data(), input.size());
    l2.write(kWeights, weights.data(), weights.size());
    l2.write(kBias, reinterpret_cast<const int8_t*>(bias.data()), 16);  // little-endian host
    for (uint32_t i = 0; i < count; ++i) {
      tiles.push_back(tile(i));
      delays.push_back(rng() % 400);
    }
    record.descriptors.resize(count);
    unit = std::make_unique<NeuronArray>("neurons", arch.neurons, clock, true, l2, in, out, record,
                                         stats);
    SC_HAS_PROCESS(Bench);
    SC_THREAD(source);
    SC_THREAD(sink);
  }
  // Token k: its load unit finished writing the line buffer at cycle 400 k.
  void source() {
    for (const Descriptor& d : tiles) {
      TileToken t;
      t.desc = &d;
      t.work = compute_tile_work(d.op, arch.l1, arch.neurons, arch.l2.port_bytes_per_cycle);
      t.load_end = 400 * d.id;
      in.write(std::move(t));
    }
  }
  void sink() {
    for (uint64_t delay : delays) {
      sc_core::wait(clock.cycles(delay));
      results.push_back(out.read());
      taken.push_back(clock.now());
    }
  }
};

TEST(NeuronArrayTb, ConvAndPoolTilesUnderRandomBackPressure) {
  Bench b("bench", 10, 5);
  sc_core::sc_start();
  ASSERT_EQ(b.results.size(), b.tiles.size());
  // Reference timing: tile k starts when the previous one ended and the sink took its result;
  // it ends at max(start + the fill pipeline after the first fill, load_end + last fill compute)
  // + 2 post-op cycles; its result is handed over after the first group (first_output + 2), never
  // after the end.
  uint64_t end = 0, taken = 0, stalls = 0;
  for (size_t k = 0; k < b.tiles.size(); ++k) {
    const TileWork w =
        compute_tile_work(b.tiles[k].op, b.arch.l1, b.arch.neurons, b.arch.l2.port_bytes_per_cycle);
    const uint64_t start = std::max(end, taken);
    const uint64_t mac_end = std::max(start + (w.pipeline_cycles - w.first_fill_write_cycles),
                                      400 * k + w.last_fill_compute_cycles);
    end = mac_end + 2;
    const uint64_t visible = start + std::min(end - start, w.first_output_cycles + 2);
    taken = std::max(taken + b.delays[k], visible);
    stalls += mac_end - (start + w.compute_cycles);
    const TileToken& t = b.results[k];
    EXPECT_EQ(t.desc, &b.tiles[k]);
    EXPECT_EQ(t.neuron_end, end) << "tile " << k;
    EXPECT_EQ(b.taken[k], taken) << "tile " << k;
    EXPECT_EQ(b.record.descriptors[k].stall_line_buffer, mac_end - (start + w.compute_cycles));
    // Functional: bit-exact against the plain loops above.
    EXPECT_EQ(t.output, expected(b.tiles[k].op, b.input, b.weights, b.bias)) << "tile " << k;
  }
  EXPECT_EQ(b.stats.get("neurons.stall_cycles"), stalls);
  EXPECT_GT(stalls, 0u);  // the 400-cycle load spacing outpaces the tiles
}

TEST(NeuronArrayTb, FirstConvTileExactCycles) {
  Bench b("bench", 1, 3);
  b.delays = {0};
  sc_core::sc_start();
  // Conv on 8 neurons x 4 MACs with 8 accumulators: a run has 9 segments of 3 bytes, 5 per
  // 16-byte fill, and one fill serves all 4 channels: 4 x ceil(15/4) + 4 x ceil(12/4) = 16 + 12
  // = 28 cycles per run. The tile walks its 8 output rows back to back (one run each: 8 runs = 224
  // compute cycles; the padded stream would be 7 x 10 + 8 = 78 positions in 10 runs, 280). Fill
  // writes (5 and 4 cycles) never hold the neurons up: pipeline 5 + 224. load_end 0, so end = 0 +
  // 229 - 5 + 2 post-op = 226; the first run's results (its group of 4 channels) leave at 28 + 2.
  EXPECT_EQ(b.results[0].neuron_end, 226u);
  EXPECT_EQ(b.taken[0], 30u);
  EXPECT_EQ(b.stats.get("neurons.busy_cycles"), 224u);
  EXPECT_EQ(b.stats.get("neurons.macs"), 6912u);  // 256 outputs x 27
}

// A hybrid conv tile, functional, on tiny with random inputs and weights (its seed, their bytes
// at L2 kIn and kWeights), 8 output channels with bias x 5 / 2^7; `shape` sets its tensors,
// kernel, pads and extent, `load_end` is when the load unit's last (tail) fill is written.
struct HybridCase {
  uint32_t seed = 0;
  size_t input_bytes = 0, weight_bytes = 0;
  uint64_t load_end = 0;
  bool pad_in_block = true;
  void (*shape)(OpDesc& op) = nullptr;
};

struct HybridBench : sc_core::sc_module {
  ArchConfig arch = tiny();
  ClockDomain clock{1000.0};
  StatRegistry stats;
  RunRecord record;
  L2Sram l2{arch.l2, true, stats};
  LatencyFifo<TileToken> in{"in", 0}, out{"out", 1};
  HybridCase c;
  Descriptor d;
  std::vector<int8_t> input, weights;
  std::vector<int32_t> bias = {-300, 0, 90, 1000, -5, 7, 64, -1000};
  std::vector<TileToken> results;
  uint64_t taken = 0;
  std::unique_ptr<NeuronArray> unit;

  HybridBench(sc_core::sc_module_name n, const HybridCase& hc) : sc_core::sc_module(n), c(hc) {
    arch.l1.pad_in_block = c.pad_in_block;
    std::mt19937 rng(c.seed);
    for (size_t i = 0; i < c.input_bytes; ++i) input.push_back(int8_t(int(rng() % 256) - 128));
    for (size_t i = 0; i < c.weight_bytes; ++i) weights.push_back(int8_t(int(rng() % 255) - 127));
    l2.write(kIn, input.data(), input.size());
    l2.write(kWeights, weights.data(), weights.size());
    l2.write(kBias + 256, reinterpret_cast<const int8_t*>(bias.data()), 32);
    d.id = 0;
    d.kind = DescKind::kOp;
    OpDesc& op = d.op;
    op.op = OpCode::kConv;
    c.shape(op);
    op.bias = TensorRef{MemSpace::kL2, kBias + 256, 8, 1, 1, 4, 4, 4};
    op.requant_multiplier = 5;
    op.requant_shift = 7;
    record.descriptors.resize(1);
    unit = std::make_unique<NeuronArray>("neurons", arch.neurons, clock, true, l2, in, out, record,
                                         stats);
    SC_HAS_PROCESS(HybridBench);
    SC_THREAD(source);
    SC_THREAD(sink);
  }
  void source() {
    TileToken t;
    t.desc = &d;
    t.work = compute_tile_work(d.op, arch.l1, arch.neurons, arch.l2.port_bytes_per_cycle);
    t.load_end = c.load_end;
    in.write(std::move(t));
  }
  void sink() {
    results.push_back(out.read());
    taken = clock.now();
  }
};

// A 1x1 conv hybrid tile: 16 input channels of 2 x 6 at L2 0 -> 8 channels; 12 positions on
// tiny's 8 neurons, the last 4 in the channels form; its tail fill written at 24.
const HybridCase kPointwiseHybrid{17, 16 * 12, 8 * 16, 24, true, [](OpDesc& op) {
  op.input = TensorRef{MemSpace::kL2, kIn, 16, 2, 6, 6, 12, 1};
  op.output = TensorRef{MemSpace::kL2, 4096, 8, 2, 6, 6, 12, 1};
  op.weights = TensorRef{MemSpace::kL2, kWeights, 8, 1, 16, 16, 16, 1};
  op.kernel_h = op.kernel_w = 1;
  op.row_end = 2;
  op.ch_end = 8;
}};

// Tiny: 8 neurons x 4 MAC lanes, 8 accumulators, 16-byte lines, post-op 2. The run of 8
// positions: one fill of the 16 input channels (16 shifted writes), 8 channels x ceil(16 / 4) =
// 32 compute cycles; the 4-position tail with the 8 channels on neurons: one fill (8 line writes)
// of 4 positions x 4 = 16 cycles, written by 24 (tile_work: pipeline 16 + 32 + 16 = 64). The
// tile arrives at 0 with its first fill written: MACs end at max(0 + 64 - 16, 24 + 16) = 48, the
// post-ops at 50; the run's group of 8 channels is out at 32 + 2 = 34. Every output equals the
// plain 1x1 convolution's.
TEST(NeuronArrayTb, HybridTileExactCyclesAndBitExact) {
  HybridBench b("hybrid", kPointwiseHybrid);
  sc_core::sc_start();
  ASSERT_EQ(b.results.size(), 1u);
  EXPECT_EQ(b.results[0].work.tail_positions, 4u);
  EXPECT_EQ(b.results[0].neuron_end, 50u);
  EXPECT_EQ(b.taken, 34u);
  EXPECT_EQ(b.stats.get("neurons.busy_cycles"), 48u);  // 32 + 16
  EXPECT_EQ(b.stats.get("neurons.stall_cycles"), 0u);
  EXPECT_EQ(b.stats.get("neurons.acc_updates"), 32u * 8u + 16u * 8u);
  EXPECT_EQ(b.stats.get("neurons.macs"), 8u * 12u * 16u);
  std::vector<int8_t> want;
  for (int c = 0; c < 8; ++c) {
    for (int p = 0; p < 12; ++p) {
      int32_t acc = b.bias[c];
      for (int ci = 0; ci < 16; ++ci) acc += b.input[ci * 12 + p] * b.weights[c * 16 + ci];
      want.push_back(saturate8(requantize(acc, 5, 7)));
    }
  }
  EXPECT_EQ(b.results[0].output, want);
}

// A 3x3 conv hybrid tile (LoadUnitTb.K3HybridTileExactCycles's tile): 2 input channels of 4 x 4
// at L2 0, pad 1 -> 8 channels; padding not made in the block, so the tile keeps its padded
// stream of 3 x 6 + 4 = 22 positions on tiny's 8 neurons: 2 runs, then output row 3 (4 positions)
// in the im2col form, its last fill written at 100 (as the load unit writes it).
const HybridCase kK3Hybrid{23, 2 * 16, 8 * 18, 100, false, [](OpDesc& op) {
  op.input = TensorRef{MemSpace::kL2, kIn, 2, 4, 4, 4, 16, 1};
  op.output = TensorRef{MemSpace::kL2, 4096, 8, 4, 4, 4, 16, 1};
  op.weights = TensorRef{MemSpace::kL2, kWeights, 8, 3, 6, 6, 18, 1};
  op.kernel_h = op.kernel_w = 3;
  op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 1;
  op.row_end = 4;
  op.ch_end = 8;
}};

// Tiny, padding not made in the block: each run's 6 segments (2 channels x 3 kernel rows) in fills
// of 5 and 1 (10 and 2 shifted writes: each block spans 2 stored rows), the 8 channels in one
// group: 8 x ceil(15 / 4) = 32 and 8 x ceil(3 / 4) = 8 compute; the tail's 18-element window in
// fills of 16 and 2 (8 line writes each), its 4 positions in one group of accumulators: 4 x 4 = 16
// and 4 x 1 = 4 (tile_work: pipeline 112 from the first writes, which take 10). The tile arrives
// at 0 with its first fill written: MACs end at max(0 + 112 - 10, 100 + 4) = 104 (the last fill,
// written at 100, computes 4 cycles), the post-ops at 106; the first run's group is out at 40 + 2.
// Busy 2 x 40 + 20 = 100, stalled 104 - 100 = 4 waiting for that fill; accumulator updates 8
// positions x 80 + 8 channels x 20. Every output equals the plain padded 3x3 convolution's.
TEST(NeuronArrayTb, K3HybridTileExactCyclesAndBitExact) {
  HybridBench b("k3_hybrid", kK3Hybrid);
  sc_core::sc_start();
  ASSERT_EQ(b.results.size(), 1u);
  EXPECT_EQ(b.results[0].work.tail_positions, 4u);
  EXPECT_EQ(b.results[0].work.pipeline_cycles, 112u);
  EXPECT_EQ(b.results[0].neuron_end, 106u);
  EXPECT_EQ(b.taken, 42u);
  EXPECT_EQ(b.stats.get("neurons.busy_cycles"), 100u);
  EXPECT_EQ(b.stats.get("neurons.stall_cycles"), 4u);
  EXPECT_EQ(b.stats.get("neurons.acc_updates"), 8u * 80u + 8u * 20u);
  EXPECT_EQ(b.stats.get("neurons.macs"), 8u * 16u * 18u);
  std::vector<int8_t> want;
  for (int c = 0; c < 8; ++c) {
    for (int y = 0; y < 4; ++y) {
      for (int x = 0; x < 4; ++x) {
        int32_t acc = b.bias[c];
        for (int ci = 0; ci < 2; ++ci) {
          for (int ky = 0; ky < 3; ++ky) {
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = y + ky - 1, ix = x + kx - 1;
              if (iy < 0 || iy >= 4 || ix < 0 || ix >= 4) continue;
              acc += b.input[ci * 16 + iy * 4 + ix] * b.weights[c * 18 + ci * 9 + ky * 3 + kx];
            }
          }
        }
        want.push_back(saturate8(requantize(acc, 5, 7)));
      }
    }
  }
  EXPECT_EQ(b.results[0].output, want);
}

}  // namespace
}  // namespace strider
