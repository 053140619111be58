// `strider pack FILE.csv [--capacity N] [--allocator NAME] [--time-limit S] [--seed N]
// [--out SOLUTION.csv]`: plans a memory-planning problem in the benchmark CSV format
// (id,lower,upper,size[,alignment][,offset]) and prints buffers, lower bound, height, gap,
// allocator, whether the plan is proven optimal, and time. Exit code 0 on success, 1 on bad input
// or a failed plan (message on `err`), 2 on a usage error.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace strider {

int pack_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace strider
