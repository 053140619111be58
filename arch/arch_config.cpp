#include "arch/arch_config.h"

#include "arch/config_writer.h"
#include "common/hash.h"

namespace strider {

uint64_t ArchConfig::fingerprint() const {
  return fnv1a64(arch_yaml(*this));
}

}  // namespace strider
