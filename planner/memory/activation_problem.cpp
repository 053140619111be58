// Activation planning input: see activation_problem.h.
#include "planner/memory/activation_problem.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "planner/memory/gap_placer.h"

namespace strider::memory {
namespace {

// Union-find over tensors where each tensor records its byte offset inside its parent.
class AliasForest {
 public:
  explicit AliasForest(size_t n) : parent_(n), offset_(n, 0), holds_others_(n, 0) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  // Root of t and t's offset inside the root's memory.
  std::pair<int, int64_t> find(int t) {
    int64_t off = 0;
    int r = t;
    while (parent_[r] != r) {
      off += offset_[r];
      r = parent_[r];
    }
    // Path compression: point t straight at the root.
    parent_[t] = r;
    offset_[t] = off;
    return {r, off};
  }
  // Makes t (a root) live at `offset` inside `into`'s memory.
  void attach(int t, int into, int64_t offset) {
    auto [r, base] = find(into);
    parent_[t] = r;
    offset_[t] = base + offset;
    holds_others_[r] = 1;
  }
  // True when t is a root that no other tensor lives in.
  bool alone(int t) const { return parent_[t] == t && !holds_others_[t]; }

 private:
  std::vector<int> parent_;
  std::vector<int64_t> offset_;
  std::vector<char> holds_others_;
};

bool is_channel_view(OpType op) { return op == OpType::kSplit || op == OpType::kSlice; }

// Ops whose every unit addresses a tensor's planes through TensorRef::channel_stride, in its
// timing as in its values: the compute pipeline's. Views, concats and the DMA's shuffles and
// gathers take their tensors as dense bytes; the vector unit (softmax, layernorm, gelu,
// instancenorm) computes through the stride but times its L2 access as one range from the base.
bool addresses_planes(OpType op) {
  return !is_view_op(op) && !is_channel_view(op) && op != OpType::kConcat &&
         op != OpType::kChannelShuffle && op != OpType::kGather && op != OpType::kSoftmax &&
         op != OpType::kLayerNorm && op != OpType::kGelu && op != OpType::kInstanceNorm;
}

// The channel shuffle node that alone reads concat `node`'s output when the concat can be
// folded into its layout (activation_problem.h), else -1.
int foldable_shuffle(const Graph& g, const Node& node, const std::vector<std::vector<int>>& readers,
                     const std::vector<char>& is_output) {
  const int out = node.outputs[0];
  const TensorShape& s = g.tensors[out].shape;
  if (s.n != 1 || is_output[out] || readers[out].size() != 1) return -1;
  const Node& sh = g.nodes[readers[out][0]];
  const int groups = sh.shuffle_groups;
  if (sh.op != OpType::kChannelShuffle || groups < 2 || s.c % groups != 0 ||
      g.tensors[sh.outputs[0]].shape.c != s.c) {
    return -1;
  }
  const int64_t per = s.c / groups;
  int64_t begin = 0;
  for (int t : node.inputs) {
    const int64_t c = g.tensors[t].shape.c;
    if (g.tensors[t].shape.n != 1 || c < 1 || begin / per != (begin + c - 1) / per) return -1;
    begin += c;
  }
  return readers[out][0];
}

// True when tensor t may be produced straight into a folded concat as a strided view: a tensor
// of its own that a compute op makes and, besides `concat`, only compute ops read.
bool strided_in_place(const Graph& g, int t, int concat, const std::vector<int>& producer,
                      const std::vector<std::vector<int>>& readers,
                      const std::vector<char>& is_input, const std::vector<char>& is_output) {
  if (is_input[t] || is_output[t] || producer[t] < 0 ||
      !addresses_planes(g.nodes[producer[t]].op)) {
    return false;
  }
  int uses = 0;
  for (int r : readers[t]) {
    if (r == concat) {
      ++uses;
    } else if (!addresses_planes(g.nodes[r].op)) {
      return false;
    }
  }
  return uses == 1;
}

}  // namespace

ActivationPlanInput build_activation_problem(const Graph& g, const std::vector<int>& order,
                                             int64_t alignment, bool fold_shuffles) {
  if (alignment < 1) {
    throw std::invalid_argument("activation plan: alignment must be >= 1, got " +
                                std::to_string(alignment));
  }
  const size_t num_nodes = g.nodes.size();
  const size_t num_tensors = g.tensors.size();
  std::vector<int> step_of(num_nodes, -1);
  if (order.size() != num_nodes) {
    throw std::invalid_argument("activation plan: schedule has " + std::to_string(order.size()) +
                                " steps for " + std::to_string(num_nodes) + " nodes");
  }
  for (size_t s = 0; s < order.size(); ++s) {
    const int n = order[s];
    if (n < 0 || static_cast<size_t>(n) >= num_nodes || step_of[n] >= 0) {
      throw std::invalid_argument("activation plan: schedule step " + std::to_string(s) +
                                  " names node " + std::to_string(n) +
                                  ", which is out of range or scheduled twice");
    }
    step_of[n] = static_cast<int>(s);
  }

  std::vector<char> is_input(num_tensors, 0), is_output(num_tensors, 0);
  for (int t : g.inputs) is_input[t] = 1;
  for (int t : g.outputs) is_output[t] = 1;

  ActivationPlanInput in;
  in.concat_input_in_place.resize(num_nodes);
  in.node_is_alias.assign(num_nodes, 0);
  in.folded_shuffle.assign(num_nodes, -1);
  in.concat_input_offset.resize(num_nodes);
  in.concat_input_stride.resize(num_nodes);
  in.concat_input_copy_step.resize(num_nodes);
  in.tensor_channel_stride.assign(num_tensors, 0);
  AliasForest forest(num_tensors);
  const std::vector<int> producer = g.producers();
  const std::vector<std::vector<int>> consumers = g.consumers();

  for (int n : order) {
    const Node& node = g.nodes[n];
    if (node.inputs.empty() || node.outputs.empty()) continue;
    // The channel shuffle a concat folds into (-1: none).
    const int sh = node.op == OpType::kConcat && fold_shuffles
                       ? foldable_shuffle(g, node, consumers, is_output)
                       : -1;
    const int src = node.inputs[0];
    const TensorShape& src_shape = g.tensors[src].shape;
    if (is_view_op(node.op) && !is_channel_view(node.op)) {
      for (int out : node.outputs) forest.attach(out, src, 0);
      in.node_is_alias[n] = 1;
    } else if (is_channel_view(node.op) && src_shape.n == 1) {
      if (node.channel_begin.size() != node.outputs.size() ||
          node.channel_end.size() != node.outputs.size()) {
        throw std::runtime_error("node '" + node.name + "': " +
                                 std::to_string(node.outputs.size()) + " outputs but " +
                                 std::to_string(node.channel_begin.size()) +
                                 " channel ranges");
      }
      const int64_t channel_bytes = src_shape.h * src_shape.w * g.tensors[src].element_bytes;
      for (size_t k = 0; k < node.outputs.size(); ++k) {
        const int64_t b = node.channel_begin[k], e = node.channel_end[k];
        if (b < 0 || e > src_shape.c || b >= e) {
          throw std::runtime_error("node '" + node.name + "': output '" +
                                   g.tensors[node.outputs[k]].name + "' channel range [" +
                                   std::to_string(b) + ", " + std::to_string(e) +
                                   ") is outside input '" + g.tensors[src].name + "' with " +
                                   std::to_string(src_shape.c) + " channels");
        }
        forest.attach(node.outputs[k], src, b * channel_bytes);
      }
      in.node_is_alias[n] = 1;
    } else if (sh >= 0) {
      // Channel shuffle as a layout: the concat output is the shuffle output's memory and each
      // input a strided view of it (see the header).
      const int out = node.outputs[0], shuffled = g.nodes[sh].outputs[0];
      const TensorShape& os = g.tensors[out].shape;
      const int64_t groups = g.nodes[sh].shuffle_groups, per = os.c / groups;
      const int64_t plane = os.h * os.w * g.tensors[out].element_bytes;
      forest.attach(out, shuffled, 0);
      in.folded_shuffle[n] = sh;
      in.folded_shuffle[sh] = n;
      in.node_is_alias[sh] = 1;
      std::vector<char>& flags = in.concat_input_in_place[n];
      flags.assign(node.inputs.size(), 0);
      bool all = true;
      int64_t begin = 0;
      for (size_t k = 0; k < node.inputs.size(); ++k) {
        const int t = node.inputs[k];
        const int64_t group = begin / per;
        const int64_t offset = (group + (begin - group * per) * groups) * plane;
        in.concat_input_offset[n].push_back(offset);
        in.concat_input_stride[n].push_back(groups * plane);
        if (forest.alone(t) &&
            strided_in_place(g, t, n, producer, consumers, is_input, is_output)) {
          forest.attach(t, out, offset);
          in.tensor_channel_stride[t] = groups * plane;
          flags[k] = 1;
        }
        const int from = producer[t] >= 0 && !is_input[t] ? step_of[producer[t]] + 1 : step_of[n];
        in.concat_input_copy_step[n].push_back(flags[k] || from >= step_of[n] ? -1 : from);
        all = all && flags[k];
        begin += g.tensors[t].shape.c;
      }
      in.node_is_alias[n] = all ? 1 : 0;
    } else if (node.op == OpType::kConcat) {
      const int out = node.outputs[0];
      std::vector<char>& flags = in.concat_input_in_place[n];
      flags.assign(node.inputs.size(), 0);
      int64_t cursor = 0;
      bool all = true;
      size_t k = 0;
      // A chain of concats (DenseNet: layer k concatenates the block's input and the k - 1
      // features before it, layer k - 1 the same list less one): when the leading inputs already
      // lie back to back from byte 0 of one buffer that holds exactly them (the previous concat's
      // output), that whole buffer becomes the prefix of this output and they stay in place.
      const auto [r0, o0] = forest.find(node.inputs[0]);
      const int64_t r0_bytes = g.tensors[r0].bytes();
      if (g.tensors[out].shape.n == 1 && !is_input[r0] && o0 == 0 &&
          r0 != forest.find(out).first && r0_bytes > g.tensors[node.inputs[0]].bytes()) {
        size_t j = 0;
        int64_t c = 0;
        while (j < node.inputs.size() && c < r0_bytes && forest.find(node.inputs[j]) ==
                                                             std::make_pair(r0, c)) {
          c += g.tensors[node.inputs[j]].bytes();
          ++j;
        }
        if (c == r0_bytes) {
          forest.attach(r0, out, 0);
          for (; k < j; ++k) flags[k] = 1;
          cursor = c;
        }
      }
      for (; k < node.inputs.size(); ++k) {
        const int t = node.inputs[k];
        const int64_t bytes = g.tensors[t].bytes();
        auto [root, off] = forest.find(t);
        const bool ok = g.tensors[out].shape.n == 1 && !is_input[root] && off == 0 &&
                        g.tensors[root].bytes() == bytes && root != forest.find(out).first;
        if (ok) {
          forest.attach(root, out, cursor);
          flags[k] = 1;
        }
        all = all && ok;
        cursor += bytes;
      }
      in.node_is_alias[n] = all ? 1 : 0;
    }
  }

  // Lifetimes per tensor, folded into their groups.
  const int last_step = static_cast<int>(order.size()) - 1;
  std::vector<char> used(num_tensors, 0);
  for (const Node& node : g.nodes) {
    for (int t : node.inputs) used[t] = 1;
    for (int t : node.outputs) used[t] = 1;
  }
  for (int t : g.inputs) used[t] = 1;
  for (int t : g.outputs) used[t] = 1;

  std::vector<int64_t> lower(num_tensors, 0), upper(num_tensors, 0);
  std::vector<char> has_group(num_tensors, 0);
  in.tensor_buffer.assign(num_tensors, -1);
  in.tensor_offset_in_buffer.assign(num_tensors, 0);
  std::vector<int> roots;
  for (size_t t = 0; t < num_tensors; ++t) {
    if (!used[t] || g.tensors[t].kind != TensorKind::kActivation) continue;
    // A graph input is loaded just before its first use and a graph output stored to DRAM as
    // soon as it is produced, so models run in series can share memory.
    int birth = producer[t] >= 0 && !is_input[t] ? step_of[producer[t]] : 0;
    if (is_input[t] && !consumers[t].empty()) {
      birth = last_step;
      for (int c : consumers[t]) birth = std::min(birth, step_of[c]);
    }
    int death = birth;
    for (int c : consumers[t]) death = std::max(death, step_of[c]);
    // A graph output stays one step longer: its store to DRAM then drains while the next step
    // computes instead of holding back the next op that would overwrite it.
    if (is_output[t] && !is_input[t] && death < last_step) ++death;
    auto [root, off] = forest.find(static_cast<int>(t));
    if (off < 0 || off + g.tensors[t].bytes() > g.tensors[root].bytes()) {
      throw std::runtime_error("tensor '" + g.tensors[t].name + "' at byte " +
                               std::to_string(off) + " does not fit in the memory of '" +
                               g.tensors[root].name + "'");
    }
    in.tensor_offset_in_buffer[t] = off;
    if (!has_group[root]) {
      has_group[root] = 1;
      roots.push_back(root);
      lower[root] = birth;
      upper[root] = death + 1;
    } else {
      lower[root] = std::min<int64_t>(lower[root], birth);
      upper[root] = std::max<int64_t>(upper[root], death + 1);
    }
  }
  // A folded concat's copies may run from their copy step: its output's buffer is live there.
  for (int n : order) {
    const int out = g.nodes[n].outputs.empty() ? -1 : g.nodes[n].outputs[0];
    for (int step : in.concat_input_copy_step[n]) {
      if (step < 0) continue;
      const int root = forest.find(out).first;
      lower[root] = std::min<int64_t>(lower[root], step);
    }
  }
  std::stable_sort(roots.begin(), roots.end(),
                   [&](int a, int b) { return lower[a] < lower[b]; });
  for (int root : roots) {
    Buffer b;
    b.id = g.tensors[root].name;
    b.lower = lower[root];
    b.upper = upper[root];
    b.size = align_offset(g.tensors[root].bytes(), alignment);
    b.alignment = alignment;
    in.buffer_root.push_back(root);
    in.problem.buffers.push_back(std::move(b));
  }
  std::vector<int> buffer_of_root(num_tensors, -1);
  for (size_t i = 0; i < roots.size(); ++i) buffer_of_root[roots[i]] = static_cast<int>(i);
  for (size_t t = 0; t < num_tensors; ++t) {
    if (!used[t] || g.tensors[t].kind != TensorKind::kActivation) continue;
    in.tensor_buffer[t] = buffer_of_root[forest.find(static_cast<int>(t)).first];
  }
  return in;
}

std::vector<int64_t> activation_addresses(const ActivationPlanInput& in, const Solution& s) {
  std::vector<int64_t> addr(in.tensor_buffer.size(), -1);
  for (size_t t = 0; t < addr.size(); ++t) {
    const int b = in.tensor_buffer[t];
    if (b >= 0) addr[t] = s.offsets.at(b) + in.tensor_offset_in_buffer[t];
  }
  return addr;
}

}  // namespace strider::memory
