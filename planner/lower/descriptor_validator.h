// DescriptorValidator: checks a descriptor list for *meaning* against the arch it was planned for,
// before any simulation (emitted by the planner or loaded from a `.strd` file alike). It holds the
// structural invariants of check() in descriptor.h (dense ids, deps on earlier ids, layer
// indices, non-empty moves and tiles), worded with the field, and adds:
//   - the list's arch fingerprint is the arch's;
//   - every address range (tensor table, move source and destination rows, every tensor an op
//     reads or writes) lies inside its memory space (L2: arch.l2.size_bytes, DRAM:
//     arch.dram.size_bytes), computed without wrap-around;
//   - op tensors live in L2 (the compute pipeline reads and writes only L2), with the element
//     sizes the pipeline uses (int8 data, int32 bias and partial sums), rows not overlapping;
//   - op parameters agree: groups divide the channels, the (dilated) kernel fits the padded input,
//     the output is no larger than the windows give, the weights hold the kernels of the tile's
//     channels, the tile's row, channel and input-channel ranges lie inside the tensors held;
//     element-wise operands have the output's shape; partial-sum modes come with a buffer;
//   - pads give no more windows than the output has; requantisation shifts 0..62 and positive
//     multipliers;
//   - the data flow (planner/lower/data_flow_check.h): every descriptor depends, directly or
//     transitively, on the moves that wrote what it reads, and a move overwriting bytes depends
//     on their readers and earlier writer (RAW, WAR, WAW), checked on a well-formed list only;
//   - the total work (MACs over all tiles, bytes over all moves) stays within the limits.
// Errors name the descriptor id, its layer and the field: every problem of the list is collected
// (up to kMaxReported) and thrown together as one DescriptorError.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"

namespace strider {

struct ValidationLimits {
  uint64_t max_macs = uint64_t{10000000000000};      // 1e13, as tb/resource_limits max_macs
  uint64_t max_move_bytes = uint64_t{1} << 42;       // 4 TiB moved by all DMA descriptors
};

class DescriptorError : public std::runtime_error {
 public:
  explicit DescriptorError(const std::string& what, std::vector<std::string> problems)
      : std::runtime_error(what), problems_(std::move(problems)) {}
  // One line per problem, without the source prefix.
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

constexpr size_t kMaxReported = 20;

// Throws DescriptorError "<source>: descriptor list refused: <problem>" (or "N problems:" and one
// indented line each) when the list is not meaningful for `arch`.
void validate_descriptors(const DescriptorList& list, const ArchConfig& arch,
                          const std::string& source, const ValidationLimits& limits = {});

}  // namespace strider
