// Scales fixed by the integer datapath that calibration and the scale application share.
#pragma once

#include "core/contract/vector_math.h"

namespace strider {

// The normalised value of the integer LayerNorm, before gamma (core/contract/vector_math.h).
inline constexpr double kLayerNormScale = 1.0 / (1 << kLayerNormFracBits);
inline constexpr double kUnitScale = 1.0 / 127;  // sigmoid / hard-sigmoid outputs

}  // namespace strider
