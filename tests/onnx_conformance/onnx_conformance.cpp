// ONNX conformance: runs ONNX's own backend test cases (Debian's libonnx-testdata: the node,
// pytorch-converted, pytorch-operator and simple suites, each case a model.onnx with
// test_data_set_*/input_*.pb and output_*.pb) through Strider's importer and float reference.
//
// A case is
// - passed: it imports and the float reference (planner/quant/float_reference.h) gives every
//   expected output within |got - want| <= kAbsTol + kRelTol x |want| (ONNX's backend runner
//   uses rtol 1e-3; the float reference sums in float in its own order);
// - refused: the importer throws a message that names the file and the operator (its op type),
//   the opset or the graph input / output at fault;
// - failed: it imports but an output differs, the float reference cannot run it, or the refusal
//   names none of those (an unclear message). Any failed case makes the program exit 1.
//
// Graph inputs: the case's input_k.pb binds the k-th graph input that is not an initializer;
// their dims replace the model's (symbolic ones included). A graph input the importer reads as
// a constant or a parameter (a conv's W, Gather's indices, Reshape's shape) is turned into an
// initializer holding the case's values and the model imported again, so weights have data.
//
// Usage: onnx_conformance [--data DIR] [--markdown] [--verbose]
//   --data: the suites' folder (default: libonnx-testdata's /usr/share/libonnx-testdata/data)
//   --markdown: print the table of docs/onnx-conformance.md instead of the summary
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "planner/import/onnx_import_context.h"
#include "planner/import/onnx_importer.h"
#include "planner/quant/float_reference.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

constexpr double kAbsTol = 1e-5, kRelTol = 1e-3;
const char* const kSuites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};

enum class Status { kPassed, kRefused, kFailed };

struct Case {
  std::string suite, name;
  std::vector<std::string> ops;  // distinct op types of the model's nodes, in order
  Status status = Status::kFailed;
  std::string reason;  // refused / failed: why
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

onnx::TensorProto read_tensor(const fs::path& p) {
  onnx::TensorProto t;
  if (!t.ParseFromString(read_file(p)))
    throw std::runtime_error(p.string() + ": not a TensorProto");
  return t;
}

struct DataSet {
  std::vector<onnx::TensorProto> inputs, outputs;
};

std::vector<DataSet> read_data_sets(const fs::path& dir) {
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  std::vector<DataSet> out;
  for (const fs::path& s : sets) {
    DataSet d;
    for (int k = 0; fs::exists(s / ("input_" + std::to_string(k) + ".pb")); ++k) {
      d.inputs.push_back(read_tensor(s / ("input_" + std::to_string(k) + ".pb")));
    }
    for (int k = 0; fs::exists(s / ("output_" + std::to_string(k) + ".pb")); ++k) {
      d.outputs.push_back(read_tensor(s / ("output_" + std::to_string(k) + ".pb")));
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<double> values_of(const onnx::TensorProto& t, std::vector<int64_t>* dims) {
  std::vector<double> data;
  bool has_data = false;
  onnx_import::decode_tensor(t, "tensor '" + t.name() + "'", dims, &data, &has_data);
  return data;
}

// The graph inputs that are not initializers, in order (input_k.pb binds the k-th).
std::vector<onnx::ValueInfoProto*> free_inputs(onnx::ModelProto* m) {
  std::set<std::string> inits;
  for (const auto& i : m->graph().initializer()) inits.insert(i.name());
  std::vector<onnx::ValueInfoProto*> out;
  for (auto& in : *m->mutable_graph()->mutable_input()) {
    if (!inits.count(in.name())) out.push_back(&in);
  }
  return out;
}

// The model with its free inputs sized as the data set's and those named in `constants` turned
// into initializers holding the data set's values.
std::string rewrite(onnx::ModelProto m, const DataSet& d, const std::set<std::string>& constants) {
  const std::vector<onnx::ValueInfoProto*> ins = free_inputs(&m);
  for (size_t k = 0; k < ins.size() && k < d.inputs.size(); ++k) {
    if (constants.count(ins[k]->name())) {
      onnx::TensorProto* t = m.mutable_graph()->add_initializer();
      *t = d.inputs[k];
      t->set_name(ins[k]->name());
      continue;
    }
    if (!ins[k]->type().has_tensor_type()) continue;
    auto* shape = ins[k]->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t v : d.inputs[k].dims()) shape->add_dim()->set_dim_value(v);
  }
  return m.SerializeAsString();
}

// Imports the case's model for data set `d`; a free input the importer did not make a graph
// input (a parameter or a constant) is made an initializer and the model imported again.
Graph import_case(const onnx::ModelProto& m, const DataSet& d, const std::string& label) {
  onnx::ModelProto copy = m;
  std::vector<std::string> names;
  for (const onnx::ValueInfoProto* in : free_inputs(&copy)) names.push_back(in->name());
  try {
    Graph g = import_onnx_bytes(rewrite(m, d, {}), label);
    std::set<std::string> used, params;
    for (int t : g.inputs) used.insert(g.tensors[size_t(t)].name);
    for (const std::string& n : names) {
      if (!used.count(n)) params.insert(n);
    }
    return params.empty() ? g : import_onnx_bytes(rewrite(m, d, params), label);
  } catch (const std::runtime_error& first) {
    // Inputs after the first may be constants the importer needs with data (shapes, indices,
    // weights): import again with them as initializers; if that fails too, report the first
    // error unless it was about such a constant.
    if (names.size() < 2) throw;
    try {
      return import_onnx_bytes(rewrite(m, d, {names.begin() + 1, names.end()}), label);
    } catch (const std::runtime_error&) {
      if (std::string(first.what()).find("has no data") == std::string::npos) throw first;
      throw;
    }
  }
}

// Real clip bounds of kClip / kRelu6 nodes as imported (the calibrator's reading).
std::vector<std::pair<float, float>> clip_bounds(const Graph& g) {
  std::vector<std::pair<float, float>> b;
  for (const Node& n : g.nodes) {
    b.push_back({float(n.clip_min) / kActivationScale, float(n.clip_max) / kActivationScale});
  }
  return b;
}

// The IR index of each element of the ONNX tensor of g's tensor t, in ONNX's row-major order
// (Graph::onnx_layouts; the identity for a tensor laid out as NCHW).
std::vector<size_t> ir_order(const Graph& g, int t) {
  const TensorShape& s = g.tensors[size_t(t)].shape;
  std::vector<size_t> order;
  const auto it = g.onnx_layouts.find(t);
  if (it == g.onnx_layouts.end()) {
    for (int64_t i = 0; i < s.elements(); ++i) order.push_back(size_t(i));
    return order;
  }
  const Graph::OnnxLayout& l = it->second;
  std::vector<int64_t> index(l.dims.size(), 0);
  int64_t count = 1;
  for (int64_t d : l.dims) count *= d;
  for (int64_t e = 0; e < count; ++e) {
    int64_t c = 0, p = 0;
    for (size_t k = 0; k < index.size(); ++k)
      c += index[k] * l.cstride[k], p += index[k] * l.pstride[k];
    order.push_back(size_t(c * s.h * s.w + p));
    for (size_t k = index.size(); k-- > 0;) {  // next row-major index
      if (++index[k] < l.dims[k]) break;
      index[k] = 0;
    }
  }
  return order;
}

// Empty when every output matches, else what differs.
std::string run_case(const Graph& g, const DataSet& d) {
  FloatReference ref(g, clip_bounds(g), 1);
  for (int t : g.inputs) {
    const Tensor& x = g.tensors[size_t(t)];
    bool found = false;
    for (const onnx::TensorProto& in : d.inputs) {
      if (in.name() != x.name) continue;
      std::vector<int64_t> dims;
      const std::vector<double> v = values_of(in, &dims);
      const std::vector<size_t> order = ir_order(g, t);
      if (order.size() != v.size()) {
        return "input '" + x.name + "' has " + std::to_string(v.size()) + " values, the IR " +
               std::to_string(order.size());
      }
      std::vector<float> ir(size_t(x.shape.elements()), 0.0f);
      for (size_t i = 0; i < v.size(); ++i) ir.at(order[i]) = float(v[i]);
      ref.set_input(t, std::move(ir));
      found = true;
    }
    if (!found) {
      if (x.float_data.size() != size_t(x.shape.elements())) {
        return "graph input '" + x.name + "' has no value in the data set";
      }
      ref.set_input(t, x.float_data);
    }
  }
  ref.run();
  if (g.outputs.size() != d.outputs.size()) {
    return std::to_string(g.outputs.size()) + " outputs, expected " +
           std::to_string(d.outputs.size());
  }
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    std::vector<int64_t> dims;
    const std::vector<double> want = values_of(d.outputs[k], &dims);
    const std::vector<float>& ir = ref.value(g.outputs[k]);
    const std::vector<size_t> order = ir_order(g, g.outputs[k]);
    std::vector<float> got;
    for (size_t i : order) got.push_back(ir.at(i));
    if (got.size() != want.size()) {
      return "output " + std::to_string(k) + " has " + std::to_string(got.size()) +
             " values, expected " + std::to_string(want.size());
    }
    for (size_t i = 0; i < want.size(); ++i) {
      if (!(std::fabs(got[i] - want[i]) <= kAbsTol + kRelTol * std::fabs(want[i]))) {
        std::ostringstream s;
        s << "output " << k << " value " << i << " is " << got[i] << ", expected " << want[i];
        return s.str();
      }
    }
  }
  return "";
}

// The refusal without the file and node prefix (and the list of supported ops).
std::string short_reason(const std::string& what, const std::string& label) {
  std::string r = what.rfind(label + ": ", 0) == 0 ? what.substr(label.size() + 2) : what;
  if (r.rfind("node '", 0) == 0) {  // "node 'name' (Op): what" -> "Op: what"
    const size_t open = r.find("' ("), close = r.find("): ");
    const size_t quote = r.find("': ");
    if (open != std::string::npos && close != std::string::npos && open < close) {
      r = r.substr(open + 3, close - open - 3) + ": " + r.substr(close + 3);
    } else if (quote != std::string::npos) {
      r = r.substr(quote + 3);
    }
  }
  const size_t list = r.find(" (supported: ");
  if (list != std::string::npos) r = r.substr(0, list);
  return r;
}

// A refusal is clear when it names the file and the operator at fault (the importer's "node
// 'name' (OpType): ..." or "unsupported op type 'T'"), the opset or a graph input / output.
bool clear_refusal(const std::string& what, const std::string& label) {
  if (what.rfind(label + ": ", 0) != 0) return false;
  const std::string r = what.substr(label.size() + 2);
  const size_t op = r.rfind("node '", 0) == 0 ? r.find("' (") : std::string::npos;
  const bool names_op = op != std::string::npos && r.find("): ", op) != std::string::npos;
  return names_op || r.find("unsupported op type '") != std::string::npos ||
         r.find("opset") != std::string::npos || r.find("graph input '") != std::string::npos ||
         r.find("graph output '") != std::string::npos;
}

Case run_one(const std::string& suite, const fs::path& dir) {
  Case c;
  c.suite = suite;
  c.name = dir.filename().string();
  const std::string label = suite + "/" + c.name;
  onnx::ModelProto m;
  if (!m.ParseFromString(read_file(dir / "model.onnx"))) {
    c.reason = "model.onnx does not parse";
    return c;
  }
  for (const auto& n : m.graph().node()) {
    if (std::find(c.ops.begin(), c.ops.end(), n.op_type()) == c.ops.end())
      c.ops.push_back(n.op_type());
  }
  try {
    std::vector<DataSet> sets = read_data_sets(dir);
    if (sets.empty()) throw std::logic_error("no test_data_set_*");
    const std::vector<onnx::ValueInfoProto*> free = free_inputs(&m);
    for (DataSet& d : sets) {  // input_k.pb is the k-th free input (some leave its name out)
      for (size_t k = 0; k < d.inputs.size() && k < free.size(); ++k) {
        d.inputs[k].set_name(free[k]->name());
      }
    }
    for (const DataSet& d : sets) {
      Graph g;
      try {
        g = import_case(m, d, label);
      } catch (const std::runtime_error& e) {
        c.status = clear_refusal(e.what(), label) ? Status::kRefused : Status::kFailed;
        c.reason = c.status == Status::kRefused ? short_reason(e.what(), label)
                                                : std::string("unclear refusal: ") + e.what();
        return c;
      }
      c.reason = run_case(g, d);
      if (!c.reason.empty()) return c;
    }
    c.status = Status::kPassed;
  } catch (const std::exception& e) {
    c.status = Status::kFailed;
    c.reason = std::string("exception: ") + e.what();
  }
  return c;
}

// The operator a case tests: its node's op type; a function's expansion (test_X_expanded) is
// counted under the op of test_X; other multi-node models under their op types joined by '+'.
std::string op_key(const Case& c, const std::map<std::string, const Case*>& by_name) {
  if (c.ops.size() == 1) return c.ops[0];
  const std::string suffix = "_expanded";
  if (c.name.size() > suffix.size() &&
      c.name.compare(c.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const auto it = by_name.find(c.name.substr(0, c.name.size() - suffix.size()));
    if (it != by_name.end() && it->second->ops.size() == 1)
      return it->second->ops[0] + " (expanded)";
  }
  std::string k;
  for (const std::string& op : c.ops) k += (k.empty() ? "" : "+") + op;
  return k;
}

std::string md_escape(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|')
      out += "\\|";
    else if (ch != '\n')
      out += ch;
  }
  return out.size() > 110 ? out.substr(0, 107) + "..." : out;
}

struct Row {
  int cases = 0, passed = 0, refused = 0, failed = 0;
  std::map<std::string, int> reasons;  // refusal / failure -> cases
};

void print_markdown(const std::vector<Case>& cases) {
  std::map<std::string, std::map<std::string, Row>> table;  // suite -> op -> row
  std::map<std::string, const Case*> names;
  for (const Case& c : cases) names[c.name] = &c;
  int passed = 0, refused = 0, failed = 0;
  for (const Case& c : cases) {
    Row& r = table[c.suite][c.suite == "node" ? op_key(c, names) : c.name];
    ++r.cases;
    if (c.status == Status::kPassed) ++r.passed, ++passed;
    if (c.status == Status::kRefused) ++r.refused, ++refused;
    if (c.status == Status::kFailed) ++r.failed, ++failed;
    if (c.status != Status::kPassed) ++r.reasons[c.reason];
  }
  std::printf(
      "%zu cases: %d passed, %d refused, %d failed (tolerance |got - want| <= %g + %g "
      "|want|).\n",
      cases.size(), passed, refused, failed, kAbsTol, kRelTol);
  for (const auto& [suite, rows] : table) {
    std::printf(
        "\n### %s\n\n| %s | cases | passed | refused | failed | why (cases) |\n"
        "|---|---:|---:|---:|---:|---|\n",
        suite.c_str(), suite == "node" ? "operator" : "case");
    for (const auto& [key, r] : rows) {
      std::string why;
      for (const auto& [reason, n] : r.reasons) {
        why += (why.empty() ? "" : "; ") + md_escape(reason) +
               (n > 1 ? " (" + std::to_string(n) + ")" : "");
      }
      if (why.size() > 240) why = why.substr(0, 237) + "...";
      std::printf("| %s | %d | %d | %d | %d | %s |\n", md_escape(key).c_str(), r.cases, r.passed,
                  r.refused, r.failed, why.c_str());
    }
  }
}

int run_main(int argc, char** argv) {
  std::string data = "/usr/share/libonnx-testdata/data";
  bool markdown = false, verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) {
      data = argv[++i];
    } else if (a == "--markdown") {
      markdown = true;
    } else if (a == "--verbose") {
      verbose = true;
    } else {
      std::cerr << "usage: onnx_conformance [--data DIR] [--markdown] [--verbose]\n";
      return 2;
    }
  }
  if (!fs::is_directory(fs::path(data) / "node")) {
    std::cerr << "onnx_conformance: " << data
              << "/node: no such folder (install libonnx-testdata: scripts/setup.sh)\n";
    return 1;
  }
  std::vector<Case> cases;
  for (const char* suite : kSuites) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(fs::path(data) / suite)) {
      if (fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& d : dirs) {
      if (verbose) std::cerr << "case " << suite << "/" << d.filename().string() << "\n";
      cases.push_back(run_one(suite, d));
    }
  }
  int passed = 0, refused = 0, failed = 0;
  for (const Case& c : cases) {
    if (c.status == Status::kPassed) ++passed;
    if (c.status == Status::kRefused) ++refused;
    if (c.status == Status::kFailed) {
      ++failed;
      std::cerr << "FAILED " << c.suite << "/" << c.name << ": " << c.reason << "\n";
    } else if (verbose) {
      std::cerr << (c.status == Status::kPassed ? "passed " : "refused ") << c.suite << "/"
                << c.name << (c.reason.empty() ? "" : ": " + c.reason) << "\n";
    }
  }
  if (markdown) {
    print_markdown(cases);
  } else {
    std::printf("onnx_conformance: %zu cases: %d passed, %d refused, %d failed\n", cases.size(),
                passed, refused, failed);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace strider

int main(int argc, char** argv) { return strider::run_main(argc, argv); }
