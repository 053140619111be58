#include "arch/arch_config.h"

#include "arch/config_writer.h"

namespace strider {

uint64_t ArchConfig::fingerprint() const {
  // FNV-1a, 64-bit: offset basis 14695981039346656037, prime 1099511628211.
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : arch_yaml(*this)) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace strider
