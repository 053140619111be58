// VcdTracer: writes waves.vcd through SystemC tracing (sc_trace) of the accelerator's busy flags
// (each DMA channel, load unit, neuron array, store unit) and line-buffer occupancy (the load
// unit's fill slot and the whole line buffer as UnitMonitor sees it).
//
// Create it before sc_start (an end_of_elaboration callback is fine); the file is closed when the
// tracer is destroyed. The VCD timescale is one accelerator cycle when the clock period is a whole
// number of nanoseconds, else 1 ps.
#pragma once

#include <string>
#include <systemc>

namespace strider {

class Top;
class UnitMonitor;

class VcdTracer {
 public:
  // `path` without the .vcd extension SystemC adds (e.g. "results/run/waves"). Throws
  // std::runtime_error naming the path when its directory cannot be created.
  VcdTracer(const std::string& path, Top& top, const UnitMonitor& monitor);
  ~VcdTracer();
  VcdTracer(const VcdTracer&) = delete;
  VcdTracer& operator=(const VcdTracer&) = delete;

 private:
  static void blank_date(const std::string& path);
  sc_core::sc_trace_file* file_ = nullptr;
  std::string path_;
};

}  // namespace strider
