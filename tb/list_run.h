// Running an emitted descriptor list directly (`strider run LIST.strd --arch ARCH.yaml`): the
// list is simulated as it is, on the arch it was planned for (the fingerprints must match).
#pragma once

#include <string>
#include <vector>

#include "tb/run_harness.h"

namespace strider {

// True for a path the run command treats as a descriptor list (.strd binary).
bool is_list_path(const std::string& path);

// Fills r.config (the arch with `arch.*` sets applied, sim and output_dir sets) and r.lowered
// (the list and per-layer names) from `list_path`. Throws std::runtime_error naming the file on a
// malformed list, an arch whose fingerprint differs from the list's, or functional mode (a list
// carries no weights).
void load_list_run(const std::string& list_path, const std::string& arch_path,
                   const std::vector<std::string>& sets, RunResult& r);

}  // namespace strider
