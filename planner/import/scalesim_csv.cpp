// SCALE-Sim topology CSV importer (format and modelling choices in scalesim_csv.h).
#include "planner/import/scalesim_csv.h"

#include <cctype>
#include <sstream>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "core/common/csv.h"
#include "core/common/input_file.h"

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
  ScaleSimReader(const std::string& path, const ScaleSimOptions& opt) : path_(path), opt_(opt) {}

  Graph read() {
    std::istringstream in(read_input_file(path_, kMaxCsvFileBytes));
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

  // True when `s` is a (possibly signed) decimal integer.
  static bool is_integer(const std::string& s) {
    size_t k = s.size() > 1 && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (k == s.size()) return false;
    for (; k < s.size(); ++k) {
      if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
    }
    return true;
  }

  // A unique layer name: a repeated one gets the suffix _2, _3, ... (the first free one).
  std::string unique_name(const std::string& layer) {
    const auto first = first_line_.emplace(layer, line_);
    if (first.second) return layer;
    std::string name;
    for (int k = 2;; ++k) {
      name = layer + "_" + std::to_string(k);
      if (first_line_.count(name) == 0) break;
    }
    first_line_.emplace(name, line_);
    graph_.warnings.push_back(path_ + ":" + std::to_string(line_) + ": layer '" + layer +
                              "' defined twice (first on line " +
                              std::to_string(first.first->second) + "), renamed '" + name + "'");
    return name;
  }

  void read_row(const std::vector<std::string>& f) {
    const std::string written = f[0];
    if (written.empty()) fail("empty layer name");
    // Numeric columns: 4 (GEMM) or 8 plus an optional column stride (conv); then optional
    // markers, each starting with '#': '#dw' makes the conv depthwise, others are ignored.
    size_t numeric = gemm_ ? 4 : 8;
    if (!gemm_ && f.size() > 8 && is_integer(f[8])) numeric = 9;
    if (f.size() < numeric) {
      fail("layer '" + written + "': " + std::to_string(f.size()) + " fields, expected " +
           (gemm_ ? std::string("4 (Layer, M, N, K)")
                  : std::string("8 (Layer name, IFMAP Height, IFMAP Width, Filter Height, "
                                "Filter Width, Channels, Num Filter, Strides) or 9 (plus "
                                "column stride)")) +
           ", then optional '#' markers");
    }
    bool depthwise = false;
    for (size_t k = numeric; k < f.size(); ++k) {
      const std::string marker = lower(f[k]);
      if (marker.empty()) continue;
      if (marker[0] != '#') {
        fail("layer '" + written + "': field " + std::to_string(k + 1) + " is '" + f[k] +
             "', expected a marker starting with '#' (e.g. #dw) after the " +
             std::to_string(numeric) + " numeric columns");
      }
      if (marker == "#dw" && !gemm_) {
        depthwise = true;
      } else if (ignored_markers_.insert(marker).second) {
        graph_.warnings.push_back(path_ + ":" + std::to_string(line_) + ": marker '" + f[k] +
                                  "' ignored (only #dw, on conv rows, has a meaning)");
      }
    }
    std::vector<int64_t> v(numeric, 0);
    for (size_t k = 1; k < numeric; ++k) v[k] = value(f, k, written);
    const std::string layer = unique_name(written);

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
      // Depthwise (#dw): as SCALE-Sim runs it, each channel convolved by its own Num Filter
      // filters: Channels x Num Filter outputs in Channels groups.
      weights = depthwise ? TensorShape{v[5] * v[6], 1, v[3], v[4]}
                          : TensorShape{v[6], v[5], v[3], v[4]};
      n.op = OpType::kConv;
      n.groups = depthwise ? static_cast<int>(v[5]) : 1;
      n.kernel_h = static_cast<int>(v[3]);
      n.kernel_w = static_cast<int>(v[4]);
      n.stride_h = static_cast<int>(v[7]);
      n.stride_w = static_cast<int>(numeric == 9 ? v[8] : v[7]);
      if (v[3] > v[1] || v[4] > v[2]) {
        fail("layer '" + layer + "': filter " + std::to_string(v[3]) + "x" + std::to_string(v[4]) +
             " larger than IFMAP " + std::to_string(v[1]) + "x" + std::to_string(v[2]));
      }
      if (opt_.output_size == ScaleSimOptions::OutputSize::kCeil) {
        // SCALE-Sim's output size ceil((IFMAP - Filter) / Stride) + 1: a last, partial window
        // reaches into zero padding below and to the right.
        n.pad_bottom = static_cast<int>((n.stride_h - (v[1] - v[3]) % n.stride_h) % n.stride_h);
        n.pad_right = static_cast<int>((n.stride_w - (v[2] - v[4]) % n.stride_w) % n.stride_w);
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
        n->pad_top = static_cast<int>(dh / 2);
        n->pad_bottom += static_cast<int>(dh / 2);
        n->pad_left = static_cast<int>(dw / 2);
        n->pad_right += static_cast<int>(dw / 2);
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
  ScaleSimOptions opt_;
  Graph graph_;
  int line_ = 0;
  bool gemm_ = false;
  std::unordered_map<std::string, int> first_line_;  // layer name -> line defining it
  std::set<std::string> ignored_markers_;
};

}  // namespace

Graph import_scalesim_csv(const std::string& path, const ScaleSimOptions& opt) {
  return ScaleSimReader(path, opt).read();
}

bool parse_scalesim_output_size(const std::string& s, ScaleSimOptions::OutputSize* out) {
  if (s == "ceil") {
    *out = ScaleSimOptions::OutputSize::kCeil;
  } else if (s == "floor") {
    *out = ScaleSimOptions::OutputSize::kFloor;
  } else {
    return false;
  }
  return true;
}

}  // namespace strider
