// SHA-256 (OpenSSL's libcrypto): the checksum of the binary descriptor format and of every file
// listed in a run's manifest (run.json).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace strider {

using Sha256Digest = std::array<uint8_t, 32>;

// Incremental hashing (files hashed in chunks).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t bytes);
  Sha256Digest finish();

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

Sha256Digest sha256(const void* data, size_t bytes);
// Lower-case hexadecimal, 64 characters.
std::string to_hex(const Sha256Digest& d);
// SHA-256 of a file's content, in hex; throws std::runtime_error naming the file when unreadable.
std::string sha256_file_hex(const std::string& path);

}  // namespace strider
