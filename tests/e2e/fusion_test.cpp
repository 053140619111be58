// Residual Adds fused into their conv's store path (issue 30; planner/lower/legalise.h
// fuse_residual_adds, OpDesc::post, model/l1/store_unit.h): the zoo's residual Adds fuse (resnet50
// 16, mobilenet_v2 10); the fused graph's reference gives byte for byte the unfused graph's values
// on calibrated scales; functional runs of resnet50 and mobilenet_v2 fused match the reference
// with 0 mismatches and take fewer cycles than with `lowering.fuse: false`; the fusion candidates
// (tb/fusion_planner.h) lower with lent payloads as graphs holding their own.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/lower/network_merge.h"
#include "planner/quant/calibrator.h"
#include "tb/functional_check.h"
#include "tb/fusion_planner.h"
#include "tb/reference.h"
#include "tb/resource_limits.h"
#include "tb/run_plan.h"
#include "tests/e2e/child_run.h"
#include "tests/e2e/same_reference.h"

namespace strider {
namespace {

std::string source(const std::string& rel) { return std::string(STRIDER_SOURCE_DIR) + "/" + rel; }

Graph calibrated(const std::string& network) {
  Graph g = load_network(source(network), 0, 0, 1);
  fuse_activations(&g);
  calibrate(&g, CalibrationOptions{1, 1});
  return g;
}

TEST(Fusion, TheZoosResidualAddsFuse) {
  for (const auto& [net, adds] : {std::pair<const char*, int>{"configs/networks/resnet50.onnx", 16},
                                  {"configs/networks/mobilenet_v2.onnx", 10},
                                  {"configs/networks/tiny_cnn.yaml", 1}}) {
    Graph g = load_network(source(net), 0, 0, 1);
    fuse_activations(&g);
    const size_t nodes = g.nodes.size();
    EXPECT_EQ(fuse_residual_adds(&g), adds) << net;
    EXPECT_EQ(g.nodes.size(), nodes - size_t(adds)) << net;
    int fused = 0;
    for (const Node& n : g.nodes) {
      EXPECT_NE(n.op, OpType::kAdd) << net << ": " << n.name << " left unfused";
      if (!n.residual.fused) continue;
      ++fused;
      EXPECT_EQ(n.op, OpType::kConv);
      ASSERT_EQ(n.inputs.size(), 2u);
      EXPECT_EQ(g.tensors[size_t(n.inputs[1])].shape, g.tensors[size_t(n.outputs[0])].shape);
    }
    EXPECT_EQ(fused, adds) << net;
    EXPECT_EQ(fuse_residual_adds(&g), 0) << net;  // nothing left to fuse
  }
}

// Fusion per layer (tb/run_plan.cpp): an Add named in `keep` stays; the fused convs reading a
// spilled operand are named by their output (the Add's); DRAM move bytes sum moves to or from DRAM.
TEST(Fusion, KeptAddsStayAndSpilledResidualsAreNamed) {
  Graph g = calibrated("configs/networks/tiny_cnn.yaml");
  std::string add_out;
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kAdd) add_out = g.tensors[size_t(n.outputs[0])].name;
  }
  ASSERT_FALSE(add_out.empty());
  Graph kept = g;
  EXPECT_EQ(fuse_residual_adds(&kept, {add_out}), 0);
  EXPECT_EQ(fuse_residual_adds(&kept, {"net/" + add_out}, "net/"), 0);  // prefixed: merged runs
  ASSERT_EQ(fuse_residual_adds(&g), 1);
  const Node* conv = nullptr;
  for (const Node& n : g.nodes) {
    if (n.residual.fused) conv = &n;
  }
  ASSERT_NE(conv, nullptr);
  std::vector<bool> spilled(g.tensors.size(), false);
  EXPECT_TRUE(residuals_read_from_dram(g, spilled).empty());
  spilled[size_t(conv->inputs[0])] = true;  // its input spilled: not the residual operand
  EXPECT_TRUE(residuals_read_from_dram(g, spilled).empty());
  spilled[size_t(conv->inputs[1])] = true;
  EXPECT_EQ(residuals_read_from_dram(g, spilled), std::set<std::string>{add_out});

  DescriptorList list;
  Descriptor fill, spill, local, op;
  fill.kind = spill.kind = local.kind = DescKind::kMove;
  fill.move.rows = 3, fill.move.row_bytes = 100;  // DRAM -> L2: 300
  spill.move.src_space = MemSpace::kL2, spill.move.dst_space = MemSpace::kDram;
  spill.move.row_bytes = 64;  // 1 row: 64
  local.move.src_space = local.move.dst_space = MemSpace::kL2;
  local.move.row_bytes = 1000;  // L2 -> L2: not counted
  op.kind = DescKind::kOp;
  list.descriptors = {fill, spill, local, op};
  EXPECT_EQ(dram_move_bytes(list), 300u + 64u);
}

// A descriptor carries one lookup table's scales (OpDesc::lut): an Add ending in a lookup
// activation fuses into a conv without one and takes its table scales along
// (Node::ResidualAdd::lut), but not into a conv that ends in one too.
TEST(Fusion, OneLookupTablePerFusedConv) {
  Graph g = calibrated("configs/networks/tiny_cnn.yaml");
  Node* add = nullptr;
  for (Node& n : g.nodes) {
    if (n.op == OpType::kAdd) add = &n;
  }
  ASSERT_NE(add, nullptr);
  add->activation = Activation::kHardSwish;
  add->lut = LutScales{{24576, 18}, {20480, 19}};
  Graph both = g;
  for (Node& n : both.nodes) {
    if (n.op == OpType::kConv) n.activation = Activation::kSilu;
  }
  EXPECT_EQ(fuse_residual_adds(&both), 0);
  ASSERT_EQ(fuse_residual_adds(&g), 1);
  for (const Node& n : g.nodes) {
    if (!n.residual.fused) continue;
    EXPECT_EQ(n.residual.act, Activation::kHardSwish);
    EXPECT_EQ(n.residual.lut, (LutScales{{24576, 18}, {20480, 19}}));
  }
}

// The run's choice: convnext_tiny's three stage-1 Adds, whose fused conv would read its residual
// operand spilled per tile, stay separate and its other 15 fuse; resnet50 fuses all 16 (its plan
// with the spilled-operand Adds unfused moves more DRAM bytes).
TEST(Fusion, RunsChooseFusionPerLayerWithThePlan) {
  for (const auto& [net, fused_want, adds_want] :
       {std::tuple<const char*, int, int>{"convnext_tiny", 15, 3}, {"resnet50", 16, 0}}) {
    RunConfig cfg = load_run(source(std::string("configs/runs/") + net + ".yaml"));
    cfg.sim.functional = false;
    std::ostringstream warnings;
    const PlannedRun r = plan_networks(cfg, warnings);
    int fused = 0, adds = 0;
    for (const Node& n : r.graph.nodes) fused += n.residual.fused, adds += n.op == OpType::kAdd;
    EXPECT_EQ(fused, fused_want) << net;
    EXPECT_EQ(adds, adds_want) << net;
  }
}

// The fused conv's reference (conv, then the Add's arithmetic on its result) is the separate
// Add's: every graph output and every tensor both graphs keep are equal, on calibrated scales
// (the Adds' two multipliers differ).
TEST(Fusion, FusedReferenceEqualsTheSeparateAdd) {
  for (const char* net : {"configs/networks/tiny_cnn.yaml", "configs/networks/mobilenet_v2.onnx"}) {
    const Graph plain = calibrated(net);
    Graph fused = plain;
    ASSERT_GT(fuse_residual_adds(&fused), 0) << net;
    expect_same_reference(plain, fused, net);
  }
}

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, fused_tiles = 0;
  int status = -1;
  char detail[160] = {};
};

Figures run(const std::string& net, const std::vector<std::string>& sets) {
  return simulate_in_child<Figures>(
      source("configs/runs/" + net + ".yaml"), sets, [](const RunResult& r, Figures& f) {
        f.cycles = r.cycles;
        f.checked = r.checked_tensors;
        f.mismatches = r.mismatches;
        for (const Descriptor& d : r.lowered.list.descriptors) {
          f.fused_tiles += d.kind == DescKind::kOp && d.op.post.present();
        }
      });
}

TEST(Fusion, FunctionalRunsMatchTheReferenceAndSaveCycles) {
  for (const auto& [net, layers] :
       // mobilenet_v2: 54 compute layers, 3 of them convs whose depthwise reader runs fused
       // with them (planner/lower/depthwise_fusion.cpp): their output is never whole, so only
       // the depthwise's is checked. In both the global pool is fused into the conv before it
       // (resnet50's last conv3 + Add, mobilenet_v2's features.18), whose result it alone
       // reads: 54 and 50 layers.
       {std::pair<const char*, uint64_t>{"resnet50", 54}, {"mobilenet_v2", 50}}) {
    const Figures fused = run(net, {"sim.functional=true", "arch.lowering.fuse=true"});
    const Figures plain = run(net, {"arch.lowering.fuse=false"});
    ASSERT_EQ(fused.status, 0) << fused.detail;
    ASSERT_EQ(plain.status, 0) << plain.detail;
    EXPECT_EQ(fused.checked, layers) << net;  // compute layers, the fused Adds (and pool) gone
    EXPECT_EQ(fused.mismatches, 0u) << net << ": " << fused.detail;
    EXPECT_GT(fused.fused_tiles, 0u) << net;
    EXPECT_EQ(plain.fused_tiles, 0u) << net;
    EXPECT_LT(fused.cycles, plain.cycles) << net;
  }
}

// FusionPlanner (tb/fusion_planner.h): candidates lowered with the networks' payloads lent give
// the lists, DRAM images and tensors of graphs holding their own (one network and two merged),
// and lending leaves the planner as it was.
LowerOptions options(const RunConfig& cfg) {
  LowerOptions opt;
  opt.allocator = cfg.planner.allocator;
  opt.schedule = cfg.planner.schedule;
  opt.time_limit_s = cfg.planner.time_limit_s;
  opt.segment_choice = cfg.planner.image_segments;
  return opt;
}

void expect_same_lowering(const Lowered& got, const Lowered& want, const std::string& what) {
  EXPECT_TRUE(got.list == want.list) << what;
  ASSERT_EQ(got.dram.blobs.size(), want.dram.blobs.size()) << what;
  for (size_t i = 0; i < got.dram.blobs.size(); ++i) {
    EXPECT_EQ(got.dram.blobs[i].addr, want.dram.blobs[i].addr) << what << " blob " << i;
    EXPECT_TRUE(got.dram.blobs[i].bytes == want.dram.blobs[i].bytes) << what << " blob " << i;
  }
  EXPECT_EQ(got.tensor_addr, want.tensor_addr) << what;
  EXPECT_EQ(got.tensor_spilled, want.tensor_spilled) << what;
  EXPECT_EQ(got.weights_stored_bytes, want.weights_stored_bytes) << what;
}

void expect_same_tensors(const Graph& got, const Graph& want) {
  ASSERT_EQ(got.tensors.size(), want.tensors.size());
  for (size_t t = 0; t < got.tensors.size(); ++t) {
    const Tensor &a = got.tensors[t], &b = want.tensors[t];
    EXPECT_EQ(a.name, b.name);
    EXPECT_TRUE(a.data == b.data && a.bias == b.bias && a.float_data == b.float_data) << a.name;
  }
}

TEST(FusionPlanner, LentPayloadsLowerAsGraphsHoldingTheirOwn) {
  const RunConfig cfg = load_run(source("configs/runs/resnet50.yaml"));
  const Graph net = calibrated("configs/networks/resnet50.onnx");
  Graph owned = net;
  ASSERT_EQ(fuse_residual_adds(&owned), 16);
  ASSERT_EQ(fuse_max_pools(&owned), 1);  // the stem's pool, as the planner fuses it
  ASSERT_EQ(fuse_global_pools(&owned), 1);  // the pool after the last conv3 (+ its Add)
  const Lowered want = lower_within_limits(cfg, owned, cfg.arch, options(cfg));

  FusionPlanner planner({net}, {"resnet50"}, cfg, options(cfg));
  FusionCandidate c = planner.plan(std::set<std::string>());
  expect_same_lowering(c.lowered, want, "first");
  EXPECT_EQ(c.dram_bytes, dram_move_bytes(want.list));
  EXPECT_TRUE(c.graph.tensors[size_t(c.graph.nodes[0].weights)].data.empty());  // lent back
  // The payloads came back: a second plan is the same, and network(0) is the network.
  expect_same_lowering(planner.plan(std::set<std::string>()).lowered, want, "second");
  expect_same_tensors(planner.network(0), net);
  planner.adopt(c);
  expect_same_tensors(c.graph, owned);
}

TEST(FusionPlanner, MergedNetworksBorrowTheirPayloadsAtTheirOffsets) {
  RunConfig cfg = load_run(source("configs/runs/default.yaml"));
  const Graph a = calibrated("configs/networks/tiny_cnn.yaml");
  const Graph b = calibrated("configs/networks/mobilenet_v1.yaml");
  const std::vector<std::string> names = {"a", "b"};
  std::vector<Graph> fused = {a, b};
  for (size_t k = 0; k < fused.size(); ++k) {
    fuse_residual_adds(&fused[k], {}, names[k] + "/");
    fuse_max_pools(&fused[k], {}, names[k] + "/");
    fuse_global_pools(&fused[k], {}, names[k] + "/");
  }
  MergedNetworks m = merge_networks(fused, names, cfg.planner.schedule, cfg.execution);
  LowerOptions opt = options(cfg);
  opt.order = m.order;
  const Lowered want = lower_within_limits(cfg, m.graph, cfg.arch, opt);

  FusionPlanner planner({a, b}, names, cfg, options(cfg));
  FusionCandidate c = planner.plan(std::set<std::string>());
  EXPECT_EQ(c.order, m.order);
  expect_same_lowering(c.lowered, want, "merged");
  // Network b alone, fused as the candidate: its payloads at offset 0.
  Graph alone = b;
  fuse_residual_adds(&alone, {}, "b/");
  fuse_max_pools(&alone, {}, "b/");
  fuse_global_pools(&alone, {}, "b/");
  LowerOptions alone_opt = options(cfg);
  expect_same_lowering(planner.lower_alone(1, std::set<std::string>()),
                       lower_within_limits(cfg, alone, cfg.arch, alone_opt), "b alone");
  planner.adopt(c);
  expect_same_tensors(c.graph, m.graph);
}

// resnet50: the plan with every Add fused spills residual operands some fused convs then read per
// tile; leaving those Adds separate moves more DRAM bytes, so every Add stays fused (the run's
// choice, Fusion.RunsChooseFusionPerLayerWithThePlan).
TEST(FusionPlanner, Resnet50KeepsEveryAddFusedForFewerDramBytes) {
  RunConfig cfg = load_run(source("configs/runs/resnet50.yaml"));
  FusionPlanner planner({calibrated("configs/networks/resnet50.onnx")}, {"resnet50"}, cfg,
                        options(cfg));
  const FusionCandidate all = planner.plan(std::set<std::string>());
  const std::set<std::string> refused =
      residuals_read_from_dram(all.graph, all.lowered.tensor_spilled);
  ASSERT_FALSE(refused.empty());
  const FusionCandidate separate = planner.plan(refused);
  EXPECT_GT(separate.dram_bytes, all.dram_bytes);
  const FusionCandidate chosen = planner.choose();
  ASSERT_TRUE(chosen.keep.has_value());
  EXPECT_TRUE(chosen.keep->empty());
  EXPECT_EQ(chosen.dram_bytes, all.dram_bytes);
  EXPECT_TRUE(chosen.lowered.list == all.lowered.list);
}

}  // namespace
}  // namespace strider
