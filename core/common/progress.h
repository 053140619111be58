// Progress of a long pass (import, calibration, planning), reported as `done` of `total` steps
// (layers) to a display the caller owns (tb/stage_progress.h draws it on a terminal). The passes
// only call it; they print nothing themselves. An empty function: nobody listens.
#pragma once

#include <cstdint>
#include <functional>

namespace strider {

using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

inline void report_progress(const ProgressFn& f, uint64_t done, uint64_t total) {
  if (f) f(done, total);
}

}  // namespace strider
