// The mapper's loop-order dimension (planner/lower/mapper.h; the orders and their DRAM bytes in
// banded_lowering.cpp's header) on tiny_cnn on the tiny arch with a 16 KiB L2 and 512 B weight
// slots, where pool1 (16 x 16 x 16 = 4,096 B per image) and conv1's output spill: the bytes the
// search predicts per order are the bytes the lowering then moves, and the order it picks.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"
#include "planner/lower/lowering.h"

namespace strider {
namespace {

const std::string kDir = STRIDER_SOURCE_DIR;

struct Searched {
  Lowered l;
  std::map<std::string, MappingRow> rows;  // by layer name
};

Searched search(uint32_t batch, const char* objective) {
  ArchConfig arch = load_arch(kDir + "/configs/arch/tiny.yaml");
  arch.l2.size_bytes = 16384;
  arch.lowering.mapping = "search";
  arch.lowering.objective = objective;
  arch.lowering.weight_slot_bytes = 512;
  ImportOptions io;
  io.batch = batch;
  Graph g = import_network(kDir + "/configs/networks/tiny_cnn.yaml", io);
  materialise_parameters(&g, 1);
  LowerOptions opt;
  opt.allocator = "greedy_by_size";
  Searched s{lower(g, arch, opt), {}};
  for (const MappingRow& m : s.l.mapping) s.rows[s.l.layers.at(m.layer).name] = m;
  return s;
}

// Weights and biases staged, bands filled and spilled: what the layer moved.
uint64_t moved(const LayerReport& r) { return r.weight_bytes + r.fill_bytes + r.spill_bytes; }

TEST(LoopOrder, BandedBytesPerOrderAreTheLoweringsExactly) {
  const Searched s = search(1, "cycles");
  // Every searched layer moves exactly the DRAM bytes the search predicted for its order.
  for (const MappingRow& m : s.l.mapping) {
    EXPECT_EQ(m.predicted_dram_bytes, moved(s.l.layers[m.layer])) << s.l.layers[m.layer].name;
  }
  // conv2b (1x1, 16 -> 16 over the spilled pool1): one block of 16 channels, W = 16 x (16 + 4)
  // = 320 B; 4 bands of 4 rows fill pool1 once, F = 4,096 B. Inputs outer stages the block per
  // band, 4 x 320 + 4,096 = 5,376 B; weights outer once, 320 + 4,096 = 4,416 B: 120 DRAM cycles
  // fewer at 8 B/cycle, which a banded layer adds to its tiles'.
  const MappingRow& b = s.rows.at("conv2b");
  EXPECT_EQ(b.mapping, "channels");
  EXPECT_EQ(b.block, 16u);
  EXPECT_EQ(b.rows, 4u);
  EXPECT_EQ(b.loop_order, "weights_outer");
  EXPECT_EQ(b.predicted_dram_bytes, 4416u);
  EXPECT_EQ(s.l.layers[b.layer].weight_bytes, 320u);
  EXPECT_EQ(s.l.layers[b.layer].fill_bytes, 4096u);
  // conv1 (3x3, 3 -> 16, output 16 x 32 x 32 = 16,384 B spilled): bands of 2 rows with the
  // block of 16 staged once, 16 x (27 + 4) = 496 B, not 16 times.
  const MappingRow& c1 = s.rows.at("conv1");
  EXPECT_EQ(c1.rows, 2u);
  EXPECT_EQ(c1.loop_order, "weights_outer");
  EXPECT_EQ(c1.predicted_dram_bytes, 496u + 16384u);
  // conv2a (3x3, 16 -> 16): blocks of 4 channels (a 512 B slot holds 3 x 148 B), 8 two-row
  // bands (a band's padded stream, 18 + 16 = 34 positions on 8 neurons, ends in a partial run of
  // 2, which the hybrid tile runs in the im2col form; one-row bands, 16 positions, have none).
  // Weights outer would fill each band again for each of the 4 blocks (short pieces, slower than
  // their bytes: not searched), so the inputs stay outer: 8 x 16 x 148 = 18,944 B of weights
  // staged, 7,680 B of fills (input rows 0-2, 1-4, ..., 13-15 of 16 x 16 B: (3 + 6 x 4 + 3) x 16
  // x 16), 4,096 B spilled.
  const MappingRow& a = s.rows.at("conv2a");
  EXPECT_EQ(a.rows, 2u);
  EXPECT_EQ(a.block, 4u);
  EXPECT_EQ(a.loop_order, "inputs_outer");
  EXPECT_EQ(s.l.layers[a.layer].weight_bytes, 18944u);
  EXPECT_EQ(s.l.layers[a.layer].fill_bytes, 7680u);
  EXPECT_EQ(a.predicted_dram_bytes, 18944u + 7680u + 4096u);
}

TEST(LoopOrder, BatchGroupsImagesOrSharesTheBlock) {
  const Searched s = search(2, "cycles");
  // conv2a over 2 images: the two-row bands of batch 1 (their hybrid tails), inputs outer image
  // by image, 2 x (18,944 + 7,680 + 4,096) = 61,440 B: fewer bytes and (the objective) fewer
  // predicted cycles than the one-row bands grouped over the pair (37,888 + 2 x 11,776 +
  // 2 x 4,096 = 69,632 B), its choice before the hybrid tile for k > 1. (Grouped images run in
  // Batch.SpilledLayersShareEachWeightBlockAcrossTheBatch.)
  const MappingRow& a = s.rows.at("conv2a");
  EXPECT_EQ(a.rows, 2u);
  EXPECT_EQ(a.loop_order, "inputs_outer");
  EXPECT_EQ(s.l.layers[a.layer].batch_order, "image_segment");
  EXPECT_EQ(a.predicted_dram_bytes, 61440u);
  EXPECT_EQ(moved(s.l.layers[a.layer]), 61440u);
  // conv2b: the block staged once for both images' bands (images_inside), 320 + 2 x 4,096 B
  // filled + 2 x 4,096 B spilled = 16,704 B, against 2 x 5,376 + 8,192 = 18,944 inputs outer.
  const MappingRow& b = s.rows.at("conv2b");
  EXPECT_EQ(b.loop_order, "weights_outer");
  EXPECT_EQ(s.l.layers[b.layer].batch_order, "images_inside");
  EXPECT_EQ(b.predicted_dram_bytes, 16704u);
  EXPECT_EQ(moved(s.l.layers[b.layer]), 16704u);
}

TEST(LoopOrder, ALayerInAnImageSegmentStagesItsWeightsPerPass) {
  const Searched s = search(2, "cycles");
  // conv3 (3x3, 16 -> 16, resident) runs inside an image segment: image after image, each pass
  // staging its one block again, W = 16 x (16 x 9 + 4) = 2,368 B per pass, 2 x 2,368 = 4,736 B
  // for the batch; the mapper counts the passes (it counted one: 2,368).
  ASSERT_FALSE(s.l.image_segments.empty());
  const MappingRow& c3 = s.rows.at("conv3");
  EXPECT_EQ(s.l.layers[c3.layer].weight_bytes, 2u * 2368u);
  EXPECT_EQ(c3.predicted_dram_bytes, 2u * 2368u);
  EXPECT_EQ(moved(s.l.layers[c3.layer]), 2u * 2368u);
}

TEST(LoopOrder, InputsOuterWhereOneBandNeedsNoRestaging) {
  // Energy: conv3 (stride 2, 8 x 8 outputs, resident) keeps one band of 8 rows (one staging
  // either way); its best other candidate, 2 bands with the weights outer, loses.
  const Searched s = search(1, "energy");
  const MappingRow& c3 = s.rows.at("conv3");
  EXPECT_EQ(c3.rows, 8u);
  EXPECT_EQ(c3.loop_order, "inputs_outer");
  EXPECT_EQ(c3.alternative, "positions/4/4/weights_outer");
  EXPECT_LT(c3.predicted_cost, c3.alternative_cost);
  // Same inputs, same choice.
  const Searched again = search(1, "energy");
  ASSERT_EQ(again.l.mapping.size(), s.l.mapping.size());
  for (size_t k = 0; k < s.l.mapping.size(); ++k) {
    EXPECT_EQ(again.l.mapping[k].loop_order, s.l.mapping[k].loop_order);
    EXPECT_EQ(again.l.mapping[k].predicted_dram_bytes, s.l.mapping[k].predicted_dram_bytes);
  }
  EXPECT_EQ(again.l.list.descriptors.size(), s.l.list.descriptors.size());
}

}  // namespace
}  // namespace strider
