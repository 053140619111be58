// DataFlowCheck: the hazards of a descriptor list (issue 31). The list order is the program
// order the planner meant; the hardware runs a descriptor once its `deps` have retired, and the
// compute pipeline and the vector unit each run their ops in list order (an op is ordered after
// the previous op of its queue), so every ordering the data needs must follow from these edges
// (directly or transitively):
//   - RAW: a descriptor reading bytes depends on the move that last wrote them;
//   - WAR: a move overwriting bytes depends on every descriptor that read them since they were
//     last written;
//   - WAW: a move overwriting bytes another move wrote depends on that move.
// Regions are byte intervals per memory space kept in an interval map (last writer, readers
// since), so the cost is O(accesses x log segments), not all pairs. An access is *exact* when its
// bytes are one interval (a move without row gaps, a dense tensor); a strided access is taken as
// its bounding interval. To stay free of false alarms on strided tiles (an output tile of some
// channels interleaves with its neighbours), hazards are checked only against exact move
// accesses: RAW against an exact move writer, WAR of a move against exact readers, WAW between
// exact moves; an op's write forgets the bytes it covers (only bytes a move wrote are tracked).
// Known gap: the reads of vector-unit ops (softmax, layernorm, gelu) are not checked for WAR:
// the planner does not fence them against later writers on the compute pipeline or the DMA
// (gpt2_decoder: the V projection overwrites the scores a softmax may still be reading).
// Reachability is exact and O(1) for an earlier op: per descriptor the latest op of each queue
// among its ancestors (the queue chains the earlier ones); an earlier move is an ancestor when one
// of its dependents is, followed through chains of moves with a visit budget per pair (past it the
// pair is counted in `unproven` and taken as ordered).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/contract/descriptor.h"

namespace strider {

struct DataFlowStats {
  uint64_t checked_pairs = 0;
  uint64_t unproven = 0;  // pairs whose search ran out of its budget (taken as ordered)
  uint64_t bounded = 0;   // accesses of more than kMaxPieces pieces, taken as their bounding
                          // interval and not checked (their bytes are forgotten)
};

// Calls `fail(descriptor, field, problem)` for each hazard. The list must be structurally valid
// (check() in descriptor.h).
DataFlowStats check_data_flow(
    const DescriptorList& list,
    const std::function<void(const Descriptor&, const std::string&, const std::string&)>& fail);

}  // namespace strider
