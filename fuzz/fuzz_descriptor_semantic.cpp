// libFuzzer target for the semantic descriptor validator (planner/lower/descriptor_validator.h).
// The input is not a list: it is a sequence of mutations applied to a valid list (tiny_cnn on the
// seed arch, lowered once per process). Each 8-byte record picks a descriptor, a field and a way
// to change it (set a value, flip bits, set an extreme). The mutated list must either be refused
// with a DescriptorError whose every line names a descriptor and its layer and field (or the
// list), or be accepted, in which case every op tile's closed-form cost (core/timing/tile_work,
// what the units wait) must stay within what its size allows: no hang, no crash, no absurd figure.
// Records of dependency mutations only (fields 1 to 4: add, clear, remove, redirect) keep
// every address: an accepted list must then still order each op after the moves it depended on
// in the planned list for the bytes it reads (checked here by a plain search over deps and the
// in-order issue queues, independent of the validator's data-flow check).
// (SystemC elaborates once per process, so the full simulator is not run here.)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "core/common/saturating.h"
#include "core/timing/tile_work.h"
#include "fuzz/fuzz_input.h"
#include "planner/import/network_loader.h"
#include "planner/lower/descriptor_validator.h"
#include "planner/lower/legalise.h"
#include "planner/lower/lowering.h"

namespace {

using strider::Descriptor;
using strider::TensorRef;

struct Seed {
  strider::ArchConfig arch;
  strider::DescriptorList list;
};

const Seed& seed() {
  static const Seed s = [] {
    Seed out;
    strider::Graph g =
        strider::load_network(STRIDER_SOURCE_DIR "/configs/networks/tiny_cnn.yaml", 0, 0, 1);
    strider::fuse_activations(&g);
    out.list = strider::lower(g, out.arch, strider::LowerOptions()).list;
    return out;
  }();
  return s;
}

// One field of a descriptor, changed by `v`.
using Setter = std::function<void(Descriptor&, uint64_t)>;

void add_ref_setters(std::vector<Setter>& s, TensorRef strider::OpDesc::*ref) {
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).space = strider::MemSpace(v & 1); });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).addr = v; });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).c = uint32_t(v); });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).h = uint32_t(v); });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).w = uint32_t(v); });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).row_stride = uint32_t(v); });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).channel_stride = uint32_t(v); });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).element_bytes = uint8_t(v); });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).first_channel = uint32_t(v); });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).channels = uint32_t(v); });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).first_row = uint32_t(v); });
  s.push_back([ref](Descriptor& d, uint64_t v) { (d.op.*ref).rows = uint32_t(v); });
}

const std::vector<Setter>& setters() {
  static const std::vector<Setter> s = [] {
    std::vector<Setter> s;
    // Common.
    s.push_back([](Descriptor& d, uint64_t v) { d.layer = uint32_t(v); });
    s.push_back([](Descriptor& d, uint64_t v) { d.deps.push_back(uint32_t(v)); });
    s.push_back([](Descriptor& d, uint64_t) { d.deps.clear(); });
    // Dependencies (issue 31): one removed, one redirected to another earlier descriptor.
    s.push_back([](Descriptor& d, uint64_t v) {
      if (!d.deps.empty()) d.deps.erase(d.deps.begin() + long(v % d.deps.size()));
    });
    s.push_back([](Descriptor& d, uint64_t v) {
      if (!d.deps.empty() && d.id > 0) d.deps[v % d.deps.size()] = uint32_t((v >> 8) % d.id);
    });
    s.push_back([](Descriptor& d, uint64_t v) { d.kind = strider::DescKind(v & 1); });
    // Move.
    s.push_back([](Descriptor& d, uint64_t v) { d.move.src_space = strider::MemSpace(v & 1); });
    s.push_back([](Descriptor& d, uint64_t v) { d.move.dst_space = strider::MemSpace(v & 1); });
    s.push_back([](Descriptor& d, uint64_t v) { d.move.src_addr = v; });
    s.push_back([](Descriptor& d, uint64_t v) { d.move.dst_addr = v; });
    s.push_back([](Descriptor& d, uint64_t v) { d.move.rows = uint32_t(v); });
    s.push_back([](Descriptor& d, uint64_t v) { d.move.row_bytes = uint32_t(v); });
    s.push_back([](Descriptor& d, uint64_t v) { d.move.src_stride = uint32_t(v); });
    s.push_back([](Descriptor& d, uint64_t v) { d.move.dst_stride = uint32_t(v); });
    // Op.
    s.push_back([](Descriptor& d, uint64_t v) { d.op.op = strider::OpCode(v % 9); });
    for (uint16_t strider::OpDesc::*f :
         {&strider::OpDesc::kernel_h, &strider::OpDesc::kernel_w, &strider::OpDesc::stride_h,
          &strider::OpDesc::stride_w, &strider::OpDesc::pad_top, &strider::OpDesc::pad_left,
          &strider::OpDesc::pad_bottom, &strider::OpDesc::pad_right, &strider::OpDesc::dilation_h,
          &strider::OpDesc::dilation_w}) {
      s.push_back([f](Descriptor& d, uint64_t v) { d.op.*f = uint16_t(v); });
    }
    for (uint32_t strider::OpDesc::*f :
         {&strider::OpDesc::groups, &strider::OpDesc::row_begin, &strider::OpDesc::row_end,
          &strider::OpDesc::ch_begin, &strider::OpDesc::ch_end, &strider::OpDesc::in_ch_begin,
          &strider::OpDesc::in_ch_end}) {
      s.push_back([f](Descriptor& d, uint64_t v) { d.op.*f = uint32_t(v); });
    }
    s.push_back([](Descriptor& d, uint64_t v) { d.op.psum_mode = uint8_t(v & 3); });
    s.push_back([](Descriptor& d, uint64_t v) { d.op.mapping = strider::Mapping(v & 1); });
    s.push_back([](Descriptor& d, uint64_t v) { d.op.clip_min = int32_t(v); });
    s.push_back([](Descriptor& d, uint64_t v) { d.op.requant_shift = int32_t(v); });
    for (TensorRef strider::OpDesc::*r :
         {&strider::OpDesc::input, &strider::OpDesc::input2, &strider::OpDesc::weights,
          &strider::OpDesc::bias, &strider::OpDesc::output, &strider::OpDesc::psum}) {
      add_ref_setters(s, r);
    }
    return s;
  }();
  return s;
}

// The new value of a field from the record's mode and operand.
uint64_t value(uint8_t mode, uint32_t operand, uint64_t old_bits) {
  switch (mode % 6) {
    case 0:
      return operand;  // small or random value
    case 1:
      return old_bits ^ (uint64_t{1} << (operand % 64));  // one bit flipped
    case 2:
      return 0;
    case 3:
      return ~uint64_t{0} >> (operand % 64);  // 2^k - 1
    case 4:
      return uint64_t{1} << (operand % 64);
    default:
      return old_bits + operand;  // nearby (wraps)
  }
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "%s\n", why.c_str());
  std::abort();
}

// Whether `e` precedes `x` in `l`: over deps and the previous op of the same issue queue.
bool precedes(const strider::DescriptorList& l, uint32_t e, uint32_t x) {
  std::vector<uint32_t> stack = {x};
  std::vector<bool> seen(l.descriptors.size());
  while (!stack.empty()) {
    const uint32_t v = stack.back();
    stack.pop_back();
    if (v == e) return true;
    if (v < e || seen[v]) continue;
    seen[v] = true;
    const Descriptor& d = l.descriptors[v];
    for (uint32_t p : d.deps) stack.push_back(p);
    if (d.kind == strider::DescKind::kOp) {
      for (uint32_t p = v; p-- > 0;) {
        const Descriptor& q = l.descriptors[p];
        if (q.kind == strider::DescKind::kOp &&
            strider::is_vector_op(q.op.op) == strider::is_vector_op(d.op.op)) {
          stack.push_back(p);
          break;
        }
      }
    }
  }
  return false;
}

// An accepted list whose addresses are the planned ones: every op still follows the moves it
// directly depended on in the planned list whose destination it reads (weights, bias, input).
void check_load_order(const strider::DescriptorList& planned, const strider::DescriptorList& l) {
  for (const Descriptor& x : planned.descriptors) {
    if (x.kind != strider::DescKind::kOp) continue;
    for (uint32_t e : x.deps) {
      const Descriptor& m = planned.descriptors[e];
      if (m.kind != strider::DescKind::kMove || m.move.dst_space != strider::MemSpace::kL2)
        continue;
      const uint64_t lo = m.move.dst_addr, hi = lo + m.move.bytes();
      bool read = false;
      for (const TensorRef* t : {&x.op.weights, &x.op.bias, &x.op.input}) {
        if (t->present() && t->addr < hi && lo < t->addr + t->held_bytes()) read = true;
      }
      if (read && !precedes(l, e, x.id)) {
        fail("accepted a list where op " + std::to_string(x.id) + " no longer follows move " +
             std::to_string(e) + " that loads what it reads");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > strider::fuzz::kMaxInputBytes) return -1;
  const Seed& s = seed();
  strider::DescriptorList list = s.list;
  const size_t n = list.descriptors.size();
  bool only_deps = true;
  // Records: u16 descriptor, u8 field, u8 mode, u32 operand.
  for (size_t i = 0; i + 8 <= size; i += 8) {
    const uint16_t which = uint16_t(data[i] | data[i + 1] << 8);
    const uint8_t field = data[i + 2], mode = data[i + 3];
    const uint32_t operand = uint32_t(data[i + 4]) | uint32_t(data[i + 5]) << 8 |
                             uint32_t(data[i + 6]) << 16 | uint32_t(data[i + 7]) << 24;
    Descriptor& d = list.descriptors[which % n];
    const size_t f = field % setters().size();
    only_deps = only_deps && f >= 1 && f <= 4;
    setters()[f](d, value(mode, operand, which * 2654435761u));
  }
  try {
    strider::validate_descriptors(list, s.arch, "fuzz.strd");
  } catch (const strider::DescriptorError& e) {
    for (const std::string& p : e.problems()) {
      // Every problem names a descriptor (id and layer) and a field, or the whole list.
      const bool named =
          (p.rfind("descriptor ", 0) == 0 && p.find("(layer '") != std::string::npos &&
           p.find("): ") != std::string::npos) ||
          p.rfind("list: ", 0) == 0 || p.rfind("tensor '", 0) == 0;
      if (!named) fail("a validation error does not name its descriptor and field: " + p);
    }
    if (std::string(e.what()).rfind("fuzz.strd: descriptor list refused: ", 0) != 0) {
      fail(std::string("the error does not name the list: ") + e.what());
    }
    return 0;
  }
  if (only_deps) check_load_order(s.list, list);
  // Accepted: each tile's cost is bounded by its size (the units wait these cycles).
  for (const Descriptor& d : list.descriptors) {
    if (d.kind != strider::DescKind::kOp) continue;
    const strider::TileWork w =
        strider::compute_tile_work(d.op, s.arch.l1, s.arch.neurons, s.arch.l2.port_bytes_per_cycle);
    const uint64_t outputs = strider::saturating_mul(
        strider::saturating_mul(d.op.row_end - d.op.row_begin, d.op.output.w),
        d.op.ch_end - d.op.ch_begin);
    if (w.valid_outputs > outputs) fail("a tile stores more outputs than it has");
    if (w.lb_write_cycles == strider::kSaturated || w.compute_cycles == strider::kSaturated ||
        w.l2_read_bytes == strider::kSaturated) {
      fail("a tile's cost overflows");
    }
    // 1e13 MACs at one MAC per cycle is the largest honest figure the limits allow.
    if (w.compute_cycles > 10000000000000ull || w.lb_write_cycles > 10000000000000ull) {
      fail("absurd tile cost: " + std::to_string(w.compute_cycles) + " compute cycles, " +
           std::to_string(w.lb_write_cycles) + " write cycles");
    }
  }
  return 0;
}
