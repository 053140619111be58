// Bias correction (Nagel et al. 2019, "Data-Free Quantization Through Weight Equalization and
// Bias Correction", section 4.2, in the empirical form: the expected input measured on the
// calibration set). Rounding a conv / fc layer's float weights W to int8 x scale, Wq, moves its
// output by (Wq - W) x on input x; the mean of that error over the calibration images and output
// positions, per output channel o,
//   shift[o] = sum over (c, ky, kx) of (Wq - W)[o, c, ky, kx] x M[c, ky, kx],
// M the mean of the input the weight (c, ky, kx) meets (zero padding included), is subtracted
// from the layer's float bias before it becomes the int32 bias the datapath adds (apply_scales).
// The float network keeps its bias; only the int8 one moves, so the datapath stays bit-exact with
// the integer reference. Layers whose float weights are their int8 x scale (materialised weights)
// have no error and no shift; a layer without a bias is left as it is.
//
// M costs one pass over each layer's im2col rows (inputs x kernel offsets per output position),
// not a convolution: M[c, ky, kx] sums the input rows and columns a kernel offset reaches.
#pragma once

#include <vector>

#include "planner/ir/graph.h"

namespace strider {

class BiasCorrection {
 public:
  // The conv / fc nodes of `g` with a bias whose int8 weights differ from their float ones (call
  // after the weight scales are set: calibrator.cpp step 1).
  explicit BiasCorrection(const Graph& g);

  // Adds one calibration image: `values` the float network's value of every tensor (indexed as
  // g.tensors; FloatReference::values()).
  void add(const std::vector<std::vector<float>>& values);

  // Per node of g: the shift to subtract from its float bias (empty where none), the mean over
  // the images added.
  std::vector<std::vector<double>> shifts() const;

 private:
  const Graph& g_;
  std::vector<char> corrected_;                 // per node
  std::vector<std::vector<double>> input_sum_;  // per node: sum of M over images x positions
  std::vector<double> count_;                   // per node: images x output positions summed
};

}  // namespace strider
