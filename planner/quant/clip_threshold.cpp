#include "planner/quant/clip_threshold.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace strider {

// The clipping threshold of a group that minimises the squared error of int8 quantisation on
// a strided sample of its members' values on image 0: clipped error sum (|x| - T)^2 plus the
// rounding error (T / 127)^2 / 12 per unclipped value, over thresholds T from max / 4 to max,
// keeping at most 0.5 % of the values clipped. Returns max when nothing beats it.
// Only the values above the smallest threshold are ever clipped: those are sorted (after the
// others, which are only counted), giving the same sums as sorting the whole sample.
double best_threshold(std::vector<float> sample, double max) {
  if (sample.empty() || max <= 0) return max;
  const float lowest = float(max * 0.25);
  const size_t low =
      size_t(std::partition(sample.begin(), sample.end(), [&](float v) { return !(lowest < v); }) -
             sample.begin());
  std::sort(sample.begin() + low, sample.end());
  const size_t n = sample.size();
  std::vector<double> suffix(n + 1, 0.0), suffix_sq(n + 1, 0.0);  // sums over sample[i..n)
  for (size_t i = n; i-- > low;) {
    suffix[i] = suffix[i + 1] + sample[i];
    suffix_sq[i] = suffix_sq[i + 1] + double(sample[i]) * sample[i];
  }
  double best = max, best_err = -1;
  for (int step = 0; step <= 96; ++step) {
    const double t = max * (0.25 + 0.75 * step / 96.0);
    const size_t first =
        size_t(std::upper_bound(sample.begin() + low, sample.end(), float(t)) - sample.begin());
    const size_t clipped = n - first;
    if (double(clipped) > 0.005 * double(n)) continue;
    const double clip_err = suffix_sq[first] - 2 * t * suffix[first] + t * t * double(clipped);
    const double err = clip_err + double(first) * (t / 127) * (t / 127) / 12.0;
    if (best_err < 0 || err < best_err) {
      best_err = err;
      best = t;
    }
  }
  return best;
}

// TensorRT's entropy calibration (CalibrationOptions::method "entropy").
double entropy_threshold(const std::vector<float>& sample, double max, int levels) {
  constexpr int kBins = 2048;
  const double width = max / kBins;
  std::vector<double> hist(kBins, 0.0);
  // Exact zeros (a ReLU's) are left out: any scale represents them exactly, and their mass in bin
  // 0 would make every wide level look costly (resnet18: T at max / 16, 4.5 dB).
  for (float v : sample) {
    if (v != 0) hist[size_t(std::min<double>(kBins - 1, std::floor(v / width)))] += 1;
  }
  const int first = levels >= 255 ? 256 : 128, target = first;
  double best_kl = -1;
  int best_i = kBins;
  std::vector<double> p, q;
  for (int i = first; i <= kBins; ++i) {
    p.assign(hist.begin(), hist.begin() + i);
    double rest = 0;
    for (int k = i; k < kBins; ++k) rest += hist[size_t(k)];
    p[size_t(i - 1)] += rest;
    q.assign(size_t(i), 0.0);
    const double chunk = double(i) / target;
    for (int j = 0; j < target; ++j) {
      const int start = int(std::floor(j * chunk));
      const int stop = j == target - 1 ? i : int(std::floor((j + 1) * chunk));
      double sum = 0;
      int nonzero = 0;
      for (int k = start; k < stop; ++k) {
        sum += hist[size_t(k)];
        nonzero += p[size_t(k)] != 0;
      }
      for (int k = start; k < stop; ++k) {
        if (p[size_t(k)] != 0) q[size_t(k)] = sum / nonzero;
      }
    }
    double kept = 0;  // the first i bins' values, which Q represents
    for (int k = 0; k < i; ++k) kept += hist[size_t(k)];
    if (kept == 0) continue;  // Q empty: no candidate (every value would clip)
    double p_sum = 0, q_sum = 0;
    for (int k = 0; k < i; ++k) {
      if (p[size_t(k)] != 0 && q[size_t(k)] == 0) q[size_t(k)] = 1e-4;
      p_sum += p[size_t(k)];
      q_sum += q[size_t(k)];
    }
    double kl = 0;
    for (int k = 0; k < i; ++k) {
      if (p[size_t(k)] == 0) continue;
      const double pk = p[size_t(k)] / p_sum, qk = q[size_t(k)] / q_sum;
      kl += pk * std::log(pk / qk);
    }
    if (best_kl < 0 || kl < best_kl) {
      best_kl = kl;
      best_i = i;
    }
  }
  return best_i * width;
}

}  // namespace strider
