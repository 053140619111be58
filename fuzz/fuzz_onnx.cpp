// libFuzzer target for the ONNX importer (planner/import/onnx_importer.h).
#include "fuzz/network_target.h"
#include "planner/import/onnx_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return strider::fuzz::run_network_target(data, size, "input.onnx", strider::import_onnx);
}
