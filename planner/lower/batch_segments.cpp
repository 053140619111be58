// Image segments of a batch (issue 25): consecutive schedule steps that run image after image,
// each image's activations made inside the segment held in one image's memory
// (ActivationLayout::tensor_per_image) and reused by the next image, so that a batch keeps in L2
// what batch 1 keeps there. Outside the segments every layer runs the batch together and shares
// each staged weight block across its images (banded_lowering.cpp), which saves weight bytes but
// holds N images' activations at once and may spill them.
//
// lower() chooses the segments by DRAM bytes from three lowerings of the schedule:
//   shared   no segment: every layer shares its weight blocks across the batch;
//   whole    every maximal run of segmentable steps (compute ops and reshape views; not concats,
//            splits, slices, shuffles or gathers) is a segment: per layer, batch 1's bytes N times;
//   mixed    the segments are the runs of steps whose layer moved fewer DRAM bytes in `whole`
//            than in `shared` (a view joins the run of the step before it);
//   prefix   the steps before the cut k that minimises the bytes of `whole`'s layers before k
//            plus `shared`'s from k (a CNN's early layers have large activations and small
//            weights, its late layers the opposite);
// and keeps the one that moves the fewest DRAM bytes, read and written (ties: shared, then
// mixed, prefix, whole: sharing weights wins a tie). The planner has no cycle estimate, so cycles
// do not break ties. LowerOptions::segment_choice none / whole lowers one of those; given lowers
// exactly LowerOptions::image_segments (a mapper may search them); Lowered::image_segments says
// which were lowered. A run file sets the choice with planner.image_segments: auto | none | whole.
#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "planner/lower/lowerer.h"
#include "planner/lower/weight_slot_search.h"
#include "planner/schedule/schedule.h"

namespace strider {
namespace {

uint32_t batch_images(const Graph& g) {
  uint32_t images = 1;
  for (int t : g.inputs) images = std::max<uint32_t>(images, uint32_t(g.tensors[t].shape.n));
  return images;
}

// A node whose pass can be lowered for one image: compute tiles, or a reshape view.
bool segmentable(const Node& n) {
  return !moves_by_dma(n) && n.op != OpType::kConcat && n.op != OpType::kSplit &&
         n.op != OpType::kSlice;
}

// Throws naming the segment when `segs` are not sorted, disjoint ranges of segmentable steps.
void check_segments(const Graph& g, const std::vector<int>& order,
                    const std::vector<StepRange>& segs) {
  int64_t after = 0;
  for (size_t k = 0; k < segs.size(); ++k) {
    const StepRange& r = segs[k];
    const std::string what = "image segment " + std::to_string(k) + " (steps " +
                             std::to_string(r.first) + " to " + std::to_string(r.last) + ")";
    if (r.first < after || r.last < r.first || r.last >= int64_t(order.size())) {
      throw std::invalid_argument(what + ": segments must be disjoint, in schedule order and " +
                                  "within the " + std::to_string(order.size()) + " steps");
    }
    for (int64_t s = r.first; s <= r.last; ++s) {
      const Node& n = g.nodes[size_t(order[size_t(s)])];
      if (!segmentable(n)) {
        throw std::invalid_argument(what + ": node '" + n.name + "' (" + to_string(n.op) +
                                    ") cannot run image after image in a segment");
      }
    }
    after = r.last + 1;
  }
}

// Maximal runs of the steps with mark set.
std::vector<StepRange> runs(const std::vector<char>& mark) {
  std::vector<StepRange> out;
  for (size_t s = 0; s < mark.size(); ++s) {
    if (!mark[s]) continue;
    if (!out.empty() && out.back().last + 1 == int64_t(s)) {
      out.back().last = int64_t(s);
    } else {
      out.push_back({int64_t(s), int64_t(s)});
    }
  }
  return out;
}

// DRAM bytes of the layer of step s (0 for a view).
uint64_t step_bytes(const Lowered& l, size_t s) {
  const int layer = l.step_layer.at(s);
  if (layer < 0) return 0;
  const LayerReport& r = l.layers[size_t(layer)];
  return r.weight_bytes + r.input_bytes + r.output_bytes + r.fill_bytes + r.spill_bytes;
}

}  // namespace

bool shares_weights(const Graph& g, const LowerOptions& opt) {
  std::vector<char> inside(opt.order.size(), 0);
  for (const StepRange& r : opt.image_segments) {
    for (int64_t s = r.first; s <= r.last && s < int64_t(inside.size()); ++s) inside[size_t(s)] = 1;
  }
  for (size_t s = 0; s < opt.order.size(); ++s) {
    if (!inside[s] && g.nodes[size_t(opt.order[s])].weights >= 0) return true;
  }
  return opt.order.empty();
}

// Each image in turn runs steps [s0, s1]. Tensors holding every image that the segment makes
// are ready for later steps only when every image's pass made them, and graph outputs among them
// are stored after the last pass.
void Lowerer::lower_segment(const std::vector<int>& order, size_t s0, size_t s1) {
  const uint32_t images = batch_images(g_);
  std::unordered_map<int, std::vector<uint32_t>> made;  // tensors holding every image
  in_segment_ = true;
  for (seg_image_ = 0; seg_image_ < images; ++seg_image_) {
    // The first step's weights prefetch while the step two back runs; for a later image that step
    // is in the previous pass, whose one-image tensors the plan lets the staging overlap: a step
    // with the previous pass's last fence makes the prefetch wait for that pass to retire.
    if (seg_image_ > 0) step_fence_.push_back(step_fence_.back());
    for (size_t s = s0; s <= s1 && seg_image_ > 0; ++s) {  // one-image graph inputs: load again
      for (int t : g_.nodes[size_t(order[s])].inputs) {
        if (layout_.tensor_per_image[size_t(t)]) loaded_[size_t(t)] = false;
      }
    }
    for (size_t s = s0; s <= s1; ++s) {
      const Node& n = g_.nodes[size_t(order[s])];
      lower_step(order[s]);
      for (int t : n.outputs) {
        if (layout_.tensor_per_image[size_t(t)]) continue;
        made[t].insert(made[t].end(), last_desc_[t].begin(), last_desc_[t].end());
      }
    }
  }
  in_segment_ = false;
  seg_image_ = 0;
  for (auto& [t, descs] : made) last_desc_[size_t(t)] = std::move(descs);
  for (size_t s = s0; s <= s1; ++s) {  // outputs holding every image: after the last pass
    for (int t : g_.nodes[size_t(order[s])].outputs) {
      if (!layout_.tensor_per_image[size_t(t)]) store_output(t);
    }
  }
}

namespace {

Lowered lower_plan(const Graph& g, const ArchConfig& arch, const LowerOptions& opt) {
  LowerOptions o = opt;
  if (o.order.empty()) o.order = schedule_nodes(g, opt.schedule);
  const std::string choice = batch_images(g) < 2 ? "none" : opt.segment_choice;
  o.segment_choice = "given";
  std::vector<char> mark(o.order.size(), 0);
  for (size_t s = 0; s < mark.size(); ++s) mark[s] = segmentable(g.nodes[size_t(o.order[s])]);
  if (choice == "none") {
    o.image_segments.clear();
  } else if (choice == "whole") {
    o.image_segments = runs(mark);
  } else if (choice != "auto" && choice != "given") {
    throw std::invalid_argument("segment choice '" + choice +
                                "': expected auto, none, whole or given");
  }
  if (choice != "auto") {
    check_segments(g, o.order, o.image_segments);
    return lower_slots(g, arch, o);
  }
  o.image_segments.clear();
  Lowered shared = lower_slots(g, arch, o);
  double seconds = shared.planner_seconds;
  o.image_segments = runs(mark);
  Lowered whole;
  try {
    whole = lower_slots(g, arch, o);
  } catch (const std::runtime_error&) {  // e.g. the segments' own tensors do not fit L2
    return shared;
  }
  seconds += whole.planner_seconds;
  // Per step, the DRAM bytes its layer moved in each lowering; mixed: the steps cheaper in
  // `whole`; prefix: the cut k for which `whole` before k and `shared` from k sum the least.
  std::vector<char> mixed(mark.size(), 0), prefix(mark.size(), 0);
  uint64_t sum = 0, best_sum = 0;
  for (size_t s = 0; s < mark.size(); ++s) sum += step_bytes(shared, s);
  size_t cut = 0;
  best_sum = sum;
  for (size_t s = 0; s < mark.size(); ++s) {
    sum = sum - step_bytes(shared, s) + step_bytes(whole, s);
    if (sum < best_sum) best_sum = sum, cut = s + 1;
    if (!mark[s]) continue;
    mixed[s] = whole.step_layer[s] >= 0 ? step_bytes(whole, s) < step_bytes(shared, s)
                                        : s > 0 && mixed[s - 1];
  }
  for (size_t s = 0; s < cut; ++s) prefix[s] = mark[s];
  std::vector<Lowered> options;
  options.push_back(std::move(shared));
  auto same = [](const std::vector<StepRange>& a, const std::vector<StepRange>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](StepRange x, StepRange y) {
      return x.first == y.first && x.last == y.last;
    });
  };
  std::vector<std::vector<StepRange>> tried = {whole.image_segments};
  for (const std::vector<char>* m : {&mixed, &prefix}) {
    o.image_segments = runs(*m);
    if (o.image_segments.empty() ||
        std::any_of(tried.begin(), tried.end(),
                    [&](const std::vector<StepRange>& t) { return same(t, o.image_segments); })) {
      continue;
    }
    tried.push_back(o.image_segments);
    try {
      options.push_back(lower_slots(g, arch, o));
      seconds += options.back().planner_seconds;
    } catch (const std::runtime_error&) {  // these segments do not fit L2
    }
  }
  options.push_back(std::move(whole));
  size_t best = 0;
  for (size_t k = 1; k < options.size(); ++k) {
    if (dram_bytes(options[k]) < dram_bytes(options[best])) best = k;
  }
  options[best].planner_seconds = seconds;
  return std::move(options[best]);
}

}  // namespace

// The weight slot is searched with the mappings (weight_slot_search.h) unless it is given.
Lowered lower(const Graph& g, const ArchConfig& arch, const LowerOptions& opt) {
  if (arch.lowering.mapping == "search" && arch.lowering.objective == "cycles" &&
      arch.lowering.weight_slot_bytes == 0) {
    return search_weight_slot(g, arch, opt, lower_plan);
  }
  Lowered l = lower_plan(g, arch, opt);
  l.weight_slot_bytes = weight_slot_bytes(arch);
  return l;
}

}  // namespace strider
