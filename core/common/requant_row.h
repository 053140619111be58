// RequantRow: the requantisation and fused activation of a row of int32 accumulators (one
// output channel's positions), for the model's tiles (model/neuron/tile_compute.cpp) and the
// reference (tb/reference.cpp):
//   out[i] = activate(requantize(acc[i], r), act, clip_min, clip_max, u8, lut)
// the functions of core/contract/quant.h, value for value. The rectifier, clip and no-activation
// rows with a right shift of 1 to 62 are one loop the compiler vectorises (GCC clones for AVX2 /
// AVX-512, core/common/simd.h: 64-bit products, rounding half away from zero on the magnitude);
// a lookup activation's row of 256 or more indexes its table (lut_table, built once per row);
// every other row calls the scalar functions.
#pragma once

#include <cstdint>

#include "core/contract/quant.h"

namespace strider {

// u8: the output is uint8 (saturated to [0, 255], core/contract/quant.h saturate_out).
void requantize_row(const int32_t* acc, int64_t n, Requant r, PostAct act, int32_t clip_min,
                    int32_t clip_max, int8_t* out, bool u8 = false, LutScales lut = {});

}  // namespace strider
