#include "tb/quant_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace strider {
namespace {

// A figure for JSON: the number when finite, else null.
nlohmann::ordered_json db(double v) {
  if (std::isfinite(v)) return v;
  return nullptr;
}

std::string inputs_note(const QuantInfo& q) {
  std::ostringstream os;
  if (q.synthetic) {
    os << "in-sample on synthetic inputs: the scales were chosen on " << q.calibration_images
       << " seeded synthetic image(s) (seed " << q.seed
       << ", smooth random cosines plus noise), and output_sqnr_db is measured on image 0 of "
          "that set";
  } else {
    os << "in-sample: output_sqnr_db is measured on the " << q.calibration_images
       << " calibration sample(s) from " << q.calibration_inputs << " the scales were chosen on";
  }
  if (q.evaluation_samples.empty()) {
    os << "; give quant.evaluation inputs for a held-out figure";
  } else {
    os << "; the held-out figure is quant.evaluation's (" << q.evaluation_samples.size()
       << " sample(s) from " << q.evaluation_inputs << ")";
  }
  return os.str();
}

// The worst layer of a set's per-layer figures (-1: none).
int worst_of(const std::vector<Fidelity>& layers) {
  int worst = -1;
  for (size_t i = 0; i < layers.size(); ++i) {
    if (!layers[i].defined()) continue;
    if (worst < 0 || layers[i].sqnr_db() < layers[size_t(worst)].sqnr_db()) worst = int(i);
  }
  return worst;
}

// RMS error over RMS signal of the float reference, sqrt(noise / signal): the SQNR as a
// fraction (25 dB: 0.056); null when the float signal is (near) zero.
nlohmann::ordered_json relative_error(const Fidelity& f) {
  if (!f.defined()) return nullptr;
  return std::sqrt(f.noise / f.signal);
}

nlohmann::ordered_json sample_json(const RunResult& r, const SampleFigures& s, bool classifier) {
  nlohmann::ordered_json j;
  j["input"] = s.input;
  j["output_sqnr_db"] = db(s.output.sqnr_db());
  j["output_relative_error"] = relative_error(s.output);
  if (classifier) {
    j["top1_agree"] = s.top1_agree == s.top1_total;
    // The float top-1's lead over its runner-up in units of the output's RMS error: below about
    // 1 the two are within the noise and a disagreement says little.
    const double noise_rms =
        s.output.values ? std::sqrt(s.output.noise / double(s.output.values)) : 0;
    j["top1_margin_over_noise"] = db(noise_rms > 0 ? s.top1_margin / noise_rms : NAN);
  }
  j["clipped_fraction"] = s.clipped_fraction();
  j["most_clipped_layer"] =
      s.most_clipped_layer < 0 ? "" : r.lowered.list.layers[size_t(s.most_clipped_layer)];
  j["most_clipped_fraction"] = s.most_clipped_fraction;
  return j;
}

nlohmann::ordered_json set_json(const RunResult& r, const SetFigures& f) {
  nlohmann::ordered_json j;
  j["inputs"] = f.inputs;
  j["samples"] = f.samples;
  j["output_sqnr_db"] = db(f.output.sqnr_db());
  if (!std::isfinite(f.output.sqnr_db())) j["output_sqnr_note"] = f.output.undefined_reason();
  j["output_relative_error"] = relative_error(f.output);
  if (f.classifier) {
    j["top1_agreement"] = f.top1_agreement();
    j["top1_agree"] = f.top1_agree;
    j["top1_total"] = f.top1_total;
  } else {
    j["top1_agreement"] = nullptr;
  }
  const int w = worst_of(f.layers);
  j["worst_layer"] = w < 0 ? "" : r.lowered.list.layers[size_t(w)];
  j["worst_layer_sqnr_db"] =
      w < 0 ? nlohmann::ordered_json(nullptr) : db(f.layers[size_t(w)].sqnr_db());
  j["worst_layer_why"] = w < 0 ? "" : f.layers[size_t(w)].why();
  j["per_sample"] = nlohmann::ordered_json::array();
  for (const SampleFigures& s : f.per_sample)
    j["per_sample"].push_back(sample_json(r, s, f.classifier));
  return j;
}

}  // namespace

int worst_layer(const RunResult& r) { return worst_of(r.layer_fidelity); }

std::vector<std::string> quant_warnings(const RunResult& r) {
  std::vector<std::string> w;
  if (!r.output_fidelity.defined() && r.output_fidelity.values > 0) {
    w.push_back("quant: output SQNR undefined: " + r.output_fidelity.undefined_reason() +
                " (a zero-initialised classifier head?)");
  }
  uint64_t zero = 0;
  std::string first;
  for (size_t i = 0; i < r.layer_fidelity.size(); ++i) {
    const Fidelity& f = r.layer_fidelity[i];
    if (f.values == 0 || f.defined()) continue;
    if (zero++ == 0) first = r.lowered.list.layers[i];
  }
  if (zero > 0) {
    w.push_back("quant: " + std::to_string(zero) +
                " layer(s) have a (near) zero float output and no SQNR, first '" + first + "'");
  }
  // A held-out sample whose layers clip far more than the calibration set's (at least
  // kUncovered of its values, and twice the calibration set's fraction): its activations
  // exceed the calibration ranges, and its error grows layer by layer.
  constexpr double kUncovered = 0.005;
  uint64_t cal_values = 0, cal_clipped = 0;
  for (const SetFigures& f : r.quant.sets) {
    if (f.name != "calibration") continue;
    for (const SampleFigures& s : f.per_sample) {
      cal_values += s.values;
      cal_clipped += s.clipped;
    }
  }
  const double cal = cal_values ? double(cal_clipped) / double(cal_values) : 0.0;
  for (const SetFigures& f : r.quant.sets) {
    if (f.name != "evaluation") continue;
    for (size_t i = 0; i < f.per_sample.size(); ++i) {
      const SampleFigures& s = f.per_sample[i];
      if (s.clipped_fraction() < std::max(kUncovered, 2 * cal)) continue;
      std::ostringstream os;
      os << std::fixed << std::setprecision(2) << "quant: evaluation sample " << i + 1;
      if (!s.input.empty()) os << " (" << s.input << ")";
      os << " clips " << 100 * s.clipped_fraction() << " % of its layers' values (" << 100 * cal
         << " % on the calibration set; most in '"
         << r.lowered.list.layers[size_t(s.most_clipped_layer)] << "', "
         << 100 * s.most_clipped_fraction << " %): its activations exceed the calibration "
         << "ranges, so its output SQNR is " << std::setprecision(1) << s.output.sqnr_db()
         << " dB; calibrate on inputs like it";
      w.push_back(os.str());
    }
  }
  return w;
}

nlohmann::ordered_json quant_json(const RunResult& r) {
  if (r.layer_fidelity.empty()) return nullptr;
  nlohmann::ordered_json j;
  const Fidelity& out = r.output_fidelity;
  j["output_sqnr_db"] = db(out.sqnr_db());
  if (!std::isfinite(out.sqnr_db())) j["output_sqnr_note"] = out.undefined_reason();
  j["in_sample"] = r.quant.evaluation_samples.empty();
  j["synthetic"] = r.quant.synthetic;
  j["method"] = r.quant.method;
  j["bias_correction"] = r.quant.bias_correction;
  j["inputs"] = inputs_note(r.quant);
  const int w = worst_layer(r);
  j["worst_layer"] = w < 0 ? "" : r.lowered.list.layers[size_t(w)];
  j["worst_layer_sqnr_db"] =
      w < 0 ? nlohmann::ordered_json(nullptr) : db(r.layer_fidelity[size_t(w)].sqnr_db());
  j["worst_layer_why"] = w < 0 ? "" : r.layer_fidelity[size_t(w)].why();
  double worst_saturated = 0;
  std::string most_saturated;
  for (size_t i = 0; i < r.layer_fidelity.size(); ++i) {
    const Fidelity& f = r.layer_fidelity[i];
    if (f.values == 0) continue;
    if (most_saturated.empty() || f.saturated_fraction() > worst_saturated) {
      worst_saturated = f.saturated_fraction();
      most_saturated = r.lowered.list.layers[i];
    }
  }
  j["max_saturated_fraction"] = worst_saturated;
  j["max_saturated_layer"] = most_saturated;
  for (const SetFigures& f : r.quant.sets) j[f.name] = set_json(r, f);
  j["warnings"] = quant_warnings(r);
  return j;
}

void print_quant(const RunResult& r, std::ostream& out, std::ostream& err) {
  if (r.layer_fidelity.empty()) return;
  const Fidelity& o = r.output_fidelity;
  out << "  quantisation     output SQNR ";
  if (std::isfinite(o.sqnr_db())) {
    out << std::fixed << std::setprecision(1) << o.sqnr_db() << " dB";
  } else {
    out << "undefined (" << o.undefined_reason() << ")";
  }
  out << (r.quant.synthetic ? ", in-sample on synthetic inputs"
                            : ", in-sample on " + std::to_string(r.quant.calibration_images) +
                                  " calibration sample(s)")
      << " (" << r.quant.method << ")\n";
  for (const SetFigures& f : r.quant.sets) {
    if (f.name != "evaluation") continue;
    out << "  held-out         output SQNR ";
    if (std::isfinite(f.output.sqnr_db())) {
      out << std::fixed << std::setprecision(1) << f.output.sqnr_db() << " dB";
    } else {
      out << "undefined (" << f.output.undefined_reason() << ")";
    }
    out << " on " << f.samples << " evaluation sample(s)";
    if (f.classifier) {
      out << ", top-1 agrees with float on " << f.top1_agree << " of " << f.top1_total;
    }
    out << "\n";
  }
  const int w = worst_layer(r);
  if (w >= 0) {
    const Fidelity& f = r.layer_fidelity[size_t(w)];
    out << "  worst layer      " << r.lowered.list.layers[size_t(w)] << " " << std::fixed
        << std::setprecision(1) << f.sqnr_db() << " dB: " << f.why() << "\n";
  }
  for (const std::string& s : quant_warnings(r)) err << "warning: " << s << "\n";
}

}  // namespace strider
