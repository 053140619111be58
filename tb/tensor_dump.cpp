#include "tb/tensor_dump.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "planner/quant/float_reference.h"
#include "core/contract/quant.h"

namespace strider {
namespace {

std::vector<int64_t> chw(const TensorShape& s) { return {s.n, s.c, s.h, s.w}; }

// Everything beyond the geometry that an independent recomputation needs: the integer rules of
// core/contract/quant.h spelled out, the scales and zero points of every operand, and the lookup
// table of a sigmoid-family activation (256 entries, for inputs -128 .. 127).
// A lookup activation's table at scales `lut` (core/contract/quant.h lut_table), its scales and
// the formula each entry follows; an unsigned (uint8) output: 255 f(x) at scale 1/255.
nlohmann::json lut_json(Activation a, LutScales lut, bool u8) {
  const PostAct act = static_cast<PostAct>(static_cast<uint8_t>(a));
  std::vector<int> table;
  for (int8_t b : lut_table(act, lut, u8)) table.push_back(byte_value(b, u8));
  const std::string unit = u8 ? "255" : "127";
  // The swishes (x f(x)) output at output_scale, the sigmoids at 1 / unit.
  const bool swish = act == PostAct::kHardSwish || act == PostAct::kSilu;
  const std::string x = "(q * input_scale)";
  const std::string formula =
      act == PostAct::kSigmoid ? "round_half_away(" + unit + " / (1 + exp(-" + x + ")))"
      : act == PostAct::kHardSigmoid
          ? "round_half_away(" + unit + " * clamp(" + x + " / 6 + 0.5, 0, 1))"
      : act == PostAct::kSilu
          ? "round_half_away(" + x + " / (1 + exp(-" + x + ")) / output_scale)"
          : "round_half_away(" + x + " * clamp(" + x + " / 6 + 0.5, 0, 1) / output_scale)";
  return {{"input_scale", lut_scale(lut.in)},
          {"output_scale", swish ? lut_scale(lut.out)
                           : u8  ? 1.0 / 255
                                 : 1.0 / 127},
          {"formula", formula + ", saturated to the output's range; entry k is q = k - 128"},
          {"table", table}};
}

nlohmann::json numerics(const Graph& g, const Node& n) {
  nlohmann::json j;
  j["rounding"] = "half_away_from_zero";
  j["requant_formula"] =
      "saturate_int8(act(round_half_away_from_zero(v * multiplier / 2^shift))), v = bias + "
      "sum(in * w) for conv / fc, a * multiplier + b * input2_multiplier for add (then multiplier "
      "1), a * b for mul, a for activation, the window's sum for a global average pool; max and "
      "average pools do not requantise; with channel_requant, output channel c uses its "
      "multiplier[c] and shift[c]; with negative_requant (LeakyRelu / PRelu), a negative input "
      "of channel c uses its multiplier[c] and shift[c]; an unsigned operand (its .npy is <u1) "
      "holds uint8 values, an unsigned output saturates to [0, 255] instead";
  j["zero_point"] = 0;  // symmetric int8, or uint8 with zero point 0
  nlohmann::json scales = nlohmann::json::array();
  for (int t : n.inputs) scales.push_back(g.tensors[t].scale);
  j["input_scales"] = scales;
  j["calibration_method"] = g.calibration_method;  // how the activation scales were chosen
  j["output_scale"] = g.tensors[n.outputs[0]].scale;
  if (n.weights >= 0) {
    const Tensor& w = g.tensors[n.weights];
    j["weight_scale"] = w.scale;
    if (!w.channel_scales.empty()) j["weight_channel_scales"] = w.channel_scales;
    // Bias correction: the int32 bias is round((float bias - shift) / (input scale x weight
    // scale)) per output channel (planner/quant/bias_correction.h).
    if (n.bias >= 0 && !g.tensors[n.bias].bias_shift.empty()) {
      j["bias_correction"] = g.tensors[n.bias].bias_shift;
    }
  }
  if (n.op == OpType::kAdd) {
    j["operands"] = "each at its own scale: v = a * requant.multiplier + b * input2_multiplier, "
                    "out = round_half_away_from_zero(v / 2^requant.shift)";
    j["input2_multiplier"] = n.input2_multiplier;
  }
  if (n.op == OpType::kMul) j["operands"] = "v = a * b at input_scales[0] x input_scales[1]";
  if (n.op == OpType::kSoftmax || n.op == OpType::kGelu) j["input_multiplier"] = n.input_multiplier;
  if (is_norm(n.op)) {
    j["epsilon"] = n.epsilon;
    j["epsilon_code"] = n.input_multiplier;
  }
  if (n.op == OpType::kLayerNorm) {
    j["layernorm"] =
        "per position over the D channels: s = sum(q), d = D q - s, r = isqrt(floor(sum(d^2) / D) "
        "+ E) with E = (epsilon_code & 0xffffff) << (epsilon_code >> 24) (D^2 epsilon / s_in^2), "
        "y = round_half_away_from_zero(256 d / r) (0 when r = 0), out = "
        "saturate_int8(requant(y gamma + beta))";
  }
  if (n.op == OpType::kInstanceNorm) {
    j["instancenorm"] =
        "per channel over its N = H x W positions: the layernorm formula with D = N (s = sum(q), "
        "d = N q - s, r = isqrt(floor(sum(d^2) / N) + E), E = N^2 epsilon / s_in^2), gamma and "
        "beta of the channel";
  }
  if (n.op == OpType::kSoftmax) {
    j["softmax"] =
        "per position and channel group: d = q - max(q), e = exp_q15(d) (core/contract/vector_math.h: "
        "t = d * input_multiplier (Q24 of d s_in log2 e), i = floor(t / 2^24), f = (t - i * 2^24) "
        ">> 8, p = (2^16 + (((((5206 f >> 16) + 14712) f >> 16) + 45617) f >> 16)) >> 1, "
        "e = p >> -i, 0 when -i > 16), out = min(127, (floor(254 e m / sum(e)) + 2^s) >> (s + 1)) "
        "with (m, s) = requant; a uint8 output (its .npy is <u1: probabilities read only by "
        "MatMuls, which take them unsigned) is min(255, (floor(510 e m / sum(e)) + 2^s) >> (s + 1))";
  }
  if (n.op == OpType::kGelu) {
    j["gelu"] =
        "z = min((|q| * input_multiplier) >> 8, 4 * 2^16) (Q16 of |x| / sqrt 2), erf = 2^16 - "
        "2^32 / q4 with a = (((((5119 z >> 16) + 64) z >> 16) + 15099) z >> 16) + 18245, "
        "b = (a z >> 16) + 2^16, q2 = b^2 >> 16, q4 = q2^2 >> 16; v = q * (2^16 + sign(q) erf), "
        "out = saturate_int8(round_half_away_from_zero(v * m / 2^(s + 17))) with (m, s) = requant";
  }
  if (n.op == OpType::kAvgPool) {
    j["pool_divisor"] =
        "round_half_away_from_zero(sum / count): count = the window's elements inside the input, "
        "or with count_include_pad its positions inside the padded input";
  }
  if (is_lookup(n.activation)) {
    const bool u8 = result_u8(g.tensors[size_t(n.outputs[0])].is_unsigned, n.residual.fused);
    j["lut"] = lut_json(n.activation, n.lut, u8);
  }
  return j;
}

std::ofstream open_out(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("--dump-tensors: cannot write " + path);
  return out;
}

}  // namespace

void write_npy(const std::string& path, const std::string& dtype,
               const std::vector<int64_t>& shape, const void* data, uint64_t bytes) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.erase(dims.size() - 2);  // a 1-tuple keeps its comma: "(5,)"
  else if (!dims.empty()) dims.erase(dims.size() - 1);
  std::string header = "{'descr': '" + dtype + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of 64
  // and ended by a newline.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out = open_out(path);
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  const char len_bytes[2] = {char(len & 0xff), char(len >> 8)};
  out.write(len_bytes, 2);
  out << header;
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error("--dump-tensors: cannot write " + path);
}

std::string tensor_dump_stem(const std::string& layer) {
  std::string s = layer;
  for (char& c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return s.empty() ? "_" : s;
}

void dump_tensors(const Graph& g, const Lowered& lowered, const FunctionalCheck& check,
                  const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("--dump-tensors: cannot create " + dir + ": " + ec.message());
  nlohmann::json index = nlohmann::json::array();
  std::set<std::string> stems;
  for (size_t layer = 0; layer < check.captured().size(); ++layer) {
    const std::vector<int8_t>& output = check.captured()[layer];
    const int node = lowered.layer_node[layer];
    if (output.empty() || node < 0) continue;
    const Node& n = g.nodes[node];
    std::string stem = tensor_dump_stem(lowered.list.layers[layer]);
    if (!stems.insert(stem).second) stem += "_" + std::to_string(layer);  // two names, one stem
    stems.insert(stem);
    const std::string base = dir + "/" + stem;
    nlohmann::json j;
    j["layer"] = lowered.list.layers[layer];
    j["op"] = to_string(n.op);
    j["kernel"] = {n.kernel_h, n.kernel_w};
    j["stride"] = {n.stride_h, n.stride_w};
    j["padding"] = {{"top", n.pad_top}, {"left", n.pad_left}, {"bottom", n.pad_bottom},
                    {"right", n.pad_right}};
    j["dilation"] = {n.dilation_h, n.dilation_w};
    j["groups"] = n.groups;
    j["count_include_pad"] = n.count_include_pad;
    j["ceil_mode"] = n.ceil_mode;
    j["requant"] = {{"multiplier", n.requant_multiplier}, {"shift", n.requant_shift}};
    if (!n.channel_requant.empty()) {
      // Output channel c uses channel_requant multiplier[c] / shift[c] instead of "requant".
      std::vector<int32_t> m, s;
      for (const Requant& r : n.channel_requant) m.push_back(r.multiplier), s.push_back(r.shift);
      j[n.negative_slope.empty() ? "channel_requant" : "negative_requant"] = {{"multiplier", m},
                                                                             {"shift", s}};
      if (!n.negative_slope.empty()) j["negative_slope"] = n.negative_slope;
    }
    // A scalar the importer folded in (attention's 1 / sqrt(d)): the float layer is the op's
    // value x output_factor; the requantisation above already carries it.
    if (n.output_factor != 1.0) j["output_factor"] = n.output_factor;
    if (n.op == OpType::kMatMul) j["transpose_b"] = n.transpose_b;  // B(g, k, n): see OpCode::kMatMul
    if (n.op == OpType::kSoftmax) j["causal"] = n.causal;  // row y sees channels n <= y of a group
    j["activation"] = to_string(n.activation);
    j["clip"] = {n.clip_min, n.clip_max};
    if (n.residual.fused) {  // a residual Add fused into the conv (Node::residual): input 1
      const Node::ResidualAdd& r = n.residual;
      j["residual"] = {{"multiplier", r.multiplier},
                       {"operand_multiplier", r.operand_multiplier},
                       {"shift", r.shift},
                       {"activation", to_string(r.act)},
                       {"clip", {r.clip_min, r.clip_max}},
                       {"formula", "out = act(round_half_away_from_zero((y * multiplier + input1 * "
                                   "operand_multiplier) / 2^shift)), y the conv's int8 result"}};
      if (is_lookup(r.act)) {
        j["residual"]["quant"]["lut"] =
            lut_json(r.act, r.lut, g.tensors[size_t(n.outputs[0])].is_unsigned);
      }
    }
    if (n.pool.fused) {  // a max-pool fused into the conv (Node::pool): on its int8 result
      const Node::MaxPoolFusion& q = n.pool;
      j["fused_max_pool"] = {{"kernel", {q.kernel_h, q.kernel_w}},
                             {"stride", {q.stride_h, q.stride_w}},
                             {"padding",
                              {{"top", q.pad_top},
                               {"left", q.pad_left},
                               {"bottom", q.pad_bottom},
                               {"right", q.pad_right}}}};
    }
    if (n.input_scale.fused) {  // a per-channel Mul fused into the conv's input: the last input
      const Node::InputScaleFusion& f = n.input_scale;
      j["input_scale"] = {{"input", n.inputs.size() - 1},
                          {"multiplier", f.multiplier},
                          {"shift", f.shift},
                          {"activation", to_string(f.act)},
                          {"clip", {f.clip_min, f.clip_max}},
                          {"product_unsigned", bool(g.tensors[size_t(f.product)].is_unsigned)},
                          {"formula",
                           "x' = act(round_half_away_from_zero(input0 * scale[c] * multiplier / "
                           "2^shift)), the conv computing on x' (zero padding)"}};
    }
    if (n.gap.fused) {  // a global average pool fused into the conv (Node::gap): on its result
      const Node::GlobalPoolFusion& q = n.gap;
      const bool stored = q.conv_output < 0;
      j["fused_global_avg_pool"] = {
          {"requant", {{"multiplier", q.requant_multiplier}, {"shift", q.requant_shift}}},
          {"activation", to_string(q.act)},
          {"clip", {q.clip_min, q.clip_max}},
          {"result_stored", stored},
          {"result_unsigned", g.tensors[size_t(n.result())].is_unsigned},
          {"formula", "out[c] = act(round_half_away_from_zero(sum over y, x of result[c, y, x] * "
                      "multiplier / 2^shift)), result the conv's int8 output"}};
      if (stored) {  // the pooled tensor beside the conv's output (output below)
        const Tensor& t = g.tensors[size_t(q.output)];
        const std::vector<int8_t>& v = check.reference().value(q.output);
        const std::string file = stem + ".pooled.npy";
        write_npy(dir + "/" + file, t.is_unsigned ? "<u1" : "<i1", chw(t.shape), v.data(),
                  v.size());
        j["fused_global_avg_pool"]["output"] = {{"file", file}, {"tensor", t.name}};
      }
    }
    j["activation_scale"] = kActivationScale;
    j["quant"] = numerics(g, n);
    j["inputs"] = nlohmann::json::array();
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const Tensor& t = g.tensors[n.inputs[k]];
      const std::vector<int8_t>& v = check.reference().value(n.inputs[k]);
      const std::string file = stem + ".input" + std::to_string(k) + ".npy";
      write_npy(dir + "/" + file, t.is_unsigned ? "<u1" : "<i1", chw(t.shape), v.data(), v.size());
      j["inputs"].push_back({{"file", file}, {"tensor", t.name}, {"shape", chw(t.shape)}});
      if (!t.float_data.empty()) {
        const std::string ffile = stem + ".input" + std::to_string(k) + ".float.npy";
        write_npy(dir + "/" + ffile, "<f4", chw(t.shape), t.float_data.data(), t.float_data.size() * 4);
        j["inputs"].back()["float_file"] = ffile;
      }
    }
    if (n.weights >= 0) {
      const Tensor& w = g.tensors[n.weights];
      const std::vector<int64_t> shape = n.op == OpType::kFullyConnected
                                             ? std::vector<int64_t>{w.shape.n, w.shape.c}
                                             : chw(w.shape);
      write_npy(base + ".weights.npy", "<i1", shape, w.data.data(), w.data.size());
      j["weights"] = {{"file", stem + ".weights.npy"}, {"shape", shape}};
      std::vector<float> derived;
      if (const float* fw = float_weights(w, derived)) {
        const size_t count = w.float_data.empty() ? w.data.size() : w.float_data.size();
        write_npy(base + ".weights.float.npy", "<f4", shape, fw, count * 4);
        j["weights"]["float_file"] = stem + ".weights.float.npy";
        std::vector<float> fb(size_t(g.tensors[n.outputs[0]].shape.c), 0.0f);
        if (n.bias >= 0) {
          const std::vector<float>& b = g.tensors[n.bias].float_data;
          for (size_t i = 0; i < b.size() && i < fb.size(); ++i) fb[i] = b[i];
        }
        write_npy(base + ".bias.float.npy", "<f4", {int64_t(fb.size())}, fb.data(), fb.size() * 4);
        j["weights"]["bias_float_file"] = stem + ".bias.float.npy";
      }
      // Biases as the DRAM image holds them: int32 per output channel, zero when the node has none.
      const int64_t out_c = g.tensors[n.outputs[0]].shape.c;
      std::vector<int32_t> bias(size_t(out_c), 0);
      if (n.bias >= 0) {
        const std::vector<int32_t>& b = g.tensors[n.bias].bias;
        for (size_t i = 0; i < b.size() && i < bias.size(); ++i) bias[i] = b[i];
      }
      std::vector<uint8_t> raw;
      for (int32_t v : bias) {
        for (int k = 0; k < 4; ++k) raw.push_back(uint8_t(uint32_t(v) >> (8 * k)));
      }
      write_npy(base + ".bias.npy", "<i4", {out_c}, raw.data(), raw.size());
      j["bias"] = {{"file", stem + ".bias.npy"}, {"shape", {out_c}}};
    }
    const Tensor& out = g.tensors[n.outputs[0]];
    write_npy(base + ".output.npy", out.is_unsigned ? "<u1" : "<i1", chw(out.shape), output.data(), output.size());
    j["output"] = {{"file", stem + ".output.npy"}, {"tensor", out.name}, {"shape", chw(out.shape)}};
    if (!out.float_data.empty()) {
      write_npy(base + ".output.float.npy", "<f4", chw(out.shape), out.float_data.data(),
                out.float_data.size() * 4);
      j["output"]["float_file"] = stem + ".output.float.npy";
    }
    std::ofstream js = open_out(base + ".json");
    js << j.dump(2) << "\n";
    index.push_back({{"layer", lowered.list.layers[layer]}, {"stem", stem}});
  }
  std::ofstream idx = open_out(dir + "/index.json");
  idx << index.dump(2) << "\n";
}

}  // namespace strider
