// Batch N for real (issue 15): `networks[i].batch: N` lays the activations out for N images,
// tiles every image (weights of a resident layer staged once per channel block and reused by the
// N images), and the run executes N x the MACs. Timing and functional at N = 4 on the default run
// (tiny_cnn: conv, depthwise, pooling, add, concat, global pooling, fc), bit-exact against the
// reference; resnet50 at N = 4 plans 4 x the MACs. Each simulation runs in a forked child
// (SystemC elaborates once per process).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tb/run_summary.h"
#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, macs = 0, checked = 0, mismatches = 0, images = 0;
  uint64_t weight_bytes = 0, op_tiles = 0, fill_bytes = 0;
  char orders[200] = {};  // each non-empty batch_order, in layer order
  double cycles_per_image = 0;
  int status = -1;  // 0: simulated without deadlock
  char detail[200] = {};
};

Figures simulate(const std::string& run, const std::vector<std::string>& sets) {
  return simulate_in_child<Figures>(
      std::string(STRIDER_SOURCE_DIR) + "/configs/runs/" + run, sets,
      [](const RunResult& r, Figures& f) {
        const RunSummary s = summarise(r);
        f.cycles = r.cycles;
        f.macs = s.macs;
        f.images = s.images;
        f.cycles_per_image = s.cycles_per_image;
        f.checked = r.checked_tensors;
        f.mismatches = r.mismatches;
        std::string orders;
        for (const LayerReport& l : r.lowered.layers) {
          f.weight_bytes += l.weight_bytes;
          f.fill_bytes += l.fill_bytes;
          if (!l.batch_order.empty()) orders += (orders.empty() ? "" : " ") + l.batch_order;
        }
        orders.copy(f.orders, sizeof(f.orders) - 1);
        for (const Descriptor& d : r.lowered.list.descriptors) f.op_tiles += d.kind == DescKind::kOp;
      });
}

TEST(Batch, FourImagesTimingAndFunctionalBitExact) {
  const Figures one = simulate("default.yaml", {});
  const Figures timing = simulate("default.yaml", {"networks[0].batch=4"});
  const Figures functional =
      simulate("default.yaml", {"networks[0].batch=4", "sim.functional=true"});
  ASSERT_EQ(one.status, 0) << one.detail;
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  // tiny_cnn: 1,254,720 conv + fc MACs per image (tests/planner/import_yaml_test.cpp).
  EXPECT_EQ(one.macs, 1254720u);
  EXPECT_EQ(timing.macs, 4u * 1254720u);
  EXPECT_EQ(timing.images, 4u);
  EXPECT_EQ(one.images, 1u);
  // Every operation tile is emitted once per image.
  EXPECT_EQ(timing.op_tiles, 4 * one.op_tiles);
  // Nothing spills at batch 4 (3x32x32 input): each channel block's weights are staged once and
  // reused by the four images, so the weight traffic is that of one image.
  EXPECT_EQ(timing.weight_bytes, one.weight_bytes);
  // Four images cost more than one but less than four separate runs (weights fetched once).
  EXPECT_GT(timing.cycles, one.cycles);
  EXPECT_LT(timing.cycles, 4 * one.cycles);
  EXPECT_DOUBLE_EQ(timing.cycles_per_image, double(timing.cycles) / 4);
  // Functional mode: the same cycles, every compute layer (7: add1 is fused into conv2b, pool1
  // into conv1; the concat copies its inputs at batch 4) checked against the reference image by
  // image.
  EXPECT_EQ(functional.cycles, timing.cycles);
  EXPECT_EQ(functional.checked, 7u);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
}

// 32 KiB of L2 without image segments (planner.image_segments: none): four images' activations
// spill, and every layer with weights shares its weight blocks across the batch
// (banded_lowering.cpp), in the order its DRAM bytes favour: conv1, dw3 and fc images_inside (each
// block staged once: 16 x 27 + 16 x 4 = 496, 16 x 9 + 64 = 208 and 10 x 32 + 10 x 4 = 360
// bytes); conv2a and conv3 images_grouped (four in-band slots hold a band of each image; 4 row
// bands x (16 x 144 + 64) = 9,472 bytes each, where image after image would stage 4 x 9,472);
// conv2b, with add1 fused into it and add1's spilled operand (conv2a's output) filled per tile,
// images_outside: its 16 x 16 + 64 = 320 bytes staged per image and row band, 4 x 2 x 320 =
// 2,560. Weight traffic 496 + 9,472 + 2,560 + 9,472 + 208 + 360 = 22,568 bytes, under four times
// batch 1's 6,120 (where nothing spills); functional mode checks every image of every layer's
// output (8 layers) bit-exactly.
TEST(Batch, SpilledLayersShareEachWeightBlockAcrossTheBatch) {
  const std::vector<std::string> small = {"arch.l2.size_bytes=32768", "sim.trace=false"};
  std::vector<std::string> four = small, functional_sets = small;
  four.push_back("planner.image_segments=none");
  functional_sets.push_back("planner.image_segments=none");
  four.push_back("networks[0].batch=4");
  functional_sets.push_back("networks[0].batch=4");
  functional_sets.push_back("sim.functional=true");
  const Figures one = simulate("default.yaml", small);
  const Figures timing = simulate("default.yaml", four);
  const Figures functional = simulate("default.yaml", functional_sets);
  ASSERT_EQ(one.status, 0) << one.detail;
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_GT(timing.fill_bytes, 0u);  // activations do spill
  EXPECT_STREQ(one.orders, "");      // batch 1: no order to choose
  EXPECT_STREQ(timing.orders,
               "images_inside images_grouped images_outside images_grouped images_inside "
               "images_inside");
  EXPECT_EQ(timing.weight_bytes, 22568u);
  EXPECT_EQ(one.weight_bytes, 6120u);
  EXPECT_EQ(one.fill_bytes, 0u);
  EXPECT_EQ(functional.cycles, timing.cycles);
  EXPECT_EQ(functional.checked, 8u);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
}

// The same 32 KiB of L2 with image segments (planner/lower/batch_segments.cpp): one image's
// activations fit, as at batch 1, so a segment of layers run image after image spills nothing.
// whole: every layer but the concat (which copies image by image and splits the segments) in a
// segment, each image restaging every weight block: 4 x batch 1's 6,120 weight bytes = 24,480.
// auto (the default) keeps the cheapest of shared / mixed / prefix / whole: conv1 to dw3 in a
// segment and gap, fc sharing the batch (fc's 10 x 32 + 10 x 4 = 360 bytes staged once):
// 4 x (6,120 - 360) + 360 = 23,400. Functional mode checks every image of every layer (a
// segment layer's output is read image by image, as each pass retires).
TEST(Batch, ImageSegmentsKeepOneImagesActivationsInL2) {
  const std::vector<std::string> small = {"arch.l2.size_bytes=32768", "sim.trace=false",
                                          "networks[0].batch=4", "sim.functional=true"};
  std::vector<std::string> whole_sets = small;
  whole_sets.push_back("planner.image_segments=whole");
  const Figures whole = simulate("default.yaml", whole_sets);
  const Figures chosen = simulate("default.yaml", small);
  ASSERT_EQ(whole.status, 0) << whole.detail;
  ASSERT_EQ(chosen.status, 0) << chosen.detail;
  EXPECT_EQ(whole.fill_bytes, 0u);
  EXPECT_EQ(chosen.fill_bytes, 0u);
  EXPECT_EQ(whole.weight_bytes, 24480u);
  EXPECT_EQ(chosen.weight_bytes, 23400u);
  EXPECT_STREQ(whole.orders,  // 7 layers: pool1 fused into conv1
               "image_segment image_segment image_segment image_segment image_segment "
               "image_segment image_segment");
  EXPECT_STREQ(chosen.orders,
               "image_segment image_segment image_segment image_segment image_segment "
               "image_segment images_inside");
  EXPECT_EQ(whole.checked, 7u);  // compute layers, add1 fused into conv2b, pool1 into conv1
  EXPECT_EQ(whole.mismatches, 0u) << whole.detail;
  EXPECT_EQ(chosen.checked, 8u);  // pool1 unfused: its conv reads a spilled input at 32 KiB
  EXPECT_EQ(chosen.mismatches, 0u) << chosen.detail;
}

TEST(Batch, Resnet50FourImagesRunWithFourTimesTheMacs) {
  const Figures f = simulate("resnet50.yaml", {"networks[0].batch=4", "sim.trace=false"});
  ASSERT_EQ(f.status, 0) << f.detail;
  // resnet50 (torchvision, 224x224): 4,089,184,256 conv + fc MACs per image
  // (configs/networks/README.md), four images.
  EXPECT_EQ(f.macs, uint64_t{4} * 4089184256u);
  EXPECT_EQ(f.images, 4u);
}

}  // namespace
}  // namespace strider
