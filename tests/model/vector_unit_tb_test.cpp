// VectorUnit testbench: a source pushes Softmax, LayerNorm and GELU tiles through a one-entry
// channel after seeded random gaps (back-pressure: the channel holds one tile while the unit is
// busy); a collector takes the retirements. Each tile's acceptance and retirement must follow a
// plain C++ model of the unit's timing, and the bytes it writes to L2 must equal a plain C++
// computation of the op from the integer functions of core/contract/vector_math.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "model/l2/l2_sram.h"
#include "model/vector/vector_unit.h"
#include "core/contract/quant.h"
#include "core/contract/vector_math.h"
#include "tests/model/unit_bench.h"

namespace strider {
namespace {

constexpr uint64_t kIn = 0, kGamma = 1024, kBeta = 2048, kOut = 8192;

VectorConfig tiny_vector() {  // configs/arch/tiny.yaml
  VectorConfig v;
  v.lanes = 4;
  return v;  // softmax 2 x 3 passes, layernorm 1 x 3, gelu 2 x 1
}

// A tile over a C x H x 1 token tensor (C channels, H tokens), all channels and rows.
Descriptor tile(uint32_t id, OpCode op, uint32_t c, uint32_t h, uint32_t groups = 1,
                bool causal = false) {
  Descriptor d;
  d.id = id;
  d.kind = DescKind::kOp;
  d.op.op = op;
  d.op.input = TensorRef{MemSpace::kL2, kIn, c, h, 1, 1, h, 1};
  d.op.output = TensorRef{MemSpace::kL2, kOut + 256 * id, c, h, 1, 1, h, 1};  // own place
  d.op.row_end = h;
  d.op.ch_end = c;
  d.op.groups = groups;
  d.op.flags = causal ? OpDesc::kCausal : 0;
  // Softmax reads its input at 1/32, GELU at 1/8 and writes at 1/16 (requantisation 1/2).
  // Odd-numbered softmax tiles write uint8 probabilities (kUnsigned).
  if (op == OpCode::kSoftmax) d.op.input_multiplier = softmax_input_multiplier(1.0 / 32);
  if (op == OpCode::kSoftmax && id % 2) d.op.flags |= OpDesc::kUnsigned;
  if (op == OpCode::kGelu) {
    d.op.input_multiplier = gelu_input_multiplier(1.0 / 8);
    d.op.requant_multiplier = 16384;
    d.op.requant_shift = 15;
  }
  if (op == OpCode::kLayerNorm) {
    d.op.weights = TensorRef{MemSpace::kL2, kGamma, c, 1, 1, 1, 1, 1};
    d.op.bias = TensorRef{MemSpace::kL2, kBeta, c, 1, 1, 4, 4, 4};
    d.op.requant_multiplier = 3;
    d.op.requant_shift = 6;
    // Epsilon in r^2's units (vector_math.h): even ids E = 3277 (D^2 eps / s^2 with D 8, eps
    // 0.05, s 1/32: 64 x 0.05 x 1024 = 3276.8), odd ids 1000 x 2^3 = 8000 (exponent 3).
    d.op.input_multiplier = id % 2 ? int32_t((3 << 24) | 1000) : 3277;
  }
  return d;
}

// Plain C++ computation of a tile over the input bytes `x` ([c][h]), gamma `g`, beta `b`.
std::vector<int8_t> expected(const OpDesc& op, const std::vector<int8_t>& x,
                             const std::vector<int8_t>& g, const std::vector<int32_t>& b) {
  const uint32_t c = op.input.c, h = op.input.h;
  std::vector<int8_t> y(x.size());
  for (uint32_t t = 0; t < h; ++t) {
    if (op.op == OpCode::kGelu) {
      for (uint32_t k = 0; k < c; ++k) {
        y[k * h + t] = gelu(x[k * h + t], op.input_multiplier, op.requant_multiplier, op.requant_shift);
      }
    } else if (op.op == OpCode::kSoftmax) {
      const uint32_t per = c / op.groups;
      const uint32_t vis = (op.flags & OpDesc::kCausal) ? std::min(per, t + 1) : per;
      for (uint32_t g0 = 0; g0 < c; g0 += per) {
        int32_t mx = -128;
        int64_t sum = 0;
        for (uint32_t k = 0; k < vis; ++k) mx = std::max<int32_t>(mx, x[(g0 + k) * h + t]);
        for (uint32_t k = 0; k < vis; ++k) sum += exp_q15(x[(g0 + k) * h + t] - mx, op.input_multiplier);
        for (uint32_t k = 0; k < per; ++k) {
          const int64_t e = k < vis ? exp_q15(x[(g0 + k) * h + t] - mx, op.input_multiplier) : 0;
          y[(g0 + k) * h + t] = softmax_byte(e, sum, op.requant_multiplier, op.requant_shift,
                                             op.flags & OpDesc::kUnsigned);
        }
      }
    } else {
      int64_t s = 0;
      for (uint32_t k = 0; k < c; ++k) s += x[k * h + t];
      uint64_t sq = 0;
      for (uint32_t k = 0; k < c; ++k) {
        const int64_t d = int64_t(c) * x[k * h + t] - s;
        sq += uint64_t(d * d);
      }
      const int32_t code = op.input_multiplier;
      const uint64_t r = isqrt(sq / c + (uint64_t(code & 0xffffff) << (code >> 24)));
      for (uint32_t k = 0; k < c; ++k) {
        const int32_t v = layernorm_value(int64_t(c) * x[k * h + t] - s, r);
        y[k * h + t] = saturate8(requantize(v * g[k] + b[k], op.requant_multiplier, op.requant_shift));
      }
    }
  }
  return y;
}

struct Bench : UnitBench<const Descriptor*> {
  L2Config cfg = tiny_l2();
  VectorConfig vcfg = tiny_vector();
  L2Sram l2{cfg, true, stats};
  std::vector<std::vector<int8_t>> outputs;
  std::unique_ptr<VectorUnit> unit;

  Bench(sc_core::sc_module_name n, std::vector<Descriptor> t, std::vector<uint64_t> g)
      : UnitBench(n, std::move(t), std::move(g)) {
    outputs.resize(descriptors.size());
    unit = std::make_unique<VectorUnit>("vector", vcfg, clock, true, l2, in, retire, record, stats);
  }
  const Descriptor* item(const Descriptor& d) override { return &d; }
  void on_retire(uint32_t id) override {
    const TensorRef& o = descriptors[id].op.output;
    outputs[id].resize(o.bytes());
    l2.read(o.addr, outputs[id].data(), o.bytes());
  }
};

void fill_inputs(L2Sram& l2, std::mt19937& rng, std::vector<int8_t>* x, std::vector<int8_t>* g,
                 std::vector<int32_t>* b) {
  x->resize(64), g->resize(16), b->resize(16);
  for (int8_t& v : *x) v = int8_t(int(rng() % 256) - 128);
  for (int8_t& v : *g) v = int8_t(int(rng() % 255) - 127);
  for (int32_t& v : *b) v = int32_t(rng() % 2001) - 1000;
  l2.write(kIn, x->data(), x->size());
  l2.write(kGamma, g->data(), g->size());
  std::vector<int8_t> raw;
  for (int32_t v : *b) {
    for (int k = 0; k < 4; ++k) raw.push_back(int8_t((uint32_t(v) >> (8 * k)) & 0xff));
  }
  l2.write(kBeta, raw.data(), raw.size());
}

TEST(VectorUnitTb, GeluExactCycles) {
  Bench b("bench", {tile(0, OpCode::kGelu, 4, 8)}, {0});
  std::mt19937 rng(1);
  std::vector<int8_t> x, g;
  std::vector<int32_t> bias;
  fill_inputs(b.l2, rng, &x, &g, &bias);
  sc_core::sc_start();
  // E = 4 x 8 = 32. Read 32 B: ceil(32 / 16) = 2 + 2 latency = 4. Compute 1 pass x ceil(32 / 4)
  // lanes x 2 cycles = 16 > 4. Write 32 B from 16: 2 + 2 = 4, retires at 20.
  EXPECT_EQ(b.retired[0], 20u);
  x.resize(32);
  EXPECT_EQ(b.outputs[0], expected(b.descriptors[0].op, x, g, bias));
  EXPECT_EQ(b.stats.get("vector.busy_cycles"), 16u);
  EXPECT_EQ(b.stats.get("vector.elements"), 32u);
}

TEST(VectorUnitTb, LayerNormExactCycles) {
  Bench b("bench", {tile(0, OpCode::kLayerNorm, 8, 4)}, {0});
  std::mt19937 rng(2);
  std::vector<int8_t> x, g;
  std::vector<int32_t> bias;
  fill_inputs(b.l2, rng, &x, &g, &bias);
  sc_core::sc_start();
  // E = 8 x 4 = 32; read 32 + 8 gamma + 8 x 4 beta = 72 B: ceil(72 / 16) = 5 + 2 = 7. Compute
  // 3 passes x ceil(32 / 4) x 1 = 24 > 7. Write 32 B from 24: 2 + 2 = 4, retires at 28.
  EXPECT_EQ(b.retired[0], 28u);
  x.resize(32);
  EXPECT_EQ(b.outputs[0], expected(b.descriptors[0].op, x, g, bias));
}

// An InstanceNorm tile over channels [2, 6) of an 8 x 4 x 2 tensor (C x H x W) writing rows
// [1, 3): each channel's statistics over all 8 of its positions (vector_math.h with D = 8).
TEST(VectorUnitTb, InstanceNormExactCyclesReadsEveryRow) {
  Descriptor d;
  d.kind = DescKind::kOp;
  d.op.op = OpCode::kInstanceNorm;
  d.op.input = TensorRef{MemSpace::kL2, kIn, 8, 4, 2, 2, 8, 1};
  d.op.output = TensorRef{MemSpace::kL2, kOut, 8, 4, 2, 2, 8, 1};
  d.op.ch_begin = 2, d.op.ch_end = 6, d.op.row_begin = 1, d.op.row_end = 3;
  d.op.weights = TensorRef{MemSpace::kL2, kGamma, 4, 1, 1, 1, 1, 1};  // the tile's gamma
  d.op.bias = TensorRef{MemSpace::kL2, kBeta, 4, 1, 1, 4, 4, 4};
  d.op.requant_multiplier = 3, d.op.requant_shift = 6;
  d.op.input_multiplier = 3277;  // E = 8^2 x 0.05 / (1/32)^2 = 3276.8
  Bench b("bench", {d}, {0});
  std::mt19937 rng(5);
  std::vector<int8_t> x, g;
  std::vector<int32_t> bias;
  fill_inputs(b.l2, rng, &x, &g, &bias);
  sc_core::sc_start();
  // Reads 4 channels x all 8 positions = 32 B + 4 gamma + 4 x 4 beta = 52 B: ceil(52 / 16) + 2
  // = 6. Compute 3 passes x ceil(32 / 4) x 1 = 24 > 6. Writes E = 4 channels x 2 rows x 2 = 16 B
  // from 24: ceil(16 / 16) + 2 = 3, retires at 27.
  EXPECT_EQ(b.retired[0], 27u);
  EXPECT_EQ(b.stats.get("vector.busy_cycles"), 24u);
  EXPECT_EQ(b.stats.get("vector.elements"), 16u);
  std::vector<int8_t> want(64, 0);  // rows other than [1, 3) and channels 0, 1, 6, 7 untouched
  for (uint32_t c = 2; c < 6; ++c) {
    int64_t s = 0;
    for (uint32_t p = 0; p < 8; ++p) s += x[c * 8 + p];
    uint64_t sq = 0;
    for (uint32_t p = 0; p < 8; ++p) sq += uint64_t((8 * x[c * 8 + p] - s) * (8 * x[c * 8 + p] - s));
    const uint64_t r = isqrt(sq / 8 + 3277);
    for (uint32_t p = 2; p < 6; ++p) {  // rows 1 and 2, two columns each
      const int32_t v = layernorm_value(8 * x[c * 8 + p] - s, r);
      want[c * 8 + p] = saturate8(requantize(v * g[c - 2] + bias[c - 2], 3, 6));
    }
  }
  EXPECT_EQ(b.outputs[0], want);
}

TEST(VectorUnitTb, CausalSoftmaxExactCyclesAndMask) {
  Bench b("bench", {tile(0, OpCode::kSoftmax, 8, 4, 2, true)}, {0});
  std::mt19937 rng(3);
  std::vector<int8_t> x, g;
  std::vector<int32_t> bias;
  fill_inputs(b.l2, rng, &x, &g, &bias);
  sc_core::sc_start();
  // E = 32; read 32 B ends at 4; compute 3 passes x ceil(32 / 4) x 2 = 48; write 48 + 2 + 2 = 52.
  EXPECT_EQ(b.retired[0], 52u);
  x.resize(32);
  EXPECT_EQ(b.outputs[0], expected(b.descriptors[0].op, x, g, bias));
  // Token 0 (row 0) sees only channel 0 of each group of 4: probability 127 there, 0 elsewhere.
  for (uint32_t k = 0; k < 8; ++k) EXPECT_EQ(b.outputs[0][k * 4 + 0], k % 4 == 0 ? 127 : 0);
}

TEST(VectorUnitTb, RandomTilesUnderRandomBackPressure) {
  std::mt19937 rng(7);
  std::vector<Descriptor> tiles;
  std::vector<uint64_t> gaps;
  const OpCode ops[] = {OpCode::kSoftmax, OpCode::kLayerNorm, OpCode::kGelu};
  for (uint32_t i = 0; i < 18; ++i) {
    const uint32_t c = 4u << (rng() % 3), h = 1 + rng() % 8;  // C in {4, 8, 16}, 1..8 tokens
    const OpCode op = ops[rng() % 3];
    tiles.push_back(tile(i, op, c, h, op == OpCode::kSoftmax ? 1 + (c >= 8) : 1, rng() % 2));
    gaps.push_back(rng() % 40);
  }
  Bench b("bench", tiles, gaps);
  std::vector<int8_t> x, g;
  std::vector<int32_t> bias;
  fill_inputs(b.l2, rng, &x, &g, &bias);
  sc_core::sc_start();
  ASSERT_EQ(b.accepted.size(), tiles.size());
  // Reference: tile k is written `gap` after tile k-1 was accepted, but only once the unit took
  // tile k-1 (one-entry channel); the unit takes it when tile k-1 retired. Read R bytes: ceil(R /
  // 16) + 2; compute passes x ceil(E / 4) x cycles; write E bytes: ceil(E / 16) + 2 after both.
  uint64_t accepted = 0, taken = 0, end = 0;
  int held = 0;
  for (size_t k = 0; k < tiles.size(); ++k) {
    const OpDesc& op = tiles[k].op;
    const uint64_t e = uint64_t(op.input.c) * op.input.h;
    const bool ln = op.op == OpCode::kLayerNorm;
    const uint64_t r = e + (ln ? 5 * op.input.c : 0);
    const uint64_t cyc = op.op == OpCode::kSoftmax ? 2 : ln ? 1 : 2;
    const uint64_t passes = op.op == OpCode::kGelu ? 1 : 3;
    held += taken > accepted + gaps[k];
    accepted = std::max(accepted + gaps[k], taken);
    taken = std::max(accepted, end);
    const uint64_t ready = std::max(taken + (r + 15) / 16 + 2, taken + passes * ((e + 3) / 4) * cyc);
    end = ready + (e + 15) / 16 + 2;
    EXPECT_EQ(b.accepted[k], accepted) << "tile " << k;
    EXPECT_EQ(b.retired[k], end) << "tile " << k;
    std::vector<int8_t> xs(x.begin(), x.begin() + long(e));
    EXPECT_EQ(b.outputs[k], expected(op, xs, g, bias)) << "tile " << k;
  }
  EXPECT_GT(held, 0);  // the back-pressure really held the source back
}

}  // namespace
}  // namespace strider
