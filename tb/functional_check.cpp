#include "tb/functional_check.h"

#include <algorithm>
#include <sstream>

#include "core/common/hash.h"
#include "core/common/parallel_for.h"

namespace strider {
namespace {

// "c,y,x" of element i of a CHW tensor.
std::string position(const TensorShape& s, uint64_t i) {
  const uint64_t plane = uint64_t(s.h * s.w);
  std::ostringstream os;
  os << "(c " << i / plane << ", y " << (i % plane) / s.w << ", x " << i % s.w << ")";
  return os.str();
}

}  // namespace

FunctionalCheck::FunctionalCheck(const Graph& g, const Lowered& lowered, uint64_t seed)
    : g_(g),
      lowered_(lowered),
      seed_(seed),
      reference_(g),
      remaining_(lowered.list.layers.size(), 0),
      is_compute_(lowered.list.layers.size(), false),
      captured_(lowered.list.layers.size()),
      captured_gap_(lowered.list.layers.size()),
      is_captured_(lowered.list.layers.size(), false) {
  image_remaining_.resize(lowered.list.layers.size());
  for (size_t layer = 0; layer < lowered.layer_image_first.size(); ++layer) {
    image_remaining_[layer].assign(lowered.layer_image_first[layer].size(), 0);
  }
  for (const Descriptor& d : lowered.list.descriptors) {
    ++remaining_[d.layer];
    if (d.kind == DescKind::kOp) is_compute_[d.layer] = true;
    if (!image_remaining_[d.layer].empty()) ++image_remaining_[d.layer][image_of(d.layer, d.id)];
  }
}

size_t FunctionalCheck::image_of(uint32_t layer, uint32_t id) const {
  const std::vector<uint32_t>& first = lowered_.layer_image_first[layer];
  return size_t(std::upper_bound(first.begin(), first.end(), id) - first.begin()) - 1;
}

std::vector<int8_t> FunctionalCheck::input_bytes(const Tensor& t, uint64_t seed) {
  if (!t.data.empty()) return t.data;
  SplitMix64 rng(seed ^ fnv1a64(t.name));
  std::vector<int8_t> bytes(size_t(t.shape.elements()));
  for (int8_t& b : bytes) b = static_cast<int8_t>(int64_t(rng.next() % 111) - 55);
  return bytes;
}

FunctionalCheck::~FunctionalCheck() {
  if (reference_thread_.joinable()) reference_thread_.join();
}

void FunctionalCheck::preload(TimedMemory& dram) {
  for (const DramImage::Blob& b : lowered_.dram.blobs) dram.write(b.addr, b.bytes.data(), b.bytes.size());
  for (const auto& [tensor, addr] : lowered_.dram.inputs) {
    const std::vector<int8_t> bytes = input_bytes(g_.tensors[tensor], seed_);
    dram.write(addr, bytes.data(), bytes.size());
  }
  if (default_threads() < 2) return;  // finish() runs the reference
  reference_started_ = true;
  reference_thread_ = std::thread([this] {
    try {
      run_reference();
    } catch (...) {
      reference_error_ = std::current_exception();
    }
  });
}

void FunctionalCheck::on_retire(uint32_t id, const TimedMemory& l2, const TimedMemory& dram) {
  const Descriptor& d = lowered_.list.descriptors.at(id);
  const bool last = --remaining_[d.layer] == 0;
  std::vector<uint32_t>& per_image = image_remaining_[d.layer];
  const size_t image = per_image.empty() ? 0 : image_of(d.layer, id);
  if (!per_image.empty() ? --per_image[image] != 0 : !last) return;
  const int node = lowered_.layer_node.at(d.layer);
  if (!is_compute_[d.layer] || node < 0) return;
  const int tensor = g_.nodes[node].outputs.at(0);
  // A tensor passed through band buffers only (a depthwise fused with its producer) is never
  // whole anywhere: its reader's output, checked, is computed from every band of it.
  if (size_t(tensor) < lowered_.tensor_in_bands.size() && lowered_.tensor_in_bands[tensor]) return;
  const Tensor& t = g_.tensors[tensor];
  std::vector<int8_t>& out = captured_[d.layer];
  out.resize(size_t(t.bytes()));
  const bool spilled = size_t(tensor) < lowered_.tensor_spilled.size() && lowered_.tensor_spilled[tensor];
  uint64_t addr = lowered_.tensor_addr.at(tensor), bytes = out.size(), at = 0;
  if (!per_image.empty()) {  // one image of a segment's pass
    bytes /= uint64_t(t.shape.n);
    at = image * bytes;
    const bool one_image = size_t(tensor) < lowered_.tensor_per_image.size() &&
                           lowered_.tensor_per_image[size_t(tensor)];
    if (!one_image) addr += at;
  }
  const TimedMemory& mem = spilled ? dram : l2;
  const uint64_t plane = uint64_t(t.shape.h) * uint64_t(t.shape.w);
  const uint64_t stride = size_t(tensor) < lowered_.tensor_channel_stride.size()
                              ? lowered_.tensor_channel_stride[size_t(tensor)]
                              : plane;
  if (stride == plane) {
    mem.read(addr, out.data() + at, bytes);
  } else {  // skewed channel planes (planner/lower/activation_layout.h): one image, plane by plane
    for (uint64_t c = 0; c * plane < bytes; ++c) {
      mem.read(addr + c * stride, out.data() + c * plane, plane);
    }
  }
  const Node& n = g_.nodes[node];
  if (n.gap.fused && n.outputs.size() > 1) {  // a fused global pool's output: one image, in L2
    const int p = n.outputs[1];
    const uint64_t c = uint64_t(g_.tensors[p].shape.c);
    const uint64_t step = size_t(p) < lowered_.tensor_channel_stride.size()
                              ? lowered_.tensor_channel_stride[size_t(p)]
                              : 1;
    std::vector<int8_t>& pooled = captured_gap_[d.layer];
    pooled.resize(c);
    for (uint64_t k = 0; k < c; ++k) l2.read(lowered_.tensor_addr.at(p) + k * step, &pooled[k], 1);
  }
  if (per_image.empty() || std::all_of(per_image.begin(), per_image.end(),
                                       [](uint32_t n) { return n == 0; })) {
    is_captured_[d.layer] = true;
  }
}

// The reference values, then the fidelity of every compute layer's (finish() keeps the captured
// layers') and of the graph outputs against the float network.
void FunctionalCheck::run_reference() {
  for (int t : g_.inputs) reference_.set_input(t, input_bytes(g_.tensors[t], seed_));
  reference_.run();
  layer_fidelity_.assign(is_compute_.size(), Fidelity());
  const std::vector<char> logits = softmax_logits(g_);  // masks are not counted
  for (size_t layer = 0; layer < is_compute_.size(); ++layer) {
    if (!is_compute_[layer] || lowered_.layer_node[layer] < 0) continue;
    const int out = g_.nodes[lowered_.layer_node[layer]].outputs[0];
    const Tensor& t = g_.tensors[out];
    if (t.scale <= 0 || t.float_data.empty()) continue;
    layer_fidelity_[layer].add(t.float_data, reference_.value(out), t.scale, t.is_unsigned, logits[size_t(out)]);
  }
  for (int out : g_.outputs) {
    const Tensor& t = g_.tensors[out];
    if (t.scale > 0 && !t.float_data.empty()) output_fidelity_.add(t.float_data, reference_.value(out), t.scale, t.is_unsigned);
  }
}

void FunctionalCheck::finish() {
  if (!reference_started_) run_reference();
  if (reference_thread_.joinable()) reference_thread_.join();
  if (reference_error_) std::rethrow_exception(reference_error_);
  for (size_t layer = 0; layer < captured_.size(); ++layer) {
    if (!is_captured_[layer]) continue;
    const Node& n = g_.nodes[lowered_.layer_node[layer]];
    compare(layer, n.outputs[0], captured_[layer]);
    if (!captured_gap_[layer].empty()) compare(layer, n.outputs[1], captured_gap_[layer]);
  }
  for (size_t layer = 0; layer < captured_.size(); ++layer) {
    if (!is_captured_[layer]) layer_fidelity_[layer] = Fidelity();
  }
}

void FunctionalCheck::compare(size_t layer, int tensor, const std::vector<int8_t>& got) {
  ++checked_;
  const Node& n = g_.nodes[lowered_.layer_node[layer]];
  const std::vector<int8_t>& want = reference_.value(tensor);
  uint64_t differ = 0, first = 0;
  for (uint64_t i = 0; i < got.size(); ++i) {
    if (i < want.size() && got[i] == want[i]) continue;
    if (differ++ == 0) first = i;
  }
  if (differ == 0 && got.size() == want.size()) return;
  ++mismatches_;
  std::ostringstream os;
  os << "layer " << lowered_.list.layers[layer] << " (" << to_string(n.op) << "): " << differ
     << " of " << got.size() << " bytes";
  if (tensor != n.outputs[0]) os << " of " << g_.tensors[tensor].name;
  os << " differ from the reference";
  if (differ > 0 && first < want.size()) {
    os << ", first at " << position(g_.tensors[tensor].shape, first) << ": model "
       << int(got[first]) << ", reference " << int(want[first]);
  }
  details_.push_back(os.str());
}

}  // namespace strider
