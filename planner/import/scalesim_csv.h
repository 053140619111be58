// SCALE-Sim topology CSV importer.
//
// Convolution form (header "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width,
// Channels, Num Filter, Strides," and an optional ninth column, the column stride): each row
// becomes a conv with no padding (SCALE-Sim's IFMAP sizes already include any padding) and a
// bias-free int8 weight tensor [Num Filter][Channels][Filter H][Filter W].
// GEMM form (header "Layer, M, N, K,"): A (M x K) times B (K x N); each row becomes, as in
// SCALE-Sim, a reduction of length K for each of M rows and N columns: a fully-connected layer
// K -> N when M is 1, else a 1x1 conv over an input of K channels and M x 1 positions.
//
// SCALE-Sim layers are independent workloads, so each row reads its own graph input
// `<layer>.ifmap` of its IFMAP shape, except that a row whose IFMAP is exactly the previous
// row's output, or that output plus a symmetric border smaller than the filter (the padding
// SCALE-Sim files fold into the IFMAP size), chains onto the previous row's output with that
// border as virtual padding. Rows with no consumer are graph outputs. MACs equal SCALE-Sim's.
//
// Trailing commas, blank lines, surrounding spaces and CR line ends are tolerated. Errors read
// "<file>:<line>: ..." and name the layer and column.
#pragma once

#include <string>

#include "planner/ir/graph.h"

namespace strider {

Graph import_scalesim_csv(const std::string& path);

}  // namespace strider
