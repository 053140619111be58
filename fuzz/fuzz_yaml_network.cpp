// libFuzzer target for Strider's YAML network reader (planner/import/yaml_network.h).
#include "fuzz/network_target.h"
#include "planner/import/yaml_network.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return strider::fuzz::run_network_target(data, size, "input.yaml", strider::import_yaml_network);
}
