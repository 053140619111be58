#include "tb/vcd_tracer.h"

#include <sysc/tracing/sc_tracing_ids.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "model/top/top.h"
#include "tb/unit_monitor.h"

namespace strider {

VcdTracer::VcdTracer(const std::string& path, Top& t, const UnitMonitor& monitor) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot create the output directory");
  path_ = path + ".vcd";
  file_ = sc_core::sc_create_vcd_trace_file(path.c_str());
  if (file_ == nullptr) throw std::runtime_error(path + ".vcd: cannot open for writing");
  const double period_ns = t.clock().period().to_seconds() * 1e9;
  // SystemC reports the unit it was given as an info message; the file says it anyway.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_TRACING_TIMESCALE_UNIT_,
                                          sc_core::SC_DO_NOTHING);
  if (std::abs(period_ns - std::round(period_ns)) < 1e-9) {
    file_->set_time_unit(std::round(period_ns), sc_core::SC_NS);
  } else {
    file_->set_time_unit(1, sc_core::SC_PS);
  }
  for (size_t ch = 0; ch < t.dma().channels(); ++ch) {
    sc_core::sc_trace(file_, t.dma().channel_busy(ch), "dma_ch" + std::to_string(ch) + "_busy");
  }
  sc_core::sc_trace(file_, t.load_unit().busy_flag(), "load_busy");
  sc_core::sc_trace(file_, t.load_unit().line_buffer_bytes(), "load_fill_bytes");
  sc_core::sc_trace(file_, t.neurons().busy_flag(), "neurons_busy");
  sc_core::sc_trace(file_, t.store_unit().busy_flag(), "store_busy");
  sc_core::sc_trace(file_, monitor.line_buffer_bytes(), "line_buffer_bytes");
}

VcdTracer::~VcdTracer() {
  if (file_ == nullptr) return;
  sc_core::sc_close_vcd_trace_file(file_);
  blank_date(path_);
}

// The $date section holds the wall-clock time of the run: overwrite it in place (same length) so
// that the same run gives a byte-identical file.
void VcdTracer::blank_date(const std::string& path) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  std::string head(256, '\0');
  f.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(f.gcount()));
  const size_t from = head.find("$date\n");
  const size_t to = head.find("\n$end", from == std::string::npos ? 0 : from);
  if (from == std::string::npos || to == std::string::npos) return;
  const size_t begin = from + 6;
  std::string text = "     (not recorded)";
  text.resize(to - begin, ' ');
  f.clear();
  f.seekp(std::streamoff(begin));
  f.write(text.data(), std::streamsize(text.size()));
}

}  // namespace strider
