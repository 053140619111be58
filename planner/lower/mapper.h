// Mapper (`lowering.mapping: search`, after Timeloop's): per compute layer, after the memory plan
// (so the real row bands, spills and weight-staging slots are known), the legal mappings the
// hardware runs are enumerated and each is costed; the cheapest by `lowering.objective` is lowered.
//
// The space of one layer (Lowerer::search_mappings, mapper.cpp):
//   mapping   positions, and channels / im2col where they apply (channels_mapping_applies,
//             im2col_mapping_applies);
//   block     output channels per tile: every multiple of the mapping's unit (accumulators for
//             positions, neurons for channels and im2col) up to what the layer's staging slot
//             holds, the slot's capacity itself and the whole layer when it fits;
//   rows      output rows per band: every distinct band count (rows = ceil(H / bands)), for a
//             layer with a tensor in DRAM only those whose bands fit the band buffers.
//   tail      with channels / im2col and a block that does not divide the output channels, the
//             partial last block either in the same mapping (idle neurons) or in positions
//             (`channels+positions` in mapping.csv; the lowering gives those tiles that mapping,
//             Lowerer::op_tile): mobilenet_v2's 14 x 14 projections, 196 positions and 96
//             channels, leave a tail on 64 neurons either way, split they do not.
//   order     the loop order (banded_lowering.cpp's header, LoopOrder): inputs_outer (bands
//             outer, each block staged per band; a resident layer's one block once), weights_outer (blocks outer, each staged once
//             for every band and image) where a block would be staged more than once, and
//             images_grouped for a banded batch; a banded layer of several blocks takes
//             weights_outer only as its own batch order (it refills every band per block, in
//             short pieces slower than their bytes: resnet50's layer3.0 downsample).
// `auto`'s choice, cut as the lowering would cut it, is costed first; a candidate replaces the
// best so far only when strictly cheaper and more than kMinGain (1 %) cheaper than auto's — for
// `cycles` also once both are net of their tiles' pipeline overlap (each tile's first fill runs
// under the tile before's last computes, which the sum below charges in full: tiny_fpn_det's c3,
// auto's 4 tiles predicted 1,440 and simulated 1,337, one tile predicted 1,368 and simulated
// 1,379) — so the search never predicts worse than `auto`, leaves it only where the model is
// sure, and the order is fixed (mapping, block ascending, rows descending, loop order): same
// inputs, same choice.
//
// Cost of a candidate (exact and closed form, no simulation): per tile
// max(fill pipeline, L2 load-port bytes / port width, store-port bytes / port width) from
// compute_tile_work (the same closed form the units time themselves with) — each port's time plus
// the bank conflicts of its pieces as the L2 model charges them (core/timing/l2_banks.h), a fused
// residual Add's operand read on the store port — summed over the tiles;
// the layer's DRAM bytes (weights staged once per band with the inputs outer, once with the
// weights outer; a banded layer's per its order, Lowerer::banded_dram_bytes, plus its spills:
// exactly what the lowering then moves) at the DRAM's peak bandwidth; the layer's
// predicted cycles are the larger of the two for a layer resident in L2 (its weights prefetch under
// the layer before) and their sum for a banded one (measured: its tiles wait for their fills and
// its spills take the L2 ports, resnet50's layer1 ran at about tiles + DRAM time). Energy: the
// tiles' action counts and the DRAM bytes at the arch's per-action energies
// (core/arch/energy_presets.h) plus leakage over the predicted cycles. Tiles of equal shape (rows,
// channels, distance from the padded edges) are costed once. Objectives: `cycles`, `energy` (pJ),
// `edp` (the network's energy x cycles: each layer minimises its cycles x E + its energy x C, E and
// C the searched layers' totals under auto, the first-order change of the product).
//
// Budget: at most kMaxTileCosts distinct tiles are costed per layer (a count, not a clock, so the
// result does not depend on the machine); candidates past it are skipped in the fixed order.
#pragma once

#include <cstdint>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"
#include "core/timing/tile_work.h"

namespace strider {

constexpr uint64_t kMaxTileCosts = 20000;  // distinct tile shapes costed per layer
constexpr double kMinGain = 0.01;          // predicted gain needed to leave auto's choice

// A tile's cycles in the cost model above: max(fill pipeline, load port + its gather's bank
// conflicts, store port (twice with a fused Add's operand) + its pieces' conflicts, both ports'
// words on the shared banks). `auto` weighs im2col with it too (mapping_choice.cpp).
uint64_t mapper_tile_cycles(const L2Config& l2, const OpDesc& t, const TileWork& w);

// The leakage the energy objective charges per predicted cycle (pJ): L2 and L1 SRAM per KiB and
// the units' logic per mm2 at the arch's energy presets.
double leak_pj_per_cycle(const ArchConfig& arch);

}  // namespace strider
