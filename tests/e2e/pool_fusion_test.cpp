// Max-pools fused into their conv's store path (issue 30; planner/lower/legalise.h
// fuse_max_pools, OpDesc::pool): which pools fold, the fused reference equals the separate
// pool's, and a functional run of the default network matches the reference bit for bit with
// exact cycles, against the same run with pool fusion off.
#include <gtest/gtest.h>

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

Graph activations_fused(const std::string& network) {
  Graph g = load_network(source(network), 0, 0, 1);
  fuse_activations(&g);
  return g;
}

TEST(PoolFusion, MaxPoolsAfterAConvFold) {
  // tiny_cnn: pool1 after conv1; resnet50: the stem's 3x3 / 2 pool (pads 1) after conv1;
  // googlenet: the two stem pools (after conv1 and conv3; ceil mode), the inception blocks' 3x3 / 1
  // pools read a concat and the stage pools follow a concat.
  for (const auto& [net, pools] : {std::pair<const char*, int>{"configs/networks/tiny_cnn.yaml", 1},
                                   {"configs/networks/resnet50.onnx", 1},
                                   {"configs/networks/googlenet.onnx", 2}}) {
    Graph g = activations_fused(net);
    const size_t nodes = g.nodes.size();
    EXPECT_EQ(fuse_max_pools(&g), pools) << net;
    EXPECT_EQ(g.nodes.size(), nodes - size_t(pools)) << net;
    int fused = 0;
    for (const Node& n : g.nodes) {
      if (!n.pool.fused) continue;
      ++fused;
      EXPECT_EQ(n.op, OpType::kConv) << net;
      // The conv's own result keeps its shape; the node writes the pooled tensor.
      const TensorShape& y = g.tensors[size_t(n.result())].shape;
      const TensorShape& p = g.tensors[size_t(n.outputs[0])].shape;
      EXPECT_EQ(y.c, p.c) << net;
      EXPECT_LT(p.h, y.h) << net;
    }
    EXPECT_EQ(fused, pools) << net;
    EXPECT_EQ(fuse_max_pools(&g), 0) << net;  // nothing left
  }
}

TEST(PoolFusion, KeptAndInexactPoolsStay) {
  const Graph g = activations_fused("configs/networks/tiny_cnn.yaml");
  Graph kept = g;
  EXPECT_EQ(fuse_max_pools(&kept, {"net/pool1"}, "net/"), 0);
  EXPECT_EQ(kept.nodes.size(), g.nodes.size());
  const auto pool1 = [](Graph& h) -> Node& {
    for (Node& n : h.nodes) {
      if (n.name == "pool1") return n;
    }
    throw std::runtime_error("no pool1");
  };
  Graph relu = g;
  pool1(relu).activation = Activation::kRelu;  // the pool's own activation: not a plain max
  EXPECT_EQ(fuse_max_pools(&relu), 0);
  Graph sparse = g;
  pool1(sparse).stride_h = 3;  // rows no window reads
  EXPECT_EQ(fuse_max_pools(&sparse), 0);
  Graph padded = g;
  pool1(padded).pad_top = 2;  // a window wholly in the padding
  EXPECT_EQ(fuse_max_pools(&padded), 0);
  Graph residual = g;
  EXPECT_EQ(fuse_residual_adds(&residual), 1);  // conv2b takes add1, conv1 still takes pool1
  EXPECT_EQ(fuse_max_pools(&residual), 1);
}

// The fused conv's reference (the conv's result, then each window's maximum) is the separate
// pool's: every tensor both graphs keep is equal, on calibrated scales (resnet50's stem reads
// uint8 after its ReLU and pads its pool).
TEST(PoolFusion, FusedReferenceEqualsTheSeparatePool) {
  for (const char* net : {"configs/networks/tiny_cnn.yaml", "configs/networks/resnet50.onnx"}) {
    Graph plain = activations_fused(net);
    CalibrationOptions co{1, 1};
    co.unsigned_activations = true;
    calibrate(&plain, co);
    Graph fused = plain;
    ASSERT_EQ(fuse_max_pools(&fused), 1) << net;
    expect_same_reference(plain, fused, net);
  }
}

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, pooled_tiles = 0, store_bytes = 0;
  uint64_t compares = 0;
  int status = -1;
  char detail[160] = {};
};

Figures run(const std::vector<std::string>& sets) {
  return simulate_in_child<Figures>(
      source("configs/runs/default.yaml"), sets, [](const RunResult& r, Figures& f) {
        f.cycles = r.cycles;
        f.checked = r.checked_tensors;
        f.mismatches = r.mismatches;
        f.store_bytes = r.stats.get("store.bytes");
        f.compares = r.stats.get("store.pool_compares");
        for (const Descriptor& d : r.lowered.list.descriptors) {
          f.pooled_tiles += d.kind == DescKind::kOp && d.op.pool.present();
        }
      });
}

TEST(PoolFusion, DefaultRunIsBitExactAndSavesThePoolLayer) {
  const Figures fused = run({"sim.functional=true", "sim.trace=false"});
  // No row buffer: the lowering refuses the fused conv and the run re-plans pool1 unfused.
  const Figures plain =
      run({"sim.functional=true", "sim.trace=false", "arch.l1.pool_row_buffer_bytes=0"});
  ASSERT_EQ(fused.status, 0) << fused.detail;
  ASSERT_EQ(plain.status, 0) << plain.detail;
  EXPECT_EQ(fused.mismatches, 0u) << fused.detail;
  EXPECT_EQ(plain.mismatches, 0u) << plain.detail;
  EXPECT_EQ(fused.checked, 7u);  // conv1 (+ pool1), conv2a, conv2b (+ add1), conv3, dw3, gap, fc
  EXPECT_EQ(plain.checked, 8u);
  EXPECT_EQ(fused.pooled_tiles, 1u);
  EXPECT_EQ(plain.pooled_tiles, 0u);
  // conv1 stores 16 x 16 x 16 = 4,096 pooled bytes instead of 16 x 32 x 32 = 16,384, and pool1
  // (4 tiles, 4,096 bytes) is gone: 12,288 + 4,096 fewer stored bytes.
  EXPECT_EQ(plain.store_bytes - fused.store_bytes, 12288u + 4096u);
  // Every 2x2 / 2 window lies inside the 32x32 result: 3 compares per pooled element.
  EXPECT_EQ(fused.compares, 3u * 4096u);
  // Unfused: conv1 1,821 cycles (534-2,355: its 32 output rows walked back to back) then pool1
  // 472 (4 strided-stream tiles on the neurons, ending at 2,828). Fused: conv1 1,822 (its last
  // window's compare one cycle after its last result) from 537, pool1 gone: conv2a starts at
  // 2,360 instead of 2,829, 469 cycles earlier, and every later layer runs as before: 6,751 -
  // 469 = 6,282 cycles.
  EXPECT_EQ(plain.cycles, 6751u);
  EXPECT_EQ(fused.cycles, 6282u);
}

}  // namespace
}  // namespace strider
