// libFuzzer target for the ONNX importer (planner/import/onnx_importer.h).
#include "fuzz/network_target.h"
#include "planner/import/onnx_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // import_onnx's second argument has a default, which a function pointer does not carry.
  const auto import = [](const std::string& path) { return strider::import_onnx(path); };
  return strider::fuzz::run_network_target(data, size, "input.onnx", import);
}
