// Sweep figures: what sweeps and regressions read back from a finished run's output directory.
// Sweeps take a fixed list of summary.json keys (DESIGN section 5) as results.csv columns;
// regressions take every deterministic figure: the summary's counters, every registered stat
// (`stats.<name>`) and each layer's cycles from layers.csv (`layer.<name>.cycles`). Wall-clock
// figures (wall_seconds, planner.seconds, simulated_cycles_per_second) are never compared.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace strider {

using Figures = std::vector<std::pair<std::string, std::string>>;  // (name, value text), ordered

// The summary.json keys that results.csv carries after the varied keys, in column order.
const std::vector<std::string>& sweep_metric_keys();

// Values of sweep_metric_keys() from OUT_DIR/summary.json ("" for a key the summary lacks).
// Throws std::runtime_error naming the file when it is missing or not JSON.
std::vector<std::string> sweep_metrics(const std::string& out_dir);

// The regression figures of a run directory, in a fixed order. Throws std::runtime_error.
Figures regression_figures(const std::string& out_dir);

}  // namespace strider
