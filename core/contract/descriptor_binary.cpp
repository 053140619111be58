// Binary form of the descriptor list: "STRD", u32 version, u64 arch fingerprint, layers,
// tensor table, descriptors, then the 32-byte SHA-256 of every byte before it; all integers
// little-endian, strings length-prefixed.
#include <cstring>
#include <istream>
#include <ostream>
#include <sstream>

#include "core/contract/byte_stream.h"
#include "core/common/sha256.h"
#include "core/contract/descriptor.h"

namespace strider {
namespace {

constexpr char kMagic[4] = {'S', 'T', 'R', 'D'};

void put(ByteWriter& w, const TensorRef& t) {
  w.u<uint8_t>(uint8_t(t.space));
  w.u<uint64_t>(t.addr);
  w.u<uint32_t>(t.c);
  w.u<uint32_t>(t.h);
  w.u<uint32_t>(t.w);
  w.u<uint32_t>(t.row_stride);
  w.u<uint32_t>(t.channel_stride);
  w.u<uint8_t>(t.element_bytes);
  w.u<uint32_t>(t.first_channel);
  w.u<uint32_t>(t.channels);
  w.u<uint32_t>(t.first_row);
  w.u<uint32_t>(t.rows);
}

TensorRef get_ref(ByteReader& r) {
  TensorRef t;
  t.space = r.enumeration<MemSpace>(2, "memory space");
  t.addr = r.u<uint64_t>();
  t.c = r.u<uint32_t>();
  t.h = r.u<uint32_t>();
  t.w = r.u<uint32_t>();
  t.row_stride = r.u<uint32_t>();
  t.channel_stride = r.u<uint32_t>();
  t.element_bytes = r.u<uint8_t>();
  t.first_channel = r.u<uint32_t>();
  t.channels = r.u<uint32_t>();
  t.first_row = r.u<uint32_t>();
  t.rows = r.u<uint32_t>();
  return t;
}

void put(ByteWriter& w, const MoveDesc& m) {
  w.u<uint8_t>(uint8_t(m.src_space));
  w.u<uint8_t>(uint8_t(m.dst_space));
  w.u<uint64_t>(m.src_addr);
  w.u<uint64_t>(m.dst_addr);
  w.u<uint32_t>(m.rows);
  w.u<uint32_t>(m.row_bytes);
  w.u<uint32_t>(m.src_stride);
  w.u<uint32_t>(m.dst_stride);
  w.u<uint32_t>(m.dst_step);
  w.u<uint8_t>(m.background ? 1 : 0);  // version 12
}

MoveDesc get_move(ByteReader& r) {
  MoveDesc m;
  m.src_space = r.enumeration<MemSpace>(2, "source space");
  m.dst_space = r.enumeration<MemSpace>(2, "destination space");
  m.src_addr = r.u<uint64_t>();
  m.dst_addr = r.u<uint64_t>();
  m.rows = r.u<uint32_t>();
  m.row_bytes = r.u<uint32_t>();
  m.src_stride = r.u<uint32_t>();
  m.dst_stride = r.u<uint32_t>();
  m.dst_step = r.u<uint32_t>();
  m.background = r.boolean();
  return m;
}

void put(ByteWriter& w, const OpDesc& o) {
  w.u<uint8_t>(uint8_t(o.op));
  for (const TensorRef* t : {&o.input, &o.input2, &o.weights, &o.bias, &o.output}) put(w, *t);
  for (uint16_t v : {o.kernel_h, o.kernel_w, o.stride_h, o.stride_w, o.pad_top, o.pad_left,
                     o.pad_bottom, o.pad_right, o.dilation_h, o.dilation_w}) {
    w.u<uint16_t>(v);
  }
  w.u<uint32_t>(o.groups);
  w.u<uint8_t>(o.count_include_pad ? 1 : 0);
  w.u<uint8_t>(uint8_t(o.act));
  w.i32(o.clip_min);
  w.i32(o.clip_max);
  w.i32(o.requant_multiplier);
  w.i32(o.requant_shift);
  w.i32(o.input_multiplier);
  w.i32(o.input2_multiplier);
  for (const Requant& q : {o.lut.in, o.lut.out}) {
    w.i32(q.multiplier);
    w.i32(q.shift);
  }
  for (uint32_t v : {o.row_begin, o.row_end, o.ch_begin, o.ch_end, o.in_ch_begin, o.in_ch_end}) {
    w.u<uint32_t>(v);
  }
  w.u<uint8_t>(o.psum_mode);
  put(w, o.psum);
  w.u<uint8_t>(static_cast<uint8_t>(o.mapping));
  w.u<uint8_t>(o.flags);
  w.u<uint32_t>(uint32_t(o.channel_requant.size()));
  for (const Requant& q : o.channel_requant) {
    w.i32(q.multiplier);
    w.i32(q.shift);
  }
  for (uint16_t v : {o.pool.kernel_h, o.pool.kernel_w, o.pool.stride_h, o.pool.stride_w,
                     o.pool.pad_top, o.pool.pad_left, o.pool.pad_bottom, o.pool.pad_right}) {
    w.u<uint16_t>(v);
  }
  if (o.pool.present()) put(w, o.pool.output);
  w.u<uint8_t>(o.input_scale.present() ? 1 : 0);
  if (o.input_scale.present()) {
    const InputScale& s = o.input_scale;
    put(w, s.scale);
    for (int32_t v : {s.multiplier, s.shift}) w.i32(v);
    w.u<uint8_t>(uint8_t(s.act));
    w.i32(s.clip_min);
    w.i32(s.clip_max);
    w.u<uint8_t>(s.flags);
  }
  w.u<uint8_t>(o.gap.present() ? 1 : 0);  // a fused global average pool (version 10)
  if (o.gap.present()) {
    put(w, o.gap.output);
    put(w, o.gap.partial);
    w.i32(o.gap.requant_multiplier);
    w.i32(o.gap.requant_shift);
    w.u<uint8_t>(uint8_t(o.gap.act));
    w.i32(o.gap.clip_min);
    w.i32(o.gap.clip_max);
    w.u<uint8_t>(o.gap.flags);
  }
  w.u<uint8_t>(uint8_t(o.post.kind));
  if (!o.post.present()) return;
  put(w, o.post.operand);
  for (int32_t v : {o.post.multiplier, o.post.operand_multiplier, o.post.shift}) w.i32(v);
  w.u<uint8_t>(uint8_t(o.post.act));
  w.i32(o.post.clip_min);
  w.i32(o.post.clip_max);
}

OpDesc get_op(ByteReader& r) {
  OpDesc o;
  o.op = r.enumeration<OpCode>(13, "op code");
  for (TensorRef* t : {&o.input, &o.input2, &o.weights, &o.bias, &o.output}) *t = get_ref(r);
  for (uint16_t* v : {&o.kernel_h, &o.kernel_w, &o.stride_h, &o.stride_w, &o.pad_top, &o.pad_left,
                      &o.pad_bottom, &o.pad_right, &o.dilation_h, &o.dilation_w}) {
    *v = r.u<uint16_t>();
  }
  o.groups = r.u<uint32_t>();
  o.count_include_pad = r.boolean();
  o.act = r.enumeration<PostAct>(8, "activation");
  o.clip_min = r.i32();
  o.clip_max = r.i32();
  o.requant_multiplier = r.i32();
  o.requant_shift = r.i32();
  o.input_multiplier = r.i32();
  o.input2_multiplier = r.i32();
  for (Requant* q : {&o.lut.in, &o.lut.out}) {
    q->multiplier = r.i32();
    q->shift = r.i32();
  }
  for (uint32_t* v : {&o.row_begin, &o.row_end, &o.ch_begin, &o.ch_end, &o.in_ch_begin,
                      &o.in_ch_end}) {
    *v = r.u<uint32_t>();
  }
  o.psum_mode = r.u<uint8_t>();
  if (o.psum_mode > 3) r.fail("psum mode is " + std::to_string(o.psum_mode) + ", expected 0..3", 1);
  o.psum = get_ref(r);
  o.mapping = r.enumeration<Mapping>(3, "mapping");
  o.flags = r.u<uint8_t>();
  if (o.flags > 63) r.fail("flags are " + std::to_string(o.flags) + ", expected 0..63", 1);
  const uint32_t per_channel = r.u<uint32_t>();
  if (per_channel != 0 && (o.ch_end < o.ch_begin || per_channel != o.ch_end - o.ch_begin)) {
    r.fail(std::to_string(per_channel) + " channel requantisations for channels [" +
               std::to_string(o.ch_begin) + ", " + std::to_string(o.ch_end) + "), expected 0 or " +
               std::to_string(o.ch_end - o.ch_begin),
           4);
  }
  o.channel_requant.resize(per_channel);
  for (Requant& q : o.channel_requant) {
    q.multiplier = r.i32();
    q.shift = r.i32();
  }
  for (uint16_t* v : {&o.pool.kernel_h, &o.pool.kernel_w, &o.pool.stride_h, &o.pool.stride_w,
                      &o.pool.pad_top, &o.pool.pad_left, &o.pool.pad_bottom, &o.pool.pad_right}) {
    *v = r.u<uint16_t>();
  }
  if (o.pool.present()) o.pool.output = get_ref(r);
  if (r.boolean()) {
    InputScale& s = o.input_scale;
    s.scale = get_ref(r);
    if (!s.present()) r.fail("input scale with an empty scale tensor", 1);
    s.multiplier = r.i32();
    s.shift = r.i32();
    s.act = r.enumeration<PostAct>(8, "input-scale activation");
    s.clip_min = r.i32();
    s.clip_max = r.i32();
    s.flags = r.u<uint8_t>();
    if (s.flags > 3) {
      r.fail("input-scale flags are " + std::to_string(s.flags) + ", expected 0..3", 1);
    }
  }
  if (r.boolean()) {
    FusedGap& g = o.gap;
    g.output = get_ref(r);
    g.partial = get_ref(r);
    g.requant_multiplier = r.i32();
    g.requant_shift = r.i32();
    g.act = r.enumeration<PostAct>(8, "fused global pool activation");
    g.clip_min = r.i32();
    g.clip_max = r.i32();
    g.flags = r.u<uint8_t>();
    if (g.flags > 15) {
      r.fail("fused global pool flags are " + std::to_string(g.flags) + ", expected 0..15", 1);
    }
    if (!g.present()) r.fail("fused global pool without a pooled output", 1);
  }
  o.post.kind = r.enumeration<PostOpKind>(2, "post-op");
  if (!o.post.present()) return o;
  o.post.operand = get_ref(r);
  for (int32_t* v : {&o.post.multiplier, &o.post.operand_multiplier, &o.post.shift}) *v = r.i32();
  o.post.act = r.enumeration<PostAct>(8, "post-op activation");
  o.post.clip_min = r.i32();
  o.post.clip_max = r.i32();
  return o;
}

}  // namespace

void write_binary(const DescriptorList& list, std::ostream& final_out) {
  std::ostringstream out;
  out.write(kMagic, 4);
  ByteWriter w(out);
  w.u<uint32_t>(list.version);
  w.u<uint64_t>(list.arch_fingerprint);
  w.u<uint32_t>(uint32_t(list.layers.size()));
  for (const std::string& s : list.layers) w.str(s);
  w.u<uint32_t>(uint32_t(list.tensors.size()));
  for (const TensorEntry& t : list.tensors) {
    w.str(t.name);
    w.u<uint8_t>(uint8_t(t.role));
    w.u<uint8_t>(uint8_t(t.space));
    w.u<uint64_t>(t.addr);
    w.u<uint64_t>(t.bytes);
  }
  w.u<uint32_t>(uint32_t(list.descriptors.size()));
  for (const Descriptor& d : list.descriptors) {
    w.u<uint32_t>(d.id);
    w.u<uint8_t>(uint8_t(d.kind));
    w.u<uint32_t>(d.layer);
    w.u<uint32_t>(uint32_t(d.deps.size()));
    for (uint32_t dep : d.deps) w.u<uint32_t>(dep);
    if (d.kind == DescKind::kMove) {
      put(w, d.move);
    } else {
      put(w, d.op);
    }
  }
  const std::string body = out.str();
  const Sha256Digest sum = sha256(body.data(), body.size());
  final_out.write(body.data(), static_cast<std::streamsize>(body.size()));
  final_out.write(reinterpret_cast<const char*>(sum.data()), static_cast<std::streamsize>(sum.size()));
}

DescriptorList read_binary(std::istream& in, const std::string& source) {
  ByteReader r(in, source);
  char magic[4];
  for (char& c : magic) c = static_cast<char>(r.u<uint8_t>());
  if (std::string(magic, 4) != std::string(kMagic, 4)) {
    r.fail("not a Strider descriptor list (magic is not STRD)", 4);
  }
  DescriptorList list;
  list.version = r.u<uint32_t>();
  if (list.version != kDescriptorFormatVersion) {
    r.fail("format version " + std::to_string(list.version) + ", this build reads version " +
               std::to_string(kDescriptorFormatVersion),
           4);
  }
  // The trailer: SHA-256 of everything before it. Checked before any field is trusted.
  Sha256Digest stored{};
  if (r.size() < r.pos() + stored.size()) {
    r.fail("truncated, expected a " + std::to_string(stored.size()) + "-byte SHA-256 trailer");
  }
  const size_t body = r.size() - stored.size();
  std::memcpy(stored.data(), r.data() + body, stored.size());
  if (sha256(r.data(), body) != stored) {
    throw std::runtime_error(source + ": checksum mismatch: the SHA-256 of bytes 0.." +
                             std::to_string(body) +
                             " differs from the one stored at the end (the file is corrupted or "
                             "was edited; emit it again)");
  }
  r.drop_tail(stored.size());
  list.arch_fingerprint = r.u<uint64_t>();
  list.layers.resize(r.count(4));
  for (std::string& s : list.layers) s = r.str();
  list.tensors.resize(r.count(22));
  for (TensorEntry& t : list.tensors) {
    t.name = r.str();
    t.role = r.enumeration<TensorRole>(5, "tensor role");
    t.space = r.enumeration<MemSpace>(2, "memory space");
    t.addr = r.u<uint64_t>();
    t.bytes = r.u<uint64_t>();
  }
  list.descriptors.resize(r.count(13));
  for (Descriptor& d : list.descriptors) {
    d.id = r.u<uint32_t>();
    d.kind = r.enumeration<DescKind>(2, "descriptor kind");
    d.layer = r.u<uint32_t>();
    d.deps.resize(r.count(4));
    for (uint32_t& dep : d.deps) dep = r.u<uint32_t>();
    if (d.kind == DescKind::kMove) {
      d.move = get_move(r);
    } else {
      d.op = get_op(r);
    }
  }
  if (!r.at_end()) r.fail("trailing bytes after the last descriptor");
  try {
    check(list);
  } catch (const std::exception& e) {
    throw std::runtime_error(source + ": " + e.what());
  }
  return list;
}

}  // namespace strider
