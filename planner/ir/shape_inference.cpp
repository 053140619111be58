// Graph IR shape rules: the output shape of every op from its input and weight shapes, the
// reduction length and the multiply-accumulate count of conv and fully-connected nodes.
#include <algorithm>
#include <stdexcept>

#include "core/common/window_row.h"
#include "planner/ir/graph.h"

namespace strider {
namespace {

[[noreturn]] void fail(const Node& n, const std::string& what) {
  throw std::runtime_error("node '" + n.name + "' (" + to_string(n.op) + "): " + what);
}

const TensorShape& input_shape(const Graph& g, const Node& n, size_t k) {
  const int id = n.inputs[k];
  if (id < 0 || id >= static_cast<int>(g.tensors.size())) {
    fail(n, "input tensor id " + std::to_string(id) + " out of range");
  }
  return g.tensors[id].shape;
}

void expect_inputs(const Node& n, size_t count) {
  if (n.inputs.size() != count) {
    fail(n,
         "has " + std::to_string(n.inputs.size()) + " inputs, expected " + std::to_string(count));
  }
}

const TensorShape& weight_shape(const Graph& g, const Node& n) {
  if (n.weights < 0 || n.weights >= static_cast<int>(g.tensors.size())) fail(n, "has no weights");
  return g.tensors[n.weights].shape;
}

// Output extent of a sliding window along one axis (ONNX / PyTorch rules).
int64_t window_extent(const Node& n, const char* axis, int64_t in, int kernel, int stride,
                      int pad_begin, int pad_end, int dilation, bool ceil_mode) {
  if (kernel < 1 || stride < 1 || dilation < 1 || pad_begin < 0 || pad_end < 0) {
    fail(n, std::string("invalid window along ") + axis + ": kernel " + std::to_string(kernel) +
                ", stride " + std::to_string(stride) + ", dilation " + std::to_string(dilation) +
                ", pads " + std::to_string(pad_begin) + "/" + std::to_string(pad_end));
  }
  const int64_t span = static_cast<int64_t>(dilation) * (kernel - 1) + 1;
  const int64_t room = in + pad_begin + pad_end - span;
  if (room < 0) {
    fail(n, std::string("window ") + std::to_string(span) + " larger than padded input " +
                std::to_string(in + pad_begin + pad_end) + " along " + axis);
  }
  return window_positions(in, span, stride, pad_begin, pad_end, ceil_mode);
}

TensorShape window_output(const Node& n, const TensorShape& in, int64_t channels, bool ceil_mode) {
  TensorShape out = in;
  out.c = channels;
  out.h = window_extent(n, "H", in.h, n.kernel_h, n.stride_h, n.pad_top, n.pad_bottom, n.dilation_h,
                        ceil_mode);
  out.w = window_extent(n, "W", in.w, n.kernel_w, n.stride_w, n.pad_left, n.pad_right, n.dilation_w,
                        ceil_mode);
  return out;
}

TensorShape conv_output(const Graph& g, const Node& n) {
  expect_inputs(n, 1);
  const TensorShape& in = input_shape(g, n, 0);
  const TensorShape& w = weight_shape(g, n);
  if (n.groups < 1) fail(n, "groups " + std::to_string(n.groups) + " must be >= 1");
  if (in.c != w.c * n.groups) {
    fail(n, "input " + to_string(in) + " has " + std::to_string(in.c) + " channels but weights " +
                to_string(w) + " with groups " + std::to_string(n.groups) + " expect " +
                std::to_string(w.c * n.groups));
  }
  if (w.n % n.groups != 0) {
    fail(n, "output channels " + std::to_string(w.n) + " not divisible by groups " +
                std::to_string(n.groups));
  }
  if (w.h != n.kernel_h || w.w != n.kernel_w) {
    fail(n, "weights " + to_string(w) + " do not match kernel " + std::to_string(n.kernel_h) + "x" +
                std::to_string(n.kernel_w));
  }
  return window_output(n, in, w.n, false);
}

TensorShape fc_output(const Graph& g, const Node& n) {
  expect_inputs(n, 1);
  const TensorShape& in = input_shape(g, n, 0);
  const TensorShape& w = weight_shape(g, n);
  const int64_t features = in.c * in.h * in.w;
  if (w.c != features || w.h != 1 || w.w != 1) {
    fail(n, "input " + to_string(in) + " has " + std::to_string(features) +
                " features but weights " + to_string(w) + " expect " + std::to_string(w.c));
  }
  return TensorShape{in.n, w.n, 1, 1};
}

TensorShape binary_output(const Graph& g, const Node& n) {
  expect_inputs(n, 2);
  const TensorShape& a = input_shape(g, n, 0);
  const TensorShape& b = input_shape(g, n, 1);
  const bool per_channel = b.n == a.n && b.c == a.c && b.h == 1 && b.w == 1;
  const bool scalar = b.elements() == 1;
  if (b != a && !per_channel && !scalar) {
    fail(n, "second input " + to_string(b) + " does not broadcast to " + to_string(a) +
                " (same shape, per channel Nx" + std::to_string(a.c) + "x1x1 or scalar)");
  }
  return a;
}

TensorShape concat_output(const Graph& g, const Node& n) {
  if (n.inputs.empty()) fail(n, "has no inputs");
  TensorShape out = input_shape(g, n, 0);
  for (size_t k = 1; k < n.inputs.size(); ++k) {
    const TensorShape& s = input_shape(g, n, k);
    if (s.n != out.n || s.h != out.h || s.w != out.w) {
      fail(n, "input " + std::to_string(k) + " " + to_string(s) + " differs from input 0 " +
                  to_string(input_shape(g, n, 0)) + " outside the channel axis");
    }
    out.c += s.c;
  }
  return out;
}

TensorShape reshape_output(const Graph& g, const Node& n) {
  expect_inputs(n, 1);
  const TensorShape& in = input_shape(g, n, 0);
  if (n.reshape_dims.empty()) return in;
  if (n.reshape_dims.size() > 4) {
    fail(n, "target has " + std::to_string(n.reshape_dims.size()) + " dims, at most 4 supported");
  }
  const int64_t in_dims[4] = {in.n, in.c, in.h, in.w};
  int64_t dims[4] = {1, 1, 1, 1};
  int infer = -1;
  int64_t known = 1;
  for (size_t k = 0; k < n.reshape_dims.size(); ++k) {
    const int64_t d = n.reshape_dims[k];
    if (d == -1) {
      if (infer >= 0) fail(n, "target has more than one -1");
      infer = static_cast<int>(k);
      continue;
    }
    if (d < -1) fail(n, "target dim " + std::to_string(d) + " is negative");
    dims[k] = d == 0 ? in_dims[k] : d;
    if (dims[k] > 0 && known > kMaxTensorElements / dims[k]) {
      fail(n, "target has more than " + std::to_string(kMaxTensorElements) + " elements");
    }
    known *= dims[k];
  }
  if (infer >= 0) {
    if (known == 0 || in.elements() % known != 0) {
      fail(n, "cannot infer -1: " + std::to_string(in.elements()) + " elements not divisible by " +
                  std::to_string(known));
    }
    dims[infer] = in.elements() / known;
  }
  const TensorShape out{dims[0], dims[1], dims[2], dims[3]};
  if (out.elements() != in.elements()) {
    fail(n, "reshape of " + to_string(in) + " to " + to_string(out) + " changes the element count");
  }
  return out;
}

// MatMul: A is [G*K, M, W], B [G*N, K, 1] (or [G*K, N, 1] with transpose_b).
int64_t matmul_inner(const Graph& g, const Node& n) {
  expect_inputs(n, 2);
  const TensorShape& a = input_shape(g, n, 0);
  if (n.groups < 1 || a.c % n.groups != 0) {
    fail(n, "channels of A " + std::to_string(a.c) + " not divisible by groups " +
                std::to_string(n.groups));
  }
  return a.c / n.groups;
}

TensorShape matmul_output(const Graph& g, const Node& n) {
  const int64_t k = matmul_inner(g, n);
  const TensorShape& a = input_shape(g, n, 0);
  const TensorShape& b = input_shape(g, n, 1);
  const int64_t rows = b.h * b.w;
  const int64_t cols = n.transpose_b ? rows : b.c / n.groups;
  const bool ok = n.transpose_b ? (b.c == a.c) : (b.c % n.groups == 0 && rows == k);
  if (!ok) {
    fail(n, "B " + to_string(b) + " does not match A " + to_string(a) + " with " +
                std::to_string(n.groups) + " groups" + (n.transpose_b ? " (transposed)" : ""));
  }
  return TensorShape{a.n, n.groups * cols, a.h, a.w};
}

std::vector<TensorShape> range_outputs(const Graph& g, const Node& n) {
  expect_inputs(n, 1);
  const TensorShape& in = input_shape(g, n, 0);
  if (n.channel_begin.size() != n.channel_end.size() || n.channel_begin.empty()) {
    fail(n, "needs one channel range [begin, end) per output");
  }
  if (n.op == OpType::kSlice && n.channel_begin.size() != 1) fail(n, "needs exactly one range");
  std::vector<TensorShape> outs;
  for (size_t k = 0; k < n.channel_begin.size(); ++k) {
    const int64_t b = n.channel_begin[k], e = n.channel_end[k];
    if (b < 0 || e <= b || e > in.c) {
      fail(n, "channel range [" + std::to_string(b) + ", " + std::to_string(e) +
                  ") not inside [0, " + std::to_string(in.c) + ")");
    }
    TensorShape s = in;
    s.c = e - b;
    outs.push_back(s);
  }
  return outs;
}

// Every block inside the input and the output image, every output element written once.
TensorShape gather_output(const Graph& g, const Node& n) {
  expect_inputs(n, 1);
  const TensorShape& in = input_shape(g, n, 0);
  TensorShape out = n.gather_shape;
  out.n = in.n;
  if (out.c < 1 || out.h < 1 || out.w < 1) fail(n, "empty gather shape " + to_string(out));
  const int64_t in_size = in.elements() / in.n, out_size = out.elements() / out.n;
  std::vector<char> written(static_cast<size_t>(out_size), 0);
  for (size_t k = 0; k < n.gather.size(); ++k) {
    const GatherBlock& b = n.gather[k];
    const auto last = [&](int64_t base, int64_t stride, int64_t span) {
      return base + (b.rows - 1) * stride + span - 1;
    };
    if (b.rows < 1 || b.row_len < 1 || b.src < 0 || b.dst < 0 || b.dst_step < 1 ||
        (b.rows > 1 && (b.src_stride < b.row_len || b.dst_stride < b.dst_span())) ||
        last(b.src, b.src_stride, b.row_len) >= in_size ||
        last(b.dst, b.dst_stride, b.dst_span()) >= out_size) {
      fail(n, "gather block " + std::to_string(k) + " (src " + std::to_string(b.src) + ", dst " +
                  std::to_string(b.dst) + ", " + std::to_string(b.rows) + " x " +
                  std::to_string(b.row_len) + ", strides " + std::to_string(b.src_stride) + " / " +
                  std::to_string(b.dst_stride) +
                  (b.dst_step != 1 ? ", step " + std::to_string(b.dst_step) : std::string()) +
                  ") is outside input " + to_string(in) + " or output " + to_string(out));
    }
    for (int64_t r = 0; r < b.rows; ++r) {
      for (int64_t i = 0; i < b.row_len; ++i) {
        const int64_t e = b.dst + r * b.dst_stride + i * b.dst_step;
        char& w = written[static_cast<size_t>(e)];
        if (w)
          fail(n, "gather block " + std::to_string(k) + " writes output element " +
                      std::to_string(e) + " a second time");
        w = 1;
      }
    }
  }
  const int64_t covered = std::count(written.begin(), written.end(), char{1});
  if (covered != out_size) {
    fail(n, "gather blocks write " + std::to_string(covered) + " of the " +
                std::to_string(out_size) + " output elements");
  }
  return out;
}

}  // namespace

std::vector<TensorShape> infer_output_shapes(const Graph& g, const Node& n) {
  switch (n.op) {
    case OpType::kConv:
      return {conv_output(g, n)};
    case OpType::kFullyConnected:
      return {fc_output(g, n)};
    case OpType::kMaxPool:
    case OpType::kAvgPool: {
      expect_inputs(n, 1);
      if (n.dilation_h != 1 || n.dilation_w != 1) fail(n, "pooling does not support dilation");
      const TensorShape& in = input_shape(g, n, 0);
      if (n.pad_top >= n.kernel_h || n.pad_bottom >= n.kernel_h || n.pad_left >= n.kernel_w ||
          n.pad_right >= n.kernel_w) {
        fail(n, "padding must be smaller than the kernel");
      }
      return {window_output(n, in, in.c, n.ceil_mode)};
    }
    case OpType::kGlobalAvgPool: {
      expect_inputs(n, 1);
      const TensorShape& in = input_shape(g, n, 0);
      return {TensorShape{in.n, in.c, 1, 1}};
    }
    case OpType::kAdd:
    case OpType::kMul:
      return {binary_output(g, n)};
    case OpType::kConcat:
      return {concat_output(g, n)};
    case OpType::kSoftmax: {
      expect_inputs(n, 1);
      const TensorShape& in = input_shape(g, n, 0);
      if (n.groups < 1 || in.c % n.groups != 0) {
        fail(n, "channels " + std::to_string(in.c) + " not divisible by groups " +
                    std::to_string(n.groups));
      }
      if (n.causal && (in.w != 1 || in.h != in.c / n.groups)) {
        fail(n, "a causal softmax needs rows = channels per group and width 1, got " +
                    to_string(in) + " with " + std::to_string(n.groups) + " groups");
      }
      return {in};
    }
    case OpType::kActivation:
    case OpType::kGelu:
      expect_inputs(n, 1);
      return {input_shape(g, n, 0)};
    case OpType::kLayerNorm:
    case OpType::kInstanceNorm: {
      expect_inputs(n, 1);
      const TensorShape& in = input_shape(g, n, 0);
      const TensorShape& w = weight_shape(g, n);
      if (w != TensorShape{in.c, 1, 1, 1}) {
        fail(n, "gamma has shape " + to_string(w) + ", expected " + std::to_string(in.c) +
                    "x1x1x1");
      }
      return {in};
    }
    case OpType::kMatMul:
      return {matmul_output(g, n)};
    case OpType::kGather:
      return {gather_output(g, n)};
    case OpType::kReshape:
      return {reshape_output(g, n)};
    case OpType::kSplit:
    case OpType::kSlice:
      return range_outputs(g, n);
    case OpType::kChannelShuffle: {
      expect_inputs(n, 1);
      const TensorShape& in = input_shape(g, n, 0);
      if (n.shuffle_groups < 1 || in.c % n.shuffle_groups != 0) {
        fail(n, "channels " + std::to_string(in.c) + " not divisible by shuffle groups " +
                    std::to_string(n.shuffle_groups));
      }
      return {in};
    }
    case OpType::kPad: {
      expect_inputs(n, 1);
      TensorShape out = input_shape(g, n, 0);
      if (n.pad_top < 0 || n.pad_bottom < 0 || n.pad_left < 0 || n.pad_right < 0) {
        fail(n, "negative padding");
      }
      out.h += int64_t{n.pad_top} + n.pad_bottom;
      out.w += int64_t{n.pad_left} + n.pad_right;
      return {out};
    }
  }
  fail(n, "unknown op");
}

int64_t reduction_length(const Graph& g, const Node& n) {
  if (n.op == OpType::kMatMul) return matmul_inner(g, n);
  if (n.op != OpType::kConv && n.op != OpType::kFullyConnected) return 0;
  const TensorShape& w = weight_shape(g, n);
  return w.c * w.h * w.w;
}

int64_t node_macs(const Graph& g, const Node& n) {
  if (n.op != OpType::kConv && n.op != OpType::kFullyConnected && n.op != OpType::kMatMul) {
    return 0;
  }
  if (n.outputs.empty()) return 0;
  const TensorShape& out = g.tensors.at(n.result()).shape;  // a fused pool's conv: its own
  return out.elements() * reduction_length(g, n);
}

GraphTotals graph_totals(const Graph& g) {
  GraphTotals t;
  for (const Node& n : g.nodes) {
    const int64_t macs = node_macs(g, n);
    t.executed_macs += macs;
    if (n.weights >= 0) t.weight_bytes += g.tensors.at(n.weights).bytes();
    if (n.bias >= 0) t.weight_bytes += g.tensors.at(n.bias).bytes();
    for (int o : n.outputs) t.activation_bytes += g.tensors.at(o).bytes();
    if (n.from_batchnorm) continue;
    t.macs += macs;
    if (n.weights >= 0) t.weights += g.tensors.at(n.weights).shape.elements();
  }
  for (int i : g.inputs) t.activation_bytes += g.tensors.at(i).bytes();
  return t;
}

}  // namespace strider
