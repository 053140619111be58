#include "planner/quant/fidelity.h"

#include <algorithm>
#include <cmath>

namespace strider {

void Fidelity::add(const std::vector<float>& f, const std::vector<int8_t>& q, double scale,
                   bool is_unsigned, bool logits) {
  const size_t n = std::min(f.size(), q.size());
  const double hi = is_unsigned ? 255.5 : 127.5, lo = is_unsigned ? -0.5 : -128.5;
  for (size_t i = 0; i < n; ++i) {
    if (logits && f[i] <= -kMaskedLogit) continue;
    ++values;
    const double v = is_unsigned ? double(uint8_t(q[i])) : double(q[i]);
    const double x = f[i], e = x - v * scale, r = x / scale;
    signal += x * x;
    noise += e * e;
    if (r > hi || r < lo) ++saturated;
  }
}

double Fidelity::sqnr_db() const {
  if (noise <= 0) return kMaxSqnrDb;
  if (signal <= 0) return 0.0;
  return std::min(kMaxSqnrDb, 10.0 * std::log10(signal / noise));
}

}  // namespace strider
