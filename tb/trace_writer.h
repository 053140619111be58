// TraceWriter: trace.json in the Chrome trace-event format (opens in Perfetto and
// chrome://tracing). One process, one track (tid) per unit: controller, each DMA channel, load
// unit, neuron array, store unit; a complete ("X") slice per descriptor on the unit that ran it,
// named "<layer> move <k>" / "<layer> tile <k>" (k counts the layer's moves / tiles); instant
// events for the controller's descriptor-list fetches; counter tracks for L2 occupancy (planned
// buffers live as executed) and line-buffer occupancy. Times are microseconds at the accelerator
// clock: ts = cycle / MHz.
//
// Large runs stay usable: above `detail_limit` descriptors, consecutive descriptors of one layer
// on one track merge into one slice ("<layer> x<n>") and the counters keep one sample per
// 1/detail_limit of the run (its maximum). Without a UnitTimeline (run not observed) operation
// tiles appear as async slices from load start to retirement on a "compute" track.
#pragma once

#include <cstdint>
#include <string>

#include "tb/run_summary.h"
#include "tb/unit_timeline.h"

namespace strider {

constexpr uint64_t kTraceDetailLimit = 20000;

// Throws std::runtime_error naming `path` when it cannot be written.
void write_trace(const RunResult& r, const RunSummary& s, const UnitTimeline* timeline,
                 const std::string& path, uint64_t detail_limit = kTraceDetailLimit);

}  // namespace strider
