#include "core/arch/allocator_names.h"

namespace strider {

std::vector<std::string> allocator_names() {
  return {"auto",   "naive", "first_fit", "best_fit", "greedy_by_size", "greedy_by_conflicts",
          "search", "exact"};
}

}  // namespace strider
