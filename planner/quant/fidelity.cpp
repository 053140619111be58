#include "planner/quant/fidelity.h"

#include <algorithm>
#include <cmath>

namespace strider {

void Fidelity::add(const std::vector<float>& f, const std::vector<int8_t>& q, double scale) {
  const size_t n = std::min(f.size(), q.size());
  for (size_t i = 0; i < n; ++i) {
    const double x = f[i], e = x - double(q[i]) * scale, r = x / scale;
    signal += x * x;
    noise += e * e;
    if (r > 127.5 || r < -128.5) ++saturated;
  }
  values += n;
}

double Fidelity::sqnr_db() const {
  if (noise <= 0) return kMaxSqnrDb;
  if (signal <= 0) return 0.0;
  return std::min(kMaxSqnrDb, 10.0 * std::log10(signal / noise));
}

}  // namespace strider
