// Global average pools fused into their conv's store path (issue 30; planner/lower/legalise.h
// fuse_global_pools, OpDesc::gap): which pools fold (a squeeze-excitation's, whose conv result the
// Mul also reads, and a head's, whose result is then never stored), the fused reference equals
// the separate pool's, and functional runs match the reference bit for bit with exact cycles,
// against the same runs with fusion off: whole-height tiles, row bands of a resident conv, and
// row bands of a conv whose input spills (a small L2); efficientnet_b0 with all 17 pools fused.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/quant/calibrator.h"
#include "tests/e2e/child_run.h"
#include "tests/e2e/same_reference.h"

namespace strider {
namespace {

std::string source(const std::string& rel) { return std::string(STRIDER_SOURCE_DIR) + "/" + rel; }

const char* const kNet = "tests/e2e/data/gap_se.yaml";
const char* const kEfficientNet = "configs/networks/zoo/efficientnet_b0.onnx";

Graph activations_fused(const std::string& network) {
  Graph g = load_network(source(network), 0, 0, 1);
  fuse_activations(&g);
  return g;
}

TEST(GapFusion, GlobalPoolsAfterAConvFold) {
  // gap_se: squeeze (dw's result stays: scale reads it) and pool (head's only reader);
  // efficientnet_b0: 16 squeeze-excitations (each after its depthwise conv, whose result the
  // block's Mul reads) and the pool after the head conv; resnet50: the pool after the last
  // block's conv3 with its residual Add fused; tiny_cnn: its pool reads a concat, never a conv.
  struct Case {
    const char* net;
    int stored, not_stored, left;
  };
  for (const Case& k : {Case{kNet, 1, 1, 0}, Case{kEfficientNet, 16, 1, 0},
                        Case{"configs/networks/resnet50.onnx", 0, 1, 0},
                        Case{"configs/networks/tiny_cnn.yaml", 0, 0, 1}}) {
    Graph g = activations_fused(k.net);
    if (std::string(k.net).find("resnet50") != std::string::npos) {
      ASSERT_EQ(fuse_residual_adds(&g), 16) << k.net;
    }
    const size_t nodes = g.nodes.size();
    const int pools = k.stored + k.not_stored;
    EXPECT_EQ(fuse_global_pools(&g), pools) << k.net;
    EXPECT_EQ(g.nodes.size(), nodes - size_t(pools)) << k.net;
    int stored = 0, not_stored = 0, left = 0;
    for (const Node& n : g.nodes) {
      left += n.op == OpType::kGlobalAvgPool;
      if (!n.gap.fused) continue;
      EXPECT_EQ(n.op, OpType::kConv) << k.net;
      const TensorShape& x = g.tensors[size_t(n.result())].shape;
      const TensorShape& p = g.tensors[size_t(n.gap.output)].shape;
      EXPECT_EQ(p.c, x.c) << k.net;
      EXPECT_EQ(p.h * p.w, 1) << k.net;
      if (n.gap.conv_output >= 0) {  // the pool's output only
        ++not_stored;
        EXPECT_EQ(n.outputs, std::vector<int>{n.gap.output}) << k.net;
      } else {  // the conv's result, then the pool's output
        ++stored;
        EXPECT_EQ(n.outputs.size(), 2u) << k.net;
        EXPECT_EQ(n.outputs[1], n.gap.output) << k.net;
      }
    }
    EXPECT_EQ(stored, k.stored) << k.net;
    EXPECT_EQ(not_stored, k.not_stored) << k.net;
    EXPECT_EQ(left, k.left) << k.net;
    EXPECT_EQ(fuse_global_pools(&g), 0) << k.net;  // nothing left
  }
}

TEST(GapFusion, KeptAndUnfusablePoolsStay) {
  const Graph g = activations_fused(kNet);
  Graph kept = g;
  EXPECT_EQ(fuse_global_pools(&kept, {"net/squeeze"}, "net/"), 1);  // pool only
  EXPECT_EQ(kept.nodes.size(), g.nodes.size() - 1);
  const auto node = [](Graph& h, const char* name) -> Node& {
    for (Node& n : h.nodes) {
      if (n.name == name) return n;
    }
    throw std::runtime_error(std::string("no ") + name);
  };
  Graph lookup = g;  // a descriptor carries one lookup table: the pool's own sigmoid stays apart
  node(lookup, "squeeze").activation = Activation::kSigmoid;
  node(lookup, "pool").activation = Activation::kHardSigmoid;
  EXPECT_EQ(fuse_global_pools(&lookup), 0);
  Graph relu = g;  // a rectifier or clip of the pool's own folds with it
  node(relu, "pool").activation = Activation::kRelu;
  EXPECT_EQ(fuse_global_pools(&relu), 2);
  Graph batch = g;  // results of two images: unfused
  for (const char* conv : {"dw", "head"}) {
    batch.tensors[size_t(node(batch, conv).outputs[0])].shape.n = 2;
  }
  EXPECT_EQ(fuse_global_pools(&batch), 0);
  Graph pooled = g;  // a conv whose max-pool is fused already keeps its global pool apart
  node(pooled, "head").pool.fused = true;
  EXPECT_EQ(fuse_global_pools(&pooled), 1);
}

// The fused conv's reference (the conv's result, then each channel's sum requantised) is the
// separate pool's: every tensor both graphs keep is equal, on calibrated scales with uint8
// activations (dw's ReLU6 and head's ReLU results are unsigned).
TEST(GapFusion, FusedReferenceEqualsTheSeparatePool) {
  for (const char* net : {kNet, kEfficientNet}) {
    Graph plain = activations_fused(net);
    CalibrationOptions co{1, 1};
    co.unsigned_activations = true;
    calibrate(&plain, co);
    Graph fused = plain;
    ASSERT_GT(fuse_global_pools(&fused), 0) << net;
    expect_same_reference(plain, fused, net);
  }
}

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, gap_tiles = 0, gap_layers = 0, banded = 0;
  uint64_t partial_bytes = 0, spill_bytes = 0;
  uint64_t dw_start = 0, dw_end = 0, head_start = 0, head_end = 0;
  int status = -1;
  char detail[160] = {};
};

Figures run(const std::string& net, std::vector<std::string> sets) {
  sets.insert(sets.end(), {"networks[0].path=" + net, "sim.functional=true", "sim.trace=false"});
  return simulate_in_child<Figures>(
      source("configs/runs/default.yaml"), sets, [](const RunResult& r, Figures& f) {
        f.cycles = r.cycles;
        f.checked = r.checked_tensors;
        f.mismatches = r.mismatches;
        f.partial_bytes = r.stats.get("store.gap_partial_bytes");
        f.gap_tiles = r.stats.get("store.gap_tiles");
        for (const LayerReport& l : r.lowered.layers) {
          f.gap_layers += l.op == "globalavgpool";
          f.spill_bytes += l.spill_bytes;
        }
        for (const Descriptor& d : r.lowered.list.descriptors) {
          if (d.kind != DescKind::kOp) continue;  // the layers' tiles: first start, last retire
          f.banded += d.op.gap.present() && !(d.op.gap.first() && d.op.gap.last());
          const DescriptorRecord& rec = r.record.descriptors[d.id];
          const std::string& layer = r.lowered.list.layers[d.layer];
          const auto first = [&](uint64_t& v) { v = v ? std::min(v, rec.start) : rec.start; };
          if (layer == "dw") first(f.dw_start), f.dw_end = std::max(f.dw_end, rec.end);
          if (layer == "head") first(f.head_start), f.head_end = std::max(f.head_end, rec.end);
        }
      });
}

// gap_se run fused and with arch.lowering.fuse false (each with `sets`): both simulated and
// bit-exact, no pool layer left fused. Fused, its layers are dw (+ squeeze's output), fc1, fc2,
// head (its output: pool's; the squeeze-excitation's scale Mul applied by its input load,
// tests/e2e/input_scale_fusion_test.cpp) and fc; unfused, dw, squeeze, fc1, fc2, scale, head,
// pool and fc.
void run_both(const std::vector<std::string>& sets, Figures* fused, Figures* plain) {
  const std::string net = source(kNet);
  std::vector<std::string> unfused = sets;
  unfused.push_back("arch.lowering.fuse=false");
  *fused = run(net, sets), *plain = run(net, unfused);
  ASSERT_EQ(fused->status, 0) << fused->detail;
  ASSERT_EQ(plain->status, 0) << plain->detail;
  EXPECT_EQ(fused->mismatches, 0u) << fused->detail;
  EXPECT_EQ(plain->mismatches, 0u) << plain->detail;
  EXPECT_EQ(fused->checked, 6u);
  EXPECT_EQ(plain->checked, 8u);
  EXPECT_EQ(fused->gap_layers, 0u);
}

TEST(GapFusion, SmallNetworkIsBitExactAndDropsThePoolLayers) {
  Figures fused, plain;
  ASSERT_NO_FATAL_FAILURE(run_both({}, &fused, &plain));
  EXPECT_EQ(plain.gap_layers, 2u);
  // dw's 4 bands of 4 rows (one channel block) and head's one tile; the two middle bands and the
  // last read 16 x 4 bytes of partial sums, the first and the middle ones write them: 6 x 64 =
  // 384.
  EXPECT_EQ(fused.gap_tiles, 5u);
  EXPECT_EQ(fused.banded, 4u);
  EXPECT_EQ(fused.partial_bytes, 384u);
  // dw ends at 2,219 fused, one cycle after the unfused 2,218 (the last band's requantisation,
  // one cycle after its last result); unfused, squeeze then takes 2,219..2,367 and fc1 waits
  // for its weights until 2,425: fc2's prefetch is listed first but is background, one move at a
  // time on one channel (2,219..2,319, 2,319..2,430), so fc1's two weight moves take channel 0 at
  // 2,220 and 2,309 (ending 2,309 and 2,425; in list order they waited behind the prefetch, to
  // 2,435). fc1 runs 2,426..2,445, fc2 2,446..2,472 and scale 2,473..2,550; fused, fc1 runs
  // 2,220..2,239 and fc2 2,315..2,341 (its weights), and head starts at 2,378 instead of 2,603
  // (225 earlier), taking 542 cycles instead of 539 (the pool's requantisation, 1, and the
  // input scale's pipeline, l1.input_scale_cycles 2), ending at 2,920 instead of 3,142;
  // unfused, pool then runs 3,143..3,421. fc (25 cycles) and the output's store (49) follow:
  // 2,921..2,946 and 2,947..2,995 fused, 3,422..3,497 unfused.
  EXPECT_EQ(plain.dw_end, 2218u);
  EXPECT_EQ(fused.dw_end, 2219u);
  EXPECT_EQ(plain.head_start, 2603u);
  EXPECT_EQ(fused.head_start, 2378u);
  EXPECT_EQ(plain.head_end - plain.head_start, 539u);
  EXPECT_EQ(fused.head_end - fused.head_start, 542u);
  EXPECT_EQ(plain.cycles, 3497u);
  EXPECT_EQ(fused.cycles, 2995u);
}

TEST(GapFusion, SpilledConvInRowBandsIsBitExact) {
  // A 12 KiB L2: x (16 KiB) stays in DRAM and dw reads it through the row-band buffers, its
  // pool adding each band's sums into the partial sums.
  Figures fused, plain;
  ASSERT_NO_FATAL_FAILURE(run_both({"arch.l2.size_bytes=12288"}, &fused, &plain));
  EXPECT_EQ(fused.banded, 32u);  // dw in 32 band tiles (its input and output bands)
  // Spans of the layers' tiles (first start to last retire). Unfused, dw's tiles take 5,214
  // cycles and spill its 4 KiB result, squeeze fills it back, head runs in 12 bands spilling its
  // 8 KiB result (tiles 1,425 cycles) and pool fills that back: 10,256 cycles (layers.csv: dw
  // 5,267, squeeze 609, head 1,534, pool 1,306, with their moves). Fused, squeeze, scale and pool
  // are gone: dw's tiles take 5,313 (99 more: its bands' partial sums ride the store port, 64
  // bytes read and written per middle band, each last band's requantisation takes a cycle, and
  // with the scale's product gone dw's result is kept for head — its band traffic meets 37,888
  // DRAM bytes against 27,648 with the Mul a layer of its own, 4,792 stall cycles against 3,470),
  // and head, reading that result through its input scale and whose own result is never stored,
  // runs in 2 tiles (544: 542 + the input scale's 2-cycle pipeline): 6,237 cycles.
  EXPECT_EQ(plain.dw_end - plain.dw_start, 5214u);
  EXPECT_EQ(fused.dw_end - fused.dw_start, 5313u);
  EXPECT_EQ(plain.head_end - plain.head_start, 1425u);
  EXPECT_EQ(fused.head_end - fused.head_start, 544u);
  EXPECT_EQ(fused.cycles, 6237u);
  EXPECT_EQ(plain.cycles, 10256u);
}

TEST(GapFusion, EfficientNetIsBitExactWithEveryPoolFused) {
  const Figures f = run(source(kEfficientNet), {"arch.lowering.mapping=search"});
  ASSERT_EQ(f.status, 0) << f.detail;
  EXPECT_EQ(f.mismatches, 0u) << f.detail;
  EXPECT_EQ(f.gap_layers, 0u);  // 17 pools before, each in its conv now
}

}  // namespace
}  // namespace strider
