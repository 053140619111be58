// UnitTimeline: when each unit of the compute pipeline was busy with which tile, and the
// line-buffer occupancy over time, as observed by UnitMonitor from the units' busy flags. Plain
// data (no SystemC): the trace writer and the reports read it after the run.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace strider {

struct BusyInterval {
  uint64_t start = 0, end = 0;     // cycles; end is exclusive
  uint32_t line_buffer_bytes = 0;  // the line-buffer fill slot the tile occupies (load, neurons)
};

struct UnitTimeline {
  bool attached = false;  // a UnitMonitor watched the run
  // One interval per operation tile, in the order the unit ran them (the order the controller
  // issued the operation descriptors, i.e. ascending id).
  std::vector<BusyInterval> load, neurons, store;
  // (cycle, bytes) at every change: the fill slot being written plus the one being read.
  std::vector<std::pair<uint64_t, uint32_t>> line_buffer;
  uint32_t line_buffer_peak = 0;
};

}  // namespace strider
