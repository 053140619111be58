#include "core/arch/config_writer.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <filesystem>

#include "core/arch/energy_presets.h"

namespace strider {

namespace config {

std::string format_number(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

}  // namespace config

namespace {

void emit_arch_fields(YAML::Emitter& e, const ArchConfig& a) {
  e << YAML::Key << "name" << YAML::Value << a.name;
  e << YAML::Key << "clock" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "frequency_mhz" << YAML::Value << config::format_number(a.clock.frequency_mhz);
  e << YAML::EndMap;

  e << YAML::Key << "controller" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "prefetch_depth" << YAML::Value << a.controller.prefetch_depth;
  e << YAML::Key << "descriptor_bytes" << YAML::Value << a.controller.descriptor_bytes;
  e << YAML::Key << "decode_cycles" << YAML::Value << a.controller.decode_cycles;
  e << YAML::Key << "dispatch_cycles" << YAML::Value << a.controller.dispatch_cycles;
  e << YAML::EndMap;

  e << YAML::Key << "dma" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "channels" << YAML::Value << a.dma.channels;
  e << YAML::Key << "burst_bytes" << YAML::Value << a.dma.burst_bytes;
  e << YAML::Key << "setup_cycles" << YAML::Value << a.dma.setup_cycles;
  e << YAML::Key << "row_setup_cycles" << YAML::Value << a.dma.row_setup_cycles;
  e << YAML::Key << "background_priority" << YAML::Value << a.dma.background_priority;
  e << YAML::EndMap;

  e << YAML::Key << "dram" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "model" << YAML::Value << a.dram.model;
  // A preset given as a path is written as the file it resolved to, so the effective config
  // loads from anywhere.
  const bool preset_path = a.dram.preset.find('/') != std::string::npos ||
                           a.dram.preset.find(".yaml") != std::string::npos;
  e << YAML::Key << "preset" << YAML::Value
    << (preset_path && !a.dram.spec.file.empty() ? a.dram.spec.file : a.dram.preset);
  e << YAML::Key << "page_policy" << YAML::Value << a.dram.page_policy;
  e << YAML::Key << "scheduler" << YAML::Value << a.dram.scheduler;
  e << YAML::Key << "queue_depth" << YAML::Value << a.dram.queue_depth;
  if (a.dram.refresh_postpone != DramConfig{}.refresh_postpone)  // (the fingerprint: seed's kept)
    e << YAML::Key << "refresh_postpone" << YAML::Value << a.dram.refresh_postpone;
  if (a.dram.row_hit_cap != DramConfig{}.row_hit_cap)  // (the fingerprint: seed's kept)
    e << YAML::Key << "row_hit_cap" << YAML::Value << a.dram.row_hit_cap;
  if (!a.dram.mapping.empty()) e << YAML::Key << "mapping" << YAML::Value << a.dram.mapping;
  if (a.dram.powerdown_idle_cycles >= 0)  // (else the preset's)
    e << YAML::Key << "powerdown_idle_cycles" << YAML::Value << a.dram.powerdown_idle_cycles;
  e << YAML::Key << "bytes_per_cycle" << YAML::Value << a.dram.bytes_per_cycle;
  e << YAML::Key << "latency_cycles" << YAML::Value << a.dram.latency_cycles;
  e << YAML::Key << "size_bytes" << YAML::Value << a.dram.size_bytes;
  e << YAML::Key << "row_buffer" << YAML::Value << a.dram.row_buffer;
  e << YAML::Key << "banks" << YAML::Value << a.dram.banks;
  e << YAML::Key << "row_bytes" << YAML::Value << a.dram.row_bytes;
  e << YAML::Key << "row_miss_cycles" << YAML::Value << a.dram.row_miss_cycles;
  e << YAML::EndMap;

  e << YAML::Key << "l2" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "size_bytes" << YAML::Value << a.l2.size_bytes;
  e << YAML::Key << "banks" << YAML::Value << a.l2.banks;
  e << YAML::Key << "bank_width_bytes" << YAML::Value << a.l2.bank_width_bytes;
  e << YAML::Key << "port_bytes_per_cycle" << YAML::Value << a.l2.port_bytes_per_cycle;
  e << YAML::Key << "latency_cycles" << YAML::Value << a.l2.latency_cycles;
  e << YAML::Key << "fast_region_bytes" << YAML::Value << a.l2.fast_region_bytes;
  e << YAML::Key << "fast_latency_cycles" << YAML::Value << a.l2.fast_latency_cycles;
  e << YAML::Key << "alignment_bytes" << YAML::Value << a.l2.alignment_bytes;
  e << YAML::EndMap;

  e << YAML::Key << "l1" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "size_bytes" << YAML::Value << a.l1.size_bytes;
  e << YAML::Key << "lines" << YAML::Value << a.l1.lines;
  e << YAML::Key << "line_bytes" << YAML::Value << a.l1.line_bytes;
  e << YAML::Key << "kernel_bytes" << YAML::Value << a.l1.kernel_bytes;
  if (a.l1.pool_row_buffer_bytes != L1Config().pool_row_buffer_bytes) {  // the seed's fingerprint
    e << YAML::Key << "pool_row_buffer_bytes" << YAML::Value << a.l1.pool_row_buffer_bytes;
  }
  if (a.l1.input_scale_cycles != L1Config().input_scale_cycles) {  // the seed's fingerprint
    e << YAML::Key << "input_scale_cycles" << YAML::Value << a.l1.input_scale_cycles;
  }
  e << YAML::Key << "shift_stride" << YAML::Value << a.l1.shift_stride;
  e << YAML::Key << "pad_in_block" << YAML::Value << a.l1.pad_in_block;
  e << YAML::Key << "shared_pad" << YAML::Value << a.l1.shared_pad;
  e << YAML::EndMap;

  e << YAML::Key << "neurons" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "count" << YAML::Value << a.neurons.count;
  e << YAML::Key << "macs_per_cycle" << YAML::Value << a.neurons.macs_per_cycle;
  e << YAML::Key << "accumulators" << YAML::Value << a.neurons.accumulators;
  e << YAML::Key << "postop_cycles" << YAML::Value << a.neurons.postop_cycles;
  e << YAML::EndMap;

  e << YAML::Key << "vector" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "lanes" << YAML::Value << a.vector.lanes;
  e << YAML::Key << "softmax_cycles" << YAML::Value << a.vector.softmax_cycles;
  e << YAML::Key << "softmax_passes" << YAML::Value << a.vector.softmax_passes;
  e << YAML::Key << "layernorm_cycles" << YAML::Value << a.vector.layernorm_cycles;
  e << YAML::Key << "layernorm_passes" << YAML::Value << a.vector.layernorm_passes;
  e << YAML::Key << "gelu_cycles" << YAML::Value << a.vector.gelu_cycles;
  e << YAML::Key << "gelu_passes" << YAML::Value << a.vector.gelu_passes;
  e << YAML::EndMap;

  e << YAML::Key << "lowering" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "mapping" << YAML::Value << a.lowering.mapping;
  // Written only when it can matter or was changed: the seed's fingerprint stays as it was.
  if (a.lowering.mapping == "search" || a.lowering.objective != "cycles") {
    e << YAML::Key << "objective" << YAML::Value << a.lowering.objective;
  }
  e << YAML::Key << "weight_slot_bytes" << YAML::Value << a.lowering.weight_slot_bytes;
  if (!a.lowering.fuse) e << YAML::Key << "fuse" << YAML::Value << false;  // default: true
  if (!a.lowering.skew_planes) e << YAML::Key << "skew_planes" << YAML::Value << false;
  if (!a.lowering.shuffle_layout) e << YAML::Key << "shuffle_layout" << YAML::Value << false;
  e << YAML::EndMap;

  e << YAML::Key << "energy" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "tech" << YAML::Value << a.energy.tech;
  e << YAML::Key << "dram_type" << YAML::Value << a.energy.dram_type;
  for (const auto& [key, value] : energy_override_values(a.energy)) {
    if (value >= 0) e << YAML::Key << key << YAML::Value << config::format_number(value);
  }
  e << YAML::Key << "clock_gating" << YAML::Value << a.energy.clock_gating;
  if (!a.energy.ert.empty()) e << YAML::Key << "ert" << YAML::Value << a.energy.ert;
  if (!a.energy.art.empty()) e << YAML::Key << "art" << YAML::Value << a.energy.art;
  e << YAML::EndMap;
}

// Paths are written absolute so that the text loads the same from any directory.
std::string absolute(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

std::string finish(const YAML::Emitter& e) {
  std::string out = e.c_str();
  out += '\n';
  return out;
}

}  // namespace

std::string arch_yaml(const ArchConfig& arch) {
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "arch" << YAML::Value << YAML::BeginMap;
  emit_arch_fields(e, arch);
  e << YAML::EndMap << YAML::EndMap;
  return finish(e);
}

std::string effective_yaml(const RunConfig& run) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "arch" << YAML::Value << YAML::BeginMap;
  if (!run.arch_file.empty()) e << YAML::Key << "file" << YAML::Value << absolute(run.arch_file);
  emit_arch_fields(e, run.arch);
  e << YAML::EndMap;

  e << YAML::Key << "networks" << YAML::Value << YAML::BeginSeq;
  for (const NetworkSpec& n : run.networks) {
    e << YAML::BeginMap;
    e << YAML::Key << "path" << YAML::Value << absolute(n.path);
    e << YAML::Key << "name" << YAML::Value << n.name;
    if (n.input_h != 0 || n.input_w != 0) {
      e << YAML::Key << "input" << YAML::Value << YAML::Flow << YAML::BeginSeq << n.input_h
        << n.input_w << YAML::EndSeq;
    }
    e << YAML::Key << "seed" << YAML::Value << n.seed;
    if (n.batch != 0) e << YAML::Key << "batch" << YAML::Value << n.batch;
    if (n.path.size() >= 4 && n.path.compare(n.path.size() - 4, 4, ".csv") == 0) {  // SCALE-Sim
      e << YAML::Key << "scalesim" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
        << "output_size" << YAML::Value << n.scalesim_output_size << YAML::EndMap;
    }
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;

  e << YAML::Key << "execution" << YAML::Value << run.execution;

  e << YAML::Key << "planner" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "allocator" << YAML::Value << run.planner.allocator;
  e << YAML::Key << "schedule" << YAML::Value << run.planner.schedule;
  e << YAML::Key << "time_limit_s" << YAML::Value
    << config::format_number(run.planner.time_limit_s);
  if (run.planner.image_segments != "auto") {  // written only when set: fingerprints stay
    e << YAML::Key << "image_segments" << YAML::Value << run.planner.image_segments;
  }
  e << YAML::EndMap;

  e << YAML::Key << "sim" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "functional" << YAML::Value << run.sim.functional;
  e << YAML::Key << "trace" << YAML::Value << run.sim.trace;
  e << YAML::Key << "vcd" << YAML::Value << run.sim.vcd;
  e << YAML::Key << "watchdog_cycles" << YAML::Value << run.sim.watchdog_cycles;
  e << YAML::Key << "detail" << YAML::Value << run.sim.detail;
  e << YAML::Key << "trace_max_slices" << YAML::Value << run.sim.trace_max_slices;
  e << YAML::EndMap;

  const QuantOptions& q = run.quant;
  const auto numbers = [&](const std::vector<double>& v) {
    e << YAML::Flow << YAML::BeginSeq;
    for (double d : v) e << config::format_number(d);
    e << YAML::EndSeq;
  };
  e << YAML::Key << "quant" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "calibration" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "inputs" << YAML::Value << q.calibration.inputs;
  e << YAML::Key << "count" << YAML::Value << q.calibration.count;
  e << YAML::Key << "method" << YAML::Value << q.method;
  e << YAML::Key << "percentile" << YAML::Value << config::format_number(q.percentile);
  e << YAML::Key << "output_headroom" << YAML::Value << config::format_number(q.output_headroom);
  e << YAML::Key << "bias_correction" << YAML::Value << q.bias_correction;
  e << YAML::EndMap;
  e << YAML::Key << "unsigned_activations" << YAML::Value << q.unsigned_activations;
  e << YAML::Key << "evaluation" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "inputs" << YAML::Value << q.evaluation.inputs;
  e << YAML::Key << "count" << YAML::Value << q.evaluation.count;
  e << YAML::EndMap;
  e << YAML::Key << "preprocess" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "resize" << YAML::Value << q.preprocess.resize;
  e << YAML::Key << "mean" << YAML::Value;
  numbers(q.preprocess.mean);
  e << YAML::Key << "std" << YAML::Value;
  numbers(q.preprocess.std);
  e << YAML::Key << "channels" << YAML::Value << q.preprocess.channels;
  e << YAML::Key << "layout" << YAML::Value << q.preprocess.layout;
  e << YAML::EndMap;
  e << YAML::EndMap;

  e << YAML::Key << "output_dir" << YAML::Value << run.output_dir;
  e << YAML::EndMap;
  return finish(e);
}

}  // namespace strider
