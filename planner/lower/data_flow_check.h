// DataFlowCheck: the hazards of a descriptor list (issue 31). The list order is the program
// order the planner meant; the hardware runs a descriptor once its `deps` have retired, and the
// compute pipeline and the vector unit each run their ops in list order (an op is ordered after
// the previous op of its queue), so every ordering the data needs must follow from these edges
// (directly or transitively):
//   - RAW: a descriptor reading bytes depends on the descriptor (move or op) that last wrote
//     them;
//   - WAR: a descriptor overwriting bytes depends on every descriptor that read them since they
//     were last written;
//   - WAW: a descriptor overwriting bytes another one wrote depends on it.
// Regions are byte intervals per memory space kept in an interval map (last writer, readers
// since), so the cost is O(pieces x log segments), not all pairs. Every access is taken as its
// exact pieces: a 2-D move as its rows (one interval when they touch), an op tile as its
// channels' row bands (or rows), so tiles whose bytes interleave (some output rows of every
// channel) are told apart. An L2 access of more than 16384 pieces is taken as its bounding
// interval instead and not checked (a read records nothing, a write forgets the bytes); they are
// counted in DataFlowStats::bounded (none in the zoo's lists). In DRAM a strided access (a spill
// or fill of row bands) is always taken as its bounding interval, unchecked: tracked piece by
// piece, DRAM homes cost 14.7 s and 550 MB on a list of 10^6 descriptors. Every writer is
// checked, moves and op tiles (outputs, partial sums) alike, against every reader: the compute
// pipeline's ops, the vector unit's (softmax, layernorm, gelu) and the moves.
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
  uint64_t bounded = 0;   // L2 accesses of more than kMaxPieces pieces, taken as their
                          // bounding interval and not checked (their bytes are forgotten)
};

// Calls `fail(descriptor, field, problem)` for each hazard. The list must be structurally valid
// (check() in descriptor.h).
DataFlowStats check_data_flow(
    const DescriptorList& list,
    const std::function<void(const Descriptor&, const std::string&, const std::string&)>& fail);

}  // namespace strider
