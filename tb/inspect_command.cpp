// `strider inspect` (see inspect_command.h).
#include "tb/inspect_command.h"

#include <algorithm>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/arch/strict_number.h"
#include "planner/import/network_loader.h"
#include "tb/cli_args.h"
#include "planner/ir/graph.h"

namespace strider {
namespace {

struct LayerRow {
  std::string name, op, inputs, outputs;
  int64_t macs = 0, weight_bytes = 0, activation_bytes = 0;
};

std::string shapes(const Graph& g, const std::vector<int>& ids) {
  std::string s;
  for (int id : ids) s += (s.empty() ? "" : " ") + to_string(g.tensors[id].shape);
  return s;
}

LayerRow row_of(const Graph& g, const Node& n) {
  LayerRow r;
  r.name = n.name;
  r.op = to_string(n.op);
  if (n.op == OpType::kConv && n.from_batchnorm) r.op = "conv(bn)";
  if (n.op == OpType::kConv && !n.from_batchnorm && n.groups > 1) {
    r.op = n.groups == g.tensors[n.inputs[0]].shape.c ? "conv(dw)"
                                                      : "conv(g" + std::to_string(n.groups) + ")";
  }
  if (n.activation != Activation::kNone) r.op += std::string("+") + to_string(n.activation);
  r.inputs = shapes(g, n.inputs);
  r.outputs = shapes(g, n.outputs);
  r.macs = node_macs(g, n);
  if (n.weights >= 0) r.weight_bytes += g.tensors[n.weights].bytes();
  if (n.bias >= 0) r.weight_bytes += g.tensors[n.bias].bytes();
  for (int o : n.outputs) r.activation_bytes += g.tensors[o].bytes();
  return r;
}

// An already-quantised model's own quantisation (ONNX QDQ, planner/import/onnx_ops_quant.cpp):
// activation tensors with a scale and weight tensors with per-output-channel scales.
struct ModelQuantisation {
  int activation_scales = 0, weight_tensors = 0;
};
ModelQuantisation model_quantisation(const Graph& g) {
  ModelQuantisation q;
  for (const Tensor& t : g.tensors) {
    q.activation_scales += t.kind == TensorKind::kActivation && t.scale != 0;
    q.weight_tensors += t.kind == TensorKind::kWeight && !t.channel_scales.empty();
  }
  return q;
}

// 1234567 -> "1,234,567"
std::string grouped(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return v < 0 ? "-" + s : s;
}

void print_table(const Graph& g, const std::vector<LayerRow>& rows, const GraphTotals& t,
                 std::ostream& out) {
  size_t w_name = 5, w_op = 2, w_in = 5, w_out = 6;
  for (const LayerRow& r : rows) {
    w_name = std::max(w_name, r.name.size());
    w_op = std::max(w_op, r.op.size());
    w_in = std::max(w_in, r.inputs.size());
    w_out = std::max(w_out, r.outputs.size());
  }
  out << "network " << g.name << ": " << g.nodes.size() << " layers, inputs " << shapes(g, g.inputs)
      << ", outputs " << shapes(g, g.outputs) << "\n";
  auto line = [&](const std::string& a, const std::string& b, const std::string& c,
                  const std::string& d, const std::string& e, const std::string& f,
                  const std::string& h) {
    out << std::left << std::setw(static_cast<int>(w_name)) << a << "  "
        << std::setw(static_cast<int>(w_op)) << b << "  " << std::setw(static_cast<int>(w_in)) << c
        << "  " << std::setw(static_cast<int>(w_out)) << d << std::right << "  " << std::setw(15)
        << e << "  " << std::setw(12) << f << "  " << std::setw(12) << h << "\n";
  };
  line("layer", "op", "input", "output", "MACs", "weight B", "activ. B");
  for (const LayerRow& r : rows) {
    line(r.name, r.op, r.inputs, r.outputs, grouped(r.macs), grouped(r.weight_bytes),
         grouped(r.activation_bytes));
  }
  out << "total: " << grouped(t.macs) << " conv/fc MACs, " << grouped(t.weights)
      << " conv/fc weights";
  if (t.executed_macs != t.macs) out << ", " << grouped(t.executed_macs) << " MACs executed";
  out << ", " << grouped(t.weight_bytes) << " parameter bytes, " << grouped(t.activation_bytes)
      << " activation bytes\n";
  const ModelQuantisation q = model_quantisation(g);
  if (q.activation_scales + q.weight_tensors > 0) {
    out << "quantised by the model: " << q.activation_scales << " activation scales, "
        << q.weight_tensors << " int8 weight tensors with per-output-channel scales\n";
  }
}

void print_json(const Graph& g, const std::vector<LayerRow>& rows, const GraphTotals& t,
                std::ostream& out) {
  nlohmann::ordered_json j;
  j["network"] = g.name;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    const Node& n = g.nodes[i];
    nlohmann::ordered_json l;
    l["name"] = rows[i].name;
    l["op"] = to_string(n.op);
    l["activation"] = to_string(n.activation);
    nlohmann::ordered_json ins = nlohmann::ordered_json::array(), outs = ins;
    for (int id : n.inputs) ins.push_back(to_string(g.tensors[id].shape));
    for (int id : n.outputs) outs.push_back(to_string(g.tensors[id].shape));
    l["inputs"] = ins;
    l["outputs"] = outs;
    l["macs"] = rows[i].macs;
    l["weight_bytes"] = rows[i].weight_bytes;
    l["activation_bytes"] = rows[i].activation_bytes;
    if (n.from_batchnorm) l["from_batchnorm"] = true;
    if (!n.outputs.empty() && g.tensors[n.outputs[0]].scale != 0) {
      l["output_scale"] = g.tensors[n.outputs[0]].scale;  // the model's (QuantizeLinear)
    }
    layers.push_back(l);
  }
  j["layers"] = layers;
  j["macs"] = t.macs;
  j["weights"] = t.weights;
  j["executed_macs"] = t.executed_macs;
  j["weight_bytes"] = t.weight_bytes;
  j["activation_bytes"] = t.activation_bytes;
  const ModelQuantisation q = model_quantisation(g);
  if (q.activation_scales + q.weight_tensors > 0) {
    j["model_quantisation"] = {{"activation_scales", q.activation_scales},
                               {"weight_tensors", q.weight_tensors}};
  }
  out << j.dump(2) << "\n";
}

bool parse_size(const std::string& s, int64_t* h, int64_t* w) {
  const size_t comma = s.find(',');
  if (comma == std::string::npos) return false;
  try {
    *h = parse_i64(s.substr(0, comma), "H");
    *w = parse_i64(s.substr(comma + 1), "W");
    return *h > 0 && *w > 0;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

}  // namespace

int inspect_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CliArgs cli(
      "inspect", "usage: strider inspect NETWORK [--json] [--input H,W] [--batch N]",
      "Imports a network and lists its layers: operation, input and output shapes, MACs,\n"
      "weight and activation bytes, and the totals.",
      "  NETWORK               an .onnx model, a YAML network or a SCALE-Sim topology .csv\n",
      {{"json", "", "print JSON instead of the table"},
       {"input", "H,W", "import at input height H and width W (positive integers)"},
       {"batch", "N", "import with N images (binds a symbolic batch dim)"}});
  int64_t h = 0, w = 0, batch = 0;
  try {
    if (!cli.parse(args, out)) return 0;
    if (cli.positional().empty()) throw UsageError("no network given");
    if (cli.positional().size() > 1) {
      throw UsageError("more than one network given ('" + cli.positional()[0] + "', '" +
                       cli.positional()[1] + "')");
    }
    if (cli.has("--input") && !parse_size(cli.value("--input"), &h, &w)) {
      throw UsageError("--input '" + cli.value("--input") +
                       "' is not H,W with positive integers");
    }
    if (cli.has("--batch")) {
      const std::string b = cli.value("--batch");
      if (b.empty() || b.size() > 9 || b.find_first_not_of("0123456789") != std::string::npos ||
          std::stoll(b) < 1) {
        throw UsageError("--batch '" + b + "' is not a positive integer");
      }
      batch = std::stoll(b);
    }
  } catch (const UsageError& e) {
    return cli.usage_error(e.what(), err);
  }
  const std::string path = cli.positional()[0];
  const bool json = cli.has("--json");
  Graph g;
  try {
    ImportOptions opt;
    opt.input_h = h, opt.input_w = w, opt.batch = batch;
    g = import_network(path, opt);
    for (const std::string& warning : g.warnings) err << "warning: " << warning << "\n";
  } catch (const std::exception& e) {
    err << "strider inspect: " << e.what() << "\n";
    return 1;
  }
  std::vector<LayerRow> rows;
  for (const Node& n : g.nodes) rows.push_back(row_of(g, n));
  const GraphTotals totals = graph_totals(g);
  if (json) {
    print_json(g, rows, totals, out);
  } else {
    print_table(g, rows, totals, out);
  }
  return 0;
}

}  // namespace strider
