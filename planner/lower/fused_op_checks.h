// The checks of an op tile's fused parts, for the descriptor validator (descriptor_validator.h):
// a max-pool or a global average pool in its store path, a residual Add as its post-op, a
// per-channel scale on its input load. Each names the field and what was expected through the
// validator's FieldReport, so its errors read as the validator's others.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"

namespace strider {

// The validator's reporting: fail(field, problem) records a problem of the current descriptor;
// tensor(field, t, element_bytes, whole) checks an op tensor (in L2, its element size, rows and
// channels held, its range) and returns whether it holds.
struct FieldReport {
  std::function<void(const std::string&, const std::string&)> fail;
  std::function<bool(const std::string&, const TensorRef&, uint8_t, bool)> tensor;
};

// "CxHxW" of a tensor, as the validator's messages print shapes.
std::string shape_text(const TensorRef& t);

// A fused max-pool; returns whether the op's tensors can be checked further.
bool check_fused_pool(const OpDesc& o, const ArchConfig& arch, const FieldReport& report);
// A fused global average pool; returns whether its pooled output can be checked further.
bool check_fused_gap(const OpDesc& o, const FieldReport& report);
// A post-op Add; out_ok: op.output was checked and holds.
void check_post_op(const OpDesc& o, bool out_ok, const FieldReport& report);
// A fused input scale; in_ok: op.input was checked and holds.
void check_input_scale(const OpDesc& o, bool in_ok, const FieldReport& report);

}  // namespace strider
