// core/common/window_row.h against the per-element definition (dst[x] = src[x * stride + first] when
// that column is inside [0, width), else 0), for every start from left padding past the right
// edge, strides 1 to 3, rows shorter and longer than the source, int8 and float.
#include "core/common/window_row.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace strider {
namespace {

template <typename T>
void check_all() {
  for (int64_t width : {1, 5, 7}) {
    std::vector<T> src(static_cast<size_t>(width));
    for (int64_t i = 0; i < width; ++i) src[size_t(i)] = T(i + 1);  // no zeros: padding shows
    for (int64_t stride = 1; stride <= 3; ++stride) {
      for (int64_t first = -4; first <= width + 2; ++first) {
        for (int64_t count : {0, 1, 3, 8}) {
          std::vector<T> want(static_cast<size_t>(count)), got(static_cast<size_t>(count), T(-9));
          for (int64_t x = 0; x < count; ++x) {
            const int64_t col = x * stride + first;
            want[size_t(x)] = col >= 0 && col < width ? src[size_t(col)] : T(0);
          }
          window_row(src.data(), width, first, stride, got.data(), count);
          ASSERT_EQ(got, want) << "width " << width << " stride " << stride << " first " << first
                               << " count " << count;
        }
      }
    }
  }
}

TEST(WindowRow, MatchesPerElementDefinition) {
  check_all<int8_t>();
  check_all<float>();
}

TEST(WindowRow, PaddedStridedRowByHand) {
  // width 5 (1..5), stride 2, first -1 (one column of left padding): columns -1, 1, 3, 5, 7.
  const std::vector<int8_t> src = {1, 2, 3, 4, 5};
  std::vector<int8_t> dst(5, 9);
  window_row(src.data(), 5, -1, 2, dst.data(), 5);
  EXPECT_EQ(dst, (std::vector<int8_t>{0, 2, 4, 0, 0}));
}

}  // namespace
}  // namespace strider
