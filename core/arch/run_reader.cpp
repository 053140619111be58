#include "core/arch/run_reader.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include "core/arch/config_writer.h"
#include "core/arch/allocator_names.h"

namespace strider::config {

namespace fs = std::filesystem;

std::string resolve_path(const std::string& base_dir, const std::string& written) {
  fs::path p(written);
  if (p.is_relative()) p = fs::path(base_dir) / p;
  p = p.lexically_normal();
  const fs::path rel = p.lexically_relative(fs::current_path());
  if (!rel.empty() && *rel.begin() != "..") return rel.string();
  return p.string();
}

namespace {

// A scalar turned into the one-key map {key: scalar}, at the scalar's origin.
void wrap_scalar(ConfigNode& node, const std::string& key) {
  if (!node.is_scalar()) return;
  ConfigNode map = ConfigNode::make_map(node.origin);
  map.put(key, node.origin, node);
  node = std::move(map);
}

}  // namespace

std::string file_problem(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return "file not found: " + path;
  if (fs::is_directory(path, ec)) return "is a directory, expected a file: " + path;
  return "";
}

void normalize_run_tree(ConfigNode& root) {
  if (ConfigNode* arch = root.find("arch")) wrap_scalar(*arch, "file");
  if (ConfigNode* networks = root.find("networks"); networks != nullptr && networks->is_list()) {
    for (ConfigNode& item : networks->children) wrap_scalar(item, "path");
  }
}

namespace {

std::string item_path(size_t i) { return "networks[" + std::to_string(i) + "]"; }

// `input: [H, W]`, both positive.
void read_input(const ConfigNode& v, const std::string& key, NetworkSpec& spec, OriginMap& origins,
                Diagnostics& diags) {
  if (!v.is_list() || v.children.size() != 2) {
    diags.error(v.origin, key, "expected [H, W] (two positive integers), got " + v.describe());
    return;
  }
  uint64_t hw[2] = {0, 0};
  bool ok = true;
  for (size_t i = 0; i < 2; ++i) {
    const std::string k = key + "[" + std::to_string(i) + "]";
    const ConfigNode& item = v.children[i];
    if (!to_unsigned(item, k, std::numeric_limits<int64_t>::max(), diags, hw[i])) {
      ok = false;
    } else if (hw[i] == 0) {
      diags.error(item.origin, k, "must be at least 1, got 0");
      ok = false;
    }
  }
  if (!ok) return;
  origins.record(key, v.origin);
  spec.input_h = static_cast<int64_t>(hw[0]);
  spec.input_w = static_cast<int64_t>(hw[1]);
}

void read_networks(const ConfigNode* list, const Origin& file, RunConfig& run, OriginMap& origins,
                   Diagnostics& diags) {
  if (list == nullptr) {
    diags.error(file, "networks", "required key is missing, a run needs at least one network");
    return;
  }
  if (!list->is_list()) {
    diags.error(list->origin, "networks", "expected a list of networks, got " + list->describe());
    return;
  }
  if (list->children.empty()) {
    diags.error(list->origin, "networks", "must list at least one network");
    return;
  }
  for (size_t i = 0; i < list->children.size(); ++i) {
    const ConfigNode& item = list->children[i];
    const std::string key = item_path(i);
    NetworkSpec spec;
    const ConfigNode* path = nullptr;
    if (item.is_map()) {
      FieldReader r(&item, key, diags, origins);
      path = r.child("path");
      r.read("name", spec.name);
      if (const ConfigNode* input = r.child("input")) {
        read_input(*input, key + ".input", spec, origins, diags);
      }
      r.read("seed", spec.seed);
      r.read("batch", spec.batch);
      if (spec.batch == 0 && item.find("batch") != nullptr && !origins.invalid(key + ".batch")) {
        diags.error(item.find("batch")->origin, key + ".batch", "must be at least 1, got 0");
      }
      FieldReader scalesim = r.section("scalesim");
      scalesim.read_choice("output_size", spec.scalesim_output_size, {"ceil", "floor"});
      scalesim.finish();
      r.finish();
      if (path == nullptr) diags.error(item.origin, key + ".path", "required key is missing");
    } else {
      diags.error(
          item.origin, key,
          "expected a network path or a map {path, name, input, seed, batch, scalesim}, got " + item.describe());
    }
    const std::string path_key = key + ".path";
    std::string written;
    if (path != nullptr && to_string(*path, path_key, diags, written)) {
      spec.path = resolve_path(path->origin.base_dir, written);
      const std::string problem = file_problem(spec.path);
      if (!problem.empty()) diags.error(path->origin, path_key, problem);
      if (spec.name.empty() && item.find("name") == nullptr) {
        spec.name = fs::path(spec.path).stem().string();
      }
    }
    const ConfigNode* name_node = item.find("name");
    const Origin where = name_node != nullptr ? name_node->origin : item.origin;
    if (spec.name.empty() && name_node != nullptr && !origins.invalid(key + ".name")) {
      diags.error(where, key + ".name", "must not be empty");
    }
    for (size_t j = 0; j < run.networks.size() && !spec.name.empty(); ++j) {
      if (run.networks[j].name == spec.name) {
        diags.error(where, key + ".name",
                    "duplicate network name \"" + spec.name + "\" (also " + item_path(j) +
                        "); give each network a distinct name");
        break;
      }
    }
    run.networks.push_back(spec);
  }
}

// `key: [v, ...]` or `key: v` (one value for every channel): finite numbers; std values > 0.
void read_numbers(FieldReader& r, const std::string& key, bool positive, std::vector<double>& out,
                  Diagnostics& diags) {
  const ConfigNode* v = r.child(key);
  if (v == nullptr) return;
  const std::string path = r.path_of(key);
  std::vector<const ConfigNode*> items;
  if (v->is_list()) {
    for (const ConfigNode& c : v->children) items.push_back(&c);
  } else {
    items.push_back(v);
  }
  if (items.empty()) {
    diags.error(v->origin, path, "expected a number or a list of numbers, one per channel, got []");
    return;
  }
  std::vector<double> values;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string k = v->is_list() ? path + "[" + std::to_string(i) + "]" : path;
    double d = 0;
    if (!to_double(*items[i], k, diags, d)) return;
    if (!std::isfinite(d) || (positive && !(d > 0))) {
      diags.error(items[i]->origin, k,
                  std::string("expected a finite number") + (positive ? " > 0" : "") + ", got " +
                      format_number(d));
      return;
    }
    values.push_back(d);
  }
  out = values;
}

void read_quant(FieldReader& top, const Origin& file, RunConfig& run, Diagnostics& diags) {
  OriginMap& origins = top.origins();
  FieldReader q = top.section("quant");
  {
    FieldReader c = q.section("calibration");
    c.read("inputs", run.quant.calibration.inputs);
    c.read("count", run.quant.calibration.count);
    c.read_choice("method", run.quant.method, {"mse", "minmax", "percentile", "entropy"});
    c.read("percentile", run.quant.percentile);
    c.read("output_headroom", run.quant.output_headroom);
    c.read("bias_correction", run.quant.bias_correction);
    c.finish();
    if (!(run.quant.output_headroom >= 1 && std::isfinite(run.quant.output_headroom)) &&
        !origins.invalid("quant.calibration.output_headroom")) {
      diags.error(origins.locate("quant.calibration.output_headroom", file),
                  "quant.calibration.output_headroom",
                  "expected a finite factor >= 1, got " + format_number(run.quant.output_headroom));
    }
    if (!(run.quant.percentile > 0 && run.quant.percentile <= 100) &&
        !origins.invalid("quant.calibration.percentile")) {
      diags.error(origins.locate("quant.calibration.percentile", file), "quant.calibration.percentile",
                  "expected a percentage in (0, 100], got " + format_number(run.quant.percentile));
    }
  }
  {
    FieldReader e = q.section("evaluation");
    e.read("inputs", run.quant.evaluation.inputs);
    e.read("count", run.quant.evaluation.count);
    e.finish();
  }
  {
    FieldReader p = q.section("preprocess");
    Preprocess& pre = run.quant.preprocess;
    p.read("resize", pre.resize);
    read_numbers(p, "mean", false, pre.mean, diags);
    read_numbers(p, "std", true, pre.std, diags);
    p.read_choice("channels", pre.channels, {"rgb", "bgr"});
    p.read_choice("layout", pre.layout, {"nchw", "nhwc"});
    p.finish();
  }
  q.read("unsigned_activations", run.quant.unsigned_activations);
  q.finish();
  // Paths written relative to the run file (or the directory of a --set).
  const std::pair<const char*, InputSet*> sets[] = {{"quant.calibration.inputs", &run.quant.calibration},
                                                    {"quant.evaluation.inputs", &run.quant.evaluation}};
  for (const auto& [key, set] : sets) {
    const Origin* o = origins.find(key);
    if (!set->inputs.empty() && o != nullptr) set->inputs = resolve_path(o->base_dir, set->inputs);
  }
}

}  // namespace

void read_run_fields(FieldReader& top, const Origin& file, RunConfig& run, Diagnostics& diags) {
  OriginMap& origins = top.origins();
  read_networks(top.child("networks"), file, run, origins, diags);
  top.read_choice("execution", run.execution, {"serial", "concurrent"});
  {
    FieldReader s = top.section("planner");
    // Checked here, with the file and line, together with every other config error.
    s.read_choice("allocator", run.planner.allocator, allocator_names());
    s.read_choice("schedule", run.planner.schedule, {"dfs", "memory"});
    s.read("time_limit_s", run.planner.time_limit_s);
    s.read_choice("image_segments", run.planner.image_segments, {"auto", "none", "whole"});
    s.finish();
    if (!(run.planner.time_limit_s > 0) && !origins.invalid("planner.time_limit_s")) {
      diags.error(origins.locate("planner.time_limit_s", file), "planner.time_limit_s",
                  "must be greater than 0, got " + format_number(run.planner.time_limit_s));
    }
  }
  {
    FieldReader s = top.section("sim");
    s.read("functional", run.sim.functional);
    s.read("trace", run.sim.trace);
    s.read("vcd", run.sim.vcd);
    s.read("watchdog_cycles", run.sim.watchdog_cycles);
    s.read_choice("detail", run.sim.detail, {"full", "layers"});
    s.read("trace_max_slices", run.sim.trace_max_slices);
    s.finish();
    if (run.sim.trace_max_slices == 0) {
      diags.error(origins.locate("sim.trace_max_slices", file), "sim.trace_max_slices",
                  "must be at least 1, got 0");
    }
    if (run.sim.watchdog_cycles == 0) {
      diags.error(origins.locate("sim.watchdog_cycles", file), "sim.watchdog_cycles",
                  "must be at least 1, got 0");
    }
  }
  read_quant(top, file, run, diags);
  top.read("output_dir", run.output_dir);
  if (run.output_dir.empty() && !origins.invalid("output_dir")) {
    diags.error(origins.locate("output_dir", file), "output_dir", "must not be empty");
  }
}

}  // namespace strider::config
