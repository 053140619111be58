// Allocators behind one interface, selectable by name. Every plan returned by allocate() has been
// checked by the independent verifier (verifier.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/arch/allocator_names.h"
#include "planner/memory/problem.h"

namespace strider::memory {

struct AllocatorOptions {
  std::string name = "auto";   // see allocator_names()
  double time_limit_s = 10.0;  // for search-based allocators
  uint64_t seed = 1;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string name() const = 0;
  // Returns a solution; throws std::runtime_error when the problem cannot be placed (e.g. a
  // fixed offset that overlaps, or capacity exceeded), naming the buffer.
  virtual Solution solve(const Problem& p, const AllocatorOptions& opt) const = 0;
};

// The registered names (core/arch/allocator_names.h): make_allocator accepts each of them.
using ::strider::allocator_names;
// Throws std::invalid_argument listing the valid names when `name` is unknown.
std::unique_ptr<Allocator> make_allocator(const std::string& name);

// make_allocator(opt.name)->solve(p, opt), then verify; throws std::runtime_error when the plan
// exceeds p.capacity (naming the capacity, the height and the largest live set) or fails
// verification.
Solution allocate(const Problem& p, const AllocatorOptions& opt);

}  // namespace strider::memory
