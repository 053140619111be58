// Shared by the memory-planner tests: a buffer from its id, lifetime [lower, upper) and size.
#pragma once

#include <cstdint>
#include <string>

#include "planner/memory/problem.h"

namespace strider::memory {

inline Buffer buf(const std::string& id, int64_t lower, int64_t upper, int64_t size) {
  Buffer b;
  b.id = id;
  b.lower = lower;
  b.upper = upper;
  b.size = size;
  return b;
}

}  // namespace strider::memory
