#include "model/top/top.h"

#include "core/arch/dram_bandwidth.h"

namespace strider {

Top::Top(sc_core::sc_module_name name, const ArchConfig& arch, const SimOptions& sim,
         const DescriptorList& list, StatRegistry& stats, RunRecord& record)
    : sc_core::sc_module(name),
      clock_(arch.clock.frequency_mhz),
      record_(record),
      dram_(arch.dram, arch.clock.frequency_mhz, stats),
      l2_(arch.l2, sim.functional, stats),
      to_dma_("to_dma", arch.dma.channels),
      to_compute_("to_compute", 1),
      to_vector_("to_vector", 1),
      lb_("line_buffer", 1),
      out_("neuron_out", 1),
      retire_("retire"),
      controller_("controller", arch.controller, clock_, list, sim.watchdog_cycles, dram_,
                  dram_peak_cycles(arch, arch.controller.descriptor_bytes), to_dma_, to_compute_,
                  to_vector_, retire_, record, stats),
      dma_("dma", arch.dma, clock_, sim.functional, dram_, l2_, to_dma_, retire_, record, stats),
      load_("load_unit", arch, clock_, l2_, to_compute_, lb_, record, stats),
      neurons_("neurons", arch.neurons, clock_, sim.functional, l2_, lb_, out_, record, stats),
      store_("store_unit", clock_, sim.functional, l2_, out_, retire_, record, stats),
      vector_("vector_unit", arch.vector, clock_, sim.functional, l2_, to_vector_, retire_, record,
              stats) {
  record_.descriptors.resize(list.descriptors.size());
  for (size_t i = 0; i < list.descriptors.size(); ++i) {
    record_.descriptors[i].id = list.descriptors[i].id;
    record_.descriptors[i].layer = list.descriptors[i].layer;
    record_.descriptors[i].is_move = list.descriptors[i].kind == DescKind::kMove;
  }
}

uint64_t Top::run() {
  if (record_.descriptors.empty()) return 0;
  sc_core::sc_start();
  dram_.finish(record_.cycles);
  return record_.cycles;
}

}  // namespace strider
