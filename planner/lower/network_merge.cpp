#include "planner/lower/network_merge.h"

#include <stdexcept>

#include "planner/schedule/schedule.h"

namespace strider {

MergedNetworks merge_networks(const std::vector<Graph>& nets, const std::vector<std::string>& names,
                              const std::string& schedule, const std::string& execution) {
  if (execution != "serial" && execution != "concurrent") {
    throw std::invalid_argument("execution: '" + execution + "', expected serial or concurrent");
  }
  MergedNetworks m;
  std::vector<std::vector<int>> orders;
  for (size_t k = 0; k < nets.size(); ++k) {
    const Graph& g = nets[k];
    const std::string prefix = names[k] + "/";
    const int t0 = static_cast<int>(m.graph.tensors.size());
    const int n0 = static_cast<int>(m.graph.nodes.size());
    for (Tensor t : g.tensors) {
      t.name = prefix + t.name;
      m.graph.add_tensor(std::move(t));
    }
    for (Node n : g.nodes) {
      n.name = prefix + n.name;
      for (int& t : n.inputs) t += t0;
      for (int& t : n.outputs) t += t0;
      if (n.weights >= 0) n.weights += t0;
      if (n.bias >= 0) n.bias += t0;
      // The tensors a fused max-pool or global pool names beside its node's outputs.
      for (int* t : {&n.pool.conv_output, &n.gap.output, &n.gap.conv_output}) {
        if (*t >= 0) *t += t0;
      }
      m.graph.add_node(std::move(n));
    }
    for (int t : g.inputs) m.graph.inputs.push_back(t + t0);
    for (int t : g.outputs) m.graph.outputs.push_back(t + t0);
    std::vector<int> order = schedule_nodes(g, schedule);
    for (int& i : order) i += n0;
    orders.push_back(std::move(order));
  }
  m.graph.name = names.empty() ? "" : names[0];
  for (size_t k = 1; k < names.size(); ++k) m.graph.name += "+" + names[k];
  if (execution == "serial") {
    for (const std::vector<int>& o : orders) m.order.insert(m.order.end(), o.begin(), o.end());
  } else {
    for (size_t i = 0;; ++i) {
      bool any = false;
      for (const std::vector<int>& o : orders) {
        if (i < o.size()) m.order.push_back(o[i]), any = true;
      }
      if (!any) break;
    }
  }
  return m;
}

}  // namespace strider
