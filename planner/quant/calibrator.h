// Calibrator: post-training quantisation of a graph from a float pass over a deterministic
// calibration set. Run once per graph, after activation fusion (legalise) and
// materialise_parameters, before lowering.
//
// 0. Imported scales: an already-quantised ONNX model (QDQ form, onnx_ops_quant.cpp) gives some
//    weights their int8 values and per-output-channel scales, and some activations their scale
//    (Tensor::scale set before calibration). Those are kept; steps 1 and 3 fill in only what the
//    model left unquantised.
// 1. Float parameters, scales per output channel o (Tensor::channel_scales): a conv / fc weight
//    tensor with the model's scales keeps them and its int8 values; one with float data (ONNX
//    weights) keeps the floats, scale[o] = max|w[o]| / 127 and int8 =
//    round(w / scale[o]); one without (random, materialised weights) gets the variance-
//    preserving scale sqrt(gain / K) / rms(int8 of channel o), gain 2 before a ReLU / ReLU6 /
//    Clip (He) and 1 for a linear layer (LeCun; 2 there made mobilenet_v2's float network
//    amplify perturbations), and float = int8 x scale[o] (derived when needed by
//    float_weights(), float_reference.h, never stored), so the float network is a plausible
//    one; a bias without float data becomes int32 x scale[o] / 32 (the nominal
//    input RMS of materialise_parameters). A LayerNorm's gamma has one scale (the vector unit
//    requantises y x gamma + beta with one multiplier): max |gamma| / 127, or 1 / rms(int8) for
//    random gamma; a beta without float data is int32 x scale / 256.
// 2. Float pass (FloatReference) over every calibration image: the user's (opt.inputs) or
//    seeded synthetic images (smooth random cosines plus noise, mean 0, standard deviation 1
//    per channel, from `seed`); a graph
//    input that already holds float values is a constant the importer made an input (Swin's
//    attention mask) and keeps them. Records max |x| of every activation tensor and a strided
//    sample of its values on every image, and the same of every lookup-activation node's values
//    before its activation (FloatReference::pre_activation; not a max / average pool's).
// 3. Scales, one per activation tensor, real = int8 x scale. Tensors that must share a scale
//    (a view, pad, split, slice, shuffle, gather, concat or max / average pool and its input; not
//    a global average pool, which requantises its sum to a scale of its own; not the operands
//    of Add, which scales each by its own multiplier, OpDesc::input2_multiplier) form
//    a group; some are fixed by the integer datapath: sigmoid / hard-sigmoid outputs (1/127, or
//    1/255 unsigned); a hard-swish's and SiLU's output is free; a LayerNorm's
//    input is free (the integer LayerNorm normalises whatever the scale), so are the softmax's
//    and GELU's input and output (the vector unit reads the input scale from
//    OpDesc::input_multiplier and requantises its result). A free group takes T / 127, T the
//    clipping threshold the method chooses (CalibrationOptions::method; by default the one that
//    minimises clipping plus rounding error on a sample of its members' values, with
//    at most 0.5 % of them clipped, T = max |x| when no smaller threshold does better), times
//    CalibrationOptions::output_headroom for a group holding a graph output or a pooled tensor
//    (a global average pool's output and every tensor computed from pooled tensors alone, the
//    fc layers of a classifier head or a squeeze-excitation; a lookup table computed from them
//    takes it on its input scale too). In the
//    group of a softmax input, values of -50 or below are additive masks (Swin's -100; exp(-50)
//    = 2e-22): they are left out of max |x| and the sample and saturate to -128, so the logits
//    keep their resolution.
//    A group with imported scales takes the model's scale instead (so a pool, view or Flatten the
//    model left unquantised inherits its input's). Members imported with different scales (the
//    inputs of a concat the model quantised separately) take the largest of them (the
//    coarsest: nothing the model kept in range clips; the finer member loses resolution), each
//    producer requantises to it, and every moved scale is reported in Graph::warnings. A scale
//    the datapath fixes wins over an imported one (also reported).
// 4. Requantisation of every node from the scales, multiplier / 2^shift ~= (quant.h):
//    conv / fc: s_in x s_w[o] / s_pre per output channel o (Node::channel_requant; bias int32 =
//    round(b[o] / (s_in x s_w[o]))); the per-tensor pair holds channel 0's;
//    add: s_a / s_pre and s_b / s_pre with one shift (the larger multiplier in [2^14, 2^15),
//    Node::requant_multiplier and input2_multiplier); mul and MatMul of two activations:
//    s_a x s_b / s_pre; LayerNorm: (1/256) x s_gamma / s_pre (beta int32 = round(beta /
//    ((1/256) x s_gamma)), 1/256 the normalised value's scale, core/contract/vector_math.h);
//    GELU: s_in / s_out, input multiplier 2^24 s_in / sqrt 2; a
//    node's output_factor (a scalar the importer folded in) multiplies its requantisation;
//    softmax: (1/127) / s_out (core/contract/vector_math.h softmax_prob; uint8 probabilities,
//    Tensor::is_unsigned: (1/255) / s_out and a free group takes T / 255), input multiplier
//    2^24 log2(e) s_in; activation-only:
//    s_in / s_pre; where s_pre is the scale before the fused activation (the output scale, or
//    for the lookup activations the table's input scale: T / 127 of the node's pre-activation
//    values, T the method's threshold, in quantize_multiplier's form, Node::lut.in; a swish's
//    table writes the output scale, Node::lut.out); max / average pools do not requantise
//    (s_pre = s_in, a lookup table reading the input's scale; its input stays int8); a
//    global average pool requantises the sum of its H x W inputs: s_in / (H W s_pre). ReLU6 and
//    Clip bounds become round(bound / s_pre), clamped to int8.
// 5. Graph inputs hold calibration image 0 quantised (Tensor::data) and every activation tensor
//    the float network's value on image 0 (Tensor::float_data), for the functional check and
//    the fidelity report (planner/quant/fidelity.h).
//
// Errors (std::runtime_error): a group with two different fixed scales names a tensor of it.
#pragma once

#include <cstdint>

#include "core/common/progress.h"
#include "planner/ir/graph.h"
#include "planner/quant/apply_scales.h"

namespace strider {

struct CalibrationOptions {
  CalibrationOptions() = default;
  CalibrationOptions(uint64_t s, int n) : seed(s), images(n) {}
  uint64_t seed = 1;
  int images = 1;  // synthetic calibration images (>= 1), when `inputs` is empty
  // The user's calibration samples for graph input 0 (each its shape.elements() floats, CHW;
  // calibration_inputs.h); empty: seeded synthetic images. Other inputs stay synthetic.
  std::vector<std::vector<float>> inputs;
  // k of N: the layers of every image's float pass (core/common/progress.h).
  ProgressFn progress;
  // The clipping threshold T of a free group (scale T / 127, or T / 255 unsigned), from a
  // sample of |x| of its members over every calibration image (at most ~64k values):
  // "mse": the T that minimises clipping plus rounding error with at most 0.5 % clipped
  //   (best_threshold); "minmax": max |x| over every image; "percentile": the `percentile`-th
  //   percentile of the sample (nearest rank: the ceil(p n / 100)-th smallest);
  // "entropy": TensorRT's KL divergence calibration: a 2048-bin histogram of |x| != 0 over
  //   [0, max]; for every i from 128 (256 unsigned) to 2048, P = the first i bins with the rest
  //   added to bin i - 1, Q = the first i bins (without the rest) merged into 128 (256) levels
  //   and spread back evenly over the bins where P is not 0; T = i x bin width for the i of
  //   the smallest KL(P || Q) (first on ties; Q's zeros where P is not are 1e-4 of a count; an
//   i whose first bins hold no value is no candidate).
  std::string method = "mse";
  double percentile = 99.99;
  // A free group holding a graph output takes the method's threshold x output_headroom (>= 1):
  // a classifier's largest logits are the values that decide its top-1, and a held-out image
  // whose logits exceed every calibration image's would clip them to a tie at 127. So does a
  // pooled tensor (step 3 above): C values per image, whose calibration range held-out images
  // exceed. Recorded in Graph::calibration_method ("minmax, output headroom 1.5") when not 1.
  double output_headroom = 1.0;
  // Unsigned activations (quant.unsigned_activations): tensors that hold no negative value (a
  // ReLU's, ReLU6's, sigmoid's or hard-sigmoid's output, and the views and pools of it) and
  // whose readers all take uint8 are stored as uint8 with zero point 0 (scale T / 255: one
  // more bit than int8); calibrator.cpp mark_unsigned_activations has the rule.
  bool unsigned_activations = true;
  // Bias correction (bias_correction.h): each conv / fc bias less the mean output error its
  // weights' rounding causes on the calibration images. Graph::calibration_method says
  // "bias correction" when a layer's bias moved (none does when every weight is materialised).
  bool bias_correction = true;
};

// Real [min, max] bounds of each node's Clip / ReLU6 as imported (for FloatReference), which
// calibration replaces by int8 bounds at the calibrated scales: returned for later float passes.
using ClipBounds = std::vector<std::pair<float, float>>;

// The threshold of `method` for a sample of |x| values whose maximum is `max` (see
// CalibrationOptions); levels: 127, or 255 for unsigned tensors.
double choose_threshold(std::vector<float> sample, double max, const CalibrationOptions& opt,
                        int levels);

// Synthetic calibration image `index` for graph input `t` (shape.elements() floats, CHW).
std::vector<float> calibration_image(const Tensor& t, uint64_t seed, int index);

ClipBounds calibrate(Graph* g, const CalibrationOptions& opt);

// Step 4 alone: apply_scales (planner/quant/apply_scales.h).

}  // namespace strider
