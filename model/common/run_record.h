// RunRecord: what the model observed per descriptor (when it became ready, started, ended, which
// unit ran it and what it cost), plus an occupancy timeline. Filled by the units, read by the
// report writers in tb/. Owned by the Top and passed to units by reference; never global.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strider {

enum class Unit : uint8_t { kController, kDma, kLoad, kNeurons, kStore, kVector };
const char* to_string(Unit u);

struct DescriptorRecord {
  uint32_t id = 0;
  uint32_t layer = 0;
  bool is_move = false;
  Unit unit = Unit::kDma;
  int channel = 0;             // DMA channel
  uint64_t fetched = 0;        // decoded by the controller
  uint64_t ready = 0;          // every dependency retired
  uint64_t start = 0;          // first unit began work
  uint64_t end = 0;            // retired
  // Work.
  uint64_t macs = 0;
  uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
  uint64_t dram_bursts = 0, dram_row_hits = 0;  // jedec DRAM model: bursts, of them row hits
  uint64_t l2_read_bytes = 0, l2_write_bytes = 0;
  uint64_t lb_write_cycles = 0;      // line-buffer write cycles
  uint64_t lb_write_bytes = 0;       // bytes written into line-buffer lines
  uint64_t kernel_load_bytes = 0;    // bytes loaded into the kernel region
  uint64_t acc_updates = 0;          // accumulator updates (active neurons x compute cycles)
  uint64_t shifted_writes = 0;       // shift-stride writes (each fills every line)
  uint64_t line_writes = 0;          // per-line writes
  uint64_t discarded_outputs = 0;    // positions computed and dropped by the output iterator
  uint64_t compute_cycles = 0;       // neuron array busy
  // Stalls by cause (cycles).
  uint64_t stall_l2_conflict = 0;    // waiting for L2 banks held by another port
  uint64_t l2_bank_conflict_cycles = 0;  // of the L2 accesses: cycles past their port time
  uint64_t stall_dram = 0;           // waiting for DRAM bandwidth held by another request
  uint64_t stall_line_buffer = 0;    // neurons waiting for line-buffer fills
  uint64_t stall_backpressure = 0;   // a stage waiting for the next one to accept
};

struct OccupancySample {
  uint64_t cycle = 0;
  uint64_t l2_bytes = 0;          // bytes of L2 holding live data
  uint64_t line_buffer_bytes = 0; // bytes of the line buffer holding a pending fill
};

struct RunRecord {
  std::vector<DescriptorRecord> descriptors;
  std::vector<OccupancySample> occupancy;
  uint64_t cycles = 0;
  bool deadlock = false;
  std::string deadlock_report;
};

}  // namespace strider
