// Reading and writing memory-planning problems and solutions in the CSV format of
// ../shared/benchmarks: a header `id,lower,upper,size[,alignment][,offset]`, one buffer per row,
// lifetime [lower, upper) with upper exclusive. On input an `offset` column gives fixed offsets
// (an empty cell means "free"); on output it holds the solved offsets. Malformed input is an
// error `FILE:LINE: ...` naming the column and the value.
#pragma once

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>

#include "planner/memory/problem.h"

namespace strider::memory {

// Parses a problem; `source` names the stream in error messages. Throws std::runtime_error.
Problem read_problem_csv(std::istream& in, const std::string& source);
Problem read_problem_csv_file(const std::string& path);

// Writes id,lower,upper,size[,alignment],offset (alignment only when some buffer has one > 1).
void write_solution_csv(std::ostream& out, const Problem& p, const Solution& s);
void write_solution_csv_file(const std::string& path, const Problem& p, const Solution& s);

// The capacity a benchmark file name carries ("A.1048576.csv" -> 1048576), or 0 when none.
int64_t capacity_from_file_name(const std::string& path);

}  // namespace strider::memory
