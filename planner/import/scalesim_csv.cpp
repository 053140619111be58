// SCALE-Sim topology CSV importer (format and modelling choices in scalesim_csv.h).
#include "planner/import/scalesim_csv.h"

#include <cctype>
#include <fstream>
#include <set>
#include <stdexcept>
#include <vector>

#include "common/csv.h"

namespace strider {
namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Largest accepted value: keeps shape arithmetic far from overflow.
constexpr int64_t kMaxValue = int64_t{1} << 24;
constexpr int64_t kMaxElements = int64_t{1} << 40;

const char* const kConvColumns[] = {"Layer name",    "IFMAP Height", "IFMAP Width",
                                    "Filter Height", "Filter Width", "Channels",
                                    "Num Filter",    "Strides",      "Column stride"};
const char* const kGemmColumns[] = {"Layer", "M", "N", "K"};

class ScaleSimReader {
 public:
  explicit ScaleSimReader(const std::string& path) : path_(path) {}

  Graph read() {
    std::ifstream in(path_);
    if (!in) throw std::runtime_error(path_ + ": cannot open network file");
    std::string stem = path_.substr(path_.find_last_of('/') + 1);
    graph_.name = stem.substr(0, stem.find('.'));
    csv::Reader reader(in, /*trim_fields=*/true);
    std::vector<std::string> fields;
    bool have_header = false;
    while (reader.next(fields)) {
      line_ = static_cast<int>(reader.line());
      while (!fields.empty() && fields.back().empty()) fields.pop_back();  // trailing commas
      if (fields.empty()) continue;  // blank row (or only commas)
      if (!have_header) {
        read_header(fields);
        have_header = true;
      } else {
        read_row(fields);
      }
    }
    if (graph_.nodes.empty()) {
      throw std::runtime_error(path_ +
                               ": no layers (expected a header row and one row per "
                               "layer)");
    }
    const std::vector<std::vector<int>> consumers = graph_.consumers();
    for (const Node& n : graph_.nodes) {
      if (consumers[n.outputs[0]].empty()) graph_.outputs.push_back(n.outputs[0]);
    }
    try {
      validate(graph_);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(path_ + ": " + e.what());
    }
    return std::move(graph_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(path_ + ":" + std::to_string(line_) + ": " + what);
  }

  void read_header(const std::vector<std::string>& h) {
    if (h.size() >= 4 && lower(h[1]) == "m" && lower(h[2]) == "n" && lower(h[3]) == "k") {
      gemm_ = true;
    } else if (h.size() >= 8 && lower(h[1]).find("ifmap") != std::string::npos) {
      gemm_ = false;
    } else {
      fail(
          "unrecognised header: expected 'Layer name, IFMAP Height, IFMAP Width, Filter "
          "Height, Filter Width, Channels, Num Filter, Strides' or 'Layer, M, N, K'");
    }
  }

  int64_t value(const std::vector<std::string>& f, size_t k, const std::string& layer) const {
    const std::string& s = f[k];
    const char* column = gemm_ ? kGemmColumns[k] : kConvColumns[k];
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size() || v < 1 || v > kMaxValue) {
      fail("layer '" + layer + "': column '" + column + "' is '" + s +
           "', expected a positive integer up to " + std::to_string(kMaxValue));
    }
    return v;
  }

  void read_row(const std::vector<std::string>& f) {
    const std::string layer = f[0];
    if (layer.empty()) fail("empty layer name");
    const size_t min_fields = gemm_ ? 4 : 8, max_fields = gemm_ ? 4 : 9;
    if (f.size() < min_fields || f.size() > max_fields) {
      fail("layer '" + layer + "': " + std::to_string(f.size()) + " fields, expected " +
           (gemm_ ? std::string("4 (Layer, M, N, K)")
                  : std::string("8 (Layer name, IFMAP Height, IFMAP Width, Filter Height, "
                                "Filter Width, Channels, Num Filter, Strides) or 9 (plus "
                                "column stride)")));
    }
    if (!names_.insert(layer).second) fail("layer '" + layer + "' defined twice");
    std::vector<int64_t> v(f.size(), 0);
    for (size_t k = 1; k < f.size(); ++k) v[k] = value(f, k, layer);

    Node n;
    n.name = layer;
    TensorShape in, weights;
    if (gemm_) {
      const int64_t m = v[1], cols = v[2], k = v[3];
      in = TensorShape{1, k, m, 1};
      weights = TensorShape{cols, k, 1, 1};
      n.op = m == 1 ? OpType::kFullyConnected : OpType::kConv;
    } else {
      in = TensorShape{1, v[5], v[1], v[2]};
      weights = TensorShape{v[6], v[5], v[3], v[4]};
      n.op = OpType::kConv;
      n.kernel_h = static_cast<int>(v[3]);
      n.kernel_w = static_cast<int>(v[4]);
      n.stride_h = static_cast<int>(v[7]);
      n.stride_w = static_cast<int>(f.size() == 9 ? v[8] : v[7]);
      if (v[3] > v[1] || v[4] > v[2]) {
        fail("layer '" + layer + "': filter " + std::to_string(v[3]) + "x" + std::to_string(v[4]) +
             " larger than IFMAP " + std::to_string(v[1]) + "x" + std::to_string(v[2]));
      }
    }
    for (const TensorShape& s : {in, weights}) {
      int64_t elements = 1;
      for (int64_t d : {s.n, s.c, s.h, s.w}) {
        if (d > kMaxElements / elements) {
          fail("layer '" + layer + "': " + to_string(s) + " has more than " +
               std::to_string(kMaxElements) + " elements");
        }
        elements *= d;
      }
    }
    Tensor w;
    w.name = layer + ".weight";
    w.kind = TensorKind::kWeight;
    w.shape = weights;
    Tensor out;
    out.name = layer;
    try {
      n.inputs = {input_for(layer, in, &n)};
      n.weights = graph_.add_tensor(w);
      n.outputs = {graph_.add_tensor(out)};
      graph_.tensors[n.outputs[0]].shape = infer_output_shapes(graph_, n).at(0);
      graph_.add_node(n);
    } catch (const std::runtime_error& e) {
      fail("layer '" + layer + "': " + e.what());
    }
  }

  // The previous row's output when `in` is that output (plus a symmetric border smaller than
  // the filter, which becomes virtual padding), else a new graph input.
  int input_for(const std::string& layer, const TensorShape& in, Node* n) {
    if (!graph_.nodes.empty()) {
      const int prev = graph_.nodes.back().outputs[0];
      const TensorShape& p = graph_.tensors[prev].shape;
      const int64_t dh = in.h - p.h, dw = in.w - p.w;
      if (p.n == in.n && p.c == in.c && dh >= 0 && dw >= 0 && dh % 2 == 0 && dw % 2 == 0 &&
          dh < n->kernel_h && dw < n->kernel_w) {
        n->pad_top = n->pad_bottom = static_cast<int>(dh / 2);
        n->pad_left = n->pad_right = static_cast<int>(dw / 2);
        return prev;
      }
    }
    Tensor t;
    t.name = layer + ".ifmap";
    t.shape = in;
    const int id = graph_.add_tensor(t);
    graph_.inputs.push_back(id);
    return id;
  }

  std::string path_;
  Graph graph_;
  int line_ = 0;
  bool gemm_ = false;
  std::set<std::string> names_;
};

}  // namespace

Graph import_scalesim_csv(const std::string& path) { return ScaleSimReader(path).read(); }

}  // namespace strider
