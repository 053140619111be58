// Architecture configuration: one params struct per hardware unit, loaded from the `arch:` section
// of a YAML file (configs/arch/*.yaml). Defaults here are the seed architecture
// (configs/arch/seed.yaml documents each choice). Passed by const reference; never global.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/arch/dram_spec.h"

namespace strider {

struct ClockConfig {
  double frequency_mhz = 1000.0;  // accelerator clock; all latencies are in cycles of it
};

struct ControllerConfig {
  uint32_t prefetch_depth = 8;     // descriptors fetched ahead of dispatch
  uint32_t descriptor_bytes = 64;  // size of one descriptor in DRAM (fetch cost)
  uint32_t decode_cycles = 2;      // per descriptor
  uint32_t dispatch_cycles = 1;    // per descriptor, to the DMA or the compute pipeline
};

struct DmaConfig {
  uint32_t channels = 2;
  uint32_t burst_bytes = 64;      // bytes per burst
  uint32_t setup_cycles = 8;      // per move descriptor
  uint32_t row_setup_cycles = 1;  // per extra row of a 2-D move
  // Background moves (MoveDesc::background) run behind demand moves, in the DMA and in the DRAM
  // scheduler; false: every move is a demand move, served in list order.
  bool background_priority = true;
};

// `model: jedec` (default) runs the JEDEC timing model of `preset` (configs/dram/<preset>.yaml,
// read into `spec` by the arch reader); `model: simple` is the flat pipe of bytes_per_cycle and
// latency_cycles (with the optional row_buffer miss counter), kept as a regression case.
struct DramConfig {
  std::string model = "jedec";        // jedec | simple
  std::string preset = "lpddr4_3200";  // a name in configs/dram or a path to a preset file
  std::string page_policy = "open";   // open | closed (jedec)
  std::string scheduler = "frfcfs";   // frfcfs | fcfs (jedec)
  uint32_t queue_depth = 16;          // row segments the scheduler looks at (jedec)
  uint32_t refresh_postpone = 8;      // REFs a busy rank may owe (jedec; JEDEC: at most 8)
  uint32_t row_hit_cap = 16;          // row hits passing an older request to the bank; 0: none
  std::string mapping;                // address mapping; "" takes the preset's (jedec)
  int64_t powerdown_idle_cycles = -1;  // idle DRAM cycles before power-down; -1: the preset's
  DramSpec spec;                      // the preset as read (jedec)
  uint32_t bytes_per_cycle = 16;  // simple: data bus bytes per accelerator cycle
  uint32_t latency_cycles = 100;  // simple: first-data latency of a request
  uint64_t size_bytes = 1ull << 32;
  bool row_buffer = false;  // optional bank / row-buffer model
  uint32_t banks = 8;
  uint32_t row_bytes = 2048;
  uint32_t row_miss_cycles = 30;  // extra cycles when a burst opens a new row
};

struct L2Config {
  uint64_t size_bytes = 1 << 20;
  uint32_t banks = 16;
  uint32_t bank_width_bytes = 8;       // bytes per bank per cycle; banks interleave at this width
  uint32_t port_bytes_per_cycle = 64;  // per port (dma, load, store)
  uint32_t latency_cycles = 4;         // access latency of the slow (default) region
  uint64_t fast_region_bytes = 0;      // [0, fast_region_bytes) is the fast region
  uint32_t fast_latency_cycles = 1;
  uint32_t alignment_bytes = 64;  // planner alignment of every L2 buffer
};

struct L1Config {
  uint64_t size_bytes = 8192;  // line buffer (two fill buffers) + kernel region + accumulators
  uint32_t lines = 64;         // line i feeds neuron i
  uint32_t line_bytes = 32;
  uint32_t kernel_bytes = 2048;  // kernel region: the current fill's weights (or inputs), broadcast
  bool shift_stride = true;      // shift-stride writes: one write fills every line
  bool pad_in_block = true;      // the iterator inserts virtual padding into the shifted block
  // Stride-1 streams share the pad columns between rows: virtual rows of W + max(pad_left,
  // pad_right) positions instead of W + pad_left + pad_right (core/timing/tile_work.h
  // stream_pitch; needs shift_stride and pad_in_block). false: the first stream (the ablation).
  bool shared_pad = true;
  // The store unit's row buffer for a max-pool fused into a conv (core/timing/fused_pool.h): the
  // partial pooled rows of one channel group; 0: no max-pool is fused.
  uint64_t pool_row_buffer_bytes = 8192;
  // Pipeline depth of the load path's per-lane multiplier and requantiser that applies a fused
  // input scale (OpDesc::input_scale: x s_c, then requantise, activate) to the bytes entering
  // the line buffer and kernel region; pipelined, so it costs a tile this many cycles once.
  uint32_t input_scale_cycles = 2;
};

struct NeuronConfig {
  uint32_t count = 64;
  uint32_t macs_per_cycle = 4;  // int8 MAC lanes per neuron
  uint32_t accumulators = 8;    // int32 accumulators per neuron: output channels (or positions) per fill
  uint32_t postop_cycles = 2;   // bias + requantise + activation pipeline depth
};

// Vector unit (model/vector): Softmax, LayerNorm and GELU. A tile of E elements costs, per op,
// passes x ceil(E / lanes) x cycles (cycles per element per lane and pass).
struct VectorConfig {
  uint32_t lanes = 16;
  uint32_t softmax_cycles = 2, softmax_passes = 3;      // max; exp and sum; normalise
  uint32_t layernorm_cycles = 1, layernorm_passes = 3;  // mean; variance; normalise and scale
  uint32_t gelu_cycles = 2, gelu_passes = 1;            // erf polynomial and product
};

// Per-layer choices of the lowering that are properties of the machine being studied.
struct LoweringConfig {
  // auto | positions | channels (see core/timing/tile_work.h) | search (planner/lower/mapper.h)
  std::string mapping = "auto";
  std::string objective = "cycles";  // what `search` minimises: cycles | energy | edp
  uint64_t weight_slot_bytes = 0;    // one weight-staging slot; 0: L2 size / 32
  // A conv whose only consumer is an element-wise Add writes the Add's result through its
  // store path (OpDesc::post; planner/lower/legalise.h fuse_residual_adds), max-pools and global
  // average pools likewise (fuse_max_pools, fuse_global_pools), and a squeeze-excitation Mul read
  // only by a conv is applied by that conv's load path (OpDesc::input_scale; fuse_input_scales).
  bool fuse = true;  // false: every Add, pool and Mul runs as its own layer (docs/planner.md)
  // Channel planes of the tensors only compute ops address padded off the L2 banks' period
  // (planner/lower/activation_layout.h skewed_plane_stride); false: every plane h x w bytes.
  bool skew_planes = true;
  // A concat read only by a channel shuffle is folded into the shuffle output's layout: inputs
  // produced in place as strided views, no shuffle copy (planner/memory/activation_problem.h);
  // false: the concat and the shuffle copy their bytes.
  bool shuffle_layout = true;
};

// Energy and area (core/arch/energy_presets.cpp has every preset number and its source). Every
// override is in the unit its name says; a negative value (the default) takes the preset.
struct EnergyConfig {
  std::string tech = "16nm";         // 45nm | 28nm | 16nm | 7nm
  std::string dram_type = "lpddr4";  // lpddr4 | ddr4 | hbm2
  double mac_pj = -1;
  double acc_update_pj = -1;
  double lb_write_pj_per_byte = -1;
  double lb_write_cycle_pj = -1;
  double kernel_read_pj_per_byte = -1;
  double kernel_write_pj_per_byte = -1;
  double l2_read_pj_per_byte = -1;
  double l2_write_pj_per_byte = -1;
  double dram_pj_per_byte = -1;
  double descriptor_pj = -1;
  double vector_op_pj = -1;
  double sram_leak_pj_per_kib_cycle = -1;
  double mac_area_um2 = -1;
  double sram_area_mm2_per_kib = -1;
  double logic_leak_mw_per_mm2 = -1;  // leakage of the logic units' area
  double clock_fj_per_flop = -1;      // clock energy per flip-flop per clocked cycle
  bool clock_gating = true;           // idle units' clocks gated: clock energy on busy cycles only
  // Accelergy tables (core/arch/energy_tables.h): their paths as usable from the current
  // directory ("" = none) and, read at load, their entries, which replace the action energies
  // ("component.action" -> pJ) and unit areas (unit -> mm2) they name.
  std::string ert, art;
  std::map<std::string, double> ert_table, art_table;
};

// Bytes the L1 must hold: two line-buffer fill buffers, the kernel region, the accumulators.
inline uint64_t l1_required_bytes(const L1Config& l1, const NeuronConfig& n) {
  return 2ull * l1.lines * l1.line_bytes + l1.kernel_bytes + 4ull * n.count * n.accumulators;
}

struct ArchConfig {
  std::string name = "seed";
  ClockConfig clock;
  ControllerConfig controller;
  DmaConfig dma;
  DramConfig dram;
  L2Config l2;
  L1Config l1;
  NeuronConfig neurons;
  VectorConfig vector;
  LoweringConfig lowering;
  EnergyConfig energy;

  // Stable 64-bit hash of every field (FNV-1a over the canonical YAML form); the descriptor list
  // records it so a list planned for one arch is refused by another.
  uint64_t fingerprint() const;
};

}  // namespace strider
