// Fidelity of the int8 network against the float network it stands for (calibrator.h), per
// tensor: signal-to-quantisation-noise ratio SQNR = 10 log10(sum f^2 / sum (f - q x scale)^2) in
// dB (capped at kMaxSqnrDb when the int8 values are exact; 0 for an all-zero float tensor with
// noise), and the fraction of saturated values: float values outside the int8 range at the
// tensor's scale (|f / scale| > 127.5, or below -128.5; for a uint8 tensor above 255.5 or below
// -0.5), i.e. values the quantisation clips.
#pragma once

#include <cstdint>
#include <vector>

namespace strider {

constexpr double kMaxSqnrDb = 200.0;
// A softmax input this far below zero is an additive mask (Swin's -100), not a logit:
// exp(-50) = 2e-22. Calibration leaves such values out of the scale (they saturate to -128 by
// design) and the fidelity of a softmax input leaves them out too.
constexpr double kMaskedLogit = 50.0;

struct Fidelity {
  double signal = 0, noise = 0;  // sum f^2, sum (f - q s)^2
  uint64_t values = 0, saturated = 0;
  // q: int8 values, or uint8 ones (their bytes) when is_unsigned; logits: a softmax input,
  // whose masked values (f <= -kMaskedLogit) are not counted.
  void add(const std::vector<float>& f, const std::vector<int8_t>& q, double scale,
           bool is_unsigned = false, bool logits = false);
  double sqnr_db() const;
  double saturated_fraction() const { return values ? double(saturated) / double(values) : 0.0; }
};

}  // namespace strider
