#include "tb/run_summary.h"

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "core/arch/dram_bandwidth.h"
#include "core/common/ceil_div.h"
#include "tb/capacity_bound.h"

namespace strider {
namespace {

// L2 occupancy as executed: a planned buffer holds data from the moment the first layer at or
// after its first step starts writing until the last layer at or before its last step is done.
// A layer's activity is its operation tiles (first load start to last retirement); its moves
// (weight prefetch) are left out, as they run ahead into other layers' time and fill staging
// slots that are counted all run. A layer with moves only (the input load) uses its moves.
// Occupancy is the union of the live buffers' address ranges (see below).
void observe_occupancy(const RunResult& r, RunSummary& s) {
  const std::vector<int>& step_layer = r.lowered.step_layer;
  constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  std::vector<std::pair<uint64_t, uint64_t>> active(s.layers.size(), {kNever, 0});
  for (const DescriptorRecord& d : r.record.descriptors) {
    if (d.is_move && s.layers[d.layer].tiles > 0) continue;
    active[d.layer].first = std::min(active[d.layer].first, d.start);
    active[d.layer].second = std::max(active[d.layer].second, d.end);
  }
  // Each buffer's [from, to) window; windows of buffers that the plan gives the same addresses at
  // different steps can overlap in time (a layer's first loads start before the previous
  // layer's last stores retire), so live bytes are the union of the live address ranges, never
  // the same L2 byte twice.
  std::map<uint64_t, std::vector<std::pair<bool, size_t>>> events;  // cycle -> (starts?, buffer)
  const std::vector<PlannedBuffer>& plan = r.lowered.plan;
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedBuffer& b = plan[i];
    uint64_t from = kNever, to = 0;
    for (int64_t st = b.first; st <= b.last && st < int64_t(step_layer.size()); ++st) {
      const int l = step_layer[st];
      if (l < 0 || active[l].first == kNever) continue;
      from = std::min(from, active[l].first);
      to = std::max(to, active[l].second);
    }
    if (b.tensor.rfind("in_band", 0) == 0 || b.tensor.rfind("out_band", 0) == 0 ||
        b.tensor.rfind("psum", 0) == 0) {
      from = 0, to = s.cycles;  // band buffers: reserved for the whole run
    }
    if (from >= to) continue;
    events[from].push_back({true, i});
    events[to].push_back({false, i});
  }
  std::map<size_t, std::pair<uint64_t, uint64_t>> live;  // buffer -> [offset, end)
  for (const auto& [cycle, list] : events) {
    for (const auto& [starts, i] : list) {
      if (starts) {
        live[i] = {plan[i].offset, plan[i].offset + plan[i].size};
      } else {
        live.erase(i);
      }
    }
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (const auto& [i, range] : live) ranges.push_back(range);
    std::sort(ranges.begin(), ranges.end());
    uint64_t bytes = 0, covered = 0;  // covered: end of the union so far
    for (const auto& [lo, hi] : ranges) {
      const uint64_t from = std::max(lo, covered);
      if (hi > from) bytes += hi - from;
      covered = std::max(covered, hi);
    }
    s.l2_occupancy.emplace_back(cycle, bytes);
    s.l2_peak_observed = std::max(s.l2_peak_observed, bytes);
  }
}


// Bytes all L2 banks move per cycle together.
uint64_t l2_bank_bytes(const ArchConfig& arch) {
  return uint64_t(arch.l2.banks) * arch.l2.bank_width_bytes;
}

// The class of layer an operation belongs to, for per-class figures.
const char* layer_class(const OpDesc& op) {
  switch (op.op) {
    case OpCode::kConv:
      if (op.groups > 1 && op.groups == op.input.c) return "depthwise";
      return op.kernel_h == 1 && op.kernel_w == 1 ? "pointwise" : "conv";
    case OpCode::kFullyConnected: return "pointwise";
    case OpCode::kMaxPool:
    case OpCode::kAvgPool:
    case OpCode::kGlobalAvgPool: return "pool";
    default: return "eltwise";
  }
}

// A layer's bound and what bounded its time. The bound is the longest of: the MACs at the peak
// rate, the DRAM bytes of its span at the DRAM rate, the busiest L2 port's bytes at the port
// rate, the line-buffer write cycles (one write port, one write per cycle: every tile's writes
// go through it in series) and all its L2 bytes (load + store + DMA in its span) at the banks'
// total rate (l2.banks x l2.bank_width_bytes per cycle). The bottleneck is the resource with the
// most busy cycles in the layer — the neurons (compute cycles), the line-buffer write port
// (write cycles), DRAM (transfer time plus contention stalls), the busiest L2 port (transfer
// time; its bank conflicts mostly overlap other work and are reported apart, in
// stall_l2_conflict), the L2 banks together — unless even that one was busy for under half the
// layer's cycles: then the layer waited on latencies (dependencies, DMA set-up, pipeline fill).
// A layer with no work (a graph input that stays in DRAM) has none.
void bound_layer(LayerRow& l, const ArchConfig& arch, uint64_t peak) {
  const uint64_t port = std::max({l.load_port_bytes, l.store_port_bytes, l.span_dma_port_bytes});
  const uint64_t dram = dram_peak_cycles(arch, l.span_dram_bytes);
  const uint64_t l2 = ceil_div(port, arch.l2.port_bytes_per_cycle);
  const uint64_t banks =
      ceil_div(l.load_port_bytes + l.store_port_bytes + l.span_dma_port_bytes, l2_bank_bytes(arch));
  l.bound_cycles = std::max({ceil_div(l.macs, peak), dram, l2, l.lb_write_cycles, banks});
  const std::pair<uint64_t, const char*> busy[] = {{l.compute_cycles, "compute"},
                                                   {l.lb_write_cycles, "line_buffer"},
                                                   {dram + l.stall_dram, "dram"},
                                                   {l2, "l2_port"},
                                                   {banks, "l2_banks"}};
  const auto* most = std::max_element(std::begin(busy), std::end(busy),
                                      [](const auto& a, const auto& b) { return a.first < b.first; });
  l.bottleneck = l.cycles == 0 ? "none" : 2 * most->first < l.cycles ? "latency" : most->second;
}

}  // namespace

void WorkCounts::add(const DescriptorRecord& d) {
  dram_bytes += d.dram_read_bytes + d.dram_write_bytes;
  l2_bytes += d.l2_read_bytes + d.l2_write_bytes;
  lb_write_cycles += d.lb_write_cycles;
  shifted_writes += d.shifted_writes;
  discarded_outputs += d.discarded_outputs;
  compute_cycles += d.compute_cycles;
  stall_l2_conflict += d.stall_l2_conflict;
  l2_bank_conflict_cycles += d.l2_bank_conflict_cycles;
  stall_dram += d.stall_dram;
  stall_line_buffer += d.stall_line_buffer;
  stall_backpressure += d.stall_backpressure;
  dram_bursts += d.dram_bursts;
  dram_row_hits += d.dram_row_hits;
}

WorkCounts& WorkCounts::operator+=(const WorkCounts& o) {
  dram_bytes += o.dram_bytes;
  l2_bytes += o.l2_bytes;
  lb_write_cycles += o.lb_write_cycles;
  shifted_writes += o.shifted_writes;
  discarded_outputs += o.discarded_outputs;
  compute_cycles += o.compute_cycles;
  stall_l2_conflict += o.stall_l2_conflict;
  l2_bank_conflict_cycles += o.l2_bank_conflict_cycles;
  stall_dram += o.stall_dram;
  stall_line_buffer += o.stall_line_buffer;
  stall_backpressure += o.stall_backpressure;
  dram_bursts += o.dram_bursts;
  dram_row_hits += o.dram_row_hits;
  return *this;
}

RunSummary summarise(const RunResult& r, const UnitTimeline* timeline) {
  RunSummary s;
  const ArchConfig& arch = r.config.arch;
  s.cycles = r.cycles;
  s.seconds_at_clock = double(r.cycles) / (arch.clock.frequency_mhz * 1e6);
  for (int t : r.graph.inputs) s.images = std::max<uint64_t>(s.images, r.graph.tensors[t].shape.n);
  s.cycles_per_image = double(r.cycles) / double(s.images);
  s.peak_macs_per_cycle = uint64_t(arch.neurons.count) * arch.neurons.macs_per_cycle;
  s.layers.resize(r.lowered.layers.size());
  for (size_t i = 0; i < s.layers.size(); ++i) {
    s.layers[i].name = r.lowered.layers[i].name;
    s.layers[i].op = r.lowered.layers[i].op;
    s.layers[i].batch_order = r.lowered.layers[i].batch_order;
    s.layers[i].start = std::numeric_limits<uint64_t>::max();
  }
  // A layer's span runs from its first operation tile (its weight moves prefetch during the
  // layers before it) to its last retirement; a layer of moves only spans its moves.
  for (const DescriptorRecord& d : r.record.descriptors) s.layers[d.layer].tiles += d.is_move ? 0 : 1;
  const ActionEnergy per_action = action_energy(arch);
  WeightRanges weights;
  for (const DramImage::Blob& b : r.lowered.dram.blobs)
    weights.emplace_back(b.addr, b.addr + b.bytes.size());
  std::sort(weights.begin(), weights.end());
  for (const DescriptorRecord& d : r.record.descriptors) {
    LayerRow& l = s.layers[d.layer];
    if (!d.is_move || l.tiles == 0) l.start = std::min(l.start, d.start);
    l.end = std::max(l.end, d.end);
    l.macs += d.macs;
    l.add(d);
    l.actions += descriptor_actions(d, r.lowered.list.descriptors[d.id].op, arch);
    l.breakdown += descriptor_breakdown(d, r.lowered.list, weights, arch, per_action);
    if (d.is_move) {
      l.dma_port_bytes += d.l2_read_bytes + d.l2_write_bytes;
      continue;
    }
    l.load_port_bytes += d.l2_read_bytes;
    l.store_port_bytes += d.l2_write_bytes;
    const OpDesc& op = r.lowered.list.descriptors[d.id].op;
    const char* m = to_string(op.mapping);
    l.mapping = l.mapping.empty() || l.mapping == m ? m : "mixed";
    l.layer_class = layer_class(op);
  }
  // Moves that started before the layer's first tile (weight prefetch) ran in earlier layers'
  // time: the layer's bound counts only the DMA traffic inside its span.
  for (const DescriptorRecord& d : r.record.descriptors) {
    LayerRow& l = s.layers[d.layer];
    if (!d.is_move || d.start < l.start) continue;
    l.span_dram_bytes += d.dram_read_bytes + d.dram_write_bytes;
    l.span_dma_port_bytes += d.l2_read_bytes + d.l2_write_bytes;
  }
  uint64_t load = 0, store = 0, dma = 0;
  ActionCounts actions;
  for (LayerRow& l : s.layers) {
    l.energy_pj = total_pj(dynamic_energy(l.actions, per_action));
    actions += l.actions;
    if (l.start > l.end) l.start = l.end;
    l.cycles = l.end - l.start;
    l.utilization = l.cycles ? double(l.macs) / (double(l.cycles) * s.peak_macs_per_cycle) : 0;
    bound_layer(l, arch, s.peak_macs_per_cycle);
    // A deep prefetch's moves (planner/lower/deep_prefetch.cpp) run under other layers by
    // construction: not a layer of its own in the layers' sum.
    if (l.op != "prefetch") s.layer_bound_cycles += l.bound_cycles;
    load += l.load_port_bytes, store += l.store_port_bytes, dma += l.dma_port_bytes;
    s.macs += l.macs;
    s.totals += l;
    s.breakdown += l.breakdown;
  }
  // Every descriptor the controller fetched was read once from DRAM as
  // controller.descriptor_bytes (all of them, unless the run deadlocked first).
  for (const DescriptorRecord& d : r.record.descriptors) {
    s.descriptor_fetch_bytes += d.fetched != 0 ? arch.controller.descriptor_bytes : 0;
  }
  if (timeline != nullptr) {
    for (const auto& [cycle, bytes] : timeline->line_buffer) {
      s.line_buffer_occupancy.emplace_back(cycle, bytes);
    }
    s.line_buffer_peak = timeline->line_buffer_peak;
  }
  s.utilization = s.cycles ? double(s.macs) / (double(s.cycles) * s.peak_macs_per_cycle) : 0;
  const uint64_t dram_bytes = s.totals.dram_bytes + s.descriptor_fetch_bytes;
  s.bound_cycles =
      std::max({ceil_div(s.macs, s.peak_macs_per_cycle), dram_peak_cycles(arch, dram_bytes),
                ceil_div(std::max({load, store, dma}), arch.l2.port_bytes_per_cycle),
                s.totals.lb_write_cycles, ceil_div(load + store + dma, l2_bank_bytes(arch))});
  std::vector<uint64_t> node_lb_writes(r.graph.nodes.size(), 0);
  for (size_t i = 0; i < s.layers.size() && i < r.lowered.layer_node.size(); ++i) {
    const int node = r.lowered.layer_node[i];
    if (node >= 0) node_lb_writes[size_t(node)] += s.layers[i].lb_write_cycles;
  }
  const CapacityBound capacity = capacity_bound(r.graph, arch, node_lb_writes);
  s.capacity_bound_cycles = capacity.cycles;
  s.capacity_bound_node = capacity.node;
  s.bound_cycles = std::max(s.bound_cycles, capacity.cycles);
  s.cycles_over_bound = s.bound_cycles ? double(s.cycles) / double(s.bound_cycles) : 0;
  s.l2_peak_planned = r.lowered.arena_bytes + r.lowered.staging_bytes + r.lowered.band_bytes;
  observe_occupancy(r, s);
  UnitBusy busy;
  for (const char* unit : {"neurons", "load", "vector", "dma"}) {
    const std::string stat = std::string(unit) + ".busy_cycles";
    for (const Stat& st : r.stats.all()) {
      if (st.name == stat) busy[unit] = st.value;
    }
  }
  DramActivity dram;
  for (const Stat& st : r.stats.all()) {
    for (int k = 0; k < kDramCmdCount; ++k) {
      if (st.name == dram_command_stat(static_cast<DramCmd>(k))) {
        dram.commands[k] = st.value;
        dram.measured = true;
      }
    }
    if (st.name == "dram.rank_active_cycles") dram.active_cycles = st.value;
    if (st.name == "dram.rank_precharged_cycles") dram.precharged_cycles = st.value;
    if (st.name == "dram.rank_active_powerdown_cycles") dram.active_powerdown_cycles = st.value;
    if (st.name == "dram.rank_precharged_powerdown_cycles")
      dram.precharged_powerdown_cycles = st.value;
  }
  s.energy = energy_report(actions, s.cycles, busy, dram, arch);
  s.breakdown.cell[kLvDram][kSpBackground].pj =
      s.energy.dram_background_pj + s.energy.dram_unattributed_pj;
  return s;
}

}  // namespace strider
