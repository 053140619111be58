// Deep weight prefetch (issue 30): a layer that is DRAM-bound on its own weights (a classifier,
// a squeeze-excitation FC: its weights at the DRAM's peak take longer than its tiles) gets more
// staging slots than the two of double buffering — all its weight blocks, or as many as the holes
// of the activation plan hold — live from an earlier step, so its weights load while earlier
// compute-bound layers leave the DMA idle; the blocks beyond the ring's first pass stream through
// it in the layer's own span as before.
//
// Plan (plan_prefetch, from place_staging once the ordinary staging fits): per schedule step a
// DMA credit, the bytes the DRAM could move during the step's estimated cycles (the closed-form
// tile cost of auto's mapping, step_cycles) minus the step's own weights, fills, spills and graph
// I/O (step_dram_bytes): all of them when the prefetch's moves run at background priority
// (MoveDesc::background, dma.background_priority: they never delay a demand move), kCreditShare of
// them otherwise. Layers in schedule order: a resident layer with weights outside image segments
// (prefetchable) whose output is one row band and whose weights take longer at peak than its
// tiles ("grows") asks for k slots (the blocks beyond those that stream under its own tiles, and
// enough that a refill lands before the slots ahead are used; then 3/4 of that, down to 2); any
// other one two slots, and only where the steps of its ordinary lead are too short for its first
// two fills. Per k the credit of the steps before it (latest first, at most kMaxPrefetchSteps
// back) gives the first step it wants — for a growing ring at background priority that reaches
// back kMaxLeadSteps or more, the earliest step kMaxPrefetchSteps back instead (a classifier's
// weights then load in the DMA's idle time under the first convolutions, not in the last steps'
// contended time) — and a binary search up to the ordinary lead's first step the earliest one
// whose ring the scratch planner places within the heap; the k that prefetches the most bytes is
// kept and its credit consumed (at background priority the earliest steps' first: in as soon as
// the DMA idles; otherwise the latest first: closest to their use, under the fewest demand fills),
// else the layer keeps its ordinary ring.
//
// Late slots: once all k slots are covered, each further block (up to what the layer needs) gets
// a slot of its own live from the first step, not before the slot ahead of it, whose holes hold
// it and whose credit left covers it (DeepPrefetch::slot_from): the ring grows as the early
// layers' tensors die (mobilenet_v3_small's classifier, whose weights could take most of L2 only
// after its last squeeze-excitations). Its fill waits for the fence of the step before its own
// first one. When the ring has a slot for every block, its last slot holds only the last block.
//
// A ring's first two slots are one scratch request; each slot beyond them is a request of its own,
// placed in any hole of its lifetime (is_extra_slot; SlotRing::slot_addr), so a deep ring is not
// bounded by the largest contiguous hole the activations leave (mobilenet_v3_small's classifier
// rings: search 379,995 -> 367,539 cycles on the fused squeeze-excitations). Each (k, first step)
// is tried split and, where that does not fit, as one run (the scratch planner gives each slot the
// smallest hole that holds it, which at some steps leaves no room where one run fits).
//
// The row-band buffers above the heap are free after the last step that may use them
// (last_band_step): a ring live only after it may take their room, its first fills then waiting
// for the bands' last readers too (band_war).
//
// Lowering (emit_prefetches, after each of a step's own weight fills with the share of the step's
// output channels staged so far, and at the end of every step): each prefetch whose slots are
// live emits its next fills (the weight and bias moves of one channel block each, the same moves
// stage_weights would emit) once the credit it took up to this step covers half of the fill
// beyond the bytes already emitted, so the DMA, which takes its moves in list order, runs them
// between the moves the next steps need, in pieces ordered by need; each waits for the fence of the
// step before the slots' first step. They form a layer of their own, `prefetch:NAME`, added at the
// first of them. The layer's own tiles then name those moves (stage_weights); fills the credit did
// not cover are emitted in its own step as before. Costs: the mapper leaves the prefetched blocks
// out of a layer's DRAM bytes (SlotRing::ahead), the weight-slot search the bytes a layer loads for
// later ones (LayerReport::prefetch_bytes) out of its DRAM time.
#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "core/arch/dram_bandwidth.h"
#include "core/common/ceil_div.h"
#include "planner/lower/lowerer.h"

namespace strider {
namespace {

constexpr int64_t kMaxPrefetchSteps = 64;  // a deep prefetch starts at most this many steps early
// The share of a step's DRAM time at peak a prefetch may take: the DRAM does not reach its peak
// under mixed traffic, and the estimate is auto's whole-height tiles.
constexpr double kCreditShare = 0.75;


}  // namespace

bool Lowerer::prefetchable(const Node& n) const {
  if (n.weights < 0 || n.pool.fused) return false;
  if (n.op != OpType::kConv && n.op != OpType::kFullyConnected) return false;
  for (int t : n.inputs) {
    if (layout_.tensor_spilled[size_t(t)]) return false;
  }
  return !layout_.tensor_spilled[size_t(n.outputs[0])];
}

int64_t Lowerer::last_band_step(const std::vector<int>& order) const {
  for (int64_t s = int64_t(order.size()) - 1; s >= 0; --s) {
    const Node& n = g_.nodes[size_t(order[size_t(s)])];
    for (const std::vector<int>* ts : {&n.inputs, &n.outputs}) {
      for (int t : *ts) {
        if (layout_.tensor_spilled[size_t(t)]) return s;
      }
    }
  }
  return -1;
}

void Lowerer::band_war(uint64_t addr, uint64_t bytes, std::vector<uint32_t>* deps) const {
  for (const SlotRing* b : {&in_bands_, &out_bands_}) {
    for (uint32_t s = 0; s < b->last_user.size(); ++s) {
      if (addr < b->addr(s) + b->slot_bytes && b->addr(s) < addr + bytes) {
        const std::vector<uint32_t> war = b->war(s);
        deps->insert(deps->end(), war.begin(), war.end());
      }
    }
  }
}

uint64_t Lowerer::step_cycles(const Node& n) const {
  switch (n.op) {
    case OpType::kConv:
    case OpType::kFullyConnected:
    case OpType::kMaxPool:
    case OpType::kAvgPool:
    case OpType::kGlobalAvgPool:
    case OpType::kAdd:
    case OpType::kMul:
      break;
    default:
      return 0;
  }
  return mapping_cost(n, node_mapping_[size_t(&n - g_.nodes.data())]);
}

uint64_t Lowerer::step_dram_bytes(const Node& n) const {
  uint64_t bytes = 0;
  const auto in_dram = [&](int t) {
    return layout_.tensor_spilled[size_t(t)] || is_input_[size_t(t)] || is_output_[size_t(t)];
  };
  for (int t : n.inputs) bytes += in_dram(t) ? uint64_t(g_.tensors[size_t(t)].bytes()) : 0;
  for (int t : n.outputs) bytes += in_dram(t) ? uint64_t(g_.tensors[size_t(t)].bytes()) : 0;
  return bytes;
}

void Lowerer::plan_prefetch(const std::vector<int>& order, uint64_t heap,
                            const memory::Problem& acts, const memory::Solution& plan,
                            const memory::ScratchOptions& opt,
                            std::vector<memory::ScratchRequest>& reqs,
                            std::vector<int>& req_node, memory::ScratchPlacement& p) {
  prefetches_.clear();
  node_prefetch_.assign(g_.nodes.size(), -1);
  if (!opt_.image_segments.empty() || !psums_.last_user.empty()) return;
  // The credit needs the DRAM's peak rate: a JEDEC model without its timing table (an arch not
  // loaded from a preset) gets none.
  if (arch_.dram.model == "jedec" && arch_.dram.spec.timing.count("nBL") == 0) return;
  const double per_cycle = double(1 << 20) / double(dram_peak_cycles(arch_, 1 << 20));
  // Fills at background priority (dma.background_priority) never delay a demand move: they may
  // take all of a step's DRAM time its own moves leave.
  const bool background = arch_.dma.background_priority;
  const double share = background ? 1.0 : kCreditShare;
  // Per step: its estimated cycles, the bytes the DRAM could move meanwhile, and the bytes it
  // moves itself (its weights, until a deep prefetch takes them elsewhere) or for a prefetch.
  std::vector<uint64_t> cycles(order.size(), 0);
  std::vector<int64_t> cap(order.size(), 0), own(order.size(), 0);
  for (size_t s = 0; s < order.size(); ++s) {
    const Node& n = g_.nodes[size_t(order[s])];
    cycles[s] = step_cycles(n);
    cap[s] = int64_t(double(cycles[s]) * per_cycle * share);
    own[s] = int64_t(step_dram_bytes(n));
    if (n.weights >= 0) {
      own[s] += int64_t(g_.tensors[size_t(n.outputs[0])].shape.c * staged_bytes_per_channel(n));
    }
  }
  const auto credit = [&](int64_t s) { return std::max<int64_t>(0, cap[size_t(s)] - own[size_t(s)]); };
  // Up to `bytes` of the credit steps [from, t) have left beyond `taken`, the earliest steps
  // first (added to `taken`); the bytes it found.
  const auto take_credit = [&](int64_t from, int64_t t, uint64_t bytes,
                               std::vector<uint64_t>& taken) {
    uint64_t got = 0;
    for (int64_t s = from; s < t && got < bytes; ++s) {
      const uint64_t c = std::min(bytes - got, uint64_t(credit(s)) - taken[size_t(s)]);
      taken[size_t(s)] += c, got += c;
    }
    return got;
  };
  // The row-band buffers at the top of L2 (above `heap`) are free after the last step that may use
  // them: a ring live only after it may take their room too (the end of a network, where its
  // classifier's weights are prefetched, spills nothing).
  const uint64_t l2 = arch_.l2.size_bytes - gap_region_bytes_;  // below the global pools' sums
  const int64_t bands_free = last_band_step(order) + 1;
  const auto fits = [&](const memory::ScratchPlacement& q,
                        const std::vector<memory::ScratchRequest>& rs) {
    if (uint64_t(q.heap_bytes) <= heap) return true;
    if (uint64_t(q.heap_bytes) > l2 || q.grow_bottom != p.grow_bottom) return false;
    for (size_t j = 0; j < rs.size(); ++j) {
      const bool ring = (rs[j].id.rfind("prefetch:", 0) == 0 || is_extra_slot(rs[j])) &&
                        rs[j].step >= bands_free;
      if (uint64_t(q.offsets[j] + rs[j].size) > heap && !ring) return false;
    }
    return true;
  };
  const size_t layers = reqs.size();  // the extra slots appended below are not layers
  for (size_t i = 0; i < layers; ++i) {
    const Node& n = g_.nodes[size_t(req_node[i])];
    const int64_t t = reqs[i].step + reqs[i].steps - 1;  // the layer's own step
    if (!prefetchable(n) || t < 1) continue;
    const uint64_t out_c = uint64_t(g_.tensors[size_t(n.outputs[0])].shape.c);
    const uint64_t per = staged_bytes_per_channel(n), block = weight_block(n);
    const uint64_t blocks = ceil_div(out_c, block);
    // DRAM-bound on its weights in one band of output rows (each block staged once): the ring may
    // grow. Otherwise two slots, moved earlier only where the ordinary lead's steps are too short
    // for its first two fills (a conv after a squeeze-excitation's small layers).
    const bool grows = g_.tensors[size_t(n.result())].shape.h == 1 &&
                       dram_peak_cycles(arch_, out_c * per) > cycles[size_t(t)];
    if (!grows) {
      uint64_t lead = 0;
      for (int64_t s = reqs[i].step; s < t; ++s) lead += cycles[size_t(s)];
      const uint64_t first = std::min(out_c, kStagingSlots * block) * per;
      if (dram_peak_cycles(arch_, first) + arch_.dram.latency_cycles <= lead) continue;
    }
    const int64_t slot = reqs[i].size / int64_t(kStagingSlots);
    // Slot j's size: the last block's, when the ring has a slot for every block, holds only its
    // channels (a squeeze-excitation FC of 144 channels: 64 + 64 + 16).
    const auto slot_size = [&](uint64_t j) {
      return j + 1 == blocks && j >= kStagingSlots ? int64_t(slot_bytes(n, out_c - j * block))
                                                   : slot;
    };
    // The k (slots) and first step that prefetch the most bytes, larger k first; per k the
    // earliest first step whose slots the holes hold (a binary search between the first step
    // the credit asks for and the ordinary lead's).
    struct Best {
      uint64_t covered = 0, k = 0;
      int64_t from = 0;
      std::vector<uint64_t> take;
      std::vector<memory::ScratchRequest> reqs;
      memory::ScratchPlacement placed;
    } best;
    // The ring's first two slots in one request, each further slot in one of its own (placed in
    // any hole: the holes beside a late network's small activations are many and narrow).
    const auto trial_of = [&](uint64_t k, int64_t from, bool split) {
      std::vector<memory::ScratchRequest> trial = reqs;
      trial[i].id = "prefetch:" + n.name;
      trial[i].size = slot * int64_t(split ? std::min<uint64_t>(k, kStagingSlots) : k);
      trial[i].step = from;
      trial[i].steps = t - from + 1;
      for (uint64_t s = kStagingSlots; split && s < k; ++s) {
        memory::ScratchRequest extra = trial[i];
        extra.id = "prefetch-slot:" + n.name + "#" + std::to_string(s);
        extra.size = k == blocks ? slot_size(s) : slot;
        trial.push_back(extra);
      }
      return trial;
    };
    // The slots it needs so that the rest streams under its own tiles: the blocks beyond those
    // whose fills (a block at the DRAM's peak plus a request's latency) fit in its cycles, and
    // enough slots that a fill, started when the tile that read its slot ends, is in before the
    // tiles of the slots ahead of it are done.
    const uint64_t fill = dram_peak_cycles(arch_, block * per) + arch_.dram.latency_cycles;
    const uint64_t tile = std::max<uint64_t>(1, cycles[size_t(t)] / blocks);
    const uint64_t streamed = cycles[size_t(t)] / fill;
    const uint64_t need = std::max(blocks > streamed ? blocks - streamed : 0, ceil_div(fill, tile) + 1);
    const uint64_t most = grows ? std::max<uint64_t>(blocks, kStagingSlots) : kStagingSlots;
    const uint64_t wanted = std::clamp<uint64_t>(need, kStagingSlots, most);
    for (uint64_t k = wanted;;) {
      // The bytes of the first k fills, covered by the credit of the steps before t (the latest
      // steps' first).
      const uint64_t want = std::min(out_c, k * block) * per;
      std::vector<uint64_t> take(size_t(t), 0);
      uint64_t left = want;
      int64_t lo = t;
      for (int64_t s = t - 1; s >= std::max<int64_t>(0, t - kMaxPrefetchSteps) && left > 0; --s) {
        take[size_t(s)] = std::min<uint64_t>(left, uint64_t(credit(s)));
        left -= take[size_t(s)];
        if (take[size_t(s)] > 0) lo = s;
      }
      lo = std::min(lo, reqs[i].step);
      // A growing ring whose credit reaches back as far as an ordinary ring's longest lead, its
      // fills at background priority, starts as early as its slots fit: its weights then load in
      // the DMA's idle time under the early layers (a classifier's, under the first convolutions).
      if (background && grows && t - lo >= kMaxLeadSteps)
        lo = std::max<int64_t>(0, t - kMaxPrefetchSteps);
      int64_t hi = k > kStagingSlots ? reqs[i].step : reqs[i].step - 1;  // the latest worth it
      memory::ScratchPlacement placed;
      std::vector<memory::ScratchRequest> placed_reqs;
      int64_t from = -1;
      while (lo <= hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        // The slots one by one, else (the scratch planner takes the smallest hole for each, which
        // may leave no room at a step where one run of them fits) as one run.
        bool ok = false;
        for (bool split : {true, false}) {
          if (ok || (!split && k <= kStagingSlots)) continue;
          std::vector<memory::ScratchRequest> trial = trial_of(k, mid, split);
          memory::ScratchPlacement q = memory::place_scratch(acts, plan, plan.height, trial, opt);
          if (fits(q, trial)) ok = true, placed = std::move(q), placed_reqs = std::move(trial);
        }
        if (ok) {
          from = mid, hi = mid - 1;
        } else {
          lo = mid + 1;
        }
      }
      if (from >= 0) {
        // At background priority the ring's fills take the credit of its steps earliest first
        // (in as soon as the DMA is idle, leaving the later steps' time to the slots that become
        // live later); otherwise the latest first (closest to their use, under the fewest of
        // the demand fills they would delay).
        uint64_t covered = 0;
        if (background) {
          take.assign(size_t(t), 0);
          covered = take_credit(from, t, want, take);
        } else {
          for (int64_t s = from; s < t; ++s) covered += take[size_t(s)];
        }
        if (covered > best.covered) {
          best.covered = covered, best.k = k, best.from = from, best.take = take;
          best.reqs = std::move(placed_reqs);
          best.placed = std::move(placed);
        }
        if (covered == want) break;  // every byte of the most slots placed
      }
      if (k == kStagingSlots) break;
      k = std::max<uint64_t>(kStagingSlots, std::min(k - 1, k * 3 / 4));
    }
    if (best.covered == 0) continue;
    // Late slots (the header): where every byte of the k slots is covered, one slot per further
    // block, each live from the first step, not before the slot ahead of it, whose holes hold it
    // and whose credit left covers it.
    std::vector<int64_t> slot_from(best.k, best.from);
    const bool all_covered = best.covered == std::min(out_c, best.k * block) * per;
    for (int64_t f = best.from; all_covered && best.k < wanted && f < t;) {
      const uint64_t j = best.k, bytes = std::min(block, out_c - j * block) * per;
      std::vector<uint64_t> taken = best.take;
      if (take_credit(f, t, bytes, taken) < bytes) break;  // a later step has less credit left
      std::vector<memory::ScratchRequest> trial = best.reqs;
      memory::ScratchRequest extra = trial[i];
      extra.id = "prefetch-slot:" + n.name + "#" + std::to_string(j);
      extra.size = slot_size(j), extra.step = f, extra.steps = t - f + 1;
      trial.push_back(extra);
      memory::ScratchPlacement q = memory::place_scratch(acts, plan, plan.height, trial, opt);
      if (!fits(q, trial)) {
        ++f;
        continue;
      }
      best.reqs = std::move(trial), best.placed = std::move(q), best.take = std::move(taken);
      best.covered += bytes, best.k = j + 1;
      slot_from.push_back(f);
    }
    reqs = std::move(best.reqs);
    req_node.resize(reqs.size(), req_node[i]);
    p = std::move(best.placed);
    DeepPrefetch d;
    d.node = req_node[i];
    d.from = best.from;
    d.step = t;
    d.slot_from = std::move(slot_from);
    own[size_t(t)] -= int64_t(best.covered);  // no longer loaded in its own step
    uint64_t sum = 0;
    for (int64_t s = best.from; s < t; ++s) {
      own[size_t(s)] += int64_t(best.take[size_t(s)]);
      sum += best.take[size_t(s)];
      d.quota.push_back(sum);
    }
    node_prefetch_[size_t(d.node)] = int(prefetches_.size());
    prefetches_.push_back(std::move(d));
  }
}

void Lowerer::emit_prefetches(double share) {
  for (DeepPrefetch& p : prefetches_) {
    if (current_step_ < p.from || current_step_ >= p.step) continue;
    const Node& n = g_.nodes[size_t(p.node)];
    // Its moves are a layer of their own, `prefetch:NAME` (as a graph input's load is), so the
    // layers they run under keep their own DRAM bytes and the layer its own span.
    if (p.layer < 0) p.layer = int(add_layer("prefetch:" + n.name, "prefetch"));
    const uint32_t layer = uint32_t(p.layer);
    const SlotRing& ring = node_staging_[size_t(p.node)];
    const uint64_t out_c = uint64_t(g_.tensors[size_t(n.outputs[0])].shape.c);
    const uint64_t block = weight_block(n), per = staged_bytes_per_channel(n);
    const uint64_t fills = std::min<uint64_t>(ring.last_user.size(), ceil_div(out_c, block));
    // The quota taken up to the previous step, and this step's share of its own by `share`.
    const size_t at = size_t(current_step_ - p.from);
    const uint64_t before = at > 0 ? p.quota[at - 1] : 0;
    const uint64_t quota = before + uint64_t(double(p.quota[at] - before) * std::min(share, 1.0));
    // A fill is emitted once the quota reaches half its bytes (so the pieces track the quota).
    while (p.moves.size() < fills && current_step_ >= p.slot_from[p.moves.size()] &&
           p.emitted_bytes + std::min<uint64_t>(block, out_c - p.moves.size() * block) * per / 2 <=
               quota) {
      if (!p.stored) {  // its blobs, where its own step will find them (lower_compute)
        std::tie(p.w_dram, p.b_dram) = place_weights(n);
        p.stored = true;
      }
      const uint32_t j = uint32_t(p.moves.size());
      const uint32_t c0 = uint32_t(j * block), c1 = uint32_t(std::min(out_c, c0 + block));
      // The slot's memory is free once the step before its first step retired.
      std::vector<uint32_t> deps;
      if (p.slot_from[j] >= 1) deps = step_fence_[size_t(p.slot_from[j] - 1)];
      band_war(ring.addr(j), ring.slot_bytes, &deps);
      p.moves.push_back(
          weight_moves(n, layer, c0, c1, 0, 0, ring.addr(j), p.w_dram, p.b_dram, deps, true));
      out_.layers[layer].prefetch_bytes += (c1 - c0) * per;
      p.channels.emplace_back(c0, c1);
      p.emitted_bytes += (c1 - c0) * per;
    }
  }
}

}  // namespace strider
