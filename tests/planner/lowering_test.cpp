// The lowering of a small network checked against a descriptor list derived by hand.
#include "planner/lower/lowering.h"

#include <gtest/gtest.h>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"

namespace strider {
namespace {

const std::string kDir = STRIDER_SOURCE_DIR;

MoveDesc mv(MemSpace s, uint64_t sa, MemSpace d, uint64_t da, uint32_t bytes) {
  return MoveDesc{s, d, sa, da, 1, bytes, 0, 0};
}

Node node(const std::string& name, OpType op, std::vector<int> inputs, std::vector<int> outputs) {
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return n;
}

// The lowering on the tiny arch with the naive allocator (the addresses the lists below use).
Lowered lower_on_tiny(const Graph& g) {
  LowerOptions opt;
  opt.allocator = "naive";
  return lower(g, load_arch(kDir + "/configs/arch/tiny.yaml"), opt);
}

TEST(Lowering, TwoConvsOnTinyMatchTheHandDerivedList) {
  const ArchConfig arch = load_arch(kDir + "/configs/arch/tiny.yaml");
  const Graph g = load_network(kDir + "/tests/planner/data/two_conv.yaml", 0, 0, 1);
  LowerOptions opt;
  opt.allocator = "naive";
  const Lowered l = lower(g, arch, opt);
  const auto& d = l.list.descriptors;
  EXPECT_EQ(l.list.layers, (std::vector<std::string>{"input:x", "a", "b", "output:b"}));
  ASSERT_EQ(d.size(), 8u);
  // Activations (naive, 16-byte aligned): x 2x4x4 = 32 B at 0 (step 0), a at 32 (steps 0-1),
  // b 32 B at 112 (step 1). a's 4x4 = 16 B planes are 2 words round tiny's 4 x 8 B bank span, so
  // they are skewed to 24 B (PlaneSkew.*): 3 x 24 = 72 -> 80 B.
  // Staging scratch (two slots per layer): a needs 2 x (align(54) 64 + align(12) 16) = 160 B at
  // step 0, placed at the bottom of the free area [112, 65536) -> 112 (slot 0: weights 112,
  // biases 176). b needs 2 x (16 + 16) = 64 B over steps 0-1 (prefetch): free at both is
  // [272, 65536) -> 272 (slot 0: weights 272, biases 288).
  // DRAM: a's 54 weight bytes at 256 MiB, its biases at the next 64 B boundary (+64), b's weights
  // at +128 and biases at +192; graph I/O from 3 GiB.
  const uint64_t w = kDramWeightsBase, io = kDramActivationsBase + (1ull << 30);
  EXPECT_EQ(d[0].move, mv(MemSpace::kDram, io, MemSpace::kL2, 0, 32));  // input x
  EXPECT_EQ(d[1].move, mv(MemSpace::kDram, w, MemSpace::kL2, 112, 54));  // a: 3 x 2 x 3 x 3
  EXPECT_EQ(d[2].move, mv(MemSpace::kDram, w + 64, MemSpace::kL2, 176, 12));  // a: 3 biases
  EXPECT_EQ(d[3].kind, DescKind::kOp);
  EXPECT_EQ(d[3].deps, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(d[3].op.input, (TensorRef{MemSpace::kL2, 0, 2, 4, 4, 4, 16, 1}));
  EXPECT_EQ(d[3].op.output, (TensorRef{MemSpace::kL2, 32, 3, 4, 4, 4, 24, 1}));
  EXPECT_EQ(d[3].op.weights, (TensorRef{MemSpace::kL2, 112, 3, 3, 6, 6, 18, 1}));
  EXPECT_EQ(d[3].op.bias, (TensorRef{MemSpace::kL2, 176, 3, 1, 1, 4, 4, 4}));
  EXPECT_EQ(d[3].op.kernel_h, 3);
  EXPECT_EQ(d[3].op.pad_left, 1);
  EXPECT_EQ(d[3].op.act, PostAct::kRelu);
  EXPECT_EQ(d[3].op.ch_end, 3u);
  EXPECT_EQ(d[3].op.row_end, 4u);
  EXPECT_EQ(d[4].move, mv(MemSpace::kDram, w + 128, MemSpace::kL2, 272, 6));  // b's weights
  EXPECT_EQ(d[4].deps, std::vector<uint32_t>{});  // fresh slot, step 1 < 2: nothing to fence
  EXPECT_EQ(d[5].move, mv(MemSpace::kDram, w + 192, MemSpace::kL2, 288, 8));
  EXPECT_EQ(d[6].deps, (std::vector<uint32_t>{3, 4, 5}));  // producer a, its weights and biases
  EXPECT_EQ(d[6].op.input, (TensorRef{MemSpace::kL2, 32, 3, 4, 4, 4, 24, 1}));
  EXPECT_EQ(d[6].op.output, (TensorRef{MemSpace::kL2, 112, 2, 4, 4, 4, 16, 1}));
  EXPECT_EQ(d[7].move, mv(MemSpace::kL2, 112, MemSpace::kDram, io + 4096, 32));  // output b
  EXPECT_EQ(d[7].deps, std::vector<uint32_t>{6});
  EXPECT_EQ(l.arena_bytes, 144u);  // naive: no reuse
  // The heap grows from the activations' 144 to 272 + 64 = 336: 192 B of staging growth.
  EXPECT_EQ(l.staging_bytes, 192u);
  EXPECT_EQ(l.lower_bound_bytes, 112u);  // x + a at step 0, a + b at step 1
  EXPECT_EQ(l.list.arch_fingerprint, arch.fingerprint());
}

// Window partition of x (2 x 4 x 4) into four 2x2 windows (y: 8 x 2 x 2, channel w x 2 + c):
// one 2-D L2 -> L2 move per (window, channel), 2 rows of 2 bytes, strides 4 and 2.
TEST(Lowering, GatherIsOneMovePerBlock) {
  Graph g;
  Tensor x;
  x.name = "x";
  x.shape = {1, 2, 4, 4};
  Tensor y = x;
  y.name = "y";
  y.shape = {1, 8, 2, 2};
  g.inputs = {g.add_tensor(x)};
  g.outputs = {g.add_tensor(y)};
  Node n = node("partition", OpType::kGather, g.inputs, g.outputs);
  n.gather_shape = y.shape;
  for (int64_t w = 0; w < 4; ++w) {
    for (int64_t c = 0; c < 2; ++c) {
      n.gather.push_back({c * 16 + (w / 2) * 8 + (w % 2) * 2, (w * 2 + c) * 4, 2, 2, 4, 2});
    }
  }
  g.add_node(n);
  validate(g);
  const Lowered l = lower_on_tiny(g);
  const auto& d = l.list.descriptors;
  EXPECT_EQ(l.list.layers, (std::vector<std::string>{"input:x", "partition", "output:y"}));
  ASSERT_EQ(d.size(), 10u);  // input load, 8 block moves, output store
  // x (32 B) at L2 0, y (32 B) at 32 (naive, 16-byte aligned).
  for (uint32_t k = 0; k < 8; ++k) {
    const GatherBlock& b = n.gather[k];
    EXPECT_EQ(d[1 + k].move, (MoveDesc{MemSpace::kL2, MemSpace::kL2, uint64_t(b.src),
                                       32 + uint64_t(b.dst), 2, 2, 4, 2}))
        << "block " << k;
    // Every move waits for the input load (one dependency, at most kGatherSharedDeps = 16: the
    // moves need not wait for the first one), so both DMA channels start at once.
    EXPECT_EQ(d[1 + k].deps, std::vector<uint32_t>{0});
  }
  EXPECT_EQ(d[9].deps, (std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8}));  // store waits for all
  EXPECT_EQ(l.layers[1].copy_bytes, 32u);
}

// The partition above read by a 1x1 conv (8 -> 4 channels): the gather's 8 moves are held back
// until the conv's first tile staged its weights, so the DMA (which runs moves in list order)
// fetches the weights first; the conv's tile waits for its weights, biases and every move.
TEST(Lowering, GatherMovesFollowTheNextLayersWeights) {
  Graph g;
  Tensor x;
  x.name = "x";
  x.shape = {1, 2, 4, 4};
  Tensor y = x, z = x, w;
  y.name = "y";
  y.shape = {1, 8, 2, 2};
  z.name = "z";
  z.shape = {1, 4, 2, 2};
  w.name = "w";
  w.kind = TensorKind::kWeight;
  w.shape = {4, 8, 1, 1};
  w.data.assign(32, 1);
  g.inputs = {g.add_tensor(x)};
  const int yt = g.add_tensor(y), zt = g.add_tensor(z);
  g.outputs = {zt};
  Node n = node("partition", OpType::kGather, g.inputs, {yt});
  n.gather_shape = y.shape;
  for (int64_t k = 0; k < 4; ++k) {
    for (int64_t c = 0; c < 2; ++c) {
      n.gather.push_back({c * 16 + (k / 2) * 8 + (k % 2) * 2, (k * 2 + c) * 4, 2, 2, 4, 2});
    }
  }
  g.add_node(n);
  Node conv = node("conv", OpType::kConv, {yt}, {zt});
  conv.weights = g.add_tensor(w);
  g.add_node(conv);
  validate(g);
  const Lowered l = lower_on_tiny(g);
  const auto& d = l.list.descriptors;
  ASSERT_EQ(d.size(), 13u);  // input, weights, biases, 8 gather moves, conv tile, output store
  EXPECT_EQ(d[1].move.src_space, MemSpace::kDram);  // the conv's 32 weight bytes
  EXPECT_EQ(d[1].move.row_bytes, 32u);
  EXPECT_EQ(d[2].move.row_bytes, 16u);  // its 4 biases
  for (uint32_t k = 0; k < 8; ++k) {
    EXPECT_EQ(d[3 + k].move.src_space, MemSpace::kL2) << "block " << k;
    EXPECT_EQ(d[3 + k].deps, std::vector<uint32_t>{0}) << "block " << k;
  }
  EXPECT_EQ(d[11].kind, DescKind::kOp);
  EXPECT_EQ(d[11].deps, (std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(d[12].deps, std::vector<uint32_t>{11});  // z's store
}

// Both convolutions' outputs are graph outputs: the memory plan keeps a (3 x 4 x 4) one step
// longer, so b's tile (which overwrites no byte of it) does not wait for a's store to DRAM; the
// store joins the fence of step 1 instead.
TEST(Lowering, NextOpDoesNotWaitForAnOutputsStore) {
  const Lowered l =
      lower_on_tiny(load_network(kDir + "/tests/planner/data/two_conv_two_outputs.yaml", 0, 0, 1));
  const auto& d = l.list.descriptors;
  EXPECT_EQ(l.list.layers, (std::vector<std::string>{"input:x", "a", "output:a", "b", "output:b"}));
  ASSERT_EQ(d.size(), 9u);  // input, a's weights, biases, a, a's store, b's weights, biases, b,
                            // b's store
  EXPECT_EQ(d[3].kind, DescKind::kOp);
  EXPECT_EQ(d[4].move.dst_space, MemSpace::kDram);  // a's store
  EXPECT_EQ(d[4].deps, std::vector<uint32_t>{3});
  EXPECT_EQ(d[7].deps, (std::vector<uint32_t>{3, 5, 6}));  // producer a, weights, biases: no 4
  int64_t a_last = -1;
  for (const PlannedBuffer& b : l.plan) {
    if (b.tensor == "a") a_last = b.last;
  }
  EXPECT_EQ(a_last, 1);  // produced at step 0, kept through step 1
}

TEST(Lowering, SpilledTensorsRunInRowBands) {
  ArchConfig arch = load_arch(kDir + "/configs/arch/tiny.yaml");
  const Graph g = load_network(kDir + "/configs/networks/tiny_cnn.yaml", 0, 0, 1);
  arch.l2.size_bytes = 16384;  // the 16 KiB conv1 output cannot stay resident
  LowerOptions opt;
  opt.allocator = "greedy_by_size";
  const Lowered l = lower(g, arch, opt);
  int spilled = 0;
  for (size_t t = 0; t < g.tensors.size(); ++t) spilled += l.tensor_spilled[t] ? 1 : 0;
  EXPECT_GT(spilled, 0);
  EXPECT_GT(l.band_bytes, 0u);
  EXPECT_LE(l.arena_bytes + l.staging_bytes + l.band_bytes, arch.l2.size_bytes);
  // Every op reads and writes L2 only; DRAM is reached by moves alone.
  uint64_t fills = 0, spills = 0;
  for (const Descriptor& d : l.list.descriptors) {
    if (d.kind == DescKind::kOp) {
      EXPECT_EQ(d.op.input.space, MemSpace::kL2);
      EXPECT_EQ(d.op.output.space, MemSpace::kL2);
    }
  }
  for (const LayerReport& r : l.layers) fills += r.fill_bytes, spills += r.spill_bytes;
  EXPECT_GT(fills, 0u);
  EXPECT_GT(spills, 0u);
}

}  // namespace
}  // namespace strider
