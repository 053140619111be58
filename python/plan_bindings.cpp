// run_info and plan: a run file loaded (with `--set`-style assignments) and planned in-process,
// exactly as `strider plan` does (tb/run_plan.h): the memory plan (offsets, sizes, lifetimes in
// schedule steps), the per-layer lowering figures, the plan's figures and the descriptor list.
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/arch/config_loader.h"
#include "python/bindings.h"
#include "tb/plan_tables.h"
#include "tb/run_plan.h"

namespace py = pybind11;

namespace strider::python {
namespace {

py::dict run_info(const std::string& path, const std::vector<std::string>& sets) {
  const RunConfig cfg = load_run(path, sets);
  py::dict d;
  d["source"] = cfg.source;
  d["arch_file"] = cfg.arch_file;
  d["output_dir"] = cfg.output_dir;
  py::list nets;
  for (const NetworkSpec& n : cfg.networks) nets.append(py::make_tuple(n.name, n.path));
  d["networks"] = nets;
  d["functional"] = cfg.sim.functional;
  return d;
}

py::dict plan(const std::string& path, const std::vector<std::string>& sets) {
  PlannedRun p;
  std::ostringstream warnings;
  {
    py::gil_scoped_release release;  // planning may take the planner's time limit
    p = plan_networks(load_run(path, sets), warnings);
  }
  const Lowered& l = p.lowered;
  py::list memory_plan, lowering, models;
  for (const PlannedBuffer& b : l.plan) {
    py::dict e;
    for_each_memory_plan_field(b, [&](const char* column, const auto& v) { e[column] = v; });
    memory_plan.append(e);
  }
  for (const LayerReport& r : l.layers) {
    py::dict e;
    for_each_lowering_field(r, [&](const char* column, const auto& v) { e[column] = v; });
    lowering.append(e);
  }
  for (const ModelFigures& f : p.models) {
    py::dict e;
    e["name"] = f.name;
    e["arena_bytes"] = f.arena_bytes;
    e["weights_stored_bytes"] = f.weights_stored_bytes;
    models.append(e);
  }
  py::dict figures;
  figures["allocator"] = l.allocator;
  figures["arena_bytes"] = l.arena_bytes;
  figures["lower_bound_bytes"] = l.lower_bound_bytes;
  figures["staging_bytes"] = l.staging_bytes;
  figures["band_bytes"] = l.band_bytes;
  figures["weights_total_bytes"] = l.weights_total_bytes;
  figures["weights_stored_bytes"] = l.weights_stored_bytes;
  figures["proven_optimal"] = l.proven_optimal;
  figures["planner_seconds"] = l.planner_seconds;
  figures["descriptors"] = l.list.descriptors.size();
  py::dict d;
  d["memory_plan"] = memory_plan;
  d["lowering"] = lowering;
  d["models"] = models;
  d["figures"] = figures;
  d["warnings"] = warnings.str();
  d["list"] = py::cast(std::move(p.lowered.list));
  return d;
}

}  // namespace

void bind_plan(py::module_& m) {
  m.def("run_info", &run_info, py::arg("path"), py::arg("sets") = std::vector<std::string>{},
        "A run file's source, arch file, output_dir, networks (name, path) and functional flag.");
  m.def("plan", &plan, py::arg("path"), py::arg("sets") = std::vector<std::string>{},
        "Plans and lowers a run in-process; returns memory_plan, lowering, models, figures, "
        "warnings and list (a DescriptorList).");
}

}  // namespace strider::python
