// Top: the accelerator. Wires the controller, DMA, DRAM, L2, load unit, line buffer / neuron
// array and store unit with LatencyFifo channels and runs a descriptor list to completion.
//
//   controller --to_dma--> DMA <--> DRAM, L2 (DMA port)
//              --to_compute--> load unit --lb--> neuron array --out--> store unit
//              --to_vector--> vector unit <--> L2 (load and store ports)
//   DMA, store unit, vector unit --retire--> controller
//
// SystemC elaborates once per process: build one Top per process, call run() once.
#pragma once

#include <systemc>

#include <functional>
#include <memory>

#include "model/common/clock_domain.h"
#include "model/common/latency_fifo.h"
#include "model/common/retire_channel.h"
#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "model/common/tile_token.h"
#include "core/arch/run_config.h"
#include "model/ctrl/controller.h"
#include "model/dma/dma.h"
#include "model/dram/dram.h"
#include "model/l1/load_unit.h"
#include "model/l1/store_unit.h"
#include "model/l2/l2_sram.h"
#include "model/neuron/neuron_array.h"
#include "model/vector/vector_unit.h"
#include "core/contract/descriptor.h"

namespace strider {

class Top : public sc_core::sc_module {
 public:
  Top(sc_core::sc_module_name name, const ArchConfig& arch, const SimOptions& sim,
      const DescriptorList& list, StatRegistry& stats, RunRecord& record);

  // Runs until the last descriptor retires (or the watchdog fires); returns the cycle count.
  uint64_t run();

  // Testbench hook: `observer(id)` runs when the controller retires descriptor `id` (at that
  // cycle, before any descriptor depending on it issues). Set before run().
  void set_retire_observer(std::function<void(uint32_t id)> observer) {
    controller_.set_retire_observer(std::move(observer));
  }

  Dram& dram() { return dram_; }
  L2Sram& l2() { return l2_; }
  const ClockDomain& clock() const { return clock_; }
  Controller& controller() { return controller_; }
  Dma& dma() { return dma_; }
  LoadUnit& load_unit() { return load_; }
  NeuronArray& neurons() { return neurons_; }
  StoreUnit& store_unit() { return store_; }
  VectorUnit& vector_unit() { return vector_; }

 private:
  ClockDomain clock_;
  RunRecord& record_;
  Dram dram_;
  L2Sram l2_;
  LatencyFifo<const Descriptor*> to_dma_, to_compute_, to_vector_;
  LatencyFifo<TileToken> lb_, out_;
  RetireChannel retire_;
  Controller controller_;
  Dma dma_;
  LoadUnit load_;
  NeuronArray neurons_;
  StoreUnit store_;
  VectorUnit vector_;
};

}  // namespace strider
