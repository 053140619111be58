// Tests of Strider's YAML network importer (every op and key, every error path) and of the
// network loader front door (dispatch, input size override, parameters).
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "planner/import/network_loader.h"
#include "planner/import/yaml_network.h"
#include "tests/planner/import_test_util.h"
#include "tests/lib/error_text.h"
#include "tests/lib/test_file.h"

namespace strider {
namespace {

const std::string kSource = STRIDER_SOURCE_DIR;

// A network file whose layers list is `layers` (each line indented by the caller); the first
// layer is on line 5.
std::string net(const std::string& layers, const std::string& outputs = "") {
  return "network:\n"
         "  name: t\n"
         "  input: {name: x, shape: [1, 8, 16, 16]}\n"
         "  layers:\n" +
         layers + outputs;
}

std::string error_of(const std::string& path) {
  return error_text([&] { import_yaml_network(path); });
}

std::string out_shape(const Graph& g, const std::string& name, size_t k = 0) {
  return to_string(g.tensors[node_named(g, name).outputs.at(k)].shape);
}

TEST(ImportYaml, TinyCnnShapesAndTotals) {
  const Graph g = import_yaml_network(kSource + "/configs/networks/tiny_cnn.yaml");
  EXPECT_EQ(g.name, "tiny_cnn");
  ASSERT_EQ(g.nodes.size(), 10u);
  int64_t macs = 0, weights = 0;
  for (const Node& n : g.nodes) {
    macs += node_macs(g, n);
    if (n.weights >= 0) weights += g.tensors[n.weights].shape.elements();
  }
  // conv1 16*32*32*27 + conv2a 16*16*16*144 + conv2b 16*16*16*16 + conv3 16*8*8*144
  // + dw3 16*8*8*9 + fc 32*10 = 442368 + 589824 + 65536 + 147456 + 9216 + 320
  EXPECT_EQ(macs, 1254720);
  // 432 + 2304 + 256 + 2304 + 144 + 320
  EXPECT_EQ(weights, 5760);
  EXPECT_EQ(out_shape(g, "cat"), "1x32x8x8");
  EXPECT_EQ(to_string(g.tensors[g.outputs.at(0)].shape), "1x10x1x1");
  EXPECT_EQ(node_named(g, "dw3").groups, 16);
  EXPECT_EQ(node_named(g, "dw3").activation, Activation::kRelu6);
  EXPECT_EQ(g.tensors[node_named(g, "conv1").bias].name, "conv1.bias");
  EXPECT_EQ(g.tensors[node_named(g, "conv1").bias].element_bytes, 4);
}

TEST(ImportYaml, MobilenetV1Totals) {
  const Graph g = import_yaml_network(kSource + "/configs/networks/mobilenet_v1.yaml");
  int64_t macs = 0, weights = 0;
  for (const Node& n : g.nodes) {
    macs += node_macs(g, n);
    if (n.weights >= 0) weights += g.tensors[n.weights].shape.elements();
  }
  EXPECT_EQ(macs, 568740352);  // the 569 M mult-adds of the MobileNet paper
  EXPECT_EQ(weights, 4209088);
  EXPECT_EQ(out_shape(g, "pw13"), "1x1024x7x7");
}

TEST(ImportYaml, EveryOpAndKey) {
  const std::string path = write_test_file(
      "every_op.yaml",
      net("    - {name: c, op: conv, out_channels: 16, kernel: [3, 5], stride: [1, 2], "
          "pad: [1, 2, 1, 2], dilation: 1, bias: false}\n"
          "    - {name: d, op: conv, inputs: [c], out_channels: 16, kernel: 3, dilation: 2, pad: "
          "2, "
          "groups: 4, activation: clip, clip: [-20, 90]}\n"
          "    - {name: mp, op: maxpool, inputs: [d], kernel: 3, stride: 2, ceil_mode: true}\n"
          "    - {name: ap, op: avgpool, inputs: [d], kernel: 2, pad: [0, 0, 1, 1], "
          "count_include_pad: true}\n"
          "    - {name: add, op: add, inputs: [mp, ap], activation: relu}\n"
          "    - {name: gp, op: globalavgpool, inputs: [add]}\n"
          "    - {name: mul, op: mul, inputs: [add, gp]}\n"
          "    - {name: cat, op: concat, inputs: [mul, add, mp]}\n"
          "    - {name: r, op: relu}\n"
          "    - {name: r6, op: relu6}\n"
          "    - {name: sg, op: sigmoid}\n"
          "    - {name: hs, op: hardsigmoid}\n"
          "    - {name: hw, op: hardswish}\n"
          "    - {name: cl, op: clip, clip: [0, 64]}\n"
          "    - {name: act, op: activation, activation: relu6}\n"
          "    - {name: sp, op: split, sizes: [16, 32]}\n"
          "    - {name: sl, op: slice, inputs: [sp.1], begin: 8, end: 24}\n"
          "    - {name: sh, op: channel_shuffle, inputs: [sl], groups: 4}\n"
          "    - {name: pd, op: pad, pad: [1, 0, 2, 3]}\n"
          "    - {name: id, op: identity}\n"
          "    - {name: dr, op: dropout}\n"
          "    - {name: rs, op: reshape, shape: [1, -1, 11, 0]}\n"
          "    - {name: fl, op: flatten}\n"
          "    - {name: fc, op: fc, out_features: 5, activation: relu}\n"
          "    - {name: sm, op: softmax}\n",
          "  outputs: [sm, sp.0]\n"));
  const Graph g = import_yaml_network(path);
  EXPECT_EQ(g.name, "t");
  // c: H (16 + 2 - 3) / 1 + 1 = 16, W (16 + 4 - 5) / 2 + 1 = 8
  EXPECT_EQ(out_shape(g, "c"), "1x16x16x8");
  EXPECT_EQ(node_named(g, "c").bias, -1);
  EXPECT_EQ(node_named(g, "c").pad_left, 2);
  EXPECT_EQ(node_named(g, "c").pad_right, 2);
  // d: dilated span 5, pad 2: same size; grouped weights 16 x 4 x 3 x 3
  EXPECT_EQ(out_shape(g, "d"), "1x16x16x8");
  EXPECT_EQ(to_string(g.tensors[node_named(g, "d").weights].shape), "16x4x3x3");
  EXPECT_EQ(node_named(g, "d").clip_min, -20);
  EXPECT_EQ(node_named(g, "d").clip_max, 90);
  // mp: ceil((16 - 3) / 2) + 1 = 8, ceil((8 - 3) / 2) + 1 = 4
  EXPECT_EQ(out_shape(g, "mp"), "1x16x8x4");
  EXPECT_TRUE(node_named(g, "mp").ceil_mode);
  // ap: stride defaults to kernel 2; (16 + 1 - 2) / 2 + 1 = 8, (8 + 1 - 2) / 2 + 1 = 4
  EXPECT_EQ(out_shape(g, "ap"), "1x16x8x4");
  EXPECT_TRUE(node_named(g, "ap").count_include_pad);
  EXPECT_EQ(node_named(g, "ap").pad_bottom, 1);
  EXPECT_EQ(node_named(g, "add").activation, Activation::kRelu);
  EXPECT_EQ(out_shape(g, "gp"), "1x16x1x1");
  EXPECT_EQ(out_shape(g, "mul"), "1x16x8x4");
  EXPECT_EQ(out_shape(g, "cat"), "1x48x8x4");
  EXPECT_EQ(node_named(g, "r").activation, Activation::kRelu);
  EXPECT_EQ(node_named(g, "r").inputs, node_named(g, "cat").outputs);  // default input
  EXPECT_EQ(node_named(g, "r6").activation, Activation::kRelu6);
  EXPECT_EQ(node_named(g, "r6").clip_min, 0);
  EXPECT_EQ(node_named(g, "r6").clip_max, 96);
  EXPECT_EQ(node_named(g, "sg").activation, Activation::kSigmoid);
  EXPECT_EQ(node_named(g, "hs").activation, Activation::kHardSigmoid);
  EXPECT_EQ(node_named(g, "hw").activation, Activation::kHardSwish);
  EXPECT_EQ(node_named(g, "cl").clip_max, 64);
  EXPECT_EQ(node_named(g, "act").activation, Activation::kRelu6);
  EXPECT_EQ(out_shape(g, "sp", 0), "1x16x8x4");
  EXPECT_EQ(out_shape(g, "sp", 1), "1x32x8x4");
  EXPECT_EQ(g.tensors[node_named(g, "sp").outputs[1]].name, "sp.1");
  EXPECT_EQ(node_named(g, "sl").channel_begin, std::vector<int64_t>{8});
  EXPECT_EQ(out_shape(g, "sl"), "1x16x8x4");
  EXPECT_EQ(node_named(g, "sh").shuffle_groups, 4);
  // pd: [top 1, left 0, bottom 2, right 3]: 8 + 3 = 11, 4 + 3 = 7
  EXPECT_EQ(out_shape(g, "pd"), "1x16x11x7");
  EXPECT_EQ(node_named(g, "id").op, OpType::kReshape);
  EXPECT_EQ(out_shape(g, "dr"), "1x16x11x7");
  EXPECT_EQ(out_shape(g, "rs"), "1x16x11x7");  // [1, -1, 11, 0]
  EXPECT_EQ(out_shape(g, "fl"), "1x1232x1x1");
  EXPECT_EQ(to_string(g.tensors[node_named(g, "fc").weights].shape), "5x1232x1x1");
  EXPECT_EQ(out_shape(g, "sm"), "1x5x1x1");
  ASSERT_EQ(g.outputs.size(), 2u);
  EXPECT_EQ(g.tensors[g.outputs[1]].name, "sp.0");
}

TEST(ImportYaml, SecondInputAndDefaultOutput) {
  const std::string path =
      write_test_file("two_inputs.yaml",
                 "network:\n"
                 "  inputs: [{name: a, shape: [1, 4, 2, 2]}, {name: b, shape: [1, 4]}]\n"
                 "  layers:\n"
                 "    - {name: m, op: mul, inputs: [a, b]}\n");
  const Graph g = import_yaml_network(path);
  EXPECT_EQ(g.name, "two_inputs");  // from the file name
  EXPECT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(to_string(g.tensors[g.inputs[1]].shape), "1x4x1x1");
  EXPECT_EQ(g.outputs, node_named(g, "m").outputs);
}

struct ErrorCase {
  const char* name;
  std::string text;
  std::string error;  // after "<path>:"
};

TEST(ImportYaml, ErrorsNameFileLineLayerAndKey) {
  const std::vector<ErrorCase> cases = {
      {"syntax", "network: {name: [\n", "2: YAML syntax error: end of sequence flow not found"},
      {"no_network", "net: 1\n", "1: expected a top-level key 'network'"},
      {"unknown_net_key", "network:\n  name: t\n  speed: 3\n",
       "3: network: unknown key 'speed' (allowed: input, inputs, layers, name, outputs)"},
      {"no_input", "network:\n  layers: [{name: a, op: relu}]\n",
       "2: key 'network.input': missing (expected {name, shape})"},
      {"bad_shape", "network:\n  input: {name: x, shape: [1, 0]}\n  layers: []\n",
       "2: key 'network.input.shape': expected positive integer dims up to 16777216, got '0'"},
      {"huge_shape", "network:\n  input: {name: x, shape: [1, 65536, 65536, 65536]}\n",
       "2: key 'network.input.shape': more than 1099511627776 elements"},
      {"too_big", net("    - {name: a, op: conv, out_channels: 16777217, kernel: 1}\n"),
       "5: layer 'a': key 'out_channels': expected an integer <= 16777216, got 16777217"},
      {"no_layers", "network:\n  input: {name: x, shape: [1, 3, 4, 4]}\n  layers: []\n",
       "3: key 'network.layers': expected a non-empty list of layers"},
      {"unknown_op", net("    - {name: a, op: gelu}\n"),
       "5: layer 'a': key 'op': unknown op 'gelu' (supported: activation, add, avgpool, "
       "channel_shuffle, clip, concat, conv, dropout, fc, flatten, globalavgpool, hardsigmoid, "
       "hardswish, identity, maxpool, mul, pad, relu, relu6, reshape, sigmoid, slice, softmax, "
       "split)"},
      {"unknown_key", net("    - {name: a, op: relu, kernel: 3}\n"),
       "5: layer 'a': unknown key 'kernel' (allowed: inputs, name, op)"},
      {"missing_key", net("    - {name: a, op: conv, kernel: 3}\n"),
       "5: layer 'a': key 'out_channels': missing (required for op conv)"},
      {"bad_int", net("    - {name: a, op: conv, out_channels: 4, kernel: three}\n"),
       "5: layer 'a': key 'kernel': expected an integer, got 'three'"},
      {"small_int", net("    - {name: a, op: conv, out_channels: 0, kernel: 3}\n"),
       "5: layer 'a': key 'out_channels': expected an integer >= 1, got 0"},
      {"bad_pad", net("    - {name: a, op: conv, out_channels: 4, kernel: 3, pad: [1, 1, 1]}\n"),
       "5: layer 'a': key 'pad': expected N, [h, w] or [top, left, bottom, right]"},
      {"bad_kernel", net("    - {name: a, op: maxpool, kernel: [1, 2, 3]}\n"),
       "5: layer 'a': key 'kernel': expected N or [h, w]"},
      {"bad_bool", net("    - {name: a, op: fc, out_features: 2, bias: maybe}\n"),
       "5: layer 'a': key 'bias': expected true or false"},
      {"bad_act", net("    - {name: a, op: conv, out_channels: 4, kernel: 1, activation: gelu}\n"),
       "5: layer 'a': key 'activation': expected none, relu, relu6, clip, sigmoid, hardsigmoid "
       "or hardswish, got 'gelu'"},
      {"clip_missing", net("    - {name: a, op: clip}\n"),
       "5: layer 'a': key 'clip': needed exactly when the activation is clip"},
      {"clip_order", net("    - {name: a, op: clip, clip: [5, 1]}\n"),
       "5: layer 'a': key 'clip': expected [min, max] with -128 <= min <= max <= 127"},
      {"unknown_input",
       net("    - {name: a, op: relu}\n    - {name: b, op: add, inputs: [a, z]}\n"),
       "6: layer 'b': key 'inputs': unknown tensor 'z' (inputs must be the network input or "
       "earlier layers)"},
      {"arity", net("    - {name: a, op: add, inputs: [x]}\n"),
       "5: layer 'a': key 'inputs': op add takes 2 inputs, got 1"},
      {"dup_layer", net("    - {name: a, op: relu}\n    - {name: a, op: relu}\n"),
       "6: layer 'a': key 'name': layer name defined twice"},
      {"groups", net("    - {name: a, op: conv, out_channels: 6, kernel: 1, groups: 3}\n"),
       "5: layer 'a': key 'groups': input channels 8 not divisible by groups 3"},
      {"shape_error", net("    - {name: a, op: conv, out_channels: 4, kernel: 20}\n"),
       "5: layer 'a': node 'a' (conv): window 20 larger than padded input 16 along H"},
      {"broadcast",
       net("    - {name: a, op: fc, out_features: 3}\n"
           "    - {name: b, op: add, inputs: [x, a]}\n"),
       "6: layer 'b': node 'b' (add): second input 1x3x1x1 does not broadcast to 1x8x16x16 "
       "(same shape, per channel Nx8x1x1 or scalar)"},
      {"bad_output", net("    - {name: a, op: relu}\n", "  outputs: [q]\n"),
       "6: key 'network.outputs': unknown tensor 'q'"},
      {"no_name", net("    - {op: relu}\n"), "5: layer without key 'name'"},
      {"layer_not_map", net("    - relu\n"), "5: key 'network.layers': each layer must be a map"},
  };
  for (const ErrorCase& c : cases) {
    const std::string path = write_test_file(std::string("err_") + c.name + ".yaml", c.text);
    EXPECT_EQ(error_of(path), path + ":" + c.error) << c.name;
  }
  EXPECT_EQ(error_of("/nonexistent/n.yaml"), "/nonexistent/n.yaml: file not found");
}

TEST(NetworkLoader, DispatchOverrideAndParameters) {
  const std::string tiny = kSource + "/configs/networks/tiny_cnn.yaml";
  const Graph g = load_network(tiny, 64, 48, 3);
  EXPECT_EQ(to_string(g.tensors[g.inputs[0]].shape), "1x3x64x48");
  EXPECT_EQ(out_shape(g, "cat"), "1x32x16x12");
  EXPECT_EQ(to_string(g.tensors[g.outputs[0]].shape), "1x10x1x1");
  for (const Tensor& t : g.tensors) {
    if (t.kind == TensorKind::kWeight) {
      EXPECT_EQ(int64_t(t.data.size()), t.shape.elements());
    }
    if (t.kind == TensorKind::kBias) {
      EXPECT_EQ(int64_t(t.bias.size()), t.shape.elements());
    }
  }
  const Graph same = load_network(tiny, 0, 0, 3);
  EXPECT_EQ(to_string(same.tensors[same.inputs[0]].shape), "1x3x32x32");
  EXPECT_EQ(same.tensors[same.nodes[0].weights].data, g.tensors[g.nodes[0].weights].data);

  auto load_error = [](const std::string& path, int64_t h, int64_t w) -> std::string {
    try {
      load_network(path, h, w, 1);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(load_error("net.txt", 0, 0),
            "net.txt: unknown network file type 'txt' (expected .onnx, .yaml, .yml or .csv)");
  EXPECT_EQ(load_error(tiny, 32, 0),
            tiny + ": input size override 32,0 must give both height and width > 0");
  EXPECT_EQ(load_error(tiny, 1, 1),
            tiny +
                ": with input size 1x1: node 'pool1' (maxpool): window 2 larger than padded "
                "input 1 along H");
}

}  // namespace
}  // namespace strider
