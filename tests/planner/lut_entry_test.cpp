// core/contract/quant.h lut_entry: the lookup activations' table entry for a given input scale
// s_in and output scale s_out, hand-computed; and activate() on the lookup activations is exactly
// the table at the fixed scales kLutFixedScale (1/16, 1/16) for all 256 inputs.
#include <gtest/gtest.h>

#include <algorithm>
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
