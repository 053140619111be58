#include "planner/quant/fidelity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "planner/ir/graph.h"

namespace strider {

void Fidelity::add(const std::vector<float>& f, const std::vector<int8_t>& q, double s,
                   bool is_unsigned, bool logits) {
  const size_t n = std::min(f.size(), q.size());
  const double hi = is_unsigned ? 255.5 : 127.5, lo = is_unsigned ? -0.5 : -128.5;
  scale = s;
  for (size_t i = 0; i < n; ++i) {
    if (logits && f[i] <= -kMaskedLogit) continue;
    ++values;
    const double v = is_unsigned ? double(uint8_t(q[i])) : double(q[i]);
    const double x = f[i], e = x - v * s, r = x / s;
    signal += x * x;
    noise += e * e;
    max_abs = std::max(max_abs, std::fabs(x));
    if (r > hi || r < lo) ++saturated;
  }
}

void Fidelity::merge(const Fidelity& o) {
  signal += o.signal;
  noise += o.noise;
  values += o.values;
  saturated += o.saturated;
  max_abs = std::max(max_abs, o.max_abs);
  if (o.scale > 0) scale = o.scale;
}

double Fidelity::rms() const { return values ? std::sqrt(signal / double(values)) : 0.0; }

bool Fidelity::defined() const {
  return values > 0 && signal > 0 && !(scale > 0 && rms() < kNearZeroSteps * scale);
}

double Fidelity::sqnr_db() const {
  if (!defined()) return std::numeric_limits<double>::quiet_NaN();
  if (noise <= 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}

std::string Fidelity::undefined_reason() const {
  std::ostringstream os;
  if (values == 0) return "no values measured";
  if (signal <= 0) {
    os << "the float reference is zero (all " << values << " values): no signal to compare against";
  } else if (!defined()) {
    os << "the float reference is near zero (RMS " << rms() << ", below " << kNearZeroSteps
       << " of the int8 step " << scale << "): no signal to compare against";
  } else if (exact()) {
    os << "exact: the int8 values equal the float values";
  }
  return os.str();
}

double Fidelity::rounding_sqnr_db() const {
  if (!(scale > 0) || values == 0) return std::numeric_limits<double>::quiet_NaN();
  const double steps = rms() / scale;
  return 10.0 * std::log10(12.0 * steps * steps);
}

std::string Fidelity::why() const {
  if (!defined() || exact()) return undefined_reason();
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  const double steps = rms() / scale, crest = max_abs / rms(), own = rounding_sqnr_db();
  const double clipped = 100.0 * saturated_fraction();
  if (sqnr_db() < own - 3.0) {
    os << "inherited: its own int8 rounding alone would give " << own
       << " dB; the rest of the noise comes from the layers before it";
    if (clipped > 0) os << " (" << clipped << " % of its values clip)";
    return os.str();
  }
  if (clipped >= 1.0) {
    std::ostringstream sc;
    sc << scale;
    os << "clipping: " << clipped << " % of its values lie outside the int8 range at scale "
       << sc.str();
    return os.str();
  }
  if (crest >= 16.0) {
    os.precision(3);
    os << "range set by a few outliers: max |x| = " << max_abs;
    os.precision(1);
    os << " is " << crest << " x its RMS, so a typical value spans only " << steps << " int8 steps";
  } else {
    os << "its own int8 step: a typical value spans " << steps << " int8 steps (max |x| is "
       << crest << " x the RMS)";
  }
  return os.str();
}

std::vector<char> softmax_logits(const Graph& g) {
  std::vector<char> logits(g.tensors.size(), 0);
  std::vector<int> producer(g.tensors.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (int t : g.nodes[i].outputs) producer[size_t(t)] = int(i);
  }
  std::vector<int> todo;
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kSoftmax) todo.push_back(n.inputs[0]);
  }
  while (!todo.empty()) {
    const int t = todo.back();
    todo.pop_back();
    if (logits[size_t(t)]) continue;
    logits[size_t(t)] = 1;
    const int p = producer[size_t(t)];
    if (p < 0) continue;
    const Node& n = g.nodes[size_t(p)];
    const bool view = n.op == OpType::kReshape || n.op == OpType::kSlice || n.op == OpType::kSplit ||
                      n.op == OpType::kChannelShuffle || n.op == OpType::kGather ||
                      n.op == OpType::kPad || n.op == OpType::kConcat;
    if (view) {
      for (int in : n.inputs) {
        if (g.tensors[size_t(in)].kind == TensorKind::kActivation) todo.push_back(in);
      }
    }
  }
  return logits;
}

}  // namespace strider
