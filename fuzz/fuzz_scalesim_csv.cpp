// libFuzzer target for the SCALE-Sim topology CSV reader (planner/import/scalesim_csv.h).
#include "fuzz/network_target.h"
#include "planner/import/scalesim_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // import_scalesim_csv's options have a default, which a function pointer does not carry.
  const auto import = [](const std::string& path) { return strider::import_scalesim_csv(path); };
  return strider::fuzz::run_network_target(data, size, "input.csv", import);
}
