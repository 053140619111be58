// QuantEvaluation: the fidelity of a calibrated graph on a set of inputs (the calibration set or
// the held-out evaluation set, run keys quant.calibration / quant.evaluation), apart from the
// one image the simulation runs. Per sample: the float network (FloatReference, with the real
// clip bounds calibration returned) and the integer network (tb/reference.h, bit-exact with the
// model, as the functional check verifies on the simulated image) on the sample quantised at
// the input's calibrated scale; per layer of the lowered list with operation tiles, the
// fidelity of its output summed over the samples (planner/quant/fidelity.h), the same over the
// graph outputs, and for a classifier (every output a vector of C > 1 values per image, 1 x 1
// spatially) how often the int8 network's top-1 class (the largest int8 value, the first on
// ties) is the float network's (its largest value).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"
#include "planner/quant/calibrator.h"
#include "planner/quant/fidelity.h"

namespace strider {

struct SetFigures {
  std::string name;    // "calibration" or "evaluation"
  std::string inputs;  // where the samples came from (a pattern, or "synthetic")
  uint64_t samples = 0;
  std::vector<Fidelity> layers;  // per layer of the lowered list (values 0: not measured)
  Fidelity output;
  bool classifier = false;
  uint64_t top1_total = 0, top1_agree = 0;
  double top1_agreement() const {
    return top1_total ? double(top1_agree) / double(top1_total) : 0.0;
  }
};

// True when every graph output holds C > 1 values per image at 1 x 1 (logits or probabilities).
bool is_classifier(const Graph& g);

// Top-1 of image `b` of output tensor `t`: index of the largest value (the first on ties).
int64_t top1(const std::vector<float>& values, const TensorShape& s, int64_t b);
int64_t top1(const std::vector<int8_t>& values, const TensorShape& s, int64_t b, bool is_unsigned);

// The figures of `samples` (each graph input 0's shape.elements() floats); graph inputs after
// the first take their calibration values (Tensor::float_data, Tensor::data).
SetFigures evaluate_set(const Graph& g, const Lowered& l, const ClipBounds& clip_bounds,
                        const std::vector<std::vector<float>>& samples, const std::string& name,
                        const std::string& inputs);

}  // namespace strider
