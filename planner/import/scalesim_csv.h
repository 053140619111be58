// SCALE-Sim topology CSV importer.
//
// Convolution form (header "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width,
// Channels, Num Filter, Strides," and an optional ninth column, the column stride): each row
// becomes a conv (SCALE-Sim's IFMAP sizes already include any padding) with a bias-free int8
// weight tensor [Num Filter][Channels][Filter H][Filter W]. The output size follows
// ScaleSimOptions::output_size: SCALE-Sim's own ceil((IFMAP - Filter) / Stride) + 1 by default
// (the last window reaches into zero padding at the bottom / right, so MACs equal SCALE-Sim's),
// or floor(...) + 1 (no padding). After the numeric columns a row may carry markers starting
// with '#': '#dw' makes the conv depthwise as SCALE-Sim runs it (each channel convolved by its
// own Num Filter filters: Channels x Num Filter outputs, groups = Channels); other markers are
// ignored with a warning.
// GEMM form (header "Layer, M, N, K,"): A (M x K) times B (K x N); each row becomes, as in
// SCALE-Sim, a reduction of length K for each of M rows and N columns: a fully-connected layer
// K -> N when M is 1, else a 1x1 conv over an input of K channels and M x 1 positions.
//
// SCALE-Sim layers are independent workloads, so each row reads its own graph input
// `<layer>.ifmap` of its IFMAP shape, except that a row whose IFMAP is exactly the previous
// row's output, or that output plus a symmetric border smaller than the filter (the padding
// SCALE-Sim files fold into the IFMAP size), chains onto the previous row's output with that
// border as virtual padding. Rows with no consumer are graph outputs. A layer name used twice is
// made unique (suffix _2, _3, ...) with a warning in Graph::warnings.
//
// Trailing commas, blank lines, surrounding spaces and CR line ends are tolerated. Errors read
// "<file>:<line>: ..." and name the layer and column. Linear in the number of rows.
#pragma once

#include <string>

#include "planner/ir/graph.h"

namespace strider {

struct ScaleSimOptions {
  enum class OutputSize { kCeil, kFloor };
  OutputSize output_size = OutputSize::kCeil;  // run file: networks[i].scalesim.output_size
};

Graph import_scalesim_csv(const std::string& path, const ScaleSimOptions& opt = {});

// "ceil" | "floor"; false for anything else.
bool parse_scalesim_output_size(const std::string& s, ScaleSimOptions::OutputSize* out);

}  // namespace strider
