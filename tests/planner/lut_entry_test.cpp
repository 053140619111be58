// core/contract/quant.h lut_entry: the lookup activations' table entry for a given input scale
// s_in and output scale s_out, hand-computed; and activate() on the lookup activations is exactly
// the table at the descriptor's scales (OpDesc::lut, multiplier / 2^shift), by default the fixed
// kLutFixedScale (1/16, 1/16) for all 256 inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "core/contract/quant.h"

namespace strider {
namespace {

TEST(LutEntry, SwishesAtCalibratedScales) {
  const double s_in = 0.05, s_out = 0.04;
  // hard-swish f(x) = x clamp(x / 6 + 0.5, 0, 1):
  // q 60: x 3.0, f 3.0 -> 3.0 / 0.04 = 75; q 20: x 1.0, f 1 x 2/3 -> 16.67 -> 17;
  // q -30: x -1.5, f -1.5 x 0.25 = -0.375 -> -9.375 -> -9; q -128: x -6.4, f 0 -> 0;
  // q 127: x 6.35, f 6.35 -> 158.75 -> 159, saturated 127.
  EXPECT_EQ(lut_entry(60, PostAct::kHardSwish, s_in, s_out), 75);
  EXPECT_EQ(lut_entry(20, PostAct::kHardSwish, s_in, s_out), 17);
  EXPECT_EQ(lut_entry(-30, PostAct::kHardSwish, s_in, s_out), -9);
  EXPECT_EQ(lut_entry(-128, PostAct::kHardSwish, s_in, s_out), 0);
  EXPECT_EQ(lut_entry(127, PostAct::kHardSwish, s_in, s_out), 127);
  // SiLU f(x) = x / (1 + e^-x): q 20: x 1.0, f 0.731059 -> 18.276 -> 18;
  // q -40: x -2.0, f -2 x 0.119203 = -0.238406 -> -5.960 -> -6.
  EXPECT_EQ(lut_entry(20, PostAct::kSilu, s_in, s_out), 18);
  EXPECT_EQ(lut_entry(-40, PostAct::kSilu, s_in, s_out), -6);
}

TEST(LutEntry, SigmoidsKeepTheirUnit) {
  // The sigmoids output 127 f(x) (255 f(x) unsigned) whatever s_out: q 20 at s_in 0.05 is
  // x 1.0, sigmoid 0.731059 -> 92.84 -> 93 (186.42 -> 186 as uint8);
  // q -30: x -1.5, hard-sigmoid 0.25 -> 31.75 -> 32.
  EXPECT_EQ(lut_entry(20, PostAct::kSigmoid, 0.05, 0.04), 93);
  EXPECT_EQ(lut_entry(20, PostAct::kSigmoid, 0.05, 1.0), 93);
  EXPECT_EQ(uint8_t(lut_entry(20, PostAct::kSigmoid, 0.05, 0.04, true)), 186);
  EXPECT_EQ(lut_entry(-30, PostAct::kHardSigmoid, 0.05, 0.04), 32);
}

TEST(LutEntry, ActivateReadsTheTableAtTheDescriptorScales) {
  // s_in = 24576 / 2^18 = 0.09375 (3/32), s_out = 20480 / 2^19 = 0.0390625 (5/128).
  const LutScales lut{{24576, 18}, {20480, 19}};
  EXPECT_EQ(lut_scale(lut.in), 0.09375);
  EXPECT_EQ(lut_scale(lut.out), 0.0390625);
  EXPECT_EQ(lut_scale(LutScales{}.in), kLutFixedScale);  // the default: 16384 / 2^18
  EXPECT_EQ(quantize_multiplier(0.09375), lut.in);
  // Hard-swish: q 32: x 3.0, f 3.0 -> 3.0 / 0.0390625 = 76.8 -> 77; q -16: x -1.5,
  // f -1.5 x 0.25 = -0.375 -> -9.6 -> -10; q 10: x 0.9375, f 0.9375 x 0.65625 = 0.615234 ->
  // 15.75 -> 16.
  EXPECT_EQ(activate(32, PostAct::kHardSwish, 0, 0, false, lut), 77);
  EXPECT_EQ(activate(-16, PostAct::kHardSwish, 0, 0, false, lut), -10);
  EXPECT_EQ(activate(10, PostAct::kHardSwish, 0, 0, false, lut), 16);
  // SiLU: q 10: x 0.9375, f 0.9375 / (1 + e^-0.9375) = 0.673682 -> 17.246 -> 17; q -20:
  // x -1.875, f -0.249308 -> -6.382 -> -6; q 127: x 11.906, f 11.906170 -> 304.8, saturated 127.
  EXPECT_EQ(activate(10, PostAct::kSilu, 0, 0, false, lut), 17);
  EXPECT_EQ(activate(-20, PostAct::kSilu, 0, 0, false, lut), -6);
  EXPECT_EQ(activate(127, PostAct::kSilu, 0, 0, false, lut), 127);
  // Sigmoid keeps its unit 127: q 10 -> 127 / (1 + e^-0.9375) = 91.26 -> 91; q -20 -> 16.89 -> 17.
  EXPECT_EQ(activate(10, PostAct::kSigmoid, 0, 0, false, lut), 91);
  EXPECT_EQ(activate(-20, PostAct::kSigmoid, 0, 0, false, lut), 17);
  // The whole table is lut_entry at those scales, entry q + 128.
  const std::array<int8_t, 256> t = lut_table(PostAct::kSilu, lut);
  for (int q = -128; q <= 127; ++q) {
    EXPECT_EQ(t[size_t(q + 128)], lut_entry(int8_t(q), PostAct::kSilu, 0.09375, 0.0390625)) << q;
  }
}

TEST(LutEntry, ActivateIsTheTableAtTheFixedScales) {
  // The fixed tables as the datapath has used them: hard-swish q 48 is x 3.0 -> 3.0 x 16 = 48;
  // q -24 is x -1.5 -> -0.375 x 16 = -6; SiLU q 16 is x 1.0 -> 0.731059 x 16 = 11.70 -> 12.
  EXPECT_EQ(activate(48, PostAct::kHardSwish, 0, 0), 48);
  EXPECT_EQ(activate(-24, PostAct::kHardSwish, 0, 0), -6);
  EXPECT_EQ(activate(16, PostAct::kSilu, 0, 0), 12);
  // Every entry equals the fixed-scale formulas the datapath used before the tables took scales
  // (x = q / 16; 127 or 255 f(x) for the sigmoids, 16 f(x) for the swishes), so the e2e tensors
  // are byte-identical.
  for (int q = -128; q <= 127; ++q) {
    const double x = q / 16.0, hard = std::clamp(x / 6.0 + 0.5, 0.0, 1.0);
    for (bool u8 : {false, true}) {
      const double unit = u8 ? 255.0 : 127.0;
      EXPECT_EQ(activate(q, PostAct::kSigmoid, 0, 0, u8),
                saturate_out(round_away(unit / (1.0 + std::exp(-x))), u8))
          << q;
      EXPECT_EQ(activate(q, PostAct::kHardSigmoid, 0, 0, u8),
                saturate_out(round_away(unit * hard), u8))
          << q;
    }
    EXPECT_EQ(activate(q, PostAct::kHardSwish, 0, 0), saturate8(round_away(16.0 * x * hard))) << q;
    EXPECT_EQ(activate(q, PostAct::kSilu, 0, 0),
              saturate8(round_away(16.0 * x / (1.0 + std::exp(-x)))))
        << q;
  }
  for (PostAct act :
       {PostAct::kSigmoid, PostAct::kHardSigmoid, PostAct::kHardSwish, PostAct::kSilu}) {
    // The table is indexed by the int8 value: a requantised value beyond int8 saturates first.
    EXPECT_EQ(activate(1000, act, 0, 0), activate(127, act, 0, 0));
    EXPECT_EQ(activate(-1000, act, 0, 0), activate(-128, act, 0, 0));
  }
}

}  // namespace
}  // namespace strider
