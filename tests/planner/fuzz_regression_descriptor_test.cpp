// Regression tests for the descriptor list readers (core/contract/descriptor.h) from the fuzzing work
// of fuzz/fuzz_descriptor.cpp: values the text form cannot hold are refused, not wrapped.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/contract/descriptor.h"

namespace strider {
namespace {

// A one-descriptor list whose op input has the given element_bytes (line 7 of the text).
std::string list_with_element_bytes(const std::string& eb) {
  return "strider_descriptors:\n"
         "  version: 12\n"
         "  arch_fingerprint: 0\n"
         "  layers: [l]\n"
         "  tensors: []\n"
         "  descriptors:\n"
         "    - {id: 0, kind: op, layer: 0, deps: [], op: add, input: [l2, 0, 4, 1, 1, 1, 1, " +
         eb + "]}\n";
}

std::string read_error(const std::string& text) {
  try {
    read_text(text, "d.yaml");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(FuzzRegressionDescriptor, TextElementBytesOver255IsRefusedNotWrapped) {
  // 300 used to be stored as 300 mod 256 = 44.
  EXPECT_EQ(read_error(list_with_element_bytes("300")),
            "d.yaml:7: input: element_bytes 300 exceeds 255");
  // 255 fits: the reader gets past the input and stops at the first missing key.
  EXPECT_EQ(read_error(list_with_element_bytes("255")), "d.yaml:7: missing key 'kernel'");
}

}  // namespace
}  // namespace strider
