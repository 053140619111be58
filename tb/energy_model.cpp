#include "tb/energy_model.h"

#include <algorithm>

namespace strider {

ActionCounts& ActionCounts::operator+=(const ActionCounts& o) {
  macs += o.macs;
  acc_updates += o.acc_updates;
  lb_write_bytes += o.lb_write_bytes;
  lb_write_cycles += o.lb_write_cycles;
  kernel_read_bytes += o.kernel_read_bytes;
  kernel_write_bytes += o.kernel_write_bytes;
  l2_read_bytes += o.l2_read_bytes;
  l2_write_bytes += o.l2_write_bytes;
  dram_bytes += o.dram_bytes;
  descriptors += o.descriptors;
  vector_macs += o.vector_macs;
  vector_exps += o.vector_exps;
  vector_reduces += o.vector_reduces;
  vector_divides += o.vector_divides;
  dram_acts += o.dram_acts;
  dram_rd_bursts += o.dram_rd_bursts;
  dram_wr_bursts += o.dram_wr_bursts;
  return *this;
}

namespace {

// The element operations of one vector tile (the table in the header).
void vector_element_ops(const OpDesc& op, ActionCounts& c) {
  const uint64_t positions = uint64_t(op.row_end - op.row_begin) * op.output.w;
  const uint64_t elements = uint64_t(op.ch_end - op.ch_begin) * positions;
  const uint64_t read = uint64_t(op.input.c) * positions;
  if (op.op == OpCode::kSoftmax) {
    c.vector_reduces += 2 * read, c.vector_exps += read, c.vector_divides += elements;
  } else if (op.op == OpCode::kLayerNorm) {
    c.vector_reduces += 2 * read, c.vector_macs += 2 * read + elements;
    c.vector_divides += elements + positions;
  } else if (op.op == OpCode::kInstanceNorm) {  // over all positions of each channel
    const uint64_t all = uint64_t(op.ch_end - op.ch_begin) * op.input.h * op.input.w;
    c.vector_reduces += 2 * all, c.vector_macs += 2 * all + elements;
    c.vector_divides += elements + (op.ch_end - op.ch_begin);
  } else if (op.op == OpCode::kGelu) {
    c.vector_exps += elements, c.vector_macs += elements;
  }
}

}  // namespace

ActionCounts descriptor_actions(const DescriptorRecord& d, const OpDesc& op,
                                const ArchConfig& arch) {
  ActionCounts c;
  if (!d.is_move && is_vector_op(op.op)) vector_element_ops(op, c);
  c.macs = d.macs;
  c.kernel_read_bytes = d.compute_cycles * arch.neurons.macs_per_cycle;
  c.acc_updates = d.acc_updates;
  c.lb_write_bytes = d.lb_write_bytes;
  c.lb_write_cycles = d.lb_write_cycles;
  c.kernel_write_bytes = d.kernel_load_bytes;
  c.l2_read_bytes = d.l2_read_bytes;
  c.l2_write_bytes = d.l2_write_bytes;
  const bool fetched = d.fetched != 0;
  c.dram_bytes =
      d.dram_read_bytes + d.dram_write_bytes + (fetched ? arch.controller.descriptor_bytes : 0);
  c.descriptors = fetched ? 1 : 0;
  if (arch.dram.model == "jedec") {
    (d.dram_write_bytes > 0 ? c.dram_wr_bursts : c.dram_rd_bursts) += d.dram_bursts;
    c.dram_acts = d.dram_bursts - std::min(d.dram_bursts, d.dram_row_hits);
    const uint64_t burst = arch.dram.spec.burst_bytes();
    if (fetched && burst > 0)
      c.dram_rd_bursts += (arch.controller.descriptor_bytes + burst - 1) / burst;
  }
  return c;
}

std::vector<ActionEnergyRow> dynamic_energy(const ActionCounts& c, const ActionEnergy& e) {
  std::vector<ActionEnergyRow> rows = {
      {"mac", "neurons", c.macs, e.mac, 0},
      {"acc_update", "neurons", c.acc_updates, e.acc_update, 0},
      {"lb_write", "l1", c.lb_write_bytes, e.lb_write_per_byte, 0},
      {"lb_write_cycle", "l1", c.lb_write_cycles, e.lb_write_cycle, 0},
      {"kernel_read", "l1", c.kernel_read_bytes, e.kernel_read_per_byte, 0},
      {"kernel_write", "l1", c.kernel_write_bytes, e.kernel_write_per_byte, 0},
      {"l2_read", "l2", c.l2_read_bytes, e.l2_read_per_byte, 0},
      {"l2_write", "l2", c.l2_write_bytes, e.l2_write_per_byte, 0},
      {"descriptor", "controller", c.descriptors, e.descriptor, 0},
      {"vector_mac", "vector", c.vector_macs, e.vector_op, 0},
      {"vector_exp", "vector", c.vector_exps, e.vector_exp, 0},
      {"vector_reduce", "vector", c.vector_reduces, e.vector_reduce, 0},
      {"vector_divide", "vector", c.vector_divides, e.vector_divide, 0},
  };
  const auto at = rows.begin() + 8;  // after l2_write, as in the table above
  if (e.dram_commands) {
    rows.insert(at, {{"dram_act", "dram", c.dram_acts, e.dram_act, 0},
                     {"dram_pre", "dram", c.dram_acts, e.dram_pre, 0},
                     {"dram_rd", "dram", c.dram_rd_bursts, e.dram_rd, 0},
                     {"dram_wr", "dram", c.dram_wr_bursts, e.dram_wr, 0},
                     {"dram_rd_io", "dram", c.dram_rd_bursts, e.dram_rd_io, 0},
                     {"dram_wr_odt", "dram", c.dram_wr_bursts, e.dram_wr_odt, 0}});
  } else {
    rows.insert(at, {"dram", "dram", c.dram_bytes, e.dram_per_byte, 0});
  }
  for (ActionEnergyRow& r : rows) r.pj = double(r.count) * r.pj_each;
  return rows;
}

std::vector<ActionEnergyRow> dram_command_rows(const ActionEnergy& e, const DramActivity& d) {
  const auto cmd = [&](DramCmd k) { return d.commands[static_cast<int>(k)]; };
  std::vector<ActionEnergyRow> rows = {
      {"dram_act", "dram", cmd(DramCmd::kAct), e.dram_act, 0},
      {"dram_pre", "dram", cmd(DramCmd::kPre) + cmd(DramCmd::kPrea), e.dram_pre, 0},
      {"dram_rd", "dram", cmd(DramCmd::kRd), e.dram_rd, 0},
      {"dram_wr", "dram", cmd(DramCmd::kWr), e.dram_wr, 0},
      {"dram_rd_io", "dram", cmd(DramCmd::kRd), e.dram_rd_io, 0},
      {"dram_wr_odt", "dram", cmd(DramCmd::kWr), e.dram_wr_odt, 0},
      {"dram_ref", "dram", cmd(DramCmd::kRef), e.dram_ref, 0},
      {"dram_refpb", "dram", cmd(DramCmd::kRefpb), e.dram_refpb, 0},
      {"dram_act_standby", "dram", d.active_cycles, e.dram_act_standby, 0},
      {"dram_pre_standby", "dram", d.precharged_cycles, e.dram_pre_standby, 0},
      {"dram_act_powerdown", "dram", d.active_powerdown_cycles, e.dram_act_powerdown, 0},
      {"dram_pre_powerdown", "dram", d.precharged_powerdown_cycles, e.dram_pre_powerdown, 0}};
  for (ActionEnergyRow& r : rows) r.pj = double(r.count) * r.pj_each;
  return rows;
}

double total_pj(const std::vector<ActionEnergyRow>& rows) {
  double sum = 0;
  for (const ActionEnergyRow& r : rows) sum += r.pj;
  return sum;
}

EnergyReport energy_report(const ActionCounts& c, uint64_t cycles, const UnitBusy& busy,
                           const DramActivity& dram, const ArchConfig& arch) {
  const ActionEnergy e = action_energy(arch);
  EnergyReport rep;
  rep.rows = dynamic_energy(c, e);
  const bool commands = e.dram_commands && dram.measured;
  std::vector<ActionEnergyRow> dram_rows;
  if (commands) {
    // The run's DRAM rows count the DRAM's own commands; what the layers were charged differs by
    // dram_unattributed_pj.
    dram_rows = dram_command_rows(e, dram);
    size_t k = 0;
    for (ActionEnergyRow& r : rep.rows) {
      if (r.unit != "dram") continue;
      rep.dram_unattributed_pj += dram_rows[k].pj - r.pj;
      r = dram_rows[k++];
    }
  }
  rep.dynamic_pj = total_pj(rep.rows);
  // Clock: flops x clocked cycles (a DMA channel's flops x channel-cycles).
  for (const auto& [unit, flops] : unit_flops(arch)) {
    const uint64_t every = unit == "dma" ? uint64_t(arch.dma.channels) * cycles : cycles;
    const auto b = busy.find(unit);
    const uint64_t clocked = arch.energy.clock_gating && b != busy.end() ? b->second : every;
    ActionEnergyRow r{unit + "_clock", unit, uint64_t(flops) * clocked, e.clock_per_flop_cycle, 0};
    r.pj = double(r.count) * r.pj_each;
    rep.clock_pj += r.pj;
    rep.rows.push_back(r);
  }
  // Logic leakage: area x cycles; pj_each is the unit's leakage per cycle.
  for (const auto& [unit, mm2] : unit_logic_area_mm2(arch)) {
    ActionEnergyRow r{unit + "_logic_leakage", unit, cycles, mm2 * e.logic_leak_per_mm2_cycle, 0};
    r.pj = double(cycles) * r.pj_each;
    rep.leakage_pj += r.pj;
    rep.rows.push_back(r);
  }
  // Leakage in KiB-cycles: capacity / 1024 x cycles (exact when the capacity is whole KiB).
  const auto leak = [&](const char* action, const char* unit, uint64_t bytes) {
    ActionEnergyRow r{action, unit, bytes * cycles / 1024, e.sram_leak_per_kib_cycle, 0};
    r.pj = double(bytes) / 1024.0 * double(cycles) * e.sram_leak_per_kib_cycle;
    rep.leakage_pj += r.pj;
    rep.rows.push_back(r);
  };
  leak("l2_leakage", "l2", arch.l2.size_bytes);
  leak("l1_leakage", "l1", arch.l1.size_bytes);
  for (size_t k = kDramCommandRows; k < dram_rows.size(); ++k) {
    rep.dram_background_pj += dram_rows[k].pj;
    rep.rows.push_back(dram_rows[k]);
  }
  rep.total_pj = rep.dynamic_pj + rep.clock_pj + rep.leakage_pj + rep.dram_background_pj;
  for (const ActionEnergyRow& r : rep.rows) rep.by_unit[r.unit] += r.pj;
  const double seconds = double(cycles) / (arch.clock.frequency_mhz * 1e6);
  const double joules = rep.total_pj * 1e-12;
  rep.power_mw = seconds > 0 ? joules / seconds * 1e3 : 0;
  rep.dram_pj = rep.by_unit.count("dram") ? rep.by_unit.at("dram") : 0;
  rep.onchip_pj = rep.total_pj - rep.dram_pj;
  rep.power_dram_mw = seconds > 0 ? rep.dram_pj * 1e-12 / seconds * 1e3 : 0;
  rep.power_onchip_mw = seconds > 0 ? rep.onchip_pj * 1e-12 / seconds * 1e3 : 0;
  // TOPS/W = (2 x MACs / s / 1e12) / (J / s) = 2 x MACs / (total_pj x 1e-12) / 1e12.
  rep.tops_per_watt = rep.total_pj > 0 ? 2.0 * double(c.macs) / rep.total_pj : 0;
  rep.tops_per_watt_onchip = rep.onchip_pj > 0 ? 2.0 * double(c.macs) / rep.onchip_pj : 0;
  rep.edp = joules * seconds;
  rep.area_mm2 = unit_area_mm2(arch);
  for (const auto& [unit, mm2] : rep.area_mm2) rep.area_total_mm2 += mm2;
  return rep;
}

}  // namespace strider
