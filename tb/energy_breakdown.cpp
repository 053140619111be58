#include "tb/energy_breakdown.h"

#include <algorithm>
#include <iterator>

#include "core/timing/tile_work.h"
#include "tb/energy_model.h"

namespace strider {

const char* level_name(int level) {
  static const char* const kNames[kLevels] = {"dram", "l2", "kernel_region", "line_buffer",
                                              "accumulators"};
  return kNames[level];
}

const char* space_name(int space) {
  static const char* const kNames[kSpaces] = {"weights",      "inputs",      "outputs",
                                              "partial_sums", "descriptors", "background"};
  return kNames[space];
}

EnergyBreakdown& EnergyBreakdown::operator+=(const EnergyBreakdown& o) {
  for (int l = 0; l < kLevels; ++l) {
    for (int s = 0; s < kSpaces; ++s) {
      BreakdownCell& c = cell[l][s];
      const BreakdownCell& x = o.cell[l][s];
      c.reads += x.reads, c.writes += x.writes, c.bytes += x.bytes, c.pj += x.pj;
    }
  }
  return *this;
}

namespace {

double dram_pj(const ActionCounts& c, const ActionEnergy& e) {
  double pj = 0;
  for (const ActionEnergyRow& r : dynamic_energy(c, e)) pj += r.unit == "dram" ? r.pj : 0;
  return pj;
}

// The data space of a move: weights when its DRAM side lies in a weight / bias blob.
Space move_space(const MoveDesc& m, const WeightRanges& weights) {
  const bool read = m.src_space == MemSpace::kDram;
  const uint64_t addr = read ? m.src_addr : m.dst_addr;
  auto it = std::upper_bound(weights.begin(), weights.end(), std::make_pair(addr, UINT64_MAX));
  if (it != weights.begin() && addr < std::prev(it)->second) return kSpWeights;
  return read ? kSpInputs : kSpOutputs;
}

void add(BreakdownCell& c, uint64_t reads, uint64_t writes, uint64_t bytes, double pj) {
  c.reads += reads, c.writes += writes, c.bytes += bytes, c.pj += pj;
}

}  // namespace

EnergyBreakdown descriptor_breakdown(const DescriptorRecord& d, const DescriptorList& list,
                                     const WeightRanges& weights, const ArchConfig& arch,
                                     const ActionEnergy& e) {
  EnergyBreakdown b;
  const Descriptor& desc = list.descriptors[d.id];
  const ActionCounts all = descriptor_actions(d, desc.op, arch);
  // The fetch of a fetched descriptor, as descriptor_actions charges it.
  ActionCounts fetch;
  if (d.fetched != 0) {
    fetch.dram_bytes = arch.controller.descriptor_bytes;
    const uint64_t burst = arch.dram.spec.burst_bytes();
    if (arch.dram.model == "jedec" && burst > 0)
      fetch.dram_rd_bursts = (arch.controller.descriptor_bytes + burst - 1) / burst;
    const double pj = dram_pj(fetch, e);
    add(b.cell[kLvDram][kSpDescriptors], fetch.dram_bytes, 0, fetch.dram_bytes, pj);
  }
  if (d.is_move) {
    const Space s = move_space(desc.move, weights);
    add(b.cell[kLvDram][s], d.dram_read_bytes, d.dram_write_bytes,
        d.dram_read_bytes + d.dram_write_bytes, dram_pj(all, e) - dram_pj(fetch, e));
    add(b.cell[kLvL2][s], d.l2_read_bytes, d.l2_write_bytes, d.l2_read_bytes + d.l2_write_bytes,
        d.l2_read_bytes * e.l2_read_per_byte + d.l2_write_bytes * e.l2_write_per_byte);
    return b;
  }
  const OpDesc& op = desc.op;
  const bool psum_write = (op.psum_mode & OpDesc::kPsumWrite) != 0;
  add(b.cell[kLvL2][psum_write ? kSpPartialSums : kSpOutputs], 0, d.l2_write_bytes,
      d.l2_write_bytes, d.l2_write_bytes * e.l2_write_per_byte);
  if (is_vector_op(op.op)) {
    add(b.cell[kLvL2][kSpInputs], d.l2_read_bytes, 0, d.l2_read_bytes,
        d.l2_read_bytes * e.l2_read_per_byte);
    return b;
  }
  const bool channels = op.mapping != Mapping::kPositions;  // channels, im2col
  const bool weighted = op.op == OpCode::kConv || op.op == OpCode::kFullyConnected;
  const Space kernel = channels ? kSpInputs : kSpWeights;
  const Space lines = channels && weighted ? kSpWeights : kSpInputs;
  uint64_t psum_read = 0;
  if (op.psum_mode & OpDesc::kPsumRead)
    psum_read =
        4 *
        compute_tile_work(op, arch.l1, arch.neurons, arch.l2.port_bytes_per_cycle).valid_outputs;
  const uint64_t kernel_l2 = std::min(d.l2_read_bytes - psum_read, d.kernel_load_bytes);
  const uint64_t line_l2 = d.l2_read_bytes - psum_read - kernel_l2;
  const auto l2_read = [&](Space s, uint64_t bytes) {
    add(b.cell[kLvL2][s], bytes, 0, bytes, bytes * e.l2_read_per_byte);
  };
  l2_read(kSpPartialSums, psum_read);
  l2_read(kernel, kernel_l2);
  l2_read(lines, line_l2);
  add(b.cell[kLvKernel][kernel], all.kernel_read_bytes, all.kernel_write_bytes,
      all.kernel_read_bytes + all.kernel_write_bytes,
      all.kernel_read_bytes * e.kernel_read_per_byte +
          all.kernel_write_bytes * e.kernel_write_per_byte);
  add(b.cell[kLvLineBuffer][lines], 0, all.lb_write_bytes, all.lb_write_bytes,
      all.lb_write_bytes * e.lb_write_per_byte + all.lb_write_cycles * e.lb_write_cycle);
  add(b.cell[kLvAccumulators][kSpPartialSums], all.acc_updates, all.acc_updates,
      8 * all.acc_updates, all.acc_updates * e.acc_update);
  return b;
}

}  // namespace strider
