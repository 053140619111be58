#include "model/vector/vector_unit.h"

#include <algorithm>

#include "core/common/ceil_div.h"
#include "core/contract/quant.h"
#include "core/contract/vector_math.h"
#include "model/l2/l2_sram.h"

namespace strider {
namespace {

// Element (c, y, x) of an L2 tensor (which may be a band buffer).
class Reader {
 public:
  Reader(const TensorRef& r, const TimedMemory& l2) : r_(r), l2_(l2) {}
  int8_t at(uint32_t c, uint32_t y, uint32_t x) const {
    int8_t v = 0;
    l2_.read(r_.addr + r_.offset(c, y, x), &v, 1);
    return v;
  }
  int32_t bias(uint32_t c) const {  // an int32 little-endian element
    int8_t b[4];
    l2_.read(r_.addr + uint64_t(c) * 4, b, 4);
    return int32_t(uint32_t(uint8_t(b[0])) | uint32_t(uint8_t(b[1])) << 8 |
                   uint32_t(uint8_t(b[2])) << 16 | uint32_t(uint8_t(b[3])) << 24);
  }

 private:
  const TensorRef& r_;
  const TimedMemory& l2_;
};

// Index of element (c, y, x) in the tile's [channel][row][column] output.
uint64_t tile_index(const OpDesc& op, uint32_t c, uint32_t y, uint32_t x) {
  const uint64_t rows = op.row_end - op.row_begin;
  return (uint64_t(c - op.ch_begin) * rows + (y - op.row_begin)) * op.output.w + x;
}

void softmax(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const Reader in(op.input, l2);
  const uint32_t per = op.input.c / std::max<uint32_t>(1, op.groups);
  const bool causal = op.flags & OpDesc::kCausal;
  const bool unsigned_out = op.flags & OpDesc::kUnsigned;  // uint8 probabilities
  std::vector<int32_t> e(per);
  for (uint32_t y = op.row_begin; y < op.row_end; ++y) {
    for (uint32_t x = 0; x < op.output.w; ++x) {
      // A causal row y sees the first y + 1 channels of each group.
      const uint32_t visible = causal ? std::min(per, y + 1) : per;
      for (uint32_t g0 = 0; g0 < op.input.c; g0 += per) {
        if (g0 + per <= op.ch_begin || g0 >= op.ch_end) continue;
        int32_t mx = -128;
        for (uint32_t n = 0; n < visible; ++n) mx = std::max<int32_t>(mx, in.at(g0 + n, y, x));
        int64_t sum = 0;
        for (uint32_t n = 0; n < per; ++n) {
          e[n] = n < visible ? exp_q15(in.at(g0 + n, y, x) - mx, op.input_multiplier) : 0;
          sum += e[n];
        }
        for (uint32_t n = 0; n < per; ++n) {
          const uint32_t c = g0 + n;
          if (c >= op.ch_begin && c < op.ch_end) {
            out[tile_index(op, c, y, x)] =
                softmax_byte(e[n], sum, op.requant_multiplier, op.requant_shift, unsigned_out);
          }
        }
      }
    }
  }
}

void layernorm(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const Reader in(op.input, l2), gamma(op.weights, l2), beta(op.bias, l2);
  const uint32_t d = op.input.c;
  std::vector<int64_t> dv(d);
  for (uint32_t y = op.row_begin; y < op.row_end; ++y) {
    for (uint32_t x = 0; x < op.output.w; ++x) {
      int64_t s = 0;
      for (uint32_t c = 0; c < d; ++c) s += in.at(c, y, x);
      uint64_t sq = 0;
      for (uint32_t c = 0; c < d; ++c) {
        dv[c] = int64_t(d) * in.at(c, y, x) - s;
        sq += uint64_t(dv[c] * dv[c]);
      }
      const uint64_t r = layernorm_root(sq, d, op.input_multiplier);
      for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
        const int32_t v = layernorm_value(dv[c], r);
        const int32_t b = op.bias.present() ? beta.bias(c - op.ch_begin) : 0;
        const int32_t acc = v * gamma.at(c - op.ch_begin, 0, 0) + b;
        out[tile_index(op, c, y, x)] = saturate8(requantize(acc, op.requant_multiplier, op.requant_shift));
      }
    }
  }
}

// Each channel over every position of the input (all its rows: the validator checks the band
// holds them), writing the tile's rows.
void instancenorm(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const Reader in(op.input, l2), gamma(op.weights, l2), beta(op.bias, l2);
  const uint32_t h = op.input.h, w = op.input.w;
  const uint64_t n = uint64_t(h) * w;
  std::vector<int64_t> dv(n);
  for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
    int64_t s = 0;
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) s += in.at(c, y, x);
    uint64_t sq = 0;
    for (uint32_t y = 0; y < h; ++y) {
      for (uint32_t x = 0; x < w; ++x) {
        int64_t& d = dv[uint64_t(y) * w + x];
        d = int64_t(n) * in.at(c, y, x) - s;
        sq += uint64_t(d * d);
      }
    }
    const uint64_t r = layernorm_root(sq, n, op.input_multiplier);
    const int32_t g = gamma.at(c - op.ch_begin, 0, 0);
    const int32_t b = op.bias.present() ? beta.bias(c - op.ch_begin) : 0;
    for (uint32_t y = op.row_begin; y < op.row_end; ++y) {
      for (uint32_t x = 0; x < w; ++x) {
        const int32_t acc = layernorm_value(dv[uint64_t(y) * w + x], r) * g + b;
        out[tile_index(op, c, y, x)] =
            saturate8(requantize(acc, op.requant_multiplier, op.requant_shift));
      }
    }
  }
}

void gelu_tile(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const Reader in(op.input, l2);
  for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
    for (uint32_t y = op.row_begin; y < op.row_end; ++y) {
      for (uint32_t x = 0; x < op.output.w; ++x) out[tile_index(op, c, y, x)] =
          gelu(in.at(c, y, x), op.input_multiplier, op.requant_multiplier, op.requant_shift);
    }
  }
}

}  // namespace

VectorWork vector_work(const OpDesc& op, const VectorConfig& cfg) {
  VectorWork w;
  const uint64_t rows = op.row_end - op.row_begin, positions = rows * op.output.w;
  const uint64_t channels = op.ch_end - op.ch_begin;
  w.elements = channels * positions;
  uint64_t cycles = cfg.gelu_cycles, passes = cfg.gelu_passes, read_channels = channels;
  if (op.op == OpCode::kSoftmax) {
    cycles = cfg.softmax_cycles, passes = cfg.softmax_passes, read_channels = op.input.c;
  } else if (op.op == OpCode::kLayerNorm) {
    cycles = cfg.layernorm_cycles, passes = cfg.layernorm_passes, read_channels = op.input.c;
  }
  // InstanceNorm reads every position of its channels (all rows), whatever rows it writes.
  const bool instance = op.op == OpCode::kInstanceNorm;
  const uint64_t read_positions = instance ? uint64_t(op.input.h) * op.input.w : positions;
  if (instance) cycles = cfg.layernorm_cycles, passes = cfg.layernorm_passes;
  w.read_bytes = read_channels * read_positions;
  if (op.op == OpCode::kLayerNorm || instance) {
    w.read_bytes += channels * (1 + (op.bias.present() ? 4 : 0));
  }
  // Softmax and the norms pass over every input element they read (max / mean and sums), the
  // last pass writes the tile's elements; all passes are costed over the read elements.
  w.compute_cycles = passes * ceil_div(read_channels * read_positions, cfg.lanes) * cycles;
  return w;
}

std::vector<int8_t> compute_vector_tile(const OpDesc& op, const TimedMemory& l2) {
  std::vector<int8_t> out(uint64_t(op.ch_end - op.ch_begin) * (op.row_end - op.row_begin) *
                          op.output.w);
  if (op.op == OpCode::kSoftmax) softmax(op, l2, out);
  if (op.op == OpCode::kLayerNorm) layernorm(op, l2, out);
  if (op.op == OpCode::kInstanceNorm) instancenorm(op, l2, out);
  if (op.op == OpCode::kGelu) gelu_tile(op, l2, out);
  return out;
}

VectorUnit::VectorUnit(sc_core::sc_module_name name, const VectorConfig& cfg,
                       const ClockDomain& clock, bool functional, TimedMemory& l2,
                       LatencyFifo<const Descriptor*>& in, RetireChannel& retire,
                       RunRecord& record, StatRegistry& stats)
    : sc_core::sc_module(name),
      cfg_(cfg),
      clock_(clock),
      functional_(functional),
      l2_(l2),
      in_(in),
      retire_(retire),
      record_(record),
      tiles_(stats.add("vector.tiles", "vector-unit tiles (softmax, layernorm, gelu, instancenorm)")),
      busy_(stats.add("vector.busy_cycles", "cycles the vector unit was computing")),
      elements_(stats.add("vector.elements", "elements the vector unit produced")) {
  SC_HAS_PROCESS(VectorUnit);
  SC_THREAD(run);
}

void VectorUnit::run() {
  for (;;) {
    const Descriptor* d = in_.read();
    const OpDesc& op = d->op;
    const uint64_t now = clock_.now();
    const VectorWork w = vector_work(op, cfg_);
    const Access rd = l2_.access(L2Sram::kLoad, op.input.addr, w.read_bytes, now);
    const uint64_t ready = std::max(rd.end, now + w.compute_cycles);
    const Access wr = l2_.access(L2Sram::kStore, op.output.addr, w.elements, ready);
    if (functional_) {
      const std::vector<int8_t> out = compute_vector_tile(op, l2_);
      const TensorRef& o = op.output;
      const int8_t* src = out.data();
      for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
        for (uint32_t y = op.row_begin; y < op.row_end; ++y, src += o.w) {
          l2_.write(o.addr + o.offset(c, y, 0), src, o.w);
        }
      }
    }
    DescriptorRecord& r = record_.descriptors[d->id];
    r.unit = Unit::kVector;
    r.start = now;
    r.compute_cycles = w.compute_cycles;
    r.l2_read_bytes = w.read_bytes;
    r.l2_write_bytes = w.elements;
    r.stall_l2_conflict = rd.stall + wr.stall;
    r.l2_bank_conflict_cycles = rd.conflict + wr.conflict;
    ++tiles_;
    busy_ += w.compute_cycles;
    elements_ += w.elements;
    retire_.post(d->id, clock_.cycles(wr.end - now));
    clock_.wait_until(wr.end);
  }
}

}  // namespace strider
