// Opsets 18 to 21 with ONNX 1.12 (planner/import/onnx_newer_opsets.h): a model whose operators
// all kept their opset-17 version imports as opset 17 (the same graph as at opset 17, with a
// warning); one using an operator that changed after 17 is refused naming the node, the operator
// and the opsets. Models built here through the ONNX protobuf, as onnx.helper would.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/import/onnx_importer.h"
#include "planner/import/onnx_newer_opsets.h"
#include "tests/lib/error_text.h"

namespace strider {
namespace {

onnx::NodeProto* node(onnx::GraphProto* g, const std::string& name, const std::string& op,
                      const std::vector<std::string>& in, const std::string& out) {
  onnx::NodeProto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (const std::string& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

void value(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

void floats(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) t->add_dims(d), n *= d;
  for (int64_t i = 0; i < n; ++i) t->add_float_data(float(i % 7 - 3) / 4.0f);
}

// Conv 3 -> 8 (3x3, 16x16 -> 14x14), Relu, MaxPool 2x2 (7x7), then `last` (GlobalAveragePool, or an operator that
// changed after 17), at `opset`; written to a temporary file, its path returned.
std::string write_model(int opset, const std::string& last = "GlobalAveragePool") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("newer");
  value(g->add_input(), "x", {1, 3, 16, 16});
  floats(g, "w", {8, 3, 3, 3});
  node(g, "conv", "Conv", {"x", "w"}, "c");
  node(g, "relu", "Relu", {"c"}, "r");
  onnx::NodeProto* pool = node(g, "pool", "MaxPool", {"r"}, "p");
  onnx::AttributeProto* k = pool->add_attribute();
  k->set_name("kernel_shape"), k->set_type(onnx::AttributeProto::INTS);
  k->add_ints(2), k->add_ints(2);
  onnx::AttributeProto* s = pool->add_attribute();
  s->set_name("strides"), s->set_type(onnx::AttributeProto::INTS);
  s->add_ints(2), s->add_ints(2);
  if (last == "ReduceMean") {  // opset 18: the axes are an input
    onnx::TensorProto* axes = g->add_initializer();
    axes->set_name("axes"), axes->set_data_type(onnx::TensorProto::INT64);
    axes->add_dims(2), axes->add_int64_data(2), axes->add_int64_data(3);
    node(g, "mean", "ReduceMean", {"p", "axes"}, "y");
    value(g->add_output(), "y", {1, 8, 1, 1});
  } else if (last == "Reshape") {
    onnx::TensorProto* shape = g->add_initializer();
    shape->set_name("shape"), shape->set_data_type(onnx::TensorProto::INT64);
    shape->add_dims(2), shape->add_int64_data(1), shape->add_int64_data(392);
    node(g, "flat", "Reshape", {"p", "shape"}, "y");
    value(g->add_output(), "y", {1, 392});
  } else {
    node(g, "gap", last, {"p"}, "y");
    value(g->add_output(), "y", {1, 8, 1, 1});
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / ("strider_opset" + std::to_string(opset) + "_" +
                                                 last + "_" + std::to_string(::getpid()) + ".onnx"))
          .string();
  std::ofstream out(path, std::ios::binary);
  m.SerializeToOstream(&out);
  return path;
}

std::string error_of(const std::string& path) {
  const std::string what = error_text([&] { import_onnx(path); });
  std::filesystem::remove(path);
  return what;
}

TEST(NewerOpset, ChangedOperatorsAreData) {
  EXPECT_EQ(onnx_import::versions_after_17("Relu", 21), std::vector<int>{});
  EXPECT_EQ(onnx_import::versions_after_17("Conv", 21), std::vector<int>{});
  EXPECT_EQ(onnx_import::versions_after_17("ReduceMean", 18), std::vector<int>{18});
  EXPECT_EQ(onnx_import::versions_after_17("Reshape", 18), std::vector<int>{});
  EXPECT_EQ(onnx_import::versions_after_17("Reshape", 20), std::vector<int>{19});
  EXPECT_EQ(onnx_import::versions_after_17("Reshape", 21), (std::vector<int>{19, 21}));
  EXPECT_EQ(onnx_import::versions_after_17("Pad", 21), (std::vector<int>{18, 19, 21}));
  EXPECT_EQ(onnx_import::versions_after_17("Gelu", 19), std::vector<int>{});  // new at 20
  EXPECT_EQ(onnx_import::versions_after_17("Gelu", 20), std::vector<int>{20});
}

// Opsets 18 to 21 of a model whose operators all kept their opset-17 version: the same graph as
// at opset 17, and a warning saying so.
TEST(NewerOpset, UnchangedOperatorsImportAsOpset17) {
  const std::string p17 = write_model(17);
  const Graph g17 = import_onnx(p17);
  std::filesystem::remove(p17);
  EXPECT_TRUE(g17.warnings.empty());
  for (int opset = 18; opset <= 21; ++opset) {
    const std::string p = write_model(opset);
    const Graph g = import_onnx(p);
    std::filesystem::remove(p);
    ASSERT_EQ(g.nodes.size(), g17.nodes.size()) << opset;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      EXPECT_EQ(g.nodes[i].op, g17.nodes[i].op);
      EXPECT_EQ(g.tensors[g.nodes[i].outputs[0]].shape, g17.tensors[g17.nodes[i].outputs[0]].shape);
    }
    ASSERT_EQ(g.warnings.size(), 1u);
    EXPECT_EQ(g.warnings[0], p + ": opset " + std::to_string(opset) +
                                 " imported as opset 17 (none of its operators changed after 17)");
  }
  // The fixture made for the old refusal (a Relu at opset 18) now imports.
  const Graph relu =
      import_onnx(std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/err_opset18.onnx");
  EXPECT_EQ(relu.nodes.size(), 1u);
}

TEST(NewerOpset, ChangedOperatorsAreRefusedNamingNodeAndOpsets) {
  const char* tail =
      " (ONNX's library here reads opsets up to 17; a model of opsets 18 to 21 imports only when "
      "none of its operators changed after 17)";
  std::string p = write_model(18, "ReduceMean");
  EXPECT_EQ(error_of(p), p +
                             ": node 'mean' (ReduceMean): opset 18 model, and ReduceMean has a "
                             "new version at opset 18" +
                             tail);
  p = write_model(21, "Reshape");
  EXPECT_EQ(error_of(p), p +
                             ": node 'flat' (Reshape): opset 21 model, and Reshape has a new "
                             "version at opset 19, 21" +
                             tail);
  // Reshape at opset 18 is Reshape-14: imported.
  p = write_model(18, "Reshape");
  EXPECT_EQ(error_of(p), "no error");
  p = write_model(22);
  EXPECT_EQ(error_of(p), p + ": opset 22 is not supported (1 to 21; 1 to 10 are converted to 11, "
                             "18 to 21 import as 17 when none of their operators changed after "
                             "17)");
}

}  // namespace
}  // namespace strider
