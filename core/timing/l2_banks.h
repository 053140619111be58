// L2 bank words: the closed form the L2 model (model/l2/l2_sram.h) charges an access pattern's
// banks with, shared with the planner's cost model (planner/lower/mapper.cpp) so that both count
// the same bank conflicts. SystemC-free.
//
// A pattern is `count` pieces of `bytes` at `stride` from `addr`; each piece touches the bank
// words from its first byte to its last, banks interleaved every `bank_width_bytes`. Pieces
// repeat their bank and word offset every banks x width / gcd(stride, banks x width) pieces, so
// per-bank words are counted over one period (at most banks x width pieces) and multiplied.
#pragma once

#include <cstdint>
#include <vector>

#include "core/arch/arch_config.h"

namespace strider {

// Words each bank serves for one repeat of the pattern (`words` resized to l2.banks).
void l2_bank_words(const L2Config& l2, uint64_t addr, uint64_t bytes, uint64_t count,
                   uint64_t stride, std::vector<uint64_t>& words);

// Cycles an isolated patterned access (banks and port free at its start, `repeats` times over)
// loses to bank conflicts in the L2 model: max(port time, busiest bank's words) - port time,
// port time = ceil(words x width / port_bytes_per_cycle) for several pieces, ceil(bytes / port)
// for one (pieces back to back count as one).
uint64_t l2_conflict_cycles(const L2Config& l2, uint64_t addr, uint64_t bytes, uint64_t count,
                            uint64_t stride, uint64_t repeats);

// One patterned access of l2_conflict_cycles' arguments.
struct L2Pattern {
  uint64_t addr = 0, bytes = 0, count = 0, stride = 0, repeats = 1;
};

// Cycles until the last of `accesses` finishes when each is issued at the same cycle on its own
// port of an idle L2: a bank serves the words of every access in its idle cycles (the L2 model's
// calendar), so the ports share the banks rather than queueing behind one another:
// max(every access's port time, the busiest bank's words summed over all the accesses).
// (l2_conflict_cycles charges each access as if it had the banks to itself.)
uint64_t l2_shared_cycles(const L2Config& l2, const std::vector<L2Pattern>& accesses);

}  // namespace strider
