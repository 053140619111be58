#include "tb/quant_evaluation.h"

#include <algorithm>

#include "core/contract/quant.h"
#include "planner/quant/float_reference.h"
#include "tb/reference.h"

namespace strider {

bool is_classifier(const Graph& g) {
  if (g.outputs.empty()) return false;
  for (int t : g.outputs) {
    const TensorShape& s = g.tensors[size_t(t)].shape;
    if (!(s.c > 1 && s.h == 1 && s.w == 1)) return false;
  }
  return true;
}

int64_t top1(const std::vector<float>& v, const TensorShape& s, int64_t b) {
  int64_t best = 0;
  for (int64_t c = 1; c < s.c; ++c) {
    if (v[size_t(b * s.c + c)] > v[size_t(b * s.c + best)]) best = c;
  }
  return best;
}

int64_t top1(const std::vector<int8_t>& v, const TensorShape& s, int64_t b, bool is_unsigned) {
  const auto at = [&](int64_t c) {
    const int8_t q = v[size_t(b * s.c + c)];
    return is_unsigned ? int(uint8_t(q)) : int(q);
  };
  int64_t best = 0;
  for (int64_t c = 1; c < s.c; ++c) {
    if (at(c) > at(best)) best = c;
  }
  return best;
}

double top1_margin(const std::vector<float>& v, const TensorShape& s, int64_t b) {
  if (s.c < 2) return 0.0;
  const float* p = &v[size_t(b * s.c)];
  float first = std::max(p[0], p[1]), second = std::min(p[0], p[1]);
  for (int64_t c = 2; c < s.c; ++c) {
    if (p[c] > first) {
      second = first;
      first = p[c];
    } else if (p[c] > second) {
      second = p[c];
    }
  }
  return double(first) - double(second);
}

SetFigures evaluate_set(const Graph& g, const Graph& float_graph, const Lowered& l,
                        const ClipBounds& clip_bounds,
                        const std::vector<std::vector<float>>& samples, const std::string& name,
                        const std::string& inputs, const std::vector<std::string>& names) {
  SetFigures f;
  f.name = name;
  f.inputs = inputs;
  f.samples = samples.size();
  f.layers.assign(l.list.layers.size(), Fidelity());
  f.classifier = is_classifier(g);
  std::vector<char> compute(l.list.layers.size(), 0);
  for (const Descriptor& d : l.list.descriptors) {
    if (d.kind == DescKind::kOp) compute[d.layer] = 1;
  }
  const std::vector<char> logits = softmax_logits(g);  // masks are not counted
  const int in0 = g.inputs.at(0);
  const Tensor& x0 = g.tensors[size_t(in0)];
  for (size_t k = 0; k < samples.size(); ++k) {
    const std::vector<float>& sample = samples[k];
    SampleFigures one;
    uint64_t most_clipped = 0;
    if (k < names.size()) one.input = names[k];
    FloatReference fr(float_graph, clip_bounds);
    Reference ir(g);
    std::vector<int8_t> q(sample.size());
    for (size_t i = 0; i < q.size(); ++i) {
      q[i] = saturate8(round_away(std::clamp(sample[i] / x0.scale, -1e6, 1e6)));
    }
    fr.set_input(in0, sample);
    ir.set_input(in0, std::move(q));
    for (size_t k = 1; k < g.inputs.size(); ++k) {
      const Tensor& x = g.tensors[size_t(g.inputs[k])];
      fr.set_input(g.inputs[k], x.float_data);
      ir.set_input(g.inputs[k], x.data);
    }
    fr.run();
    ir.run();
    for (size_t layer = 0; layer < compute.size(); ++layer) {
      if (!compute[layer] || l.layer_node[layer] < 0) continue;
      const int out = g.nodes[size_t(l.layer_node[layer])].outputs[0];
      const Tensor& t = g.tensors[size_t(out)];
      if (t.scale <= 0) continue;
      Fidelity fl;
      fl.add(fr.value(out), ir.value(out), t.scale, t.is_unsigned, logits[size_t(out)]);
      f.layers[layer].merge(fl);
      one.values += fl.values;
      one.clipped += fl.saturated;
      if (fl.saturated > most_clipped) {  // the layer clipping the most values
        most_clipped = fl.saturated;
        one.most_clipped_fraction = fl.saturated_fraction();
        one.most_clipped_layer = int(layer);
      }
    }
    for (int out : g.outputs) {
      const Tensor& t = g.tensors[size_t(out)];
      if (t.scale <= 0) continue;
      one.output.add(fr.value(out), ir.value(out), t.scale, t.is_unsigned);
      if (!f.classifier) continue;
      for (int64_t b = 0; b < std::max<int64_t>(t.shape.n, 1); ++b) {
        const double margin = top1_margin(fr.value(out), t.shape, b);
        one.top1_margin = one.top1_total == 0 ? margin : std::min(one.top1_margin, margin);
        ++one.top1_total;
        one.top1_agree +=
            top1(fr.value(out), t.shape, b) == top1(ir.value(out), t.shape, b, t.is_unsigned);
      }
    }
    f.output.merge(one.output);
    f.top1_total += one.top1_total;
    f.top1_agree += one.top1_agree;
    f.per_sample.push_back(std::move(one));
  }
  return f;
}

}  // namespace strider
