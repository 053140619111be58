// Squeeze-excitation Muls fused into the next conv's input load (issue 30; planner/lower/legalise.h
// fuse_input_scales, OpDesc::input_scale, model/l1/load_unit.h): which Muls fold (the zoo's SE
// networks: all of them; mnasnet has none), the fused reference equals the separate Mul's, the
// closed-form tile costs the scale bytes and the load path's depth, and functional runs match the
// reference bit for bit in every mapping, with the Mul's tensor operand spilled, and on
// efficientnet_b0 and mobilenet_v3_large, with the Mul layers gone from the layer list.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/timing/tile_work.h"
#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/quant/calibrator.h"
#include "tests/e2e/child_run.h"
#include "tests/e2e/same_reference.h"

namespace strider {
namespace {

std::string source(const std::string& rel) { return std::string(STRIDER_SOURCE_DIR) + "/" + rel; }

const char* const kTinySe = "configs/networks/tiny_se.yaml";

Graph activations_fused(const std::string& network) {
  Graph g = load_network(source(network), 0, 0, 1);
  fuse_activations(&g);
  return g;
}

int node_index(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].name == name) return int(i);
  }
  return -1;
}

TEST(InputScaleFusion, TheZoosSqueezeExcitationMulsFold) {
  // efficientnet_b0: 16 MBConv blocks, each with an SE; mobilenet_v3_large 8 and v3_small 9 of
  // their blocks; mnasnet1_0 has no SE (no Mul); tiny_se 2. Run after the residual Adds, as the
  // run does (tb/fusion_planner.cpp): a conv taking both keeps its residual operand as inputs[1].
  for (const auto& [net, muls] :
       {std::pair<const char*, int>{"configs/networks/zoo/efficientnet_b0.onnx", 16},
        {"configs/networks/zoo/mobilenet_v3_large.onnx", 8},
        {"configs/networks/zoo/mobilenet_v3_small.onnx", 9},
        {"configs/networks/zoo/mnasnet1_0.onnx", 0},
        {kTinySe, 2}}) {
    Graph g = activations_fused(net);
    fuse_residual_adds(&g);
    const Graph before = g;
    const size_t nodes = g.nodes.size();
    EXPECT_EQ(fuse_input_scales(&g), muls) << net;
    EXPECT_EQ(g.nodes.size(), nodes - size_t(muls)) << net;
    int fused = 0;
    std::set<int> products;
    for (const Node& n : g.nodes) {
      EXPECT_NE(n.op, OpType::kMul) << net << ": " << n.name << " left unfused";
      if (!n.input_scale.fused) continue;
      ++fused;
      EXPECT_EQ(n.op, OpType::kConv) << net;
      ASSERT_EQ(n.inputs.size(), n.residual.fused ? 3u : 2u) << net;
      // inputs[0] is X (the Mul's product's shape), the last input the [C,1,1] scale.
      const TensorShape& m = g.tensors[size_t(n.input_scale.product)].shape;
      const TensorShape& s = g.tensors[size_t(n.scale_input())].shape;
      EXPECT_EQ(g.tensors[size_t(n.inputs[0])].shape, m) << net;
      EXPECT_EQ(s.c, m.c) << net;
      EXPECT_EQ(s.h * s.w, 1) << net;
      products.insert(n.input_scale.product);
    }
    EXPECT_EQ(fused, muls) << net;
    // No node reads or writes a Mul's product any more: it gets no memory.
    for (const Node& n : g.nodes) {
      for (int t : n.inputs) EXPECT_EQ(products.count(t), 0u) << net << ": " << n.name;
      for (int t : n.outputs) EXPECT_EQ(products.count(t), 0u) << net << ": " << n.name;
    }
    EXPECT_EQ(fuse_input_scales(&g), 0) << net;  // nothing left
  }
}

TEST(InputScaleFusion, EitherOperandOrderKeptAndInexactMulsStay) {
  const Graph g = activations_fused(kTinySe);
  const int scale = node_index(g, "scale"), project = node_index(g, "project");
  ASSERT_GE(scale, 0);
  ASSERT_GE(project, 0);
  const int x = g.nodes[size_t(scale)].inputs[0], s = g.nodes[size_t(scale)].inputs[1];
  // Mul(s, X): the importers put the broadcast operand second, but the fold tells the operands
  // by their shapes, so the scale-first order folds the same.
  Graph swapped = g;
  std::swap(swapped.nodes[size_t(scale)].inputs[0], swapped.nodes[size_t(scale)].inputs[1]);
  EXPECT_EQ(fuse_input_scales(&swapped), 2);
  const Node& conv = swapped.nodes[size_t(node_index(swapped, "project"))];
  ASSERT_TRUE(conv.input_scale.fused);
  EXPECT_EQ(conv.inputs, (std::vector<int>{x, s}));
  Graph kept = g;  // named in keep (prefixed, as in a run of several networks)
  EXPECT_EQ(fuse_input_scales(&kept, {"net/scale"}, "net/"), 1);
  EXPECT_GE(node_index(kept, "scale"), 0);
  Graph lookup = g;  // a lookup activation of the Mul's own: the conv's table is its own
  lookup.nodes[size_t(scale)].activation = Activation::kSigmoid;
  EXPECT_EQ(fuse_input_scales(&lookup), 1);
  EXPECT_GE(node_index(lookup, "scale"), 0);
  Graph output = g;  // the product a graph output
  output.outputs.push_back(g.nodes[size_t(scale)].outputs[0]);
  EXPECT_EQ(fuse_input_scales(&output), 1);
  Graph two = g;  // a second reader of the product (squeeze2): not the conv's alone
  two.nodes[size_t(node_index(two, "squeeze2"))].inputs[0] = g.nodes[size_t(scale)].outputs[0];
  EXPECT_EQ(fuse_input_scales(&two), 1);
  EXPECT_GE(node_index(two, "scale"), 0);
}

// The fused conv's reference (the Mul's product of X and s, then the conv) is the separate
// Mul's: every tensor both graphs keep is equal, on calibrated scales (the sigmoid's scale
// unsigned, the ReLU outputs too).
TEST(InputScaleFusion, FusedReferenceEqualsTheSeparateMul) {
  for (const char* net : {kTinySe, "configs/networks/zoo/mobilenet_v3_small.onnx"}) {
    Graph plain = activations_fused(net);
    CalibrationOptions co{1, 1};
    co.unsigned_activations = true;
    calibrate(&plain, co);
    fuse_residual_adds(&plain);
    Graph fused = plain;
    ASSERT_GT(fuse_input_scales(&fused), 0) << net;
    expect_same_reference(plain, fused, net);
  }
}

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, scaled_tiles = 0, mul_layers = 0;
  uint64_t banded_scaled_tiles = 0;  // fused tiles reading X through a band buffer
  uint64_t project_cycles = 0, head_cycles = 0, project_load_bytes = 0, head_load_bytes = 0;
  uint64_t project_pipeline = 0, project_first_fill = 0, project_tile_reads = 0;
  uint64_t project_scale_bytes = 0, head_scale_bytes = 0;
  int status = -1;
  char detail[160] = {};
};

// The span of layer `name`'s operation tiles: first start to last end (0 when it has none), as
// layers.csv gives a compute layer's cycles.
uint64_t layer_cycles(const RunResult& r, const std::string& name) {
  uint64_t start = UINT64_MAX, end = 0;
  for (const Descriptor& d : r.lowered.list.descriptors) {
    if (d.kind != DescKind::kOp || r.lowered.list.layers[d.layer] != name) continue;
    start = std::min(start, r.record.descriptors[d.id].start);
    end = std::max(end, r.record.descriptors[d.id].end);
  }
  return end > start ? end - start : 0;
}

Figures run(const std::string& run_file, const std::vector<std::string>& sets) {
  return simulate_in_child<Figures>(source(run_file), sets, [](const RunResult& r, Figures& f) {
    f.cycles = r.cycles;
    f.checked = r.checked_tensors;
    f.mismatches = r.mismatches;
    for (const Node& n : r.graph.nodes) f.mul_layers += n.op == OpType::kMul;
    for (const std::string& l : r.lowered.list.layers) {
      f.mul_layers += l == "scale" || l == "scale2";
    }
    f.project_cycles = layer_cycles(r, "project");
    f.head_cycles = layer_cycles(r, "head");
    for (const Descriptor& d : r.lowered.list.descriptors) {
      if (d.kind != DescKind::kOp) continue;
      const std::string& layer = r.lowered.list.layers[d.layer];
      const uint64_t bytes = r.record.descriptors[d.id].l2_read_bytes;
      if (layer == "project") f.project_load_bytes += bytes;
      if (layer == "head") f.head_load_bytes += bytes;
      if (!d.op.input_scale.present()) continue;
      ++f.scaled_tiles;
      f.banded_scaled_tiles += d.op.input.rows != 0 || d.op.input.channels != 0;
      const TileWork w = compute_tile_work(d.op, r.config.arch.l1, r.config.arch.neurons,
                                           r.config.arch.l2.port_bytes_per_cycle);
      if (layer == "project") {
        f.project_pipeline = w.pipeline_cycles;
        f.project_first_fill = w.first_fill_write_cycles;
        f.project_tile_reads = w.l2_read_bytes;
        f.project_scale_bytes += w.input_scale_bytes;
      }
      if (layer == "head") f.head_scale_bytes += w.input_scale_bytes;
    }
  });
}

std::vector<std::string> tiny_se(std::vector<std::string> sets) {
  sets.insert(sets.begin(), {"networks[0].path=" + source(kTinySe), "sim.trace=false"});
  return sets;
}

// tiny_se functional in the positions, channels, im2col (head, a 3x3 conv), auto and search
// mappings: bit-exact against the
// reference (whose fused conv is the separate Mul's, FusedReferenceEqualsTheSeparateMul), both
// Muls fused (no Mul node, no scale / scale2 layer), their convs' tiles carrying the scale; the
// unfused run (arch.lowering.fuse false) checks the 2 Mul and the Add tensors on top.
TEST(InputScaleFusion, TinySeIsBitExactInEveryMapping) {
  for (const char* mapping : {"positions", "channels", "im2col", "auto", "search"}) {
    const std::string m = std::string("arch.lowering.mapping=") + mapping;
    const Figures fused = run("configs/runs/default.yaml", tiny_se({m, "sim.functional=true"}));
    const Figures plain = run("configs/runs/default.yaml",
                              tiny_se({m, "sim.functional=true", "arch.lowering.fuse=false"}));
    ASSERT_EQ(fused.status, 0) << mapping << ": " << fused.detail;
    ASSERT_EQ(plain.status, 0) << mapping << ": " << plain.detail;
    EXPECT_EQ(fused.mismatches, 0u) << mapping << ": " << fused.detail;
    EXPECT_EQ(plain.mismatches, 0u) << mapping << ": " << plain.detail;
    EXPECT_EQ(fused.checked, 11u) << mapping;  // 14 layers less scale, scale2 and add
    EXPECT_EQ(plain.checked, 14u) << mapping;
    EXPECT_EQ(fused.mul_layers, 0u) << mapping;
    EXPECT_EQ(plain.mul_layers, 4u) << mapping;    // 2 Mul nodes, 2 Mul layers
    EXPECT_EQ(fused.scaled_tiles, 2u) << mapping;  // project's and head's one tile each
    EXPECT_EQ(plain.scaled_tiles, 0u) << mapping;
    EXPECT_LT(fused.cycles, plain.cycles) << mapping;
  }
}

// A 32 KiB L2 spills dw's 32x24x24 output X (18,432 bytes): project reads it through in-band
// buffers (row bands), the scale applied to each band's rows as they load; still bit-exact, in
// the positions, channels and im2col mappings. Positions and im2col: 10 tensors checked, expand,
// fused with its depthwise reader at this L2 size, passing through band buffers only (its
// reader's output is checked); channels: all 11 (that plan keeps expand's output whole).
TEST(InputScaleFusion, SpilledInputIsBitExact) {
  for (const char* mapping : {"positions", "channels", "im2col"}) {
    const Figures f = run("configs/runs/default.yaml",
                          tiny_se({std::string("arch.lowering.mapping=") + mapping,
                                   "arch.l2.size_bytes=32768", "sim.functional=true"}));
    ASSERT_EQ(f.status, 0) << mapping << ": " << f.detail;
    EXPECT_EQ(f.mismatches, 0u) << mapping << ": " << f.detail;
    EXPECT_EQ(f.checked, std::string(mapping) == "channels" ? 11u : 10u) << mapping;
    EXPECT_EQ(f.mul_layers, 0u) << mapping;
    EXPECT_GT(f.banded_scaled_tiles, 0u) << mapping;
    EXPECT_GT(f.scaled_tiles, 2u) << mapping;  // project in row bands
  }
}

// A batch of 3: each image's tiles read that image's X and its own scales (the lowering gives
// every image's tile its tensors, the scale included); bit-exact in both mappings and with the
// search, whose loop orders share weight blocks across images.
TEST(InputScaleFusion, BatchIsBitExact) {
  for (const char* mapping : {"positions", "channels", "search"}) {
    const Figures f =
        run("configs/runs/default.yaml", tiny_se({std::string("arch.lowering.mapping=") + mapping,
                                                  "networks[0].batch=3", "sim.functional=true"}));
    ASSERT_EQ(f.status, 0) << mapping << ": " << f.detail;
    EXPECT_EQ(f.mismatches, 0u) << mapping << ": " << f.detail;
    EXPECT_EQ(f.checked, 11u) << mapping;
    EXPECT_EQ(f.mul_layers, 0u) << mapping;
    EXPECT_GE(f.scaled_tiles, 6u) << mapping;  // project's and head's tiles of each image
  }
}

// Exact cycles, positions mapping, timing only. project: 24 x 24 = 576 positions = 9 runs of 64
// neurons, 16 output channels in 2 groups of 8 accumulators, each group one fill of 32 segments
// (32 input channels of a 1x1 kernel): 18 fills, each 32 shifted writes and 8 x ceil(32 / 4) = 64
// compute cycles; through the two fill buffers 32 + 18 x 64 = 1,184 pipeline cycles, and the
// load path's depth l1.input_scale_cycles 2 on top: 1,186, its first fill written after 32 + 2.
// The tile reads its input (18 fills x 32 segments x one 64-byte block: 36,864 bytes), its
// 16 x 32 = 512 kernel bytes and dw's 32 scale bytes once: 37,408 (head: 16 scale bytes). Layer
// spans: project 1,197 and head 2,779 cycles, each exactly input_scale_cycles more than with
// depth 0 (1,195 and 2,777, what the unfused convs reading M take), the Mul layers (scale 301
// and scale2 157 cycles unfused) gone, and the squeezes' global pools too (each in its dw's store
// path, tests/e2e/gap_fusion_test.cpp; 4,620 and 2,316 cycles as layers of their own in the
// positions mapping): expand 965..2,144, dw ..3,120, reduce, excite, project 3,194..4,391, dw2
// ..4,887, reduce2, excite2, head 4,933..7,712, the output's store ..8,117 cycles in all. (dw and
// dw2, 3x3 pad 1 on 24 x 24, walk 23 x 25 + 24 = 599 stream positions with shared pad columns,
// 10 runs as the first stream's 23 x 26 + 24 = 622, the last run 23 positions instead of 46:
// 975 and 495 cycles, 5 and 3 fewer than with l1.shared_pad false.)
TEST(InputScaleFusion, FusedRunExactCycles) {
  const Figures f = run("configs/runs/default.yaml", tiny_se({"arch.lowering.mapping=positions"}));
  const Figures flat =
      run("configs/runs/default.yaml",
          tiny_se({"arch.lowering.mapping=positions", "arch.l1.input_scale_cycles=0"}));
  const Figures deep =
      run("configs/runs/default.yaml",
          tiny_se({"arch.lowering.mapping=positions", "arch.l1.input_scale_cycles=5"}));
  const Figures plain =
      run("configs/runs/default.yaml",
          tiny_se({"arch.lowering.mapping=positions", "arch.lowering.fuse=false"}));
  for (const Figures* x : {&f, &flat, &deep, &plain}) ASSERT_EQ(x->status, 0) << x->detail;
  EXPECT_EQ(f.project_pipeline, 32u + 18u * 64u + 2u);
  EXPECT_EQ(f.project_first_fill, 32u + 2u);
  EXPECT_EQ(f.project_tile_reads, 18u * 32u * 64u + 512u + 32u);
  EXPECT_EQ(f.project_scale_bytes, 32u);
  EXPECT_EQ(f.head_scale_bytes, 16u);
  // The load port carries the scale bytes: the fused tile reads X as the unfused one reads M,
  // plus the scales (project also reads its fused residual Add's 16 x 576 operand bytes, which
  // the unfused run's Add layer reads).
  EXPECT_EQ(f.project_load_bytes, plain.project_load_bytes + 32u + 16u * 576u);
  EXPECT_EQ(f.head_load_bytes, plain.head_load_bytes + 16u);
  EXPECT_EQ(flat.project_cycles, 1195u);
  EXPECT_EQ(plain.project_cycles, 1195u);
  EXPECT_EQ(flat.head_cycles, 2777u);
  EXPECT_EQ(plain.head_cycles, 2777u);
  EXPECT_EQ(f.project_cycles, 1195u + 2u);
  EXPECT_EQ(f.head_cycles, 2777u + 2u);
  EXPECT_EQ(deep.project_cycles, 1195u + 5u);
  EXPECT_EQ(deep.head_cycles, 2777u + 5u);
  EXPECT_EQ(f.cycles, 8117u);
}

// The zoo's SE networks functional on the seed with the mapping search: bit-exact, every Mul
// fused (none left as a node or a layer).
TEST(InputScaleFusion, ZooSeNetworksAreBitExact) {
  for (const char* net : {"efficientnet_b0", "mobilenet_v3_large"}) {
    const Figures f =
        run("configs/runs/mobilenet_v2.yaml",
            {std::string("networks[0].path=") + source("configs/networks/zoo/") + net + ".onnx",
             "arch.lowering.mapping=search", "sim.trace=false", "sim.functional=true"});
    ASSERT_EQ(f.status, 0) << net << ": " << f.detail;
    EXPECT_EQ(f.mismatches, 0u) << net << ": " << f.detail;
    EXPECT_GT(f.checked, 0u) << net;
    EXPECT_EQ(f.mul_layers, 0u) << net;
    EXPECT_GT(f.scaled_tiles, 0u) << net;
  }
}

}  // namespace
}  // namespace strider
