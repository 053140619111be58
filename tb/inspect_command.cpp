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
#include "tb/network_summary.h"

namespace strider {
namespace {

// 1234567 -> "1,234,567"
std::string grouped(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return v < 0 ? "-" + s : s;
}

void print_table(const Graph& g, const std::vector<NetworkLayer>& rows, const GraphTotals& t,
                 std::ostream& out) {
  size_t w_name = 5, w_op = 2, w_in = 5, w_out = 6;
  for (const NetworkLayer& r : rows) {
    w_name = std::max(w_name, r.name.size());
    w_op = std::max(w_op, r.op.size());
    w_in = std::max(w_in, r.inputs.size());
    w_out = std::max(w_out, r.outputs.size());
  }
  out << "network " << g.name << ": " << g.nodes.size() << " layers, inputs " << shapes_of(g, g.inputs)
      << ", outputs " << shapes_of(g, g.outputs) << "\n";
  auto line = [&](const std::string& a, const std::string& b, const std::string& c,
                  const std::string& d, const std::string& e, const std::string& f,
                  const std::string& h) {
    out << std::left << std::setw(static_cast<int>(w_name)) << a << "  "
        << std::setw(static_cast<int>(w_op)) << b << "  " << std::setw(static_cast<int>(w_in)) << c
        << "  " << std::setw(static_cast<int>(w_out)) << d << std::right << "  " << std::setw(15)
        << e << "  " << std::setw(12) << f << "  " << std::setw(12) << h << "\n";
  };
  line("layer", "op", "input", "output", "MACs", "weight B", "activ. B");
  for (const NetworkLayer& r : rows) {
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
  if (json) {
    out << network_json(g).dump(2) << "\n";
  } else {
    std::vector<NetworkLayer> rows;
    for (const Node& n : g.nodes) rows.push_back(layer_row(g, n));
    print_table(g, rows, graph_totals(g), out);
  }
  return 0;
}

}  // namespace strider
