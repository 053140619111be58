// TileCompute: what the neurons compute for one operation tile, bit-exactly, from the bytes in L2
// (input windows gathered by the input iterator with virtual zero padding, weights from the
// kernel region). Operands may be band buffers (TensorRef::offset). Output in
// [channel][row][column] order of the tile, int8. Plain C++; the numeric rules are
// core/contract/quant.h. Convolutions build each position's window line once per channel group and
// multiply the group's kernels by the lines (core/common/int8_gemm.h), then requantise. A fused
// input scale (OpDesc::input_scale: a squeeze-excitation Mul) turns the conv's or fc's input bytes
// into the Mul's products first, as the load path writes them into the lines (the Mul's
// arithmetic of elementwise(); padding stays zero).
//
// A TileCompute keeps its buffers from tile to tile, and the window lines of its last
// convolution tile: the next tile reuses them when it reads the same input bytes (compared, not
// assumed) with the same window geometry, rows and input channels, as the tiles of one row band
// that differ only in their output channels do. Results are the same as computing every tile
// from scratch.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "model/common/timed_memory.h"
#include "core/contract/descriptor.h"

namespace strider {

class TileCompute {
 public:
  std::vector<int8_t> compute(const OpDesc& op, const TimedMemory& l2);

 private:
  // What a tile's window lines depend on besides the input bytes.
  struct LinesKey {
    TensorRef input;
    uint32_t kernel_h = 0, kernel_w = 0, stride_h = 0, stride_w = 0, pad_top = 0, pad_left = 0;
    uint32_t dilation_h = 0, dilation_w = 0, groups = 0, row_begin = 0, row_end = 0;
    uint32_t output_c = 0, output_w = 0, group = 0, i0 = 0, i1 = 0;
    bool u8 = false;  // uint8 input: lines hold value - 128, padding -128
    bool operator==(const LinesKey& o) const;
  };

  void conv(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out);
  // The lines of channel group g over input channels [i0, i1) of the tile's rows, from the
  // input bytes in in_: built, or kept from the previous tile.
  const int8_t* lines(const OpDesc& op, uint32_t g, uint32_t i0, uint32_t i1);

  std::vector<int8_t> in_;        // the current conv tile's input operand bytes
  std::vector<int8_t> lines_in_;  // the input bytes lines_ were built from
  LinesKey lines_key_;
  bool lines_valid_ = false;
  std::unique_ptr<int8_t[]> lines_;
  uint64_t lines_capacity_ = 0;
  std::vector<int32_t> acc_;
};

// One tile with fresh buffers.
std::vector<int8_t> compute_tile(const OpDesc& op, const TimedMemory& l2);

}  // namespace strider
