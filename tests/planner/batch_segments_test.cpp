// Image segments (planner/lower/batch_segments.cpp): a segment of steps runs image after image
// with one image's activations in L2, checked against the batch-1 list of two_conv derived by
// hand in lowering_test.cpp.
#include <gtest/gtest.h>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"
#include "planner/lower/lowering.h"

namespace strider {
namespace {

const std::string kDir = STRIDER_SOURCE_DIR;

Graph two_conv(int64_t batch) {
  ImportOptions io;
  io.batch = batch;
  Graph g = import_network(kDir + "/tests/planner/data/two_conv.yaml", io);
  materialise_parameters(&g, 1);
  return g;
}

MoveDesc mv(MemSpace s, uint64_t sa, MemSpace d, uint64_t da, uint32_t bytes) {
  return MoveDesc{s, d, sa, da, 1, bytes, 0, 0};
}

// Batch 2, both steps one segment: each image's pass is batch 1's list (lowering_test.cpp: x at
// L2 0, a at 32, b at 80, each one image) with that image's input and output in DRAM. x holds
// 2 x 4 x 4 = 32 B per image: the graph input's 64 B at io, image 1 from io + 32; the output b
// (32 B per image) at the next 4 KiB boundary, io + 4096, image 1 at io + 4128.
TEST(BatchSegments, WholeSegmentRunsBatchOnesListImageAfterImage) {
  const ArchConfig arch = load_arch(kDir + "/configs/arch/tiny.yaml");
  LowerOptions opt;
  opt.allocator = "naive";
  opt.segment_choice = "whole";
  const Lowered l = lower(two_conv(2), arch, opt);
  const Lowered one = lower(two_conv(1), arch, [&] {
    LowerOptions o = opt;
    o.segment_choice = "auto";
    return o;
  }());
  const auto& d = l.list.descriptors;
  ASSERT_EQ(l.image_segments.size(), 1u);
  EXPECT_EQ(l.image_segments[0].first, 0);
  EXPECT_EQ(l.image_segments[0].last, 1);
  EXPECT_TRUE(one.image_segments.empty());  // batch 1: nothing to segment
  EXPECT_EQ(l.list.layers, (std::vector<std::string>{"input:x", "a", "b", "output:b"}));
  EXPECT_EQ(l.layers[1].batch_order, "image_segment");
  EXPECT_EQ(l.layers[2].batch_order, "image_segment");
  EXPECT_EQ(l.arena_bytes, 112u);  // batch 1's plan: 32 + 48 + 32 B
  ASSERT_EQ(d.size(), 16u);        // batch 1's eight descriptors per image
  const uint64_t w = kDramWeightsBase, io = kDramActivationsBase + (1ull << 30);
  for (uint32_t i = 0; i < 2; ++i) {
    const std::vector<Descriptor>::const_iterator p = d.begin() + 8 * i;
    EXPECT_EQ(p[0].move, mv(MemSpace::kDram, io + 32 * i, MemSpace::kL2, 0, 32));  // x, image i
    EXPECT_EQ(p[1].move, mv(MemSpace::kDram, w, MemSpace::kL2, 80, 54));  // a's weights again
    EXPECT_EQ(p[3].op.input, (TensorRef{MemSpace::kL2, 0, 2, 4, 4, 4, 16, 1}));
    EXPECT_EQ(p[6].op.output, (TensorRef{MemSpace::kL2, 80, 2, 4, 4, 4, 16, 1}));
    EXPECT_EQ(p[7].move, mv(MemSpace::kL2, 80, MemSpace::kDram, io + 4096 + 32 * i, 32));
    EXPECT_EQ(p[7].deps, std::vector<uint32_t>{6 + 8 * i});
  }
  // Image 1's input load waits for image 0's last tile and output store (its L2 is reused); its
  // first weights wait for the whole of image 0's pass (the fence of image 0's last step), not
  // only for the step two back (image 0's conv a), as their slot may overlap image 0's b.
  EXPECT_EQ(d[8].deps, (std::vector<uint32_t>{6, 7}));
  EXPECT_EQ(d[9].deps, (std::vector<uint32_t>{6, 7}));
  // Per layer, the first descriptor of each image's pass (the functional check reads each image
  // when its descriptors retire).
  EXPECT_EQ(l.layer_image_first[1], (std::vector<uint32_t>{1, 9}));
  EXPECT_EQ(l.layer_image_first[2], (std::vector<uint32_t>{4, 12}));
  EXPECT_TRUE(l.layer_image_first[0].empty());
  // Weights are staged once per image: 2 x batch 1's.
  uint64_t wb = 0, wb1 = 0;
  for (const LayerReport& r : l.layers) wb += r.weight_bytes;
  for (const LayerReport& r : one.layers) wb1 += r.weight_bytes;
  EXPECT_EQ(wb, 2 * wb1);
}

// With segments searched, nothing spills at batch 2 on tiny and sharing the weights moves fewer
// bytes: no segment is kept, and layers share each weight block (images_inside).
TEST(BatchSegments, AutoKeepsSharedWeightsWhenNothingSpills) {
  const ArchConfig arch = load_arch(kDir + "/configs/arch/tiny.yaml");
  LowerOptions opt;
  opt.allocator = "naive";
  const Lowered l = lower(two_conv(2), arch, opt);
  EXPECT_TRUE(l.image_segments.empty());
  EXPECT_EQ(l.layers[1].batch_order, "images_inside");
}

TEST(BatchSegments, GivenSegmentsAreChecked) {
  const ArchConfig arch = load_arch(kDir + "/configs/arch/tiny.yaml");
  LowerOptions opt;
  opt.segment_choice = "given";
  opt.image_segments = {{1, 0}};
  try {
    lower(two_conv(2), arch, opt);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "image segment 0 (steps 1 to 0): segments must be disjoint, in schedule order "
                 "and within the 2 steps");
  }
  opt.segment_choice = "sideways";
  try {
    lower(two_conv(2), arch, opt);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "segment choice 'sideways': expected auto, none, whole or given");
  }
}

}  // namespace
}  // namespace strider
