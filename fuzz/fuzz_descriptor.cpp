// libFuzzer target for the descriptor list readers (core/contract/descriptor.h): every input is read
// both as the binary form (read_binary) and as the text form (read_text). A list that reads must
// pass check() or be rejected by it with an exception, and must round-trip exactly through both
// forms (write_binary -> read_binary, to_text -> read_text); a mismatch aborts. Since format
// version 2 a binary list ends with the SHA-256 of its bytes, so random bytes stop at the
// checksum: each input is also read with its last 32 bytes replaced by the right checksum, which
// lets the fuzzer reach the field parser behind it.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>

#include "fuzz/fuzz_input.h"
#include "core/common/sha256.h"
#include "core/contract/descriptor.h"

namespace {

void expect_round_trip(const strider::DescriptorList& list) {
  std::ostringstream bin;
  strider::write_binary(list, bin);
  std::istringstream bin_in(bin.str());
  if (!(strider::read_binary(bin_in, "round-trip.bin") == list)) {
    std::fprintf(stderr, "binary round trip changed the list\n");
    std::abort();
  }
  if (!(strider::read_text(strider::to_text(list), "round-trip.yaml") == list)) {
    std::fprintf(stderr, "text round trip changed the list\n");
    std::abort();
  }
}

void check_message(const std::exception& e, const std::string& source) {
  static const bool strict = std::getenv("STRIDER_FUZZ_STRICT") != nullptr;
  if (strict && std::string(e.what()).find(source) == std::string::npos) {
    std::fprintf(stderr, "error message does not name the source: %s\n", e.what());
    std::abort();
  }
}

// Reads `bytes` as a binary list; a list that reads must round-trip.
void try_binary(const std::string& bytes) {
  strider::DescriptorList list;
  try {
    std::istringstream in(bytes);
    list = strider::read_binary(in, "fuzz.bin");
  } catch (const std::exception& e) {
    check_message(e, "fuzz.bin");
    return;
  }
  expect_round_trip(list);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > strider::fuzz::kMaxInputBytes) return -1;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try_binary(bytes);
  if (bytes.size() >= 40) {  // the same bytes with a correct checksum trailer
    std::string fixed = bytes.substr(0, bytes.size() - 32);
    const strider::Sha256Digest sum = strider::sha256(fixed.data(), fixed.size());
    fixed.append(reinterpret_cast<const char*>(sum.data()), sum.size());
    try_binary(fixed);
  }
  strider::DescriptorList list;
  try {
    list = strider::read_text(bytes, "fuzz.yaml");
  } catch (const std::exception& e) {
    check_message(e, "fuzz.yaml");
    return 0;
  }
  expect_round_trip(list);
  return 0;
}
