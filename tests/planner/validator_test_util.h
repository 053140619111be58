// The descriptor-validator tests' plan and refusal text: tiny_cnn on the seed arch as `strider
// plan` emits it, and what validate_descriptors says of a list (descriptor_validator_test.cpp,
// fused_op_checks_test.cpp).
#pragma once

#include <string>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"
#include "planner/import/network_loader.h"
#include "planner/lower/descriptor_validator.h"
#include "planner/lower/legalise.h"
#include "planner/lower/lowering.h"

namespace strider {

struct Planned {
  ArchConfig arch;
  DescriptorList list;
};

// tiny_cnn on the seed arch, as `strider plan` emits it.
inline const Planned& planned() {
  static const Planned p = [] {
    Planned out;
    Graph g =
        load_network(std::string(STRIDER_SOURCE_DIR) + "/configs/networks/tiny_cnn.yaml", 0, 0, 1);
    fuse_activations(&g);
    out.list = lower(g, out.arch, LowerOptions()).list;
    return out;
  }();
  return p;
}

inline std::string refusal(const DescriptorList& list, const ArchConfig& arch = planned().arch) {
  try {
    validate_descriptors(list, arch, "t.strd");
  } catch (const DescriptorError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace strider
