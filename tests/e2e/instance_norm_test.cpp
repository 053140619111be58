// ONNX InstanceNormalization (planner/import/onnx_ops_norm.cpp) end to end: a model built here
// through the ONNX protobuf (Conv 3 -> 8, InstanceNormalization, Relu, Conv 1x1 8 -> 4) imports
// as one kInstanceNorm node, its bad parameters are refused naming the node, it plans to
// vector-unit tiles that read every row of their channels, and it simulates in timing and
// functional mode with every layer equal to the integer reference (tb/reference.cpp), also with
// an L2 so small that the norm's tensors spill and run through row bands.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "planner/import/onnx_importer.h"
#include "planner/lower/descriptor_validator.h"
#include "tb/run_harness.h"
#include "tests/e2e/child_run.h"
#include "tests/lib/error_text.h"

namespace strider {
namespace {

void add_floats(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims,
                const std::function<float(size_t)>& value) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  size_t n = 1;
  for (int64_t d : dims) t->add_dims(d), n *= size_t(d);
  for (size_t i = 0; i < n; ++i) t->add_float_data(value(i));
}

void add_value(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims) {
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
}

struct ModelSpec {
  int64_t h = 16, w = 12;
  float epsilon = 1e-3f;
  int64_t scale_values = 8;
  float scale0 = 1.5f;
  int64_t rank = 4;
};

// Writes the model to a temporary file; returns its path.
std::string write_model(const ModelSpec& s, const std::string& tag) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("instnorm");
  std::vector<int64_t> in = {1, 3, s.h, s.w};
  if (s.rank == 3) in = {1, 3, s.h * s.w};
  add_value(g->add_input(), "x", in);
  add_value(g->add_output(), "y", {1, 4, s.h, s.w});
  add_floats(g, "w1", {8, 3, 3, 3}, [](size_t i) { return float(int(i * 7 % 11) - 5) / 8.0f; });
  add_floats(g, "scale", {s.scale_values},
             [&](size_t i) { return i ? 0.25f * float(i) : s.scale0; });
  add_floats(g, "bias", {8}, [](size_t i) { return 0.5f - 0.125f * float(i); });
  add_floats(g, "w2", {4, 8, 1, 1}, [](size_t i) { return float(int(i * 5 % 9) - 4) / 4.0f; });
  onnx::NodeProto* conv = g->add_node();
  conv->set_name("conv1"), conv->set_op_type("Conv");
  conv->add_input("x"), conv->add_input("w1"), conv->add_output("c1");
  onnx::AttributeProto* pads = conv->add_attribute();
  pads->set_name("pads"), pads->set_type(onnx::AttributeProto::INTS);
  for (int k = 0; k < 4; ++k) pads->add_ints(1);
  onnx::NodeProto* norm = g->add_node();
  norm->set_name("inorm"), norm->set_op_type("InstanceNormalization");
  norm->add_input("c1"), norm->add_input("scale"), norm->add_input("bias"), norm->add_output("n1");
  onnx::AttributeProto* eps = norm->add_attribute();
  eps->set_name("epsilon"), eps->set_type(onnx::AttributeProto::FLOAT), eps->set_f(s.epsilon);
  onnx::NodeProto* relu = g->add_node();
  relu->set_name("relu"), relu->set_op_type("Relu");
  relu->add_input("n1"), relu->add_output("r1");
  onnx::NodeProto* conv2 = g->add_node();
  conv2->set_name("conv2"), conv2->set_op_type("Conv");
  conv2->add_input("r1"), conv2->add_input("w2"), conv2->add_output("y");
  if (s.rank == 3) {  // the norm straight on the [1, 3, L] input
    onnx::NodeProto only = *norm;
    only.set_input(0, "x");
    g->clear_node();
    g->clear_output();
    add_value(g->add_output(), "n1", {1, 3, s.h * s.w});
    *g->add_node() = only;
  }
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("strider_instnorm_" + tag + "_" + std::to_string(::getpid()) + ".onnx"))
          .string();
  std::ofstream out(path, std::ios::binary);
  m.SerializeToOstream(&out);
  return path;
}

std::string import_error(const ModelSpec& s, const std::string& tag) {
  const std::string path = write_model(s, tag);
  const std::string what = error_text([&] { import_onnx(path); });
  std::filesystem::remove(path);
  return what.substr(what.find(": ") + 2);  // after the file name
}

TEST(InstanceNorm, ImportsAsOneVectorOp) {
  const std::string path = write_model(ModelSpec{}, "import");
  const Graph g = import_onnx(path);
  std::filesystem::remove(path);
  ASSERT_EQ(g.nodes.size(), 4u);  // conv1, the norm, the Relu, conv2
  const Node& n = g.nodes[1];
  EXPECT_EQ(n.op, OpType::kInstanceNorm);
  EXPECT_EQ(n.name, "inorm");
  EXPECT_EQ(n.epsilon, double(1e-3f));
  EXPECT_EQ(g.tensors[n.weights].shape, (TensorShape{8, 1, 1, 1}));
  EXPECT_EQ(norm_length(g, n), 16 * 12);
}

TEST(InstanceNorm, BadParametersAreRefusedNamingTheNode) {
  ModelSpec s;
  s.epsilon = 0;
  EXPECT_EQ(import_error(s, "eps0"),
            "node 'inorm' (InstanceNormalization): epsilon 0, expected a finite value > 0");
  s.epsilon = -1;
  EXPECT_EQ(import_error(s, "epsneg"),
            "node 'inorm' (InstanceNormalization): epsilon -1, expected a finite value > 0");
  s = ModelSpec{};
  s.scale_values = 6;
  EXPECT_EQ(import_error(s, "scale6"),
            "node 'inorm' (InstanceNormalization): parameter 'scale' has 6 values, expected 8 "
            "(one per channel)");
  s = ModelSpec{};
  s.scale0 = std::numeric_limits<float>::infinity();
  EXPECT_EQ(import_error(s, "scaleinf"),
            "node 'inorm' (InstanceNormalization): parameter 'scale' holds inf, expected finite "
            "values");
  s = ModelSpec{};
  s.rank = 3;  // [1, C, L] reads as a token sequence, which the transformer import refuses
  EXPECT_EQ(import_error(s, "rank3").substr(0, 96),
            "node 'inorm' (InstanceNormalization): InstanceNormalization of a token sequence is "
            "not supported");
  // 257 x 256 = 65,792 positions > 2^16: the vector unit's 64-bit sum of squares could overflow.
  s = ModelSpec{};
  s.h = 257, s.w = 256;
  EXPECT_EQ(import_error(s, "big"),
            "node 'inorm' (InstanceNormalization): H x W = 65792 positions per channel, at most "
            "65536 (the vector unit's integer sums of squares)");
}

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, norm_tiles = 0, norm_spilled = 0;
  uint32_t first_channels = 0, first_rows = 0, first_input_rows = 0;  // the norm's first tile
  int status = -1;
  char detail[200] = {};
};

Figures simulate(bool functional, const std::vector<std::string>& sets, const std::string& tag,
                 const ModelSpec& spec = ModelSpec{}) {
  const std::string dir = ::testing::TempDir() + "strider_instnorm_" + tag;
  ::mkdir(dir.c_str(), 0755);
  const std::string model = dir + "/m.onnx";
  std::filesystem::rename(write_model(spec, tag), model);
  const std::string run = dir + "/run.yaml";
  std::ofstream(run) << "arch: " << STRIDER_SOURCE_DIR << "/configs/arch/seed.yaml\n"
                     << "networks:\n  - {path: " << model
                     << "}\nsim: {functional: " << (functional ? "true" : "false")
                     << ", trace: false}\noutput_dir: " << dir << "/out\n";
  return simulate_in_child<Figures>(run, sets, [](const RunResult& r, Figures& f) {
    f.cycles = r.cycles;
    f.checked = r.checked_tensors;
    f.mismatches = r.mismatches;
    for (const Descriptor& d : r.lowered.list.descriptors) {
      if (d.kind != DescKind::kOp || d.op.op != OpCode::kInstanceNorm) continue;
      if (f.norm_tiles++ == 0) {
        f.first_channels = d.op.ch_end - d.op.ch_begin;
        f.first_rows = d.op.row_end - d.op.row_begin;
        f.first_input_rows = d.op.input.held_rows();
      }
      f.norm_spilled += d.op.input.rows != 0 || d.op.output.rows != 0;  // band buffers
    }
  });
}

// Layers checked: conv1, the instance norm, the Relu (a norm takes no fused activation: it runs
// on the vector unit), conv2.
TEST(InstanceNorm, TimingAndFunctionalMatchTheReference) {
  const Figures timing = simulate(false, {}, "t"), functional = simulate(true, {}, "f");
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(functional.checked, 4u);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
  EXPECT_EQ(functional.norm_tiles, 1u);  // all 8 channels, all 16 rows in L2: one tile
  EXPECT_EQ(functional.norm_spilled, 0u);
}

// With a 2 KiB L2 the 8 x 16 x 12 = 1,536-byte tensors spill: the norm runs as channel blocks
// whose in-band holds every row of its channels (each tile fills all 16), the output leaving
// through row bands.
TEST(InstanceNorm, SpilledRunsThroughBandsAndMatchesTheReference) {
  const Figures f = simulate(true, {"arch.l2.size_bytes=2048"}, "spill");
  ASSERT_EQ(f.status, 0) << f.detail;
  EXPECT_EQ(f.checked, 4u);
  EXPECT_EQ(f.mismatches, 0u) << f.detail;
  EXPECT_EQ(f.norm_spilled, f.norm_tiles);
  EXPECT_EQ(f.first_input_rows, 16u);
  EXPECT_LT(f.first_rows, 16u);  // a row band of the output
  EXPECT_EQ(f.norm_tiles, (8 / f.first_channels) * (16 / f.first_rows));
}

// A channel plane larger than the row-band buffer cannot be split into row bands (the mean and
// variance run over all of them): refused naming the node and the bytes.
TEST(InstanceNorm, APlaneLargerThanTheBandBufferIsRefused) {
  ModelSpec big;
  big.h = 64, big.w = 64;
  const Figures f = simulate(false, {"arch.l2.size_bytes=8192"}, "big", big);
  // One output row reads the channel's 64 x 64 = 4,096-byte plane; the row-band slots need
  // 10,240 bytes, more than the 8,192-byte L2.
  EXPECT_EQ(f.status, 2);
  EXPECT_STREQ(f.detail,
               "L2 of 8192 bytes is too small: row-band buffers (10240 bytes; node 'inorm' reads "
               "4096 bytes of input per output row) leave no room for activations");
}

// The validator refuses an instance norm tile whose input band lacks rows of its channels.
TEST(InstanceNorm, ValidatorRefusesARowBandInput) {
  const std::string dir = ::testing::TempDir() + "strider_instnorm_v";
  ::mkdir(dir.c_str(), 0755);
  const std::string model = dir + "/m.onnx";
  std::filesystem::rename(write_model(ModelSpec{}, "v"), model);
  const std::string run = dir + "/run.yaml";
  std::ofstream(run) << "arch: " << STRIDER_SOURCE_DIR << "/configs/arch/seed.yaml\n"
                     << "networks:\n  - {path: " << model << "}\noutput_dir: " << dir << "/out\n";
  RunResult r;
  r.config = load_run(run, {});
  plan_run(r);
  DescriptorList& l = r.lowered.list;
  Descriptor* norm = nullptr;
  for (Descriptor& d : l.descriptors) {
    if (d.kind == DescKind::kOp && d.op.op == OpCode::kInstanceNorm) norm = &d;
  }
  ASSERT_NE(norm, nullptr);
  ASSERT_NO_THROW(validate_descriptors(l, r.config.arch, "t.strd"));
  norm->op.input.first_row = 4, norm->op.input.rows = 8;  // rows [4, 12) of 16
  std::string what;
  try {
    validate_descriptors(l, r.config.arch, "t.strd");
  } catch (const DescriptorError& e) {
    what = e.what();
  }
  EXPECT_EQ(what, "t.strd: descriptor list refused: descriptor " + std::to_string(norm->id) +
                      " (layer 'inorm', instancenorm): op.input: holds rows [4, 12) of 16: "
                      "instancenorm reads every row of its channels (no row band)");
}

}  // namespace
}  // namespace strider
