// QuantReport: the `quant` section of summary.json and the console's quantisation lines of a
// functional run of a calibrated graph (planner/quant/calibrator.h, fidelity.h).
//
// Honest figures: an SQNR that is not a finite number is JSON null with a note saying why (a
// (near) zero float reference: no signal; or exact int8 values), and a warning; the worst layer
// comes with the reason its figure is low (Fidelity::why); the inputs the figure was measured on
// are stated, and a run on seeded synthetic images says its figure is in-sample (the image the
// scales were chosen on is the one evaluated).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "tb/run_harness.h"

namespace strider {

// The index into r.layer_fidelity of the layer with the lowest defined SQNR (-1: none).
int worst_layer(const RunResult& r);

// Warnings about the figures (a (near) zero float output, ...), each one sentence.
std::vector<std::string> quant_warnings(const RunResult& r);

// summary.json's `quant` object (null when the run measured no fidelity).
nlohmann::ordered_json quant_json(const RunResult& r);

// The console lines (nothing when the run measured no fidelity); warnings go to `err`.
void print_quant(const RunResult& r, std::ostream& out, std::ostream& err);

}  // namespace strider
