// The names of the memory planner's allocators, the values `planner.allocator` may take. The run
// reader checks a run file against this list; the planner (planner/memory/allocator.cpp) makes an
// allocator for each of them and a planner test checks that every name here has one.
#pragma once

#include <string>
#include <vector>

namespace strider {

std::vector<std::string> allocator_names();

}  // namespace strider
