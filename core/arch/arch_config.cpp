#include "core/arch/arch_config.h"

#include "core/arch/config_writer.h"
#include "core/common/hash.h"

namespace strider {

uint64_t ArchConfig::fingerprint() const {
  return fnv1a64(arch_yaml(*this));
}

}  // namespace strider
