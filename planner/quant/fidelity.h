// Fidelity of the int8 network against the float network it stands for (calibrator.h), per
// tensor: signal-to-quantisation-noise ratio SQNR = 10 log10(sum f^2 / sum (f - q x scale)^2) in
// dB, and the fraction of saturated values: float values outside the int8 range at the tensor's
// scale (|f / scale| > 127.5, or below -128.5; for a uint8 tensor above 255.5 or below -0.5),
// i.e. values the quantisation clips.
//
// No cap: an SQNR is only reported where it means something. defined() is false when the float
// signal is (near) zero, its RMS below kNearZeroSteps of the tensor's int8 step (vit_b_16's
// zero-initialised head: an all-zero float output), and sqnr_db() is then NaN; exact() is true
// when the int8 values carry no noise at all (sqnr_db() = +infinity). undefined_reason() says
// which, for the reports (JSON null plus a note).
//
// why() explains a figure from the tensor's own statistics: the SQNR its own rounding alone
// would give, 10 log10(12 rms^2 / scale^2) for an unclipped uniform quantiser, tells whether the
// noise is its own (clipping, or a range set by a few outliers, max |f| many times the RMS, so a
// typical value spans few int8 steps) or inherited from the layers before it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strider {

// A softmax input this far below zero is an additive mask (Swin's -100), not a logit:
// exp(-50) = 2e-22. Calibration leaves such values out of the scale (they saturate to -128 by
// design) and the fidelity of a softmax input leaves them out too.
constexpr double kMaskedLogit = 50.0;
// A float signal whose RMS is below this fraction of one int8 step is (near) zero: no SQNR.
constexpr double kNearZeroSteps = 1e-3;

struct Fidelity {
  double signal = 0, noise = 0;  // sum f^2, sum (f - q s)^2
  uint64_t values = 0, saturated = 0;
  double max_abs = 0;  // max |f| over the counted values
  double scale = 0;    // the tensor's scale (of the last add)
  // q: int8 values, or uint8 ones (their bytes) when is_unsigned; logits: a softmax input,
  // whose masked values (f <= -kMaskedLogit) are not counted.
  void add(const std::vector<float>& f, const std::vector<int8_t>& q, double scale,
           bool is_unsigned = false, bool logits = false);
  // Sums of another measurement of the same tensor (another image).
  void merge(const Fidelity& o);
  double rms() const;
  bool defined() const;  // values counted and the float signal not (near) zero
  bool exact() const { return defined() && noise <= 0; }
  double sqnr_db() const;                // NaN when !defined(), +infinity when exact()
  std::string undefined_reason() const;  // empty when sqnr_db() is a finite number
  // 10 log10(12 rms^2 / scale^2): the SQNR of the tensor's own rounding alone.
  double rounding_sqnr_db() const;
  std::string why() const;  // one sentence on what limits sqnr_db()
  double saturated_fraction() const { return values ? double(saturated) / double(values) : 0.0; }
};

struct Graph;

// Per tensor: 1 for the logits of a softmax, whose masked values (f <= -kMaskedLogit) the
// fidelity leaves out: its input and every tensor a chain of views (reshape, slice, split,
// shuffle, gather, pad, concat: the same values, the same scale) leads from into it. Swin's mask
// is added to the scores before a reshape: the Add's output holds the -100s too (it read 4.0 dB
// when only the softmax's own input left them out: the -100 saturating to -128 x s = -11).
std::vector<char> softmax_logits(const Graph& g);

}  // namespace strider
