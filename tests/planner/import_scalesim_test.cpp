// Tests of the SCALE-Sim topology CSV importer: both forms, chaining, quirks and every error.
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "planner/import/network_loader.h"
#include "planner/import/scalesim_csv.h"
#include "tests/lib/error_text.h"
#include "tests/lib/test_file.h"

namespace strider {
namespace {

std::string error_of(const std::string& path) {
  return error_text([&] { import_scalesim_csv(path); });
}

int64_t total_macs(const Graph& g) {
  int64_t macs = 0;
  for (const Node& n : g.nodes) macs += node_macs(g, n);
  return macs;
}

const char kConvHeader[] =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
    "Strides,\n";

TEST(ImportScaleSim, AlexNetExampleChainsWherePaddedShapesMatch) {
  const Graph g = load_network(
      std::string(STRIDER_SOURCE_DIR) + "/configs/networks/alexnet_scalesim.csv", 0, 0, 1);
  EXPECT_EQ(g.name, "alexnet_scalesim");
  ASSERT_EQ(g.nodes.size(), 8u);
  // Conv1 55*55*96*363 + Conv2 27*27*256*2400 + Conv3 13*13*384*2304 + Conv4 13*13*384*3456
  // + Conv5 13*13*256*3456 + FC6 4096*9216 + FC7 4096*4096 + FC8 1000*4096
  EXPECT_EQ(total_macs(g), 1135256096);
  // Pooling between Conv1/Conv2, Conv2/Conv3 and Conv5/FC6 is not in the file: those rows read
  // their own inputs. Conv4 and Conv5 read 15x15 = 13x13 plus a border of 1 (pad 1); FC7 and
  // FC8 read the 4096x1x1 outputs directly.
  ASSERT_EQ(g.inputs.size(), 4u);
  EXPECT_EQ(g.tensors[g.inputs[0]].name, "Conv1.ifmap");
  EXPECT_EQ(to_string(g.tensors[g.inputs[3]].shape), "1x256x6x6");
  EXPECT_EQ(g.tensors[g.nodes[3].inputs[0]].name, "Conv3");
  EXPECT_EQ(g.nodes[3].pad_top, 1);
  EXPECT_EQ(g.nodes[3].pad_right, 1);
  EXPECT_EQ(g.tensors[g.nodes[7].inputs[0]].name, "FC7");
  EXPECT_EQ(g.nodes[7].pad_top, 0);
  EXPECT_EQ(to_string(g.tensors[g.nodes[0].outputs[0]].shape), "1x96x55x55");
  // Outputs: the rows nobody reads (Conv1, Conv2, Conv5 and FC8).
  ASSERT_EQ(g.outputs.size(), 4u);
  EXPECT_EQ(g.tensors[g.outputs[3]].name, "FC8");
  EXPECT_EQ(g.nodes[0].bias, -1);
  EXPECT_EQ(g.tensors[g.nodes[0].weights].data.size(), 96u * 3 * 11 * 11);
}

TEST(ImportScaleSim, QuirksTrailingCommasBlankRowsSpacesCrlfAndColumnStride) {
  const std::string path = write_test_file("quirks.csv", std::string("\n") + kConvHeader +
                                                        "\r\n"
                                                        "  L1 ,  8, 10, 3, 3, 4, 6, 1, 2,,,\r\n"
                                                        ",,,\n"
                                                        "L2,6,4,1,1,6,2,2\n"
                                                        "\n");
  ScaleSimOptions floor;
  floor.output_size = ScaleSimOptions::OutputSize::kFloor;
  const Graph g = import_scalesim_csv(path, floor);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].name, "L1");
  EXPECT_EQ(g.nodes[0].stride_h, 1);
  EXPECT_EQ(g.nodes[0].stride_w, 2);
  // Floor: L1: (8 - 3) / 1 + 1 = 6, (10 - 3) / 2 + 1 = 4; L2 chains: 6x6x4 in, stride 2 -> 3x2
  EXPECT_EQ(to_string(g.tensors[g.nodes[0].outputs[0]].shape), "1x6x6x4");
  EXPECT_EQ(g.nodes[1].inputs, g.nodes[0].outputs);
  EXPECT_EQ(to_string(g.tensors[g.nodes[1].outputs[0]].shape), "1x2x3x2");
  EXPECT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.outputs, g.nodes[1].outputs);
  // 6*6*4*36 + 2*3*2*6
  EXPECT_EQ(total_macs(g), 5184 + 72);
}

TEST(ImportScaleSim, GemmForm) {
  const std::string path = write_test_file("gemm.csv",
                                      "Layer, M, N, K,\n"
                                      "QKT, 128, 128, 64,\n"
                                      "Proj, 128, 512, 128,\n"
                                      "Head, 1, 10, 512,\n");
  const Graph g = import_scalesim_csv(path);
  ASSERT_EQ(g.nodes.size(), 3u);
  // QKT: A 128x64 times B 64x128: 1x1 conv, 64 channels over 128x1 positions.
  EXPECT_EQ(g.nodes[0].op, OpType::kConv);
  EXPECT_EQ(to_string(g.tensors[g.nodes[0].inputs[0]].shape), "1x64x128x1");
  EXPECT_EQ(to_string(g.tensors[g.nodes[0].weights].shape), "128x64x1x1");
  EXPECT_EQ(to_string(g.tensors[g.nodes[0].outputs[0]].shape), "1x128x128x1");
  // Proj's K 128 equals QKT's N 128 at the same M: chained.
  EXPECT_EQ(g.nodes[1].inputs, g.nodes[0].outputs);
  // Head: M = 1 -> fully connected 512 -> 10, its own input.
  EXPECT_EQ(g.nodes[2].op, OpType::kFullyConnected);
  EXPECT_EQ(to_string(g.tensors[g.nodes[2].inputs[0]].shape), "1x512x1x1");
  EXPECT_EQ(g.inputs.size(), 2u);
  // M*N*K: 128*128*64 + 128*512*128 + 1*10*512
  EXPECT_EQ(total_macs(g), 1048576 + 8388608 + 5120);
}

TEST(ImportScaleSim, OutputSizeRoundsUpAsScaleSimByDefault) {
  // 10x9 IFMAP, 3x3 filter, stride 2: SCALE-Sim's ceil((10 - 3 + 2) / 2) = 5 rows and
  // ceil((9 - 3 + 2) / 2) = 4 columns; floor: (10 - 3) / 2 + 1 = 4 rows, (9 - 3) / 2 + 1 = 4.
  const std::string path =
      write_test_file("ceil.csv", std::string(kConvHeader) + "L1, 10, 9, 3, 3, 2, 5, 2,\n");
  const Graph ceil = import_scalesim_csv(path);
  EXPECT_EQ(to_string(ceil.tensors[ceil.nodes[0].outputs[0]].shape), "1x5x5x4");
  EXPECT_EQ(ceil.nodes[0].pad_bottom, 1);  // the last window's third row is padding
  EXPECT_EQ(ceil.nodes[0].pad_right, 0);   // (9 - 3) % 2 == 0: no partial window
  EXPECT_EQ(ceil.nodes[0].pad_top, 0);
  // SCALE-Sim's MACs: ofmap 5x4 x filter 3x3 x 2 channels x 5 filters
  EXPECT_EQ(total_macs(ceil), 5 * 4 * 3 * 3 * 2 * 5);
  ScaleSimOptions opt;
  opt.output_size = ScaleSimOptions::OutputSize::kFloor;
  const Graph floor = import_scalesim_csv(path, opt);
  EXPECT_EQ(to_string(floor.tensors[floor.nodes[0].outputs[0]].shape), "1x5x4x4");
  EXPECT_EQ(total_macs(floor), 4 * 4 * 3 * 3 * 2 * 5);
  ScaleSimOptions::OutputSize parsed;
  EXPECT_TRUE(parse_scalesim_output_size("floor", &parsed));
  EXPECT_EQ(parsed, ScaleSimOptions::OutputSize::kFloor);
  EXPECT_FALSE(parse_scalesim_output_size("round", &parsed));
}

TEST(ImportScaleSim, DepthwiseMarkerAndOtherTrailingColumns) {
  const std::string path = write_test_file(
      "dw.csv", std::string(kConvHeader) +
                    "DW1, 10, 10, 3, 3, 8, 1, 1, #dw,\n"
                    "DW2, 10, 10, 3, 3, 4, 2, 1, 1, #DW, #sparsity,\n"
                    "PW, 8, 8, 1, 1, 8, 16, 1, #note,\n");
  const Graph g = import_scalesim_csv(path);
  ASSERT_EQ(g.nodes.size(), 3u);
  // DW1: 8 channels, one filter each: groups 8, weights 8x1x3x3, output 8x8x8.
  EXPECT_EQ(g.nodes[0].groups, 8);
  EXPECT_EQ(to_string(g.tensors[g.nodes[0].weights].shape), "8x1x3x3");
  EXPECT_EQ(to_string(g.tensors[g.nodes[0].outputs[0]].shape), "1x8x8x8");
  // DW2 (column stride given, marker in capitals): 4 channels x 2 filters = 8 outputs.
  EXPECT_EQ(g.nodes[1].groups, 4);
  EXPECT_EQ(to_string(g.tensors[g.nodes[1].outputs[0]].shape), "1x8x8x8");
  EXPECT_EQ(g.nodes[2].groups, 1);
  // MACs as SCALE-Sim counts depthwise rows (one layer per channel): 8*8 x 9 x 8 x 1,
  // 8*8 x 9 x 4 x 2, then the pointwise 8*8 x 8 x 16 (chained onto DW2's output).
  EXPECT_EQ(total_macs(g), 4608 + 4608 + 8192);
  EXPECT_EQ(g.nodes[2].inputs, g.nodes[1].outputs);
  ASSERT_EQ(g.warnings.size(), 2u);  // each unknown marker once
  EXPECT_EQ(g.warnings[0],
            path + ":3: marker '#sparsity' ignored (only #dw, on conv rows, has a meaning)");
  EXPECT_EQ(g.warnings[1], path + ":4: marker '#note' ignored (only #dw, on conv rows, has a meaning)");
}

TEST(ImportScaleSim, DuplicateLayerNamesMadeUniqueWithAWarning) {
  const std::string path =
      write_test_file("dup.csv", "Layer, M, N, K,\nQK, 64, 64, 16,\nQK, 64, 64, 16,\nQK_2, 8, 8, 8,\n"
                            "QK, 64, 64, 16,\n");
  const Graph g = import_scalesim_csv(path);
  ASSERT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(g.nodes[0].name, "QK");
  EXPECT_EQ(g.nodes[1].name, "QK_2");
  // A later row's own name QK_2 is taken: it becomes QK_2_2; the third QK takes QK_3.
  EXPECT_EQ(g.nodes[2].name, "QK_2_2");
  EXPECT_EQ(g.nodes[3].name, "QK_3");
  ASSERT_EQ(g.warnings.size(), 3u);
  EXPECT_EQ(g.warnings[0], path + ":3: layer 'QK' defined twice (first on line 2), renamed 'QK_2'");
  EXPECT_EQ(g.warnings[1],
            path + ":4: layer 'QK_2' defined twice (first on line 3), renamed 'QK_2_2'");
  EXPECT_EQ(g.warnings[2], path + ":5: layer 'QK' defined twice (first on line 2), renamed 'QK_3'");
}

TEST(ImportScaleSim, InputSizeOverrideRefused) {
  // Issue 17 defect 10b: --input on a CSV turned FC rows into 59x59 convolutions.
  const std::string path = write_test_file("fc_only.csv", "Layer, M, N, K,\nFC, 1, 10, 512,\n");
  try {
    import_network(path, 59, 59);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": an input size (59x59) cannot be applied to a SCALE-Sim topology: each "
                     "row gives its own IFMAP size (edit the CSV instead)");
  }
  // Without an override the FC row keeps its shape.
  const Graph g = import_network(path);
  EXPECT_EQ(g.nodes[0].op, OpType::kFullyConnected);
  EXPECT_EQ(to_string(g.tensors[g.nodes[0].inputs[0]].shape), "1x512x1x1");
}

TEST(ImportScaleSim, HundredThousandRowsImportLinearly) {
  // 100,000 chained rows: the name checks are hashed (quadratic scans took over a minute).
  std::string text = kConvHeader;
  for (int i = 0; i < 100000; ++i) text += "L" + std::to_string(i) + ", 16, 16, 3, 3, 8, 8, 1,\n";
  const Graph g = import_scalesim_csv(write_test_file("rows100k.csv", text));
  ASSERT_EQ(g.nodes.size(), 100000u);
  EXPECT_EQ(g.inputs.size(), 1u);  // every row chains onto the previous (14x14 + border 1)
  EXPECT_EQ(g.nodes.back().inputs, g.nodes[99998].outputs);
  EXPECT_EQ(g.find_tensor("L99999"), g.nodes.back().outputs[0]);
}

TEST(ImportScaleSim, ErrorsNameFileAndLine) {
  struct Case {
    const char* name;
    std::string text;
    std::string error;  // after "<path>:"
  };
  const std::vector<Case> cases = {
      {"bad_header", "Name, Height, Width\nL,1,1\n",
       "1: unrecognised header: expected 'Layer name, IFMAP Height, IFMAP Width, Filter Height, "
       "Filter Width, Channels, Num Filter, Strides' or 'Layer, M, N, K'"},
      {"bad_value", std::string(kConvHeader) + "\nL1, 8, 8, 3, x3, 4, 4, 1,\n",
       "3: layer 'L1': column 'Filter Width' is 'x3', expected a positive integer up to 16777216"},
      {"zero", std::string(kConvHeader) + "L1, 8, 8, 3, 3, 4, 0, 1,\n",
       "2: layer 'L1': column 'Num Filter' is '0', expected a positive integer up to 16777216"},
      {"short_row", std::string(kConvHeader) + "L1, 8, 8, 3, 3, 4,\n",
       "2: layer 'L1': 6 fields, expected 8 (Layer name, IFMAP Height, IFMAP Width, Filter "
       "Height, Filter Width, Channels, Num Filter, Strides) or 9 (plus column stride), then "
       "optional '#' markers"},
      {"long_gemm", "Layer, M, N, K,\nG, 1, 2, 3, 4,\n",
       "2: layer 'G': field 5 is '4', expected a marker starting with '#' (e.g. #dw) after the 4 "
       "numeric columns"},
      {"long_conv", std::string(kConvHeader) + "L1, 8, 8, 3, 3, 4, 4, 1, 1, dw\n",
       "2: layer 'L1': field 10 is 'dw', expected a marker starting with '#' (e.g. #dw) after "
       "the 9 numeric columns"},
      {"gemm_value", "Layer, M, N, K,\nG, 1, -2, 3,\n",
       "2: layer 'G': column 'N' is '-2', expected a positive integer up to 16777216"},
      {"filter", std::string(kConvHeader) + "L1, 8, 8, 9, 3, 4, 4, 1,\n",
       "2: layer 'L1': filter 9x3 larger than IFMAP 8x8"},
      {"no_name", std::string(kConvHeader) + ", 8, 8, 3, 3, 4, 4, 1,\n", "2: empty layer name"},
      {"too_big", std::string(kConvHeader) + "L1, 8, 8, 3, 3, 4, 16777217, 1,\n",
       "2: layer 'L1': column 'Num Filter' is '16777217', expected a positive integer up to "
       "16777216"},
      {"too_many", std::string(kConvHeader) + "L1, 16777216, 16777216, 3, 3, 16, 4, 1,\n",
       "2: layer 'L1': 1x16x16777216x16777216 has more than 1099511627776 elements"},
  };
  for (const Case& c : cases) {
    const std::string path = write_test_file(std::string("err_") + c.name + ".csv", c.text);
    EXPECT_EQ(error_of(path), path + ":" + c.error) << c.name;
  }
  const std::string empty = write_test_file("err_empty.csv", std::string(kConvHeader) + "\n,,\n");
  EXPECT_EQ(error_of(empty), empty + ": no layers (expected a header row and one row per layer)");
  EXPECT_EQ(error_of("/nonexistent/t.csv"), "/nonexistent/t.csv: file not found");
}

}  // namespace
}  // namespace strider
