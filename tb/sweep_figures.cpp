#include "tb/sweep_figures.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tb/sweep_results.h"

namespace strider {
namespace {

using Json = nlohmann::ordered_json;

Json read_summary(const std::string& out_dir) {
  const std::string path = out_dir + "/summary.json";
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": missing (the run wrote no summary)");
  try {
    return Json::parse(f);
  } catch (const Json::exception& e) {
    throw std::runtime_error(path + ": not valid JSON: " + e.what());
  }
}

// The value at a dotted path ("dram.read_bytes") as text; "" when absent.
std::string value_at(const Json& j, const std::string& key) {
  const Json* node = &j;
  size_t pos = 0;
  while (pos <= key.size()) {
    const size_t dot = key.find('.', pos);
    const std::string part =
        key.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    if (!node->is_object() || !node->contains(part)) return "";
    node = &(*node)[part];
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  if (node->is_string()) return node->get<std::string>();
  if (node->is_null() || node->is_object() || node->is_array()) return "";
  return node->dump();
}

}  // namespace

const std::vector<std::string>& sweep_metric_keys() {
  static const std::vector<std::string> kKeys = {
      "cycles",
      "seconds_at_clock",
      "macs",
      "utilization",
      "bound_cycles",
      "cycles_over_bound",
      "dram.read_bytes",
      "dram.write_bytes",
      "l2.capacity_bytes",
      "l2.peak_planned_bytes",
      "l2.peak_observed_bytes",
      "line_buffer.write_cycles",
      "line_buffer.shifted_writes",
      "line_buffer.line_writes",
      "line_buffer.discarded_outputs",
      "planner.allocator",
      "planner.peak_bytes",
      "planner.lower_bound_bytes",
      "planner.staging_bytes",
      "planner.seconds",
      "functional.mismatches",
      "descriptors",
      "wall_seconds",
      "energy.total_pj",
      "energy.dynamic_pj",
      "energy.leakage_pj",
      "energy.by_unit.dram",
      "energy.by_unit.l2",
      "energy.by_unit.l1",
      "energy.by_unit.neurons",
      "energy.onchip_pj",
      "energy.dram_pj",
      "energy.dram_background_pj",
      "power_mw",
      "power_onchip_mw",
      "power_dram_mw",
      "tops_per_watt",
      "tops_per_watt_onchip",
      "edp",
      "area_mm2.total",
  };
  return kKeys;
}

std::vector<std::string> sweep_metrics(const std::string& out_dir) {
  const Json j = read_summary(out_dir);
  std::vector<std::string> v;
  for (const std::string& k : sweep_metric_keys()) v.push_back(value_at(j, k));
  return v;
}

Figures regression_figures(const std::string& out_dir) {
  const Json j = read_summary(out_dir);
  static const std::vector<std::string> kSummaryKeys = {"cycles",
                                                        "bound_cycles",
                                                        "macs",
                                                        "dram.read_bytes",
                                                        "dram.write_bytes",
                                                        "l2.peak_planned_bytes",
                                                        "l2.peak_observed_bytes",
                                                        "line_buffer.write_cycles",
                                                        "line_buffer.shifted_writes",
                                                        "line_buffer.line_writes",
                                                        "line_buffer.discarded_outputs",
                                                        "planner.allocator",
                                                        "planner.peak_bytes",
                                                        "planner.lower_bound_bytes",
                                                        "planner.staging_bytes",
                                                        "functional.checked_tensors",
                                                        "functional.mismatches",
                                                        "deadlock",
                                                        "descriptors"};
  Figures f;
  for (const std::string& k : kSummaryKeys) {
    const std::string v = value_at(j, k);
    if (!v.empty()) f.emplace_back(k, v);
  }
  if (j.contains("stats") && j["stats"].is_object()) {
    for (const auto& kv : j["stats"].items()) {
      const Json& s = kv.value();
      const Json& v = s.is_object() && s.contains("value") ? s["value"] : s;
      if (v.is_number()) f.emplace_back("stats." + kv.key(), v.dump());
    }
  }
  const std::string layers = out_dir + "/layers.csv";
  std::ifstream lf(layers);
  csv::Reader reader(lf);
  std::vector<std::string> head, row;
  if (lf && reader.next(head)) {
    size_t name_col = head.size(), cycles_col = head.size();
    for (size_t i = 0; i < head.size(); ++i) {
      if (head[i] == "layer") name_col = i;
      if (head[i] == "cycles") cycles_col = i;
    }
    while (name_col < head.size() && cycles_col < head.size() && reader.next(row)) {
      if (row.size() == head.size())
        f.emplace_back("layer." + row[name_col] + ".cycles", row[cycles_col]);
    }
  }
  return f;
}

}  // namespace strider
