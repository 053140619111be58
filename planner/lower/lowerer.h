// Lowerer: the state of one lowering (see lowering.h for the scheme). lowering.cpp holds the
// driver (graph inputs and outputs, the steps); copy_lowering.cpp views, copies, shuffles and
// gathers; compute_lowering.cpp turns one compute node into tiles, with row bands through L2 band
// buffers when a tensor lives in DRAM;
// depthwise_fusion.cpp lowers a conv and the depthwise conv reading its spilled output together,
// interleaved in row bands (the tensor between them never leaving L2).
#pragma once

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "planner/lower/activation_layout.h"
#include "planner/lower/lowering.h"
#include "planner/memory/scratch_planner.h"

namespace strider {

constexpr uint32_t kStagingSlots = 2;  // a layer's weight staging: double buffered
constexpr uint32_t kMaxStreamBands = 16;  // stream_rows: the most row bands it tries
// An ordinary weight staging ring is live at most this many steps before its layer's (its first
// fills prefetch during them); a deep prefetch that needs a longer lead starts as early as it fits.
constexpr int64_t kMaxLeadSteps = 8;

// A ring of equal L2 buffers reused in turn; each remembers the last descriptor that used it, so
// the next writer waits for it (write-after-read).
struct SlotRing {
  uint64_t base = 0, slot_bytes = 0;
  // Slot addresses when the slots are not one contiguous run from `base` (a deep prefetch's slots
  // beyond the first two, each placed in a hole of its own); empty: base + s x slot_bytes.
  std::vector<uint64_t> slot_addr;
  // Per slot, the first step its memory is the ring's (a deep prefetch's late slots live from
  // later steps than the ring's first two).
  std::vector<int64_t> slot_first;
  std::vector<int> last_user;
  uint32_t next = 0;
  // Weight staging: the schedule steps before its own during which the memory plan keeps the ring
  // free, so its first fills may start once the step before them retired (1: the previous step).
  uint32_t lead_steps = 1;
  // Deep weight prefetch (memory_layout.cpp, plan_prefetch): the ring's first `ahead` fills are
  // emitted during earlier steps (emit_prefetches); 0: every fill in the layer's own step.
  uint32_t ahead = 0;
  uint32_t take() {
    const uint32_t s = next;
    next = (next + 1) % last_user.size();
    return s;
  }
  uint64_t addr(uint32_t s) const { return slot_addr.empty() ? base + s * slot_bytes : slot_addr[s]; }
  std::vector<uint32_t> war(uint32_t s) const {
    return last_user[s] >= 0 ? std::vector<uint32_t>{uint32_t(last_user[s])} : std::vector<uint32_t>{};
  }
};

// A deep prefetch's slot beyond its ring's first two, placed on its own (plan_prefetch).
inline bool is_extra_slot(const memory::ScratchRequest& r) {
  return r.id.rfind("prefetch-slot:", 0) == 0;
}

// The order of a compute node's tile loops (banded_lowering.cpp's header; the search's `loop_order`
// dimension, mapper.h). kDefault: what the lowering picks by itself.
enum class LoopOrder : uint8_t { kDefault, kInputsOuter, kWeightsOuter, kGrouped };
const char* to_string(LoopOrder o);

class Lowerer {
 public:
  // in_band_slots: the row-band input buffers (2, or with a batch up to batch_band_slots(g)).
  Lowerer(const Graph& g, const ArchConfig& arch, const LowerOptions& opt, uint32_t in_band_slots);
  Lowered run();
  static uint32_t batch_band_slots(const Graph& g);  // memory_layout.cpp

 private:
  // memory_layout.cpp: plan_memory plans the layout without depthwise fusion and, where it
  // spills a tensor a fusable pair passes (dw_candidates), again with those pairs (plan_layout
  // with dw_pairs_ set), keeping the one the closed form (plan_cycles) predicts faster.
  void plan_memory(const std::vector<int>& order);
  void plan_layout(const std::vector<int>& order);
  uint64_t min_band_bytes(bool input, std::string* worst, bool partial_sums) const;
  uint64_t reserve_bands(uint64_t room, bool partial_sums);
  uint64_t place_staging(const std::vector<int>& order, uint64_t heap);
  // Bytes of a node's weight staging slots (the minimum double-buffered channel block).
  uint64_t staging_bytes(const Node& n) const;
  uint64_t slot_bytes(const Node& n, uint64_t channels) const;  // one slot: weights + bias
  // The error when L2 minus `bands` cannot hold the staging: names the largest layer's need.
  std::runtime_error staging_error(const std::vector<int>& order, uint64_t bands) const;
  // Deep weight prefetch: gives the staging requests (reqs, one per req_node) of layers that are
  // DRAM-bound on their own weights more slots, live from earlier steps, where the holes allow
  // (the placement p stays within heap); fills prefetches_.
  void plan_prefetch(const std::vector<int>& order, uint64_t heap, const memory::Problem& acts,
                     const memory::Solution& plan, const memory::ScratchOptions& opt,
                     std::vector<memory::ScratchRequest>& reqs, std::vector<int>& req_node,
                     memory::ScratchPlacement& p);
  bool prefetchable(const Node& n) const;
  // The last step of `order` whose node reads or writes a spilled tensor (the last that may use
  // the row-band buffers); -1: none.
  int64_t last_band_step(const std::vector<int>& order) const;
  // Adds to deps the last readers of the row-band buffers overlapping [addr, addr + bytes): a
  // deep prefetch ring may take their room after the last banded step (plan_prefetch), and a
  // band's spill to DRAM may retire after its step's fence.
  void band_war(uint64_t addr, uint64_t bytes, std::vector<uint32_t>* deps) const;
  // A compute node's cycles by the closed-form tile cost of its mapping (0 for the vector
  // unit's ops and nodes without compute); the DRAM bytes of its fills, spills and graph I/O.
  uint64_t step_cycles(const Node& n) const;
  uint64_t step_dram_bytes(const Node& n) const;
  // The pieces of the deep prefetches whose quota the step just lowered reached (end of a step).
  void emit_prefetches(double share = 1.0);

  // lowering.cpp
  TensorRef ref(int tensor) const;
  TensorRef shape_ref(int tensor) const;  // shape and strides only (before the memory plan)
  MemSpace space(int tensor) const;
  uint32_t add_layer(const std::string& name, const std::string& op);
  uint32_t emit(Descriptor d);
  uint32_t move(uint32_t layer, MemSpace src, uint64_t src_addr, MemSpace dst, uint64_t dst_addr,
                uint32_t rows, uint32_t row_bytes, uint32_t src_stride, uint32_t dst_stride,
                std::vector<uint32_t> deps, uint32_t dst_step = 1);
  Descriptor move_desc(uint32_t layer, MemSpace src, uint64_t src_addr, MemSpace dst,
                       uint64_t dst_addr, uint32_t rows, uint32_t row_bytes, uint32_t src_stride,
                       uint32_t dst_stride, std::vector<uint32_t> deps, uint32_t dst_step = 1);
  std::vector<uint32_t> input_deps(const Node& n) const;
  void lower_step(int idx);  // one schedule step (of image seg_image_ inside a segment)
  bool io_move(int t, const std::string& kind, std::vector<std::pair<int, uint64_t>>* list,
               uint32_t* layer, uint64_t* dram, uint64_t* bytes);
  // lazy: a conv or pool reads the input first; its load is cut into row chunks that its tiles'
  // row_deps emit as they need them (the rest after the step).
  void load_input(int tensor, bool lazy = false);
  // Adds to `deps` the chunks of node n's lazily loaded first input that output rows [r0, r1)
  // read, emitting those not yet emitted (before the tile's weight moves).
  void row_deps(const Node& n, uint32_t r0, uint32_t r1, std::vector<uint32_t>* deps);
  void emit_chunks(int tensor, uint32_t rows);  // the chunks of input rows [0, rows)
  void store_output(int tensor);
  // stream_io.cpp (see its header): the band height of a layer reading a streamed graph input
  // (stream_in) or storing the run's last graph output (timed_output), from `rows` down, and
  // whether that output is stored band by band; the closed-form end of the layer with bands of
  // `rows` x `block` (weights_once: its weights staged once for every band) and its output
  // stored as `store` says.
  enum class OutputStore : uint8_t { kNone, kAfter, kBands };
  struct StreamCut {
    uint32_t rows = 0;
    bool band_stores = false;
  };
  StreamCut stream_cut(const Node& n, const OpDesc& base, uint32_t rows, uint32_t block,
                       bool weights_once, bool stream_in, bool timed_output) const;
  uint64_t stream_cycles(const Node& n, const OpDesc& base, uint32_t rows, uint32_t block,
                         bool weights_once, bool stream_in, OutputStore store) const;
  // Starts graph output `t`'s store by row bands (its layer and DRAM address); false when it
  // cannot stream (not a graph output, spilled, batch, image segment).
  bool stream_output(int t);
  void store_rows(int t, uint32_t r0, uint32_t r1, std::vector<uint32_t> deps);
  // copy_lowering.cpp: the steps that move data without computing
  void lower_view(const Node& n, int idx);
  // A concat input's copy into the output (plane by plane into a folded channel shuffle's).
  uint32_t copy_move(const ConcatCopy& c, uint32_t layer, std::vector<uint32_t> deps);
  void emit_early_copies(int idx);  // the copies that may run from node idx's step on
  void lower_shuffle(const Node& n, uint32_t layer);
  void lower_gather(const Node& n, uint32_t layer);  // one 2-D move per block (kGather)
  void emit_gathers(const Node* reader = nullptr, std::vector<uint32_t>* deps = nullptr);
  bool takes_gathers(const Node& n) const;

  // compute_lowering.cpp
  uint32_t weight_block(const Node& n) const;  // with the node's chosen mapping
  uint32_t weight_block(const Node& n, Mapping m) const;
  OpDesc base_op(const Node& n, bool placed = true) const;  // placed: with addresses and spaces
  // Sets the tile's output channels [c0, c1) and its slice of the node's per-channel
  // requantisation.
  static void set_tile_channels(const Node& n, uint32_t c0, uint32_t c1, OpDesc* op);
  // An operation tile of layer `layer`: `base` over output rows [r0, r1) x channels [c0, c1).
  Descriptor op_tile(const Node& n, uint32_t layer, const OpDesc& base, uint32_t r0, uint32_t r1,
                     uint32_t c0, uint32_t c1) const;
  // mapping_choice.cpp
  void choose_mappings();
  // A fused max-pool (Node::pool) in `op`: the pooled tensor written, op.output the conv's
  // result shape (planner/lower/pool_fusion.cpp).
  void fuse_pool(const Node& n, OpDesc* op) const;
  // Throws FusionRefused naming the fused input scales (Node::input_scale; the Muls' outputs)
  // this plan cannot run: one whose scale tensor the plan spilled to DRAM (the tiles read it in
  // place from L2).
  void check_fused_scales() const;
  // Throws FusionRefused naming the fused pools this plan cannot run: a conv with a spilled
  // tensor (row bands) or whose channel group needs more row buffer than the arch has; and the
  // fused global pools check_fused_gaps refuses.
  void check_fused_pools() const;
  // gap_fusion.cpp: a fused global average pool (Node::gap) in `op`: its output, arithmetic and
  // partial sums; op.output the conv's result shape when that is never stored.
  void fuse_gap(const Node& n, bool placed, OpDesc* op) const;
  // Bytes of the fused global pools' shared partial sums at the top of L2 (0: none fused).
  uint64_t gap_region_bytes() const;
  // Adds to `refused` the fused global pools this plan cannot run (see gap_fusion.cpp).
  void check_fused_gaps(std::set<std::string>* refused) const;
  // The most channels of a positions tile whose open pooled rows the row buffer holds (whole
  // groups of accumulators when it holds that many).
  uint64_t pool_block_cap(const Node& n) const;
  bool gemm_as_conv(const Node& n) const;  // 1x1 conv to one output position: lowered as fc
  // banks: each tile at the mapper's cost (mapper_tile_cycles), else max(pipeline, load port).
  uint64_t mapping_cost(const Node& n, Mapping m, bool banks = false) const;
  uint64_t store_blob(std::vector<int8_t> bytes);
  // Stores a layer with weights' weights and int32 biases in DRAM (store_blob): their addresses.
  std::pair<uint64_t, uint64_t> place_weights(const Node& n);
  void stage_weights(const Node& n, uint32_t layer, uint32_t c0, uint32_t c1, Descriptor& d,
                     uint32_t i0 = 0, uint32_t i1 = 0);
  // The weight and bias moves of output channels [c0, c1) (input channels [i0, i1) of each when
  // i1 > 0) from DRAM (w_dram, b_dram) into the slot at w_l2, counted in `layer`: {weights, bias}.
  // background: both are background moves (a deep prefetch, run behind demand moves).
  std::pair<uint32_t, uint32_t> weight_moves(const Node& n, uint32_t layer, uint32_t c0,
                                             uint32_t c1, uint32_t i0, uint32_t i1, uint64_t w_l2,
                                             uint64_t w_dram, uint64_t b_dram,
                                             const std::vector<uint32_t>& deps, bool background);
  uint32_t band_rows(const OpDesc& op) const;
  uint32_t band_rows(const Node& n, const OpDesc& op) const;  // the search's choice, else the above
  // banded_lowering.cpp: bytes of the input band output rows [r0, r0 + rows) x channels
  // [c0, c0 + cb) read; whether bands of `rows` x `cb` fit the band buffers.
  uint64_t band_input_bytes(const Node& n, uint32_t r0, uint32_t rows, uint32_t c0,
                            uint32_t cb) const;
  bool band_fits(const Node& n, uint32_t rows, uint32_t cb) const;
  // A banded node's DRAM bytes of weights and input fills for tiles of `rows` x `cb` over
  // `images` in loop order `o` (output spills are the same in every order); whether `o` is one it
  // can run (a spilled second operand or residual refills per tile: inputs outer only); the
  // order it takes by itself (the fewest bytes, inputs outer for one image).
  uint64_t banded_dram_bytes(const Node& n, uint32_t rows, uint32_t cb, uint32_t images,
                             LoopOrder o) const;
  bool banded_order_legal(const Node& n, uint32_t images, LoopOrder o) const;
  LoopOrder banded_default_order(const Node& n, uint32_t rows, uint32_t cb, uint32_t images) const;
  // depthwise_fusion.cpp (see its header): a conv P and the depthwise conv C reading its
  // spilled output T, lowered interleaved in row bands through the in-band buffers.
  struct DwPair {
    int p = -1, c = -1;  // node indices
    int64_t step = 0;    // P's schedule step (C's is the next)
  };
  struct DwBands {
    uint32_t block = 0, rows = 0;  // T's channels per band, C's output rows per band
    uint64_t cycles = 0;           // the closed form's cycles of the pair's tiles
  };
  // The pairs the current layout_ spills a T of and that can run fused.
  std::vector<DwPair> dw_candidates(const std::vector<int>& order) const;
  bool dw_legal(const Node& p, const Node& c, int64_t step) const;  // step: P's
  DwBands dw_bands(const Node& p, const Node& c) const;
  // The plan's predicted cycles: per step max(tiles, DRAM bytes at peak), a fused pair one step.
  uint64_t plan_cycles(const std::vector<int>& order) const;
  // A tile's cycles in the closed form mapping_cost sums (max(fill pipeline, load port)).
  uint64_t tile_cycles(const OpDesc& base, uint32_t r0, uint32_t r1, uint32_t c0,
                       uint32_t c1) const;
  void lower_dw_pair(const Node& p, uint32_t p_layer);
  // mapper.cpp: `lowering.mapping: search`, after the memory plan.
  void search_mappings(const std::vector<int>& order);
  void lower_compute(const Node& n, uint32_t layer);
  void lower_resident(const Node& n, uint32_t layer, uint32_t images);
  uint32_t emit_tile(Descriptor d, uint32_t layer);
  void order_queues(Descriptor& d);  // emit_tile: the cross-queue hazards of a tile
  void record_queue_bytes(int q, const Descriptor& d);
  // Appends the last op of each queue (with_readers: and the moves reading L2 since): what a
  // move overwriting memory of an earlier step waits for.
  void after_ops(std::vector<uint32_t>* deps, bool with_readers = true) const;
  uint32_t fill_band(uint32_t layer, const TensorRef& r, std::vector<uint32_t> deps, uint32_t i0,
                     uint32_t i1, uint32_t y0, uint32_t y1, TensorRef* band, uint32_t* slot);
  uint32_t band_output(Descriptor& d);
  uint32_t spill_band(uint32_t layer, const TensorRef& home, uint32_t slot, uint32_t c0,
                      uint32_t c1, uint32_t r0, uint32_t r1, uint32_t tile);
  // batch_segments.cpp: schedule steps [s0, s1] image after image.
  void lower_segment(const std::vector<int>& order, size_t s0, size_t s1);
  // The image ref() addresses in a tensor holding every image.
  uint32_t image_index() const { return seg_image_ + image_; }
  // banded_lowering.cpp: every image's tiles, images outside or inside the weight blocks.
  void lower_banded(const Node& n, uint32_t layer, uint32_t images);
  uint64_t weights_per_channel(const Node& n) const;  // weight bytes of one output channel
  // The bytes one output channel stages: its weights and its int32 bias.
  uint64_t staged_bytes_per_channel(const Node& n) const { return weights_per_channel(n) + 4; }
  void lower_partial_sums(const Node& n, uint32_t layer, const OpDesc& base);
  bool channel_local(const Node& n) const;  // output channel c needs only input channel c's group
  void input_rows(const Node& n, uint32_t r0, uint32_t r1, uint32_t* y0, uint32_t* y1) const;
  void input_channels(const Node& n, uint32_t c0, uint32_t c1, uint32_t* i0, uint32_t* i1) const;
  // The channels [i0, i1) and rows [y0, y1) of a MatMul's second operand that output channels
  // [c0, c1) read (every row of every output position).
  void matmul_b_range(const Node& n, uint32_t c0, uint32_t c1, uint32_t* i0, uint32_t* i1,
                      uint32_t* y0, uint32_t* y1) const;

  const Graph& g_;
  const ArchConfig& arch_;
  const LowerOptions& opt_;
  const uint32_t in_band_slots_;
  Lowered out_;
  ActivationLayout layout_;
  std::vector<std::vector<uint32_t>> last_desc_;  // per tensor: descriptors that produce it
  // Moves that read L2 activations since the last op: the next op (which may overwrite a dead
  // tensor's memory) waits for them; later ops of its issue queue (0: compute pipeline, 1:
  // vector unit) follow it in order, and the next op of the other queue waits for it
  // (owed_readers_: the two queues run side by side).
  std::vector<uint32_t> pending_readers_;
  // Stores of the current step's graph outputs, which the memory plan keeps through the next
  // step: they join pending_readers_ once that step is lowered (store_output).
  std::vector<uint32_t> draining_outputs_;
  // Gathers whose moves are held back until the next step's first tile staged its weights
  // (lower_gather): the moves without ids, the deps of the first, the step and output tensor.
  struct DeferredGather {
    int64_t step = 0;
    int out_t = -1;
    std::vector<uint32_t> deps;
    std::vector<Descriptor> moves;
  };
  std::vector<DeferredGather> deferred_gathers_;
  // A graph input loaded in row chunks (load_input, lazy): the load's layer, DRAM address, fence
  // and the chunks emitted so far (each ending at its row in `ends`; rows_per_chunk: the fewest
  // rows of one, but the last).
  struct ChunkedInput {
    uint32_t layer = 0, rows_per_chunk = 0, emitted_rows = 0;
    uint64_t dram = 0;
    std::vector<uint32_t> fence, chunks, ends;
  };
  std::unordered_map<int, ChunkedInput> chunked_;
  // A graph output stored by row bands behind its producer's tiles (stream_output): the store's
  // layer, DRAM address and moves so far.
  struct StreamedOutput {
    uint32_t layer = 0;
    uint64_t dram = 0;
    std::vector<uint32_t> stores;
  };
  std::unordered_map<int, StreamedOutput> streamed_;
  int tail_node_ = -1;  // the last compute node of the schedule: its output stores end the run
  int owed_readers_[2] = {-1, -1};  // per queue: the other queue's op that took readers
  // Per issue queue, the L2 bytes its ops read or wrote that the other queue's ops are not yet
  // known to follow: an op overwriting them waits for the latest such op (emit_tile), as the two
  // queues run side by side (a softmax may still read the scores a later matmul overwrites).
  struct OpBytes {
    uint64_t lo, hi;
    uint32_t op;
  };
  std::vector<OpBytes> queue_bytes_[2];
  int ordered_after_[2] = {-1, -1};  // per queue: the other queue's latest op it follows
  SlotRing staging_, in_bands_, out_bands_;  // staging_: the current layer's weight slots
  SlotRing psums_;  // int32 partial sums of input-channel blocks (only when L2 forces them)
  // The fused global pools' int32 partial sums (gap_fusion.cpp): [addr, addr + bytes) at the top
  // of L2, above the row-band buffers; bytes 0 when no pool is fused.
  uint64_t gap_region_addr_ = 0, gap_region_bytes_ = 0;
  std::vector<SlotRing> node_staging_;        // per node: its weight slots (a scratch buffer)
  // A deep weight prefetch (plan_prefetch): node's slots live from step `from`; quota[s - from]
  // the bytes of its early fills to have emitted by the end of step s (s < step, its own step);
  // the fills emitted so far (their weight and bias moves and channels) and its DRAM blobs.
  struct DeepPrefetch {
    int node = -1;
    int64_t from = 0, step = 0;
    std::vector<int64_t> slot_from;  // per slot: its first step (a late slot's: after `from`)
    std::vector<uint64_t> quota;
    std::vector<std::pair<uint32_t, uint32_t>> moves, channels;
    uint64_t emitted_bytes = 0, w_dram = 0, b_dram = 0;
    bool stored = false;
    int layer = -1;  // its moves' layer, `prefetch:NAME`, once the first is emitted
  };
  std::vector<DeepPrefetch> prefetches_;
  std::vector<int> node_prefetch_;  // per node: its index in prefetches_, -1: none
  uint32_t fills_ = 0;              // the current node's staging fills so far
  std::vector<DwPair> dw_pairs_;    // the fused producer / depthwise pairs of the plan
  std::vector<int> dw_reader_;      // per node: the pair's C when it is a pair's P, else -1
  std::vector<char> dw_lowered_;    // per node: a pair's C, lowered in its producer's step
  std::vector<Mapping> node_mapping_;         // per node: how its tiles use the neuron array
  std::vector<uint32_t> node_block_, node_rows_;  // per node: the search's choice; 0: default
  std::vector<LoopOrder> node_order_;             // per node: the search's loop order
  // per node: the mapping of its channels from node_tail_from_ on (the search's partial last
  // block; UINT32_MAX: none)
  std::vector<Mapping> node_tail_;
  std::vector<uint32_t> node_tail_from_;
  std::vector<std::vector<uint32_t>> step_fence_;  // per step: retire these before its memory is reused
  int64_t current_step_ = 0;
  uint64_t w_dram_ = 0, b_dram_ = 0;  // current node's weights and biases in DRAM
  uint64_t next_weight_addr_ = kDramWeightsBase;
  uint64_t dram_io_ = 0;        // next DRAM address for graph inputs and outputs
  std::vector<bool> loaded_;    // per tensor: graph input already loaded
  std::vector<int> io_layer_;   // per graph input / output tensor: its layer, once added
  std::vector<uint64_t> io_addr_;  // per graph input / output tensor: its DRAM address
  std::vector<char> is_input_, is_output_;  // per tensor: a graph input / output
  std::vector<std::vector<size_t>> node_copies_;  // per node: its layout_.copies
  // Per node: the layout_.copies made right after its step (ConcatCopy::step); per copy: its
  // move once made early.
  std::vector<std::vector<size_t>> early_copies_;
  std::vector<uint32_t> copy_desc_;
  int last_op_[2] = {-1, -1};   // per issue queue: last operation descriptor emitted
  uint32_t layer_first_desc_ = 0;  // first descriptor of the compute node being lowered
  // Batch: the image whose tiles are being emitted; ref() addresses image image_ of a tensor
  // holding several (N x C x H x W, images contiguous), so every tile covers one image.
  uint32_t image_ = 0;
  // Inside an image segment (in_segment_): the image whose pass is lowered; each of its nodes is
  // lowered for that one image, reusing the layer its first pass added (node_layer_).
  bool in_segment_ = false;
  uint32_t seg_image_ = 0;
  std::vector<int> node_layer_;
  std::unordered_multimap<uint64_t, size_t> blob_index_;  // content hash -> DramImage blob
};

// DRAM bytes a lowering, or one of its layers, moves (weights, graph inputs and outputs, fills
// and spills).
uint64_t dram_bytes(const Lowered& l);
uint64_t dram_bytes(const LayerReport& r);
// Whether a layer with weights runs outside opt's image segments (so that it may share each
// weight block across the batch: with every one inside, more in-band slots cannot help).
bool shares_weights(const Graph& g, const LowerOptions& opt);  // batch_segments.cpp
// lower() for opt's image segments as given: with two in-band slots, and with one per image up
// to four when that moves fewer DRAM bytes (lowering.cpp).
Lowered lower_slots(const Graph& g, const ArchConfig& arch, const LowerOptions& opt);

}  // namespace strider
