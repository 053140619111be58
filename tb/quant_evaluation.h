// QuantEvaluation: the fidelity of a calibrated graph on a set of inputs (the calibration set or
// the held-out evaluation set, run keys quant.calibration / quant.evaluation), apart from the
// one image the simulation runs. Per sample: the float network (FloatReference, with the real
// clip bounds calibration returned) and the integer network (tb/reference.h, bit-exact with the
// model, as the functional check verifies on the simulated image) on the sample quantised at
// the input's calibrated scale; per layer of the lowered list with operation tiles, the
// fidelity of its output summed over the samples (planner/quant/fidelity.h), the same over the
// graph outputs, and for a classifier (every output a vector of C > 1 values per image, 1 x 1
// spatially) how often the int8 network's top-1 class (the largest int8 value, the first on
// ties) is the float network's (its largest value). Per sample too (SampleFigures): a pooled
// SQNR is dominated by the samples with the most signal and noise, so one input the calibration
// set does not cover (activations beyond its ranges, clipped layer after layer) can set it alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"
#include "planner/quant/calibrator.h"
#include "planner/quant/fidelity.h"

namespace strider {

// One sample's figures: its graph outputs' fidelity, and the values its layers clip (float
// values outside the int8 range at the calibrated scale) over every measured layer.
struct SampleFigures {
  std::string input;  // the sample's (first) file; empty when unnamed
  Fidelity output;
  uint64_t values = 0, clipped = 0;         // over the outputs of every measured layer
  int most_clipped_layer = -1;              // the layer clipping the most values (-1: none clips)
  double most_clipped_fraction = 0;         // of that layer's values
  uint64_t top1_total = 0, top1_agree = 0;  // classifiers
  // Classifiers: the float network's top-1 value minus its runner-up (the smallest over the
  // batch), to weigh a disagreement against the output's noise (Fidelity::noise).
  double top1_margin = 0;
  double clipped_fraction() const { return values ? double(clipped) / double(values) : 0.0; }
};

struct SetFigures {
  std::string name;    // "calibration" or "evaluation"
  std::string inputs;  // where the samples came from (a pattern, or "synthetic")
  uint64_t samples = 0;
  std::vector<Fidelity> layers;  // per layer of the lowered list (values 0: not measured)
  Fidelity output;
  bool classifier = false;
  uint64_t top1_total = 0, top1_agree = 0;
  std::vector<SampleFigures> per_sample;  // in the order of `samples`
  double top1_agreement() const {
    return top1_total ? double(top1_agree) / double(top1_total) : 0.0;
  }
};

// True when every graph output holds C > 1 values per image at 1 x 1 (logits or probabilities).
bool is_classifier(const Graph& g);

// Top-1 of image `b` of output tensor `t`: index of the largest value (the first on ties).
int64_t top1(const std::vector<float>& values, const TensorShape& s, int64_t b);
int64_t top1(const std::vector<int8_t>& values, const TensorShape& s, int64_t b, bool is_unsigned);

// The largest value of image `b` minus the second largest (0 for fewer than two classes).
double top1_margin(const std::vector<float>& values, const TensorShape& s, int64_t b);

// The figures of `samples` (each graph input 0's shape.elements() floats; `names[i]` names
// sample i when given); graph inputs after the first take their calibration values
// (Tensor::float_data, Tensor::data). `float_graph` is the float network: the graph as
// calibrated, before fuse_residual_adds (whose nodes clip_bounds indexes; a fused conv's node
// holds the Add's activation, which the float pass would not apply), with `g`'s tensors; `g`
// itself when nothing was fused.
SetFigures evaluate_set(const Graph& g, const Graph& float_graph, const Lowered& l,
                        const ClipBounds& clip_bounds,
                        const std::vector<std::vector<float>>& samples, const std::string& name,
                        const std::string& inputs, const std::vector<std::string>& names = {});

}  // namespace strider
