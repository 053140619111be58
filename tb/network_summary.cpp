// NetworkSummary (see network_summary.h).
#include "tb/network_summary.h"

namespace strider {

std::string shapes_of(const Graph& g, const std::vector<int>& ids) {
  std::string s;
  for (int id : ids) s += (s.empty() ? "" : " ") + to_string(g.tensors[id].shape);
  return s;
}

NetworkLayer layer_row(const Graph& g, const Node& n) {
  NetworkLayer r;
  r.name = n.name;
  r.op = to_string(n.op);
  if (n.op == OpType::kConv && n.from_batchnorm) r.op = "conv(bn)";
  if (n.op == OpType::kConv && !n.from_batchnorm && n.groups > 1) {
    r.op = n.groups == g.tensors[n.inputs[0]].shape.c ? "conv(dw)"
                                                      : "conv(g" + std::to_string(n.groups) + ")";
  }
  if (n.activation != Activation::kNone) r.op += std::string("+") + to_string(n.activation);
  r.inputs = shapes_of(g, n.inputs);
  r.outputs = shapes_of(g, n.outputs);
  r.macs = node_macs(g, n);
  if (n.weights >= 0) r.weight_bytes += g.tensors[n.weights].bytes();
  if (n.bias >= 0) r.weight_bytes += g.tensors[n.bias].bytes();
  for (int o : n.outputs) r.activation_bytes += g.tensors[o].bytes();
  return r;
}

ModelQuantisation model_quantisation(const Graph& g) {
  ModelQuantisation q;
  for (const Tensor& t : g.tensors) {
    q.activation_scales += t.kind == TensorKind::kActivation && t.scale != 0;
    q.weight_tensors += t.kind == TensorKind::kWeight && !t.channel_scales.empty();
  }
  return q;
}

nlohmann::ordered_json network_json(const Graph& g) {
  std::vector<NetworkLayer> rows;
  for (const Node& n : g.nodes) rows.push_back(layer_row(g, n));
  const GraphTotals t = graph_totals(g);
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
  return j;
}

}  // namespace strider
