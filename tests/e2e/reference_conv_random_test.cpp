// The reference's convolution (tb/reference.cpp: window planes, then the int8 matrix product of
// core/common/int8_gemm.h, then requantisation) against a direct sum over each window, on random
// int8 data: odd sizes, asymmetric padding, strides, dilation, groups (depthwise too) and
// output-channel counts that are not multiples of the product's 4-row blocks.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/common/hash.h"
#include "core/contract/quant.h"
#include "tb/reference.h"

namespace strider {
namespace {

struct ConvCase {
  int64_t cin, cout, groups, kh, kw, stride, dilation, pt, pl, pb, pr, h, w;
};

std::vector<int8_t> random_bytes(SplitMix64& rng, int64_t count) {
  std::vector<int8_t> v(static_cast<size_t>(count));
  for (int8_t& x : v) x = static_cast<int8_t>(rng.next() & 0xff);
  return v;
}

void check(const ConvCase& c, SplitMix64& rng) {
  const int64_t oh = (c.h + c.pt + c.pb - c.dilation * (c.kh - 1) - 1) / c.stride + 1;
  const int64_t ow = (c.w + c.pl + c.pr - c.dilation * (c.kw - 1) - 1) / c.stride + 1;
  const int64_t cin_g = c.cin / c.groups, cout_g = c.cout / c.groups;
  Graph g;
  Tensor x, y, w, b;
  x.name = "x";
  x.shape = {1, c.cin, c.h, c.w};
  y.name = "y";
  y.shape = {1, c.cout, oh, ow};
  w.name = "w";
  w.kind = TensorKind::kWeight;
  w.shape = {c.cout, cin_g, c.kh, c.kw};
  w.data = random_bytes(rng, c.cout * cin_g * c.kh * c.kw);
  b.name = "b";
  b.kind = TensorKind::kBias;
  b.element_bytes = 4;
  b.shape = {1, c.cout, 1, 1};
  for (int64_t o = 0; o < c.cout; ++o) b.bias.push_back(int32_t(rng.next() % 20001) - 10000);
  Node n;
  n.name = "conv";
  n.op = OpType::kConv;
  n.inputs = {g.add_tensor(x)};
  n.outputs = {g.add_tensor(y)};
  n.weights = g.add_tensor(w);
  n.bias = g.add_tensor(b);
  n.groups = int(c.groups);
  n.kernel_h = int(c.kh);
  n.kernel_w = int(c.kw);
  n.stride_h = n.stride_w = int(c.stride);
  n.dilation_h = n.dilation_w = int(c.dilation);
  n.pad_top = int(c.pt);
  n.pad_left = int(c.pl);
  n.pad_bottom = int(c.pb);
  n.pad_right = int(c.pr);
  n.requant_multiplier = 3;
  n.requant_shift = 11;  // acc x 3 / 2048: most outputs inside int8, some saturated
  g.inputs = {n.inputs[0]};
  const std::vector<int8_t> in = random_bytes(rng, c.cin * c.h * c.w);
  Reference ref(g);
  ref.set_input(n.inputs[0], in);
  ref.run_node(n);
  const std::vector<int8_t>& got = ref.value(n.outputs[0]);
  ASSERT_EQ(int64_t(got.size()), c.cout * oh * ow);
  const std::vector<int8_t>& wt = g.tensors[n.weights].data;
  for (int64_t o = 0; o < c.cout; ++o) {
    const int64_t grp = o / cout_g;
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        int32_t acc = b.bias[size_t(o)];
        for (int64_t ci = 0; ci < cin_g; ++ci) {
          for (int64_t ky = 0; ky < c.kh; ++ky) {
            for (int64_t kx = 0; kx < c.kw; ++kx) {
              const int64_t iy = oy * c.stride + ky * c.dilation - c.pt;
              const int64_t ix = ox * c.stride + kx * c.dilation - c.pl;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              acc += int32_t(in[size_t(((grp * cin_g + ci) * c.h + iy) * c.w + ix)]) *
                     wt[size_t(((o * cin_g + ci) * c.kh + ky) * c.kw + kx)];
            }
          }
        }
        const int8_t want = saturate8(requantize(acc, 3, 11));
        ASSERT_EQ(got[size_t((o * oh + oy) * ow + ox)], want)
            << "cin " << c.cin << " cout " << c.cout << " groups " << c.groups << " at (" << o
            << ", " << oy << ", " << ox << ")";
      }
    }
  }
}

TEST(ReferenceConvRandom, MatchesDirectWindowSums) {
  SplitMix64 rng(1818);
  const std::vector<ConvCase> cases = {
      // cin cout groups kh kw stride dil  pt pl pb pr   h   w
      {3, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 7, 9},     // odd sizes, same padding
      {4, 7, 1, 5, 3, 2, 1, 2, 0, 1, 2, 11, 10},   // asymmetric padding, stride 2
      {6, 9, 3, 3, 3, 1, 2, 2, 2, 2, 2, 8, 8},     // groups, dilation 2
      {8, 8, 8, 3, 3, 2, 1, 1, 1, 1, 1, 9, 13},    // depthwise, stride 2
      {17, 66, 1, 1, 1, 1, 1, 0, 0, 0, 0, 5, 14},  // 1x1, 66 = 16 blocks of 4 + 2
      {5, 3, 1, 7, 7, 3, 1, 3, 3, 3, 3, 23, 19},   // stem-like 7x7 stride 3
  };
  for (const ConvCase& c : cases) check(c, rng);
}

}  // namespace
}  // namespace strider
