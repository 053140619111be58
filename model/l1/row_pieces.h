// RowPieces: the L2 reads of a positions-mapping window tile's input, piece by piece.
//
// Models: for every neuron run (up to `neurons.count` consecutive output positions, as
// core/timing/tile_work.h lays them) and every kernel row (and part of a kernel row wider than a
// line), the input iterator reads one block per stored input row the run's windows touch: a run
// of a tile walking one stream (`stream`, TileWork::streamed: a stride-1 tile's default, position
// p at stream element stride x p) walks the padded input as one stream of rows of stream_pitch
// elements (W + pad_left + pad_right, or with `l1.shared_pad` W + max(pad_left, pad_right): one
// gap of zeros between stored rows), so its block is the span [first window start, last window
// end) of that stream cut at each virtual row end; otherwise (output rows back to back: a strided tile's
// default, or a stride-1 one's when shorter) a run reads one block per output row it touches,
// from its first window's start to its last window's end. Pad columns and pad rows are virtual
// (made in the block, never stored), so each piece is clipped to the stored row and columns, and
// a piece wholly in padding reads nothing. Consecutive pieces of one block that are back to back in
// memory (no horizontal padding, rows `w` bytes apart) are one piece.
// One AccessPattern per piece covers the input channels that read it: `count` channels at the
// input's channel stride (a conv group's input channels, or for depthwise convolutions and
// pools the tile's consecutive channels), `repeats` times (the groups of up to `accumulators`
// output channels of one conv group each read the same pieces again).
// A hybrid tile (TileWork::tail_positions, tile_work.h) reads row pieces for its full runs only:
// they end `tail` positions before the end of the stream (TileWork::tail_skipped, incl. the
// discarded ones among them); the tail's valid positions run in the channels or im2col form, their
// inputs gathered (TileWork::gather).
// The pieces' bytes are what the load unit reports as its input bytes; the closed form's
// l2_read_bytes (tile_work) counts a segment's whole block, pads included, for the planner.
#pragma once

#include <vector>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"
#include "model/common/timed_memory.h"

namespace strider {

// Appends the input row pieces of `op` (a positions-mapping conv, pool or MatMul tile) to
// `out`, in the iterator's order: run, kernel row, part, piece; the last `tail` positions of the
// tile's stream (a hybrid tile's, TileWork::tail_skipped) are not read here.
void input_row_pieces(const OpDesc& op, const L1Config& l1, const NeuronConfig& neurons,
                      bool stream, uint64_t tail, std::vector<AccessPattern>& out);

}  // namespace strider
