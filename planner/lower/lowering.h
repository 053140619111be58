// Lowering: turns a scheduled, memory-planned graph into the descriptor list the hardware runs.
//
// Memory layout (memory_layout.cpp). DRAM: the descriptor list at 0, weights and biases from
// kDramWeightsBase (each layer's weights [out][in/groups][kh][kw] int8, then its int32 biases;
// identical blobs stored once), spilled activations from kDramActivationsBase, graph inputs and
// outputs above them. L2: the activation plan (offsets from the allocator); each layer's two
// weight-staging slots as a scratch buffer in the holes the plan leaves; and, only when some
// activations must live in DRAM, row-band (and partial-sum) buffers at the top.
//
// Per layer, in schedule order: views (reshape, flatten, split, slice) and in-place concats emit
// nothing (concat inputs that could not be made in place are copied); a channel shuffle is one 2-D
// move per group, or nothing when its concat is folded into its layout (the concat's inputs then
// written in place as strided views, the others copied by a 2-D move made early, under the other
// inputs' compute: memory/activation_problem.h, Lowerer::emit_early_copies); every other op
// becomes operation tiles: output-channel blocks (a tile's kernels
// fit the L1 kernel region) x output-row bands (strided windows: whole neuron runs). A tile with
// weights is preceded by its weight and bias moves into the next staging slot. A tensor in DRAM
// is read through in-band buffers (a fill move per band) and written through out-band buffers (a
// spill move per tile); when one output row of a conv's input exceeds a band buffer, its input
// channels are split into blocks accumulating int32 partial sums (partial_sums_lowering.cpp).
// Dependencies are only those needed: a tile waits for its moves and for the last tile of each
// layer producing its inputs (the compute pipeline is in order); a slot is rewritten only after
// its last reader; memory freed by a step is reused only after that step's ops and reading moves
// retired. Graph inputs are loaded just before first use and outputs stored when produced.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/arch/arch_config.h"
#include "core/common/progress.h"
#include "core/contract/descriptor.h"
#include "planner/ir/graph.h"

namespace strider {

constexpr uint64_t kDramWeightsBase = 256ull << 20;
constexpr uint64_t kDramActivationsBase = 2048ull << 20;

// Schedule steps [first, last], inclusive.
struct StepRange {
  int64_t first = 0, last = 0;
};

struct LowerOptions {
  std::string allocator = "auto";
  std::string schedule = "dfs";
  double time_limit_s = 10.0;
  std::vector<int> order;  // explicit node order (e.g. several networks in series); empty: schedule
  // Lowering stops with DescriptorLimitError as soon as the list would pass this many
  // descriptors (each holds about 0.9 KiB of host memory while planned and simulated); 0: none.
  uint64_t max_descriptors = 0;
  // A batch (N > 1): segments of consecutive schedule steps (compute ops and reshape views) that
  // run image after image, their own activations held one image at a time (batch_segments.cpp).
  // segment_choice: auto (the lowering chooses them by DRAM bytes), none, whole (every maximal
  // run of steps that can), given (exactly image_segments; a mapper may search them).
  std::string segment_choice = "auto";
  std::vector<StepRange> image_segments;
  // k of N schedule steps lowered (core/common/progress.h); empty: nobody listens.
  ProgressFn progress;
  // `lowering.mapping: search` only: the mappings the memory plan (each layer's weight-staging
  // ring) is sized for before the mapper runs — `auto`'s, with its im2col picks (true), or
  // positions / channels alone (false). The weight-slot search lowers both and keeps the plan
  // predicted cheaper (weight_slot_search.h); not a config key.
  bool search_from_im2col = true;
};

// The list passed LowerOptions::max_descriptors; thrown before the memory is spent.
class DescriptorLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Why bytes moved, per layer.
struct LayerReport {
  std::string name;
  std::string op;
  uint32_t tiles = 0;
  uint64_t weight_bytes = 0;   // DRAM -> L2 weights and biases
  uint64_t prefetch_bytes = 0; // of which a later layer's (a deep prefetch's layer, prefetch:NAME)
  uint64_t input_bytes = 0;    // graph inputs DRAM -> L2
  uint64_t output_bytes = 0;   // graph outputs L2 -> DRAM
  uint64_t copy_bytes = 0;     // copies (channel shuffle, concat inputs not made in place)
  uint64_t fill_bytes = 0;     // spilled inputs DRAM -> L2 row bands
  uint64_t spill_bytes = 0;    // output row bands L2 -> DRAM
  uint64_t macs = 0;
  // A batch (N > 1) of a layer with weights: images_inside (each weight block staged once for
  // the N images), images_grouped, images_outside (image after image; banded_lowering.cpp), or
  // image_segment (its segment of layers runs image after image: batch_segments.cpp); empty
  // otherwise.
  std::string batch_order;
};

// One row of mapping.csv (`lowering.mapping: search`, planner/lower/mapper.h): a layer's chosen
// mapping and its parameters, the predicted cost of it, of the best other candidate and of what
// `auto` would have taken, and how many candidates the search costed.
struct MappingRow {
  uint32_t layer = 0;           // index into Lowered::layers
  std::string mapping;          // positions | channels | im2col, or `M+positions` (the partial
                                // last channel block in positions)
  uint32_t block = 0;           // output channels per tile
  uint32_t rows = 0;            // output rows per band
  std::string loop_order;       // inputs_outer | weights_outer | images_grouped (lowerer.h)
  uint64_t predicted_cycles = 0;
  double predicted_energy_pj = 0;
  uint64_t predicted_dram_bytes = 0;  // weights staged, bands filled and spilled (exact)
  double predicted_cost = 0;    // the objective's value (cycles, pJ, or pJ x cycles)
  std::string alternative;      // the best other candidate: mapping/block/rows; empty: none
  uint64_t alternative_cycles = 0;
  double alternative_cost = 0;
  uint64_t auto_cycles = 0;     // auto's choice, costed the same way
  double auto_cost = 0;
  uint32_t candidates = 0;
  uint64_t worst_cycles = 0;    // the most expensive legal candidate (the spread)
};

// One row of memory_plan.csv.
struct PlannedBuffer {
  std::string tensor;
  std::string kind;     // activation | scratch | weight
  uint64_t offset = 0;  // L2 address
  uint64_t size = 0;
  int64_t first = 0, last = 0;  // schedule steps, inclusive
};

// Data that must be in DRAM before the run (functional mode) and where results land.
struct DramImage {
  struct Blob {
    uint64_t addr = 0;
    std::vector<int8_t> bytes;
  };
  std::vector<Blob> blobs;                       // weights and biases
  std::vector<std::pair<int, uint64_t>> inputs;  // graph input tensor id -> DRAM address
  std::vector<std::pair<int, uint64_t>> outputs; // graph output tensor id -> DRAM address
};

// The weight-staging slot `arch` lowers with: `lowering.weight_slot_bytes`, or L2 / 32 when it is
// 0 (the default, and what `mapping: search` starts its slot search from).
inline uint64_t weight_slot_bytes(const ArchConfig& arch) {
  return arch.lowering.weight_slot_bytes ? arch.lowering.weight_slot_bytes
                                         : arch.l2.size_bytes / 32;
}

struct Lowered {
  DescriptorList list;
  std::vector<LayerReport> layers;   // index = DescriptorList layer index
  std::vector<PlannedBuffer> plan;   // activation buffers and staging slots
  std::vector<uint64_t> tensor_addr; // address per graph tensor (activations only)
  std::vector<bool> tensor_spilled;  // per graph tensor: lives in DRAM (spilled), else in L2
  std::vector<uint64_t> tensor_channel_stride;  // per graph tensor: bytes between its planes
  // Per graph tensor: passed from a conv to its depthwise reader through band buffers only
  // (planner/lower/depthwise_fusion.cpp), never held whole in L2 or DRAM.
  std::vector<bool> tensor_in_bands;
  std::vector<int> step_layer;       // per schedule step: its layer index, -1 for a view
  std::vector<int> layer_node;       // per layer: graph node index, -1 for input/output moves
  // A batch: the image segments lowered (schedule steps); per graph tensor, whether its memory
  // holds one image at a time (made and read inside one segment); per layer of a segment, the
  // first descriptor of each image's pass (that image's descriptors of the layer are the ones
  // from there to the next image's first), empty for other layers.
  std::vector<StepRange> image_segments;
  std::vector<bool> tensor_per_image;
  std::vector<std::vector<uint32_t>> layer_image_first;
  DramImage dram;
  std::string allocator;
  uint64_t arena_bytes = 0;          // peak of the activation plan
  uint64_t lower_bound_bytes = 0;
  uint64_t staging_bytes = 0;        // heap growth by weight staging (what the holes could not take)
  uint64_t fast_region_bytes = 0;    // latency-critical scratch bytes in the L2 fast region
  uint64_t band_bytes = 0;           // row-band buffers (only when something spills)
  uint64_t weights_total_bytes = 0;  // weights and biases of every layer
  uint64_t weights_stored_bytes = 0; // stored in DRAM after de-duplication
  bool proven_optimal = false;
  double planner_seconds = 0;
  std::vector<MappingRow> mapping;   // `lowering.mapping: search`: one row per searched layer
  double search_seconds = 0;         // the mapping search's share of planner_seconds
  uint64_t weight_slot_bytes = 0;    // the weight-staging slot lowered with (searched or given)
  // The layers `auto`'s rule put on im2col before the memory plan (mapping_choice.cpp), and
  // whether a search's plan was sized for them (LowerOptions::search_from_im2col).
  uint32_t im2col_picks = 0;
  bool search_from_im2col = true;
};

// Throws std::runtime_error naming the node, tensor and sizes when the graph cannot be lowered
// for `arch` (e.g. the activations do not fit the L2 left after weight staging).
Lowered lower(const Graph& g, const ArchConfig& arch, const LowerOptions& opt);

}  // namespace strider
