// FillPipeline: the line buffer's two fill buffers between the load unit (which writes fills) and
// the neuron array (which computes on them), as a closed form per fill.
//
// Fill i is written into buffer i mod 2 once the previous fill's writes are done and the buffer
// is free (fill i-2's compute has ended); it is computed once it is written and fill i-1's compute
// has ended:
//   write_start(i)   = max(write_end(i-1), compute_end(i-2))
//   write_end(i)     = write_start(i) + writes(i)
//   compute_end(i)   = max(write_end(i), compute_end(i-1)) + compute(i)
// All times are cycles from the tile's first write. `add(writes, compute, count)` appends `count`
// identical fills; once one fill shifts every state time by the same amount d, every further
// identical fill does too (the recurrence is max-plus linear), so the rest is added in one step.
#pragma once

#include <cstdint>

namespace strider {

class FillPipeline {
 public:
  void add(uint64_t writes, uint64_t compute, uint64_t count = 1);

  uint64_t fills() const { return fills_; }
  uint64_t write_end() const { return write_end_; }      // end of the last fill's writes
  uint64_t compute_end() const { return compute_end_; }  // end of the last fill's compute
  uint64_t first_writes() const { return first_writes_; }
  uint64_t last_compute() const { return last_compute_; }

 private:
  void step(uint64_t writes, uint64_t compute);
  uint64_t fills_ = 0;
  uint64_t write_end_ = 0, compute_end_ = 0, prev_compute_end_ = 0;
  uint64_t first_writes_ = 0, last_compute_ = 0;
};

}  // namespace strider
