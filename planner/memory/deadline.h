// Deadline: a wall-clock limit that the allocators' and searches' inner loops poll (issue 31).
// passed() reads the clock only every kStride calls, so a loop may poll it per buffer; once
// passed it stays passed. A limit that is not a positive finite number never passes.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>

namespace strider::memory {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr uint32_t kStride = 64;

  explicit Deadline(double seconds)
      : none_(!std::isfinite(seconds) || seconds > 1e7),
        end_(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(none_ ? 0.0 : seconds))),
        passed_(!none_ && !(seconds > 0)) {}

  bool passed() {
    if (passed_) return true;
    if (none_ || ++calls_ % kStride != 0) return false;
    passed_ = Clock::now() >= end_;
    return passed_;
  }
  // Seconds left (0 once passed).
  double left() const {
    if (none_) return 1e7;
    const double s = std::chrono::duration<double>(end_ - Clock::now()).count();
    return s > 0 ? s : 0;
  }

 private:
  bool none_;
  Clock::time_point end_;
  uint32_t calls_ = 0;
  bool passed_;
};

}  // namespace strider::memory
