#include "model/l1/row_pieces.h"

#include <algorithm>

#include "core/common/ceil_div.h"
#include "core/timing/tile_work.h"

namespace strider {
namespace {

// Input channels read together: `count` channels from `first`, each read `repeats` times.
struct ChannelSet {
  uint32_t first = 0, count = 0, repeats = 0;
};

// The tile's output channels in groups of up to `accumulators` within one conv group (pools:
// one channel each, reading their own input channel), folded into sets of input channels.
std::vector<ChannelSet> channel_sets(const OpDesc& op, const NeuronConfig& nc) {
  std::vector<ChannelSet> sets;
  if (op.op != OpCode::kConv) {
    sets.push_back({op.ch_begin, op.ch_end - op.ch_begin, 1});
    return sets;
  }
  const uint32_t per_group = std::max<uint32_t>(1, op.output.c / op.groups);
  const uint32_t in_per_group = op.input.c / op.groups;
  for (uint32_t c = op.ch_begin; c < op.ch_end;) {
    const uint32_t g = c / per_group;
    const uint32_t group_end = std::min(op.ch_end, (g + 1) * per_group);
    const uint32_t repeats = uint32_t(ceil_div(group_end - c, nc.accumulators));
    c = group_end;
    ChannelSet s{g * in_per_group, in_per_group, repeats};
    if (op.in_ch_end) s.first = op.in_ch_begin, s.count = op.in_ch_end - op.in_ch_begin;
    // Depthwise: one input channel per conv group, consecutive groups read consecutive ones.
    if (!sets.empty() && in_per_group == 1 && sets.back().repeats == repeats &&
        sets.back().first + sets.back().count == s.first) {
      ++sets.back().count;
    } else {
      sets.push_back(s);
    }
  }
  return sets;
}

}  // namespace

void input_row_pieces(const OpDesc& op_in, const L1Config& l1, const NeuronConfig& nc, bool stream,
                      uint64_t tail, std::vector<AccessPattern>& out) {
  OpDesc op = op_in;
  if (op.op == OpCode::kMatMul) op.op = OpCode::kConv, op.kernel_h = op.kernel_w = 1;
  const TensorRef& in = op.input;
  const std::vector<ChannelSet> sets = channel_sets(op, nc);
  // The stream's virtual rows (tile_work.h stream_pitch: W + pad_left + pad_right, or with shared
  // pad columns W + max(pad_left, pad_right)); a column past pad_left + W is a pad either way.
  const int64_t h = in.h, w = in.w, wp = int64_t(stream_pitch(op, l1));
  const uint64_t wo = op.output.w;
  const int64_t step = op.stride_w;  // stream elements between consecutive positions
  const uint64_t positions = traversal_positions(op, l1, stream) - tail;
  // A kernel row wider than a line is read in parts of equal width (the last narrower).
  const uint64_t parts = ceil_div(op.kernel_w, l1.line_bytes);
  const uint64_t width = ceil_div(op.kernel_w, parts);
  // One stored row piece: padded row `pr`, padded columns [a, b), clipped to the stored input;
  // a piece that starts where the block's previous piece of the same channels ends (rows back to
  // back in memory, no padding between them) extends it.
  constexpr size_t kNone = ~size_t(0);
  std::vector<size_t> last(sets.size(), kNone);  // per set: its latest pattern in this block
  auto piece = [&](int64_t pr, int64_t a, int64_t b) {
    const int64_t y = pr - op.pad_top;
    a = std::max<int64_t>(a - op.pad_left, 0), b = std::min<int64_t>(b - op.pad_left, w);
    if (y < 0 || y >= h || a >= b) return;
    for (size_t i = 0; i < sets.size(); ++i) {
      const ChannelSet& s = sets[i];
      AccessPattern p;
      p.addr = in.addr + in.offset(s.first, uint32_t(y), uint32_t(a));
      p.bytes = uint64_t(b - a) * in.element_bytes;
      p.count = s.count;
      p.stride = in.channel_stride;
      p.repeats = s.repeats;
      if (last[i] != kNone && out[last[i]].addr + out[last[i]].bytes == p.addr) {
        out[last[i]].bytes += p.bytes;
      } else {
        last[i] = out.size();
        out.push_back(p);
      }
    }
  };
  for (uint64_t start = 0; start < positions; start += nc.count) {
    const uint64_t end = std::min<uint64_t>(start + nc.count, positions);
    for (uint64_t kh = 0; kh < op.kernel_h; ++kh) {
      for (uint64_t part = 0; part < parts; ++part) {
        const uint64_t kw0 = part * width, wj = std::min<uint64_t>(width, op.kernel_w - kw0);
        const int64_t extra = int64_t((wj - 1) * op.dilation_w + 1);
        const int64_t shift = int64_t(kw0 * op.dilation_w);
        std::fill(last.begin(), last.end(), kNone);
        if (stream) {
          // Padded-stream elements [lo, hi): output position p of the tile's stream reads
          // element stride x p from padded row row_begin x stride + kh x dilation_h (+ kernel
          // column).
          const int64_t lo = int64_t(op.row_begin * op.stride_h + kh * op.dilation_h) * wp +
                             step * int64_t(start) + shift;
          const int64_t hi = lo + step * int64_t(end - start - 1) + extra;
          for (int64_t pr = lo / wp; pr <= (hi - 1) / wp; ++pr) {
            piece(pr, std::max(lo, pr * wp) - pr * wp, std::min(hi, (pr + 1) * wp) - pr * wp);
          }
        } else {
          for (uint64_t r = start / wo; r <= (end - 1) / wo; ++r) {
            const int64_t x0 = int64_t(std::max(start, r * wo) - r * wo);
            const int64_t x1 = int64_t(std::min(end, (r + 1) * wo) - r * wo);
            const int64_t pr = int64_t((op.row_begin + r) * op.stride_h + kh * op.dilation_h);
            piece(pr, x0 * op.stride_w + shift, (x1 - 1) * op.stride_w + shift + extra);
          }
        }
      }
    }
  }
}

}  // namespace strider
