// ONNX importer: the kGather blocks of a resampling copy (onnx_ops_resize.cpp: nearest Resize and
// the bilinear's nearest copy; onnx_ops_conv_transpose.cpp: the interleave of a transposed
// conv's phases), where output element (c, oy, ox) reads one input element.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/ir/graph.h"

namespace strider {
namespace onnx_import {

// Blocks writing every element (c, oy, ox) of a planar `channels` x row_off.size() x
// col_off.size() output image from input element c x in_plane + row_off[oy] + col_off[ox]. Three
// cuts, the one with fewest blocks taken (each block is a DMA move paying its setup, and one
// cycle of row setup per row):
//  - per output row, each run of columns reading consecutive input elements: one block of
//    `channels` rows (input stride in_plane);
//  - strided: when the columns have a period p whose phases read consecutive input elements (a
//    nearest integer upsample, a transposed conv's interleave; at most one index trimmed at each
//    end of an axis, as the bilinear copy's replicated border, each trimmed index a phase of its
//    own), per phase of the rows' period and of p one block of whole rows, each written to
//    every p-th output element (GatherBlock::dst_step p), all channels in it when their planes
//    continue the row strides;
//  - per channel and output row, the columns of one phase of the smallest period p whose
//    source step is constant (an integer upsample: every p-th column): one block.
std::vector<GatherBlock> resample_blocks(int64_t channels, int64_t in_plane,
                                         const std::vector<int64_t>& row_off,
                                         const std::vector<int64_t>& col_off);

}  // namespace onnx_import
}  // namespace strider
