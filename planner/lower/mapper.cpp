// The mapping search (see mapper.h).
#include "planner/lower/mapper.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/arch/dram_bandwidth.h"
#include "core/arch/energy_presets.h"
#include "core/common/ceil_div.h"
#include "core/timing/fused_gap.h"
#include "core/timing/l2_banks.h"
#include "core/timing/tile_work.h"
#include "planner/lower/lowerer.h"

namespace strider {
namespace {

struct Candidate {
  Mapping mapping = Mapping::kPositions;
  uint32_t block = 0, rows = 0;
  Mapping tail = Mapping::kPositions;  // the last, partial channel block's (== mapping: none)
  LoopOrder order = LoopOrder::kInputsOuter;
  bool split() const { return tail != mapping; }
};

struct Cost {
  uint64_t cycles = 0;
  double energy = 0;  // pJ
  uint64_t dram_bytes = 0;  // weights staged, input bands filled, output bands spilled
  // The cycles the tile sum overcharges: each tile's first fill runs under the tile before's last
  // computes in the pipeline (min of the two per tile after the first), which a sum cannot see.
  uint64_t overlap = 0;
};

// A tile's cost: its cycles and energy, and the two ends that overlap a neighbour in the pipeline.
struct TileCost {
  uint64_t cycles = 0;
  double pj = 0;
  uint64_t first_fill = 0, last_compute = 0;
};

// One layer's candidates with their costs, auto's first, in the search's order.
struct Searched {
  int idx = 0;
  std::vector<std::pair<Candidate, Cost>> costed;
};

std::string name(Mapping m) { return to_string(m); }

// `channels+positions`: the full channel blocks in the first, the partial last one in the second.
std::string mapping_name(const Candidate& c) {
  return c.split() ? name(c.mapping) + "+" + name(c.tail) : name(c.mapping);
}

std::string describe(const Candidate& c) {
  return mapping_name(c) + "/" + std::to_string(c.block) + "/" + std::to_string(c.rows) + "/" +
         to_string(c.order);
}

// Every distinct band height of `h` rows: ceil(h / bands) for bands = 1..h, tallest first.
std::vector<uint32_t> band_heights(uint32_t h) {
  std::vector<uint32_t> rows;
  for (uint32_t b = 1; b <= h; ++b) {
    const uint32_t r = uint32_t(ceil_div(h, b));
    if (rows.empty() || rows.back() != r) rows.push_back(r);
  }
  return rows;
}

}  // namespace

// Passes of the tile's output pieces over the store port (model/l1/store_unit.h): a fused
// residual Add reads its operand there too (2); a conv whose fused global pool is all that is
// stored writes none (0; its pool's bytes are TileWork::gap_bytes); else 1.
static uint64_t store_passes(const OpDesc& t) {
  if (t.gap.present() && !t.gap.stores_result()) return 0;
  return t.post.present() ? 2 : 1;
}

// The L2 cycles of a tile's gather and store together (core/timing/l2_banks.h,
// l2_shared_cycles): the L2 model serves the load and store ports' words in each bank's idle
// cycles, so the two streams share the banks: a tile whose store lands on the banks its gather
// piles onto waits for both, however few conflicts each has alone.
static uint64_t shared_bank_cycles(const L2Config& l2, const OpDesc& t, const TileWork& w) {
  const uint64_t element = w.valid_outputs ? w.output_bytes / w.valid_outputs : 1;
  const uint64_t stores = store_passes(t);
  std::vector<L2Pattern> p;
  for (int k = 0; k < 2; ++k) {
    p.push_back({0, w.gather[k].bytes, w.gather[k].count, t.input.channel_stride,
                 w.gather[k].repeats});
    p.push_back({0, w.store[k].bytes * element, w.store[k].count, t.output.channel_stride,
                 w.store[k].repeats * stores});
  }
  if (w.gap_bytes) p.push_back({0, w.gap_bytes, 1, 0, 1});  // a fused global pool's, contiguous
  return l2_shared_cycles(l2, p);
}

uint64_t mapper_tile_cycles(const L2Config& l2, const OpDesc& t, const TileWork& w) {
  const uint64_t port = l2.port_bytes_per_cycle;
  // Bank conflicts of the channels mapping's operand gather and of its stored pieces, as the L2
  // model charges them (core/timing/l2_banks.h) at the tensors' channel strides: on few banks
  // the channel-plane pieces serialise (SCALE-Sim's one-bank small_cnn Conv3).
  auto conflicts = [&](const PiecePattern* p, uint64_t element, uint64_t stride) {
    uint64_t c = 0;
    for (int k = 0; k < 2; ++k) {
      c += l2_conflict_cycles(l2, 0, p[k].bytes * element, p[k].count, stride, p[k].repeats);
    }
    return c;
  };
  const uint64_t element = w.valid_outputs ? w.output_bytes / w.valid_outputs : 1;
  const uint64_t stores = store_passes(t);
  return std::max({w.pipeline_cycles,
                   ceil_div(w.l2_read_bytes, port) + conflicts(w.gather, 1, t.input.channel_stride),
                   ceil_div(stores * w.output_bytes + w.gap_bytes, port) +
                       stores * conflicts(w.store, element, t.output.channel_stride),
                   shared_bank_cycles(l2, t, w)});
}

double leak_pj_per_cycle(const ArchConfig& arch) {
  const ActionEnergy e = action_energy(arch);
  double logic_mm2 = 0;
  for (const auto& [unit, mm2] : unit_logic_area_mm2(arch)) logic_mm2 += mm2;
  return e.sram_leak_per_kib_cycle * double(arch.l2.size_bytes + arch.l1.size_bytes) / 1024.0 +
         e.logic_leak_per_mm2_cycle * logic_mm2;
}

void Lowerer::search_mappings(const std::vector<int>& order) {
  const auto t0 = std::chrono::steady_clock::now();
  node_block_.assign(g_.nodes.size(), 0);
  node_rows_.assign(g_.nodes.size(), 0);
  node_tail_.assign(g_.nodes.size(), Mapping::kPositions);
  node_tail_from_.assign(g_.nodes.size(), UINT32_MAX);
  node_order_.assign(g_.nodes.size(), LoopOrder::kDefault);
  const ActionEnergy e = action_energy(arch_);
  const double leak_per_cycle = leak_pj_per_cycle(arch_);
  const std::string& objective = arch_.lowering.objective;
  const uint64_t align = arch_.l2.alignment_bytes;
  std::vector<Searched> searched;

  // Schedule steps inside an image segment run one image per pass (lower_segment): a layer there
  // stages its weights again in every pass.
  std::vector<char> in_segment(order.size(), 0);
  for (const StepRange& r : opt_.image_segments) {
    for (int64_t st = r.first; st <= r.last && st < int64_t(order.size()); ++st) {
      in_segment[size_t(st)] = 1;
    }
  }
  for (size_t step = 0; step < order.size(); ++step) {
    const int idx = order[step];
    const Node& n = g_.nodes[size_t(idx)];
    if (moves_no_compute(n) || moves_by_dma(n)) continue;
    if (n.op != OpType::kConv && n.op != OpType::kGlobalAvgPool) continue;
    const OpDesc op0 = base_op(n, false);
    const uint32_t out_c = op0.output.c, out_h = op0.output.h;
    // Images per pass of the layer's tiles, and passes (several inside an image segment).
    const uint32_t batch = uint32_t(g_.tensors[n.outputs[0]].shape.n);
    const uint32_t images = in_segment[step] ? 1 : batch, passes = batch / images;
    bool banded = false;
    for (int t : n.outputs) banded = banded || layout_.tensor_spilled[t];
    for (int t : n.inputs) banded = banded || layout_.tensor_spilled[t];
    const bool out_spilled = layout_.tensor_spilled[n.result()];
    const uint64_t out_bytes = uint64_t(out_c) * out_h * op0.output.w;  // one image
    const bool has_weights = n.weights >= 0;
    const uint64_t per = has_weights ? weights_per_channel(n) : 0;
    const uint64_t w_bytes = has_weights ? uint64_t(out_c) * staged_bytes_per_channel(n) : 0;
    // Output channels one staging slot holds (the slot was sized for auto's block).
    uint32_t cap = out_c;
    if (has_weights) {
      const uint64_t slot = node_staging_[size_t(idx)].slot_bytes;
      cap = 0;
      while (cap < out_c &&
             align_up(uint64_t(cap + 1) * per, align) + align_up(uint64_t(cap + 1) * 4, align) <=
                 slot) {
        ++cap;
      }
      if (cap == 0) continue;
    }
    const uint64_t edge =
        uint64_t(op0.kernel_h) * op0.dilation_h + op0.pad_top + op0.pad_bottom + 1;
    const uint32_t per_group = std::max<uint32_t>(1, out_c / std::max<uint32_t>(1, op0.groups));

    // Tiles costed once per shape: (mapping, rows, channels, first-channel phase in its group,
    // distance of the band from the top and bottom edges, capped where padding stops mattering).
    using Key = std::tuple<int, uint32_t, uint32_t, uint32_t, uint64_t, uint64_t>;
    std::map<Key, TileCost> memo;
    auto tile_cost = [&](Mapping m, uint32_t r0, uint32_t r1, uint32_t c0, uint32_t c1) {
      const Key key{int(m),
                    r1 - r0,
                    c1 - c0,
                    c0 % per_group,
                    std::min<uint64_t>(r0, edge),
                    std::min<uint64_t>(out_h - r1, edge)};
      auto it = memo.find(key);
      if (it != memo.end()) return it->second;
      OpDesc t = op0;
      t.mapping = m;
      t.row_begin = r0, t.row_end = r1;
      t.ch_begin = c0, t.ch_end = c1;
      mark_gap_band(&t);  // a fused global pool's first / last band (its partial sums)
      const TileWork w =
          compute_tile_work(t, arch_.l1, arch_.neurons, arch_.l2.port_bytes_per_cycle);
      // A fused residual Add reads its operand on the store port too, a fused global pool its
      // partial sums (model/l1/store_unit.h).
      const uint64_t passes = store_passes(t);
      const GapTraffic gap = gap_traffic(t);
      const uint64_t written = std::min<uint64_t>(passes, 1) * w.output_bytes +
                               gap.partial_write_bytes + gap.output_bytes;
      const uint64_t read_back = (passes > 1 ? w.output_bytes : 0) + gap.partial_read_bytes;
      const uint64_t cycles = mapper_tile_cycles(arch_.l2, t, w);
      const double pj = double(w.macs) * e.mac + double(w.acc_updates) * e.acc_update +
                        double(w.lb_write_bytes) * e.lb_write_per_byte +
                        double(w.lb_write_cycles) * e.lb_write_cycle +
                        double(w.kernel_bytes) * e.kernel_write_per_byte +
                        double(w.l2_read_bytes) * e.l2_read_per_byte +
                        double(read_back) * e.l2_read_per_byte +
                        double(written) * e.l2_write_per_byte + e.descriptor;
      const TileCost tc{cycles, pj, w.first_fill_write_cycles, w.last_fill_compute_cycles};
      return memo.emplace(key, tc).first->second;
    };
    // A cut's tiles, bands x blocks row-major, costed once for every loop order of the cut.
    std::map<std::tuple<int, uint32_t, uint32_t, int>, std::vector<TileCost>> grids;
    auto grid_of = [&](const Candidate& c) -> const std::vector<TileCost>& {
      auto& g = grids[{int(c.mapping), c.block, c.rows, int(c.tail)}];
      if (!g.empty()) return g;
      for (uint32_t r0 = 0; r0 < out_h; r0 += c.rows) {
        for (uint32_t c0 = 0; c0 < out_c; c0 += c.block) {
          const Mapping m = c0 + c.block > out_c ? c.tail : c.mapping;
          g.push_back(
              tile_cost(m, r0, std::min(out_h, r0 + c.rows), c0, std::min(out_c, c0 + c.block)));
        }
      }
      return g;
    };
    auto cost_of = [&](const Candidate& c) {
      Cost k;
      uint64_t compute = 0, previous_last = 0;
      double pj = 0;
      bool first = true;
      const std::vector<TileCost>& grid = grid_of(c);
      const uint32_t bands = uint32_t(ceil_div(out_h, c.rows)), blocks = uint32_t(ceil_div(out_c, c.block));
      auto add = [&](uint32_t band, uint32_t block) {
        const TileCost& t = grid[size_t(band) * blocks + block];
        compute += t.cycles, pj += t.pj;
        if (!first) k.overlap += std::min(t.first_fill, previous_last);
        previous_last = t.last_compute, first = false;
      };
      // The tiles in the loop order's sequence (the overlap is between neighbours).
      if (c.order == LoopOrder::kWeightsOuter) {
        for (uint32_t j = 0; j < blocks; ++j)
          for (uint32_t i = 0; i < bands; ++i) add(i, j);
      } else {
        for (uint32_t i = 0; i < bands; ++i)
          for (uint32_t j = 0; j < blocks; ++j) add(i, j);
      }
      compute *= batch, pj *= batch, k.overlap *= batch;
      // A resident layer stages each block again for every band with the inputs outer
      // (lower_resident's tiles), once with the weights outer or in one block; a banded one
      // moves the bytes of its loop order (banded_lowering.cpp's header).
      uint64_t dram = (c.order == LoopOrder::kWeightsOuter || blocks == 1 ? 1 : bands) * w_bytes;
      if (banded) dram = banded_dram_bytes(n, c.rows, c.block, images, c.order);
      // A banded layer waits for its fills and its spills take the L2 ports: measured on
      // resnet50's layer1, its DRAM time adds to the tiles' rather than hiding under them. A
      // resident layer's weights prefetch during the layer before.
      dram *= passes;
      // A deep prefetch (deep_prefetch.cpp) loads the ring's first fills under earlier layers.
      const uint64_t ahead = node_staging_[size_t(idx)].ahead;
      if (ahead > 0 && !banded && (bands == 1 || c.order == LoopOrder::kWeightsOuter)) {
        dram -= std::min<uint64_t>(out_c, ahead * c.block) * staged_bytes_per_channel(n);
      }
      if (out_spilled) dram += batch * out_bytes;
      k.dram_bytes = dram;
      const uint64_t dram_cycles = dram_peak_cycles(arch_, dram);
      k.cycles = banded ? compute + dram_cycles : std::max(compute, dram_cycles);
      k.energy = pj + double(dram) * (e.dram_per_byte + e.l2_write_per_byte) +
                 double(k.cycles) * leak_per_cycle;
      return k;
    };

    // auto's choice, cut as the lowering cuts it.
    Candidate a;
    a.mapping = a.tail = node_mapping_[size_t(idx)];
    {
      OpDesc op = op0;
      op.mapping = a.mapping;
      a.block = weight_block(n, a.mapping);
      a.rows = band_rows(op);
      if (banded) {
        while (a.block > 1 && !band_fits(n, 1, a.block)) a.block = (a.block + 1) / 2;
        if (!band_fits(n, 1, a.block)) continue;  // partial sums: not searched
        while (a.rows > 1 && !band_fits(n, a.rows, a.block)) a.rows = (a.rows + 1) / 2;
        a.order = banded_default_order(n, a.rows, a.block, images);
      }
    }
    Searched node;
    node.idx = idx;
    node.costed.emplace_back(a, cost_of(a));
    std::vector<Mapping> mappings = {Mapping::kPositions};
    if (channels_mapping_applies(op0)) mappings.push_back(Mapping::kChannels);
    if (im2col_mapping_applies(op0)) mappings.push_back(Mapping::kIm2col);
    const std::vector<uint32_t> heights = band_heights(out_h);
    for (Mapping m : mappings) {
      std::vector<uint32_t> blocks;
      const uint32_t unit = !has_weights              ? out_c
                            : m != Mapping::kPositions ? arch_.neurons.count
                                                       : arch_.neurons.accumulators;
      for (uint32_t b = unit; b <= cap && b < out_c; b += unit) blocks.push_back(b);
      blocks.push_back(cap);
      std::sort(blocks.begin(), blocks.end());
      blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
      for (uint32_t b : blocks) {
        for (uint32_t r : heights) {
          if (memo.size() >= kMaxTileCosts) break;
          if (banded && !band_fits(n, r, b)) continue;
          // The loop orders that differ here: weights outer where a block is staged more than
          // once with the inputs outer (several bands, or a banded batch), grouped for a batch.
          // A banded layer takes the weights outer only where that refills no input band
          // (channel-local, or one block) or as its own batch order: the fills are short pieces
          // (a channel's rows), slower than their bytes at peak (resnet50's layer3.0
          // downsample, 16 blocks x 14 one-row bands: predicted 1.7 % faster, simulated 37 %
          // slower than the inputs outer).
          std::vector<LoopOrder> orders = {LoopOrder::kInputsOuter};
          // (A resident layer in one block is staged once in either order.)
          const bool restaged = banded ? ceil_div(out_h, r) > 1 || images > 1
                                       : ceil_div(out_h, r) > 1 && ceil_div(out_c, b) > 1;
          const bool refills = banded && !channel_local(n) && ceil_div(out_c, b) > 1 &&
                               banded_default_order(n, r, b, images) != LoopOrder::kWeightsOuter;
          for (LoopOrder o : {LoopOrder::kWeightsOuter, LoopOrder::kGrouped}) {
            const bool legal = banded ? banded_order_legal(n, images, o) &&
                                            (o != LoopOrder::kWeightsOuter || !refills)
                                      : o == LoopOrder::kWeightsOuter && has_weights;
            if (legal && restaged) orders.push_back(o);
          }
          for (LoopOrder o : orders) {
            const Candidate c{m, b, r, m, o};
            if (c.mapping != a.mapping || c.block != a.block || c.rows != a.rows ||
                c.order != a.order) {
              node.costed.emplace_back(c, cost_of(c));
            }
            // A partial last block of channels on neurons leaves neurons idle: that block in
            // positions instead (its positions on the neurons).
            if (m != Mapping::kPositions && out_c % b != 0 && memo.size() < kMaxTileCosts) {
              const Candidate split{m, b, r, Mapping::kPositions, o};
              node.costed.emplace_back(split, cost_of(split));
            }
          }
        }
      }
    }
    searched.push_back(std::move(node));
  }

  // The objective. EDP is the network's (sum of energies x sum of cycles): a layer's change moves
  // it by about E x dC + C x dE, so each layer minimises its cycles x E + its energy x C, E and C
  // the network's totals with auto's choices (the searched layers').
  double e_total = 0, c_total = 0;
  for (const Searched& s : searched) {
    e_total += s.costed[0].second.energy;
    c_total += double(s.costed[0].second.cycles);
  }
  auto value = [&](const Cost& k) {
    return objective == "energy" ? k.energy
           : objective == "edp"  ? double(k.cycles) * e_total + k.energy * c_total
                                 : double(k.cycles);
  };
  auto net_of_overlap = [](const Cost& k) { return double(k.cycles) - double(k.overlap); };
  for (const Searched& s : searched) {
    // The first strictly cheapest wins (auto's is first), the runner-up likewise.
    size_t best = 0, second = SIZE_MAX;
    uint64_t worst = 0;
    for (size_t k = 0; k < s.costed.size(); ++k) {
      const double v = value(s.costed[k].second);
      worst = std::max(worst, s.costed[k].second.cycles);
      if (k == 0) continue;
      // Away from auto's choice only for a predicted gain above kMinGain: within it the tile
      // model cannot tell them apart (resident bands restage weights under the tiles, which the
      // sum does not see: mobilenet_v2 at 2 MiB, features.14 conv.2, 0.4 % predicted, 22 % lost).
      // For cycles, the gain must also exceed the pipeline overlap the sum overcharges auto's
      // tiles and not the candidate's (tiny_fpn_det's c3: auto's 4 tiles predicted 1,440 and
      // simulated 1,337, one tile predicted 1,368 and simulated 1,379).
      // Equal costs: the fewer DRAM bytes (a resident layer's weights staged once with the weights
      // outer rather than once per band: the DMA, which takes its moves in list order, carries
      // the next layers' fills behind them; mobilenet_v3_large's features.7 depthwise, 2-row
      // bands, 21,952 -> 3,136 B, kept the project conv after it from waiting 1,137 cycles).
      const Cost& held = s.costed[best].second;
      const bool cheaper =
          v < value(held) ||
          (best != 0 && v == value(held) && s.costed[k].second.dram_bytes < held.dram_bytes);
      if (cheaper && v < value(s.costed[0].second) * (1 - kMinGain) &&
          (objective != "cycles" || net_of_overlap(s.costed[k].second) <
                                        net_of_overlap(s.costed[0].second) * (1 - kMinGain))) {
        second = best, best = k;
      } else if (second == SIZE_MAX || v < value(s.costed[second].second)) {
        second = k;
      }
    }
    const auto& [chosen, cost] = s.costed[best];
    node_mapping_[size_t(s.idx)] = chosen.mapping;
    node_block_[size_t(s.idx)] = chosen.block;
    node_rows_[size_t(s.idx)] = chosen.rows;
    node_tail_[size_t(s.idx)] = chosen.tail;
    node_order_[size_t(s.idx)] = chosen.order;
    if (chosen.split()) {
      const uint32_t out_c = uint32_t(g_.tensors[g_.nodes[size_t(s.idx)].outputs[0]].shape.c);
      node_tail_from_[size_t(s.idx)] = out_c / chosen.block * chosen.block;
    }
    MappingRow row;
    row.layer = uint32_t(s.idx);  // the node for now; run() turns it into the layer
    row.mapping = mapping_name(chosen);
    row.block = chosen.block;
    row.rows = chosen.rows;
    row.loop_order = to_string(chosen.order);
    row.predicted_cycles = cost.cycles;
    row.predicted_energy_pj = cost.energy;
    row.predicted_dram_bytes = cost.dram_bytes;
    row.predicted_cost = value(cost);
    if (second != SIZE_MAX) {
      row.alternative = describe(s.costed[second].first);
      row.alternative_cycles = s.costed[second].second.cycles;
      row.alternative_cost = value(s.costed[second].second);
    }
    row.auto_cycles = s.costed[0].second.cycles;
    row.auto_cost = value(s.costed[0].second);
    row.candidates = uint32_t(s.costed.size());
    row.worst_cycles = worst;
    out_.mapping.push_back(row);
  }
  out_.search_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace strider
