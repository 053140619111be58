// Clipping thresholds of a calibration sample: the MSE-optimal threshold (method "mse") and
// TensorRT's entropy calibration (method "entropy"), each from one group's sample of real values.
#pragma once

#include <vector>

namespace strider {

double best_threshold(std::vector<float> sample, double max);
double entropy_threshold(const std::vector<float>& sample, double max, int levels);

}  // namespace strider
