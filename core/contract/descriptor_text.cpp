// Readable YAML form of the descriptor list. One flow map per descriptor; a tensor reference is
// a flow sequence [space, addr, c, h, w, row_stride, channel_stride, element_bytes], followed by
// [first_channel, channels, first_row, rows] when it is a band.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <sstream>
#include <stdexcept>

#include "core/contract/descriptor.h"

namespace strider {
namespace {

template <typename E>
E parse_enum(const YAML::Node& n, int count, const char* (*name)(E), const std::string& where) {
  const std::string s = n.as<std::string>();
  std::string valid;
  for (int i = 0; i < count; ++i) {
    if (s == name(static_cast<E>(i))) return static_cast<E>(i);
    valid += (i ? ", " : "") + std::string(name(static_cast<E>(i)));
  }
  throw YAML::Exception(n.Mark(), where + ": unknown value '" + s + "', expected one of " + valid);
}

void emit_ref(YAML::Emitter& e, const char* key, const TensorRef& t) {
  if (!t.present()) return;
  e << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq << to_string(t.space)
    << t.addr << t.c << t.h << t.w << t.row_stride << t.channel_stride << int(t.element_bytes);
  if (t.first_channel || t.channels || t.first_row || t.rows) {
    e << t.first_channel << t.channels << t.first_row << t.rows;
  }
  e << YAML::EndSeq;
}

template <typename... T>
void emit_seq(YAML::Emitter& e, const char* key, T... v) {
  e << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  (e << ... << v);
  e << YAML::EndSeq;
}

// Reads key `k` of a map, naming it when missing.
YAML::Node need(const YAML::Node& m, const char* k) {
  YAML::Node n = m[k];
  if (!n) throw YAML::Exception(m.Mark(), std::string("missing key '") + k + "'");
  return n;
}

TensorRef parse_ref(const YAML::Node& m, const char* k) {
  TensorRef t;
  YAML::Node n = m[k];
  if (!n) return t;
  if (!n.IsSequence() || (n.size() != 8 && n.size() != 12)) {
    throw YAML::Exception(n.Mark(), std::string(k) + ": expected [space, addr, c, h, w, "
                                                     "row_stride, channel_stride, element_bytes"
                                                     "(, first_channel, channels, first_row, rows)]");
  }
  t.space = parse_enum<MemSpace>(n[0], 2, to_string, k);
  t.addr = n[1].as<uint64_t>();
  t.c = n[2].as<uint32_t>();
  t.h = n[3].as<uint32_t>();
  t.w = n[4].as<uint32_t>();
  t.row_stride = n[5].as<uint32_t>();
  t.channel_stride = n[6].as<uint32_t>();
  const unsigned element_bytes = n[7].as<unsigned>();
  if (element_bytes > 255) {  // stored in one byte: refuse rather than wrap
    throw YAML::Exception(n[7].Mark(), std::string(k) + ": element_bytes " +
                                           std::to_string(element_bytes) + " exceeds 255");
  }
  t.element_bytes = static_cast<uint8_t>(element_bytes);
  if (n.size() == 12) {
    t.first_channel = n[8].as<uint32_t>();
    t.channels = n[9].as<uint32_t>();
    t.first_row = n[10].as<uint32_t>();
    t.rows = n[11].as<uint32_t>();
  }
  return t;
}

template <typename T, size_t N>
void parse_seq(const YAML::Node& m, const char* k, T* const (&out)[N]) {
  YAML::Node n = need(m, k);
  if (!n.IsSequence() || n.size() != N) {
    throw YAML::Exception(n.Mark(), std::string(k) + ": expected " + std::to_string(N) + " values");
  }
  for (size_t i = 0; i < N; ++i) *out[i] = n[i].as<T>();
}

void emit_op(YAML::Emitter& e, const OpDesc& o) {
  e << YAML::Key << "op" << YAML::Value << to_string(o.op);
  emit_ref(e, "input", o.input);
  emit_ref(e, "input2", o.input2);
  emit_ref(e, "weights", o.weights);
  emit_ref(e, "bias", o.bias);
  emit_ref(e, "output", o.output);
  emit_seq(e, "kernel", o.kernel_h, o.kernel_w);
  emit_seq(e, "stride", o.stride_h, o.stride_w);
  emit_seq(e, "pad", o.pad_top, o.pad_left, o.pad_bottom, o.pad_right);
  emit_seq(e, "dilation", o.dilation_h, o.dilation_w);
  e << YAML::Key << "groups" << YAML::Value << o.groups;
  e << YAML::Key << "count_include_pad" << YAML::Value << o.count_include_pad;
  e << YAML::Key << "act" << YAML::Value << to_string(o.act);
  emit_seq(e, "clip", o.clip_min, o.clip_max);
  emit_seq(e, "requant", o.requant_multiplier, o.requant_shift);
  emit_seq(e, "rows", o.row_begin, o.row_end);
  emit_seq(e, "channels", o.ch_begin, o.ch_end);
  e << YAML::Key << "mapping" << YAML::Value << to_string(o.mapping);
  if (o.psum_mode || o.in_ch_end) {
    emit_seq(e, "in_channels", o.in_ch_begin, o.in_ch_end);
    e << YAML::Key << "psum_mode" << YAML::Value << int(o.psum_mode);
    emit_ref(e, "psum", o.psum);
  }
  if (o.flags) e << YAML::Key << "flags" << YAML::Value << int(o.flags);
  if (o.input_multiplier) e << YAML::Key << "input_multiplier" << YAML::Value << o.input_multiplier;
  if (o.input2_multiplier) e << YAML::Key << "input2_multiplier" << YAML::Value << o.input2_multiplier;
  if (!(o.lut == LutScales{})) {  // [in multiplier, in shift, out multiplier, out shift]
    emit_seq(e, "lut", o.lut.in.multiplier, o.lut.in.shift, o.lut.out.multiplier, o.lut.out.shift);
  }
  if (!o.channel_requant.empty()) {
    e << YAML::Key << "channel_requant" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const Requant& q : o.channel_requant) {
      e << YAML::Flow << YAML::BeginSeq << q.multiplier << q.shift << YAML::EndSeq;
    }
    e << YAML::EndSeq;
  }
  if (o.pool.present()) {  // fused max-pool: [kh, kw], [sh, sw], [top, left, bottom, right]
    emit_seq(e, "pool_kernel", o.pool.kernel_h, o.pool.kernel_w);
    emit_seq(e, "pool_stride", o.pool.stride_h, o.pool.stride_w);
    emit_seq(e, "pool_pads", o.pool.pad_top, o.pool.pad_left, o.pool.pad_bottom, o.pool.pad_right);
    emit_ref(e, "pool_output", o.pool.output);
  }
  if (o.input_scale.present()) {  // the scale, [multiplier, shift], act, [min, max], flags
    const InputScale& s = o.input_scale;
    emit_ref(e, "input_scale", s.scale);
    emit_seq(e, "input_scale_requant", s.multiplier, s.shift);
    e << YAML::Key << "input_scale_act" << YAML::Value << to_string(s.act);
    emit_seq(e, "input_scale_clip", s.clip_min, s.clip_max);
    e << YAML::Key << "input_scale_flags" << YAML::Value << int(s.flags);
  }
  if (o.gap.present()) {  // fused global average pool: output, partial sums, [m, shift], act
    emit_ref(e, "gap_output", o.gap.output);
    if (o.gap.partial.present()) emit_ref(e, "gap_partial", o.gap.partial);
    emit_seq(e, "gap_requant", o.gap.requant_multiplier, o.gap.requant_shift);
    e << YAML::Key << "gap_act" << YAML::Value << to_string(o.gap.act);
    emit_seq(e, "gap_clip", o.gap.clip_min, o.gap.clip_max);
    e << YAML::Key << "gap_flags" << YAML::Value << int(o.gap.flags);
  }
  if (o.post.present()) {  // post_op, its operand, [multiplier, operand_multiplier, shift], act
    e << YAML::Key << "post_op" << YAML::Value << to_string(o.post.kind);
    emit_ref(e, "post_operand", o.post.operand);
    emit_seq(e, "post_requant", o.post.multiplier, o.post.operand_multiplier, o.post.shift);
    e << YAML::Key << "post_act" << YAML::Value << to_string(o.post.act);
    emit_seq(e, "post_clip", o.post.clip_min, o.post.clip_max);
  }
}

OpDesc parse_op(const YAML::Node& m) {
  OpDesc o;
  o.op = parse_enum<OpCode>(need(m, "op"), 13, to_string, "op");
  o.input = parse_ref(m, "input");
  o.input2 = parse_ref(m, "input2");
  o.weights = parse_ref(m, "weights");
  o.bias = parse_ref(m, "bias");
  o.output = parse_ref(m, "output");
  parse_seq<uint16_t>(m, "kernel", {&o.kernel_h, &o.kernel_w});
  parse_seq<uint16_t>(m, "stride", {&o.stride_h, &o.stride_w});
  parse_seq<uint16_t>(m, "pad", {&o.pad_top, &o.pad_left, &o.pad_bottom, &o.pad_right});
  parse_seq<uint16_t>(m, "dilation", {&o.dilation_h, &o.dilation_w});
  o.groups = need(m, "groups").as<uint32_t>();
  o.count_include_pad = need(m, "count_include_pad").as<bool>();
  o.act = parse_enum<PostAct>(need(m, "act"), 8, to_string, "act");
  parse_seq<int32_t>(m, "clip", {&o.clip_min, &o.clip_max});
  parse_seq<int32_t>(m, "requant", {&o.requant_multiplier, &o.requant_shift});
  parse_seq<uint32_t>(m, "rows", {&o.row_begin, &o.row_end});
  parse_seq<uint32_t>(m, "channels", {&o.ch_begin, &o.ch_end});
  o.mapping = parse_enum<Mapping>(need(m, "mapping"), 3, to_string, "mapping");
  if (m["in_channels"]) {
    parse_seq<uint32_t>(m, "in_channels", {&o.in_ch_begin, &o.in_ch_end});
    const unsigned mode = need(m, "psum_mode").as<unsigned>();
    if (mode > 3) throw YAML::Exception(m["psum_mode"].Mark(), "psum_mode: expected 0..3");
    o.psum_mode = static_cast<uint8_t>(mode);
    o.psum = parse_ref(m, "psum");
  }
  if (m["input_multiplier"]) o.input_multiplier = m["input_multiplier"].as<int32_t>();
  if (m["input2_multiplier"]) o.input2_multiplier = m["input2_multiplier"].as<int32_t>();
  if (m["lut"]) {
    parse_seq<int32_t>(
        m, "lut", {&o.lut.in.multiplier, &o.lut.in.shift, &o.lut.out.multiplier, &o.lut.out.shift});
  }
  if (m["flags"]) {
    const unsigned flags = m["flags"].as<unsigned>();
    if (flags > 63) throw YAML::Exception(m["flags"].Mark(), "flags: expected 0..63");
    o.flags = static_cast<uint8_t>(flags);
  }
  if (YAML::Node q = m["channel_requant"]) {
    const size_t expected = o.ch_end > o.ch_begin ? o.ch_end - o.ch_begin : 0;
    if (!q.IsSequence() || q.size() != expected) {
      throw YAML::Exception(q.Mark(), "channel_requant: expected " + std::to_string(expected) +
                                          " [multiplier, shift] pairs, one per tile channel");
    }
    for (const YAML::Node& pair : q) {
      if (!pair.IsSequence() || pair.size() != 2) {
        throw YAML::Exception(pair.Mark(), "channel_requant: expected [multiplier, shift]");
      }
      o.channel_requant.push_back({pair[0].as<int32_t>(), pair[1].as<int32_t>()});
    }
  }
  if (m["pool_kernel"]) {
    FusedPool& p = o.pool;
    parse_seq<uint16_t>(m, "pool_kernel", {&p.kernel_h, &p.kernel_w});
    parse_seq<uint16_t>(m, "pool_stride", {&p.stride_h, &p.stride_w});
    parse_seq<uint16_t>(m, "pool_pads", {&p.pad_top, &p.pad_left, &p.pad_bottom, &p.pad_right});
    p.output = parse_ref(m, "pool_output");
    if (!p.present()) {
      throw YAML::Exception(m["pool_kernel"].Mark(), "pool_kernel: 0, expected 1 or more");
    }
  }
  if (m["input_scale"]) {
    InputScale& s = o.input_scale;
    s.scale = parse_ref(m, "input_scale");
    if (!s.present()) {
      throw YAML::Exception(m["input_scale"].Mark(), "input_scale: 0 channels, expected 1 or more");
    }
    parse_seq<int32_t>(m, "input_scale_requant", {&s.multiplier, &s.shift});
    s.act = parse_enum<PostAct>(need(m, "input_scale_act"), 8, to_string, "input_scale_act");
    parse_seq<int32_t>(m, "input_scale_clip", {&s.clip_min, &s.clip_max});
    const unsigned flags = need(m, "input_scale_flags").as<unsigned>();
    if (flags > 3) {
      throw YAML::Exception(m["input_scale_flags"].Mark(), "input_scale_flags: expected 0..3");
    }
    s.flags = static_cast<uint8_t>(flags);
  }
  if (m["gap_output"]) {
    FusedGap& g = o.gap;
    g.output = parse_ref(m, "gap_output");
    g.partial = parse_ref(m, "gap_partial");
    parse_seq<int32_t>(m, "gap_requant", {&g.requant_multiplier, &g.requant_shift});
    g.act = parse_enum<PostAct>(need(m, "gap_act"), 8, to_string, "gap_act");
    parse_seq<int32_t>(m, "gap_clip", {&g.clip_min, &g.clip_max});
    const unsigned flags = need(m, "gap_flags").as<unsigned>();
    if (flags > 15) throw YAML::Exception(m["gap_flags"].Mark(), "gap_flags: expected 0..15");
    g.flags = static_cast<uint8_t>(flags);
    if (!g.present()) throw YAML::Exception(m["gap_output"].Mark(), "gap_output: absent tensor");
  }
  if (m["post_op"]) {
    PostOp& p = o.post;
    p.kind = parse_enum<PostOpKind>(m["post_op"], 2, to_string, "post_op");
    p.operand = parse_ref(m, "post_operand");
    parse_seq<int32_t>(m, "post_requant", {&p.multiplier, &p.operand_multiplier, &p.shift});
    p.act = parse_enum<PostAct>(need(m, "post_act"), 8, to_string, "post_act");
    parse_seq<int32_t>(m, "post_clip", {&p.clip_min, &p.clip_max});
  }
  return o;
}

}  // namespace

std::string to_text(const DescriptorList& list) {
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "strider_descriptors" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "version" << YAML::Value << list.version;
  e << YAML::Key << "arch_fingerprint" << YAML::Value << YAML::Hex << list.arch_fingerprint
    << YAML::Dec;
  e << YAML::Key << "layers" << YAML::Value << YAML::BeginSeq;
  for (const std::string& s : list.layers) e << s;
  e << YAML::EndSeq;
  e << YAML::Key << "tensors" << YAML::Value << YAML::BeginSeq;
  for (const TensorEntry& t : list.tensors) {
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name
      << YAML::Key << "role" << YAML::Value << to_string(t.role) << YAML::Key << "space"
      << YAML::Value << to_string(t.space) << YAML::Key << "addr" << YAML::Value << t.addr
      << YAML::Key << "bytes" << YAML::Value << t.bytes << YAML::EndMap;
  }
  e << YAML::EndSeq;
  e << YAML::Key << "descriptors" << YAML::Value << YAML::BeginSeq;
  for (const Descriptor& d : list.descriptors) {
    e << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "id" << YAML::Value << d.id << YAML::Key << "kind" << YAML::Value
      << to_string(d.kind) << YAML::Key << "layer" << YAML::Value << d.layer;
    e << YAML::Key << "deps" << YAML::Value << YAML::Flow << d.deps;
    if (d.kind == DescKind::kMove) {
      const MoveDesc& m = d.move;
      e << YAML::Key << "src" << YAML::Value << to_string(m.src_space) << YAML::Key << "dst"
        << YAML::Value << to_string(m.dst_space);
      emit_seq(e, "addr", m.src_addr, m.dst_addr);
      emit_seq(e, "shape", m.rows, m.row_bytes);
      emit_seq(e, "strides", m.src_stride, m.dst_stride);
      if (m.dst_step != 1) e << YAML::Key << "dst_step" << YAML::Value << m.dst_step;
      if (m.background) e << YAML::Key << "background" << YAML::Value << true;
    } else {
      emit_op(e, d.op);
    }
    e << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

DescriptorList read_text(const std::string& text, const std::string& source) {
  DescriptorList list;
  try {
    YAML::Node root = need(YAML::Load(text), "strider_descriptors");
    list.version = need(root, "version").as<uint32_t>();
    if (list.version != kDescriptorFormatVersion) {
      throw YAML::Exception(root["version"].Mark(),
                            "format version " + std::to_string(list.version) +
                                ", this build reads version " +
                                std::to_string(kDescriptorFormatVersion));
    }
    list.arch_fingerprint = need(root, "arch_fingerprint").as<uint64_t>();
    for (const YAML::Node& n : need(root, "layers")) list.layers.push_back(n.as<std::string>());
    for (const YAML::Node& n : need(root, "tensors")) {
      TensorEntry t;
      t.name = need(n, "name").as<std::string>();
      t.role = parse_enum<TensorRole>(need(n, "role"), 5, to_string, "role");
      t.space = parse_enum<MemSpace>(need(n, "space"), 2, to_string, "space");
      t.addr = need(n, "addr").as<uint64_t>();
      t.bytes = need(n, "bytes").as<uint64_t>();
      list.tensors.push_back(t);
    }
    for (const YAML::Node& n : need(root, "descriptors")) {
      Descriptor d;
      d.id = need(n, "id").as<uint32_t>();
      d.kind = parse_enum<DescKind>(need(n, "kind"), 2, to_string, "kind");
      d.layer = need(n, "layer").as<uint32_t>();
      d.deps = need(n, "deps").as<std::vector<uint32_t>>();
      if (d.kind == DescKind::kMove) {
        MoveDesc& m = d.move;
        m.src_space = parse_enum<MemSpace>(need(n, "src"), 2, to_string, "src");
        m.dst_space = parse_enum<MemSpace>(need(n, "dst"), 2, to_string, "dst");
        parse_seq<uint64_t>(n, "addr", {&m.src_addr, &m.dst_addr});
        parse_seq<uint32_t>(n, "shape", {&m.rows, &m.row_bytes});
        parse_seq<uint32_t>(n, "strides", {&m.src_stride, &m.dst_stride});
        if (n["dst_step"]) m.dst_step = n["dst_step"].as<uint32_t>();
        if (n["background"]) m.background = n["background"].as<bool>();
      } else {
        d.op = parse_op(n);
      }
      list.descriptors.push_back(std::move(d));
    }
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  try {
    check(list);
  } catch (const std::exception& e) {
    throw std::runtime_error(source + ": " + e.what());
  }
  return list;
}

}  // namespace strider
