// core/common/requant_row.h against the scalar functions of core/contract/quant.h, value for value: random
// accumulators over the whole int32 range and the extremes, for every activation, clip bounds
// in and out of the int8 range (and crossed), and shifts from -3 (a multiply) through the
// vectorised 1 .. 62 to 63 (rounds to zero).
#include "core/common/requant_row.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "core/common/hash.h"

namespace strider {
namespace {

TEST(RequantRow, MatchesScalarRequantizeAndActivate) {
  SplitMix64 rng(11);
  std::vector<int32_t> acc(301);
  for (int32_t& a : acc) {
    const uint64_t r = rng.next();
    a = r % 3 == 0 ? int32_t(uint32_t(r >> 32)) : int32_t(int64_t(r >> 40) % 200001 - 100000);
  }
  acc[0] = std::numeric_limits<int32_t>::min();
  acc[1] = std::numeric_limits<int32_t>::max();
  acc[2] = 0;
  acc[3] = -1;
  const PostAct acts[] = {PostAct::kNone,    PostAct::kRelu,        PostAct::kRelu6,
                          PostAct::kClip,    PostAct::kSigmoid,     PostAct::kHardSigmoid,
                          PostAct::kHardSwish};
  const std::pair<int32_t, int32_t> clips[] = {{0, 6}, {-128, 127}, {-300, 300}, {20, -20}};
  const Requant requants[] = {{16513, 21}, {1 << 30, 1}, {1, 62},    {32767, 63},
                              {16384, 0},  {3, -3},      {-20000, 9}, {std::numeric_limits<int32_t>::max(), 40}};
  for (PostAct act : acts) {
    for (const auto& [lo, hi] : clips) {
      for (const Requant& r : requants) {
        std::vector<int8_t> got(acc.size(), 99), want(acc.size());
        for (size_t i = 0; i < acc.size(); ++i) want[i] = activate(requantize(acc[i], r), act, lo, hi);
        requantize_row(acc.data(), int64_t(acc.size()), r, act, lo, hi, got.data());
        ASSERT_EQ(got, want) << "act " << int(act) << " clip [" << lo << ", " << hi << "] m "
                             << r.multiplier << " shift " << r.shift;
      }
    }
  }
}

TEST(RequantRow, LookupRowsIndexTheTableAtTheirScales) {
  // A lookup activation's row of 256 or more reads its table built once (lut_table); it must
  // equal activate() element by element at the row's scales, signed and unsigned, and a shorter
  // row (the scalar path) too.
  SplitMix64 rng(5);
  std::vector<int32_t> acc(300);
  for (int32_t& a : acc) a = int32_t(int64_t(rng.next() >> 40) % 40001 - 20000);
  const LutScales lut{{24576, 18}, {20480, 19}};  // s_in 3/32, s_out 5/128
  for (PostAct act :
       {PostAct::kSigmoid, PostAct::kHardSigmoid, PostAct::kHardSwish, PostAct::kSilu}) {
    for (bool u8 : {false, true}) {
      for (int64_t n : {int64_t(300), int64_t(255)}) {
        const size_t len = size_t(n);
        std::vector<int8_t> got(len, 99), want(len);
        for (int64_t i = 0; i < n; ++i) {
          want[size_t(i)] = activate(requantize(acc[size_t(i)], 16513, 21), act, 0, 0, u8, lut);
        }
        requantize_row(acc.data(), n, Requant{16513, 21}, act, 0, 0, got.data(), u8, lut);
        ASSERT_EQ(got, want) << "act " << int(act) << " u8 " << u8 << " n " << n;
      }
    }
  }
}

TEST(RequantRow, HandComputedRow) {
  // x 16513 / 2^21 (about 1/127), ReLU: 3584 -> 28.22 -> 28; -480 -> 0; 1488 -> 11.72 -> 12;
  // 127 x 127 = 16129 -> 127.0 -> 127; 20000 -> 157.48 -> 157, saturated 127.
  const std::vector<int32_t> acc = {3584, -480, 1488, 16129, 20000};
  std::vector<int8_t> out(acc.size());
  requantize_row(acc.data(), 5, Requant{16513, 21}, PostAct::kRelu, 0, 0, out.data());
  EXPECT_EQ(out, (std::vector<int8_t>{28, 0, 12, 127, 127}));
}

}  // namespace
}  // namespace strider
