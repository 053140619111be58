// Input files named by a user (run, arch, sweep and network YAML, ONNX, CSV, descriptor lists):
// refused with a clear error, before any byte is parsed, when they do not exist, are not regular
// files (a directory, /dev/zero, /dev/urandom, a FIFO) or are larger than the stated limit of
// their kind, so that a careless path can never make the program read without end.
// Errors are std::runtime_error "<path>: <reason>".
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace strider {

// Size limits per kind of input (far above every bundled file; stated in the error).
constexpr uint64_t kMaxYamlFileBytes = uint64_t{16} << 20;        // 16 MiB of configuration
constexpr uint64_t kMaxCsvFileBytes = uint64_t{256} << 20;        // 256 MiB of CSV rows
constexpr uint64_t kMaxNetworkFileBytes = uint64_t{2} << 30;      // 2 GiB (protobuf's own limit)
constexpr uint64_t kMaxDescriptorFileBytes = uint64_t{4} << 30;   // 4 GiB of descriptors

// The error of an input file; reason() is the text after "<path>: ".
class InputFileError : public std::runtime_error {
 public:
  InputFileError(const std::string& path, const std::string& reason)
      : std::runtime_error(path + ": " + reason), reason_(reason) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// Throws InputFileError unless `path` is an existing regular file of at most `max_bytes`; returns its size.
uint64_t check_input_file(const std::string& path, uint64_t max_bytes);

// check_input_file, then the whole file (never more than max_bytes, even if it grows meanwhile).
std::string read_input_file(const std::string& path, uint64_t max_bytes);

}  // namespace strider
