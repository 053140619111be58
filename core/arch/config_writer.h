// Writing configurations back as YAML: the canonical form of an arch (every field, fixed key
// order, used for ArchConfig::fingerprint()) and the effective form of a run (every default
// filled in, the arch inline), which load_run() reads back into an identical RunConfig.
#pragma once

#include <string>

#include "core/arch/arch_config.h"
#include "core/arch/run_config.h"

namespace strider {

// `arch:` followed by every field of `arch` in the order of arch_config.h.
std::string arch_yaml(const ArchConfig& arch);

// The run with every default filled in: `arch:` (the arch file, when there is one, plus every
// arch field inline), `networks`, `execution`, `planner`, `sim`, `output_dir`. Paths are absolute
// (as load_run resolves them), so the text can be saved anywhere and loaded again.
std::string effective_yaml(const RunConfig& run);

namespace config {
// Shortest decimal text that reads back as exactly `v` (1000.0 -> "1000", 0.1 -> "0.1").
std::string format_number(double v);
}  // namespace config

}  // namespace strider
