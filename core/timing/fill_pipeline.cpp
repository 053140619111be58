#include "core/timing/fill_pipeline.h"

#include <algorithm>

namespace strider {

void FillPipeline::step(uint64_t writes, uint64_t compute) {
  if (fills_ == 0) first_writes_ = writes;
  const uint64_t write_start = std::max(write_end_, prev_compute_end_);
  write_end_ = write_start + writes;
  prev_compute_end_ = compute_end_;
  compute_end_ = std::max(write_end_, compute_end_) + compute;
  last_compute_ = compute;
  ++fills_;
}

void FillPipeline::add(uint64_t writes, uint64_t compute, uint64_t count) {
  while (count > 0) {
    const uint64_t w0 = write_end_, c0 = compute_end_, p0 = prev_compute_end_;
    const bool started = fills_ > 0;
    step(writes, compute);
    --count;
    const uint64_t d = compute_end_ - c0;
    if (started && count > 0 && write_end_ - w0 == d && prev_compute_end_ - p0 == d) {
      // A uniform shift: every remaining identical fill shifts the state by d again.
      write_end_ += count * d;
      compute_end_ += count * d;
      prev_compute_end_ += count * d;
      fills_ += count;
      return;
    }
  }
}

}  // namespace strider
