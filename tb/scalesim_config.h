// ScaleSimConfig: a SCALE-Sim (v2) architecture file (.cfg, INI: [general] run_name,
// [architecture_presets] ArrayHeight, ArrayWidth, IfmapSramSzkB, FilterSramSzkB, OfmapSramSzkB,
// IfmapOffset, FilterOffset, OfmapOffset, Dataflow, Bandwidth, MemoryBanks, ..., [run_presets]
// InterfaceBandwidth, ...) and its mapping onto Strider's arch. Keys are case-insensitive and
// `key: value` or `key = value`, as Python's configparser reads them. A key SCALE-Sim does not
// know, a missing required key or a bad value is an error naming the file, line and key.
//
// The mapping (each row of ScaleSimMapping says what it did and why):
//   ArrayHeight x ArrayWidth PEs -> neurons.count = ArrayHeight neurons of
//     neurons.macs_per_cycle = ArrayWidth lanes (the same peak MACs per cycle; approximated: a
//     SIMD array with a line buffer, not a systolic one), l1.lines = ArrayHeight, the L1 sized
//     to hold them;
//   IfmapSramSzkB + FilterSramSzkB + OfmapSramSzkB -> l2.size_bytes (one shared L2 instead of
//     three operand SRAMs; approximated), rounded up to whole L2 rows;
//   Bandwidth (words per cycle, InterfaceBandwidth USER; a word is one int8 byte) ->
//     dram.bytes_per_cycle; with CALC SCALE-Sim computes the bandwidth a stall-free run needs,
//     Strider models its DRAM: ignored;
//   Dataflow os -> lowering.mapping positions (outputs stay in the accumulators), ws -> channels
//     (weights held per neuron line), is -> auto (no input-stationary mapping; approximated);
//   offsets, memory banks, layouts, sparsity, ... -> ignored (Strider's planner places tensors).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strider {

struct ScaleSimKey {
  std::string section, key, value;  // key as written in the file
  int line = 0;
};

struct ScaleSimConfig {
  std::string path;
  std::vector<ScaleSimKey> keys;  // in file order
  // Finds a key (case-insensitive) in any section; nullptr when absent.
  const ScaleSimKey* find(const std::string& key) const;
};

// Reads and checks a .cfg file. Throws std::runtime_error "<file>:<line>: <key>: <problem>".
ScaleSimConfig read_scalesim_config(const std::string& path);

struct ScaleSimMappingRow {
  std::string key, value;  // the SCALE-Sim key and value
  std::string status;      // mapped | approximated | ignored
  std::string strider;     // the Strider key(s) and value(s), or empty
  std::string note;        // why
};

struct ScaleSimMapping {
  std::vector<ScaleSimMappingRow> rows;
  std::vector<std::string> arch_sets;  // "arch.key=value" for load_arch
  std::string run_name;                // [general] run_name (the default output folder's name)
  uint64_t array_height = 0, array_width = 0;
};

// Maps a read config onto Strider's arch (see the header comment). Throws std::runtime_error
// naming file, line and key for values Strider cannot take (zero sizes, unknown dataflow).
ScaleSimMapping map_scalesim_config(const ScaleSimConfig& cfg);

}  // namespace strider
