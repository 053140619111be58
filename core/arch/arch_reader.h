// Reading and validating the `arch:` section: read_arch() fills an ArchConfig from a ConfigNode
// map (sections clock, controller, dma, dram, l2, l1, neurons plus `name`, field names as in
// arch_config.h; absent keys keep their defaults, unknown keys are errors), and check_arch() runs
// the range and cross-field checks (powers of two, capacities, L1 lines == neurons), collecting
// every error. Cross-field errors name the first field involved, at the line where it was written
// (or where the other field was written, when the first one took its default).
#pragma once

#include <cstdint>
#include <string>

#include "core/arch/arch_config.h"
#include "core/arch/config_node.h"
#include "core/arch/diagnostics.h"
#include "core/arch/field_reader.h"

namespace strider::config {

// `arch` is the value of the `arch` key (nullptr: all defaults). Keys are reported under
// `arch.`; `extra_keys` are further keys allowed in the map and left to the caller (`file` in a
// run file).
ArchConfig read_arch(const ConfigNode* arch, Diagnostics& diags, OriginMap& origins,
                     const std::vector<std::string>& extra_keys = {});

// Bounds check_arch enforces besides the structural ones (stated in its errors).
constexpr double kMinFrequencyMhz = 0.001;     // 1 kHz
constexpr double kMaxFrequencyMhz = 100000.0;  // 100 GHz
constexpr uint32_t kMaxLatencyCycles = 1000000;

// Keys that must equal another follow it unless set explicitly: of arch.l1.lines and
// arch.neurons.count, the one set at the stronger level (--set over a file over the default)
// gives its value to the other, so `--set arch.neurons.count=32` alone moves the lines too. Set
// at the same level they must agree (check_arch reports it). read_arch() applies it.
void follow_linked_keys(const OriginMap& origins, ArchConfig& a);

// `fallback` locates errors about fields nobody wrote (e.g. the arch file itself).
void check_arch(const ArchConfig& arch, const OriginMap& origins, const Origin& fallback,
                Diagnostics& diags);

}  // namespace strider::config
