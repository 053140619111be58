// FunctionalCheck: the testbench side of functional mode (sim.functional: true).
//
// Before the run it preloads DRAM with the lowered weights and biases and with the graph inputs
// (deterministic pseudo-random int8 from the network seed, see input_bytes()). During the run it
// observes descriptor retirements: when the last descriptor of a compute layer (a layer with
// operation tiles) retires, it copies the layer's output tensor out of L2 (or DRAM, for a tensor
// the planner spilled); the memory cannot be reused before that, as the tensor's consumers have
// not finished. The plain C++ Reference computes the whole network, layer by layer, on a thread
// of its own started by preload() (it reads only the graph and the inputs, so it overlaps the
// simulation; with default_threads() 1, in finish()), and measures the fidelity there too; after
// the run finish() waits for it and compares every captured layer output byte for byte.
//
// Inputs of a calibrated graph (planner/quant/calibrator.h) are its quantised calibration image
// (Tensor::data); the fidelity of every captured layer's reference output against the float
// network (Tensor::float_data, at Tensor::scale) is measured after the comparison.
//
// A layer of an image segment (Lowered::layer_image_first) writes one image per pass, into memory
// the next pass reuses: each image is copied out when that image's descriptors of the layer have
// retired, into its place in the captured batch.
//
// Figures: checked tensors = compute layers captured; mismatches = layers whose output differs
// from the reference (each described in details()).
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "model/common/timed_memory.h"
#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"
#include "planner/quant/fidelity.h"
#include "tb/reference.h"

namespace strider {

class FunctionalCheck {
 public:
  FunctionalCheck(const Graph& g, const Lowered& lowered, uint64_t seed);

  // Graph input `tensor`'s bytes: its calibration image when the graph is calibrated, else uniform int8 in [-55, 55] (RMS about 32, the nominal input
  // RMS the requantisation is chosen for) from splitmix64 seeded with seed ^ FNV-1a(name).
  static std::vector<int8_t> input_bytes(const Tensor& t, uint64_t seed);

  // Writes weights, biases and graph inputs to DRAM, and starts the reference (on a thread).
  void preload(TimedMemory& dram);
  ~FunctionalCheck();
  FunctionalCheck(const FunctionalCheck&) = delete;
  FunctionalCheck& operator=(const FunctionalCheck&) = delete;

  // Call when the controller retires descriptor `id`. When it is the last descriptor of a
  // compute layer (tiles, and any weight, band fill or spill moves) the layer's output is read
  // from `l2`, or from `dram` when the planner spilled it there.
  void on_retire(uint32_t id, const TimedMemory& l2, const TimedMemory& dram);

  // Waits for the reference (running it here if preload() did not start it), rethrowing its
  // error, and compares. Call once, after the simulation.
  void finish();

  uint64_t checked_tensors() const { return checked_; }
  uint64_t mismatches() const { return mismatches_; }
  const std::vector<std::string>& details() const { return details_; }

  // After finish(): the reference values, and per layer the captured output (empty for layers
  // that are not compute layers).
  const Reference& reference() const { return reference_; }
  const std::vector<std::vector<int8_t>>& captured() const { return captured_; }

  // After finish(), for a calibrated graph: per layer the fidelity of its output (values 0 for
  // layers not captured or without a float value), and over the graph outputs.
  const std::vector<Fidelity>& layer_fidelity() const { return layer_fidelity_; }
  const Fidelity& output_fidelity() const { return output_fidelity_; }

 private:
  void run_reference();

  const Graph& g_;
  const Lowered& lowered_;
  uint64_t seed_;
  Reference reference_;
  std::thread reference_thread_;
  std::exception_ptr reference_error_;
  bool reference_started_ = false;
  std::vector<uint32_t> remaining_;  // per layer: descriptors not yet retired
  // Per layer of an image segment: per image, its descriptors not yet retired.
  std::vector<std::vector<uint32_t>> image_remaining_;
  // The image pass of segment layer `layer` that descriptor `id` belongs to.
  size_t image_of(uint32_t layer, uint32_t id) const;
  std::vector<bool> is_compute_;     // per layer: has operation tiles
  std::vector<std::vector<int8_t>> captured_;
  // Per layer: the output of a global pool fused into its conv (Node::gap) when the conv's own
  // result is stored too (its node's outputs[1]); empty otherwise.
  std::vector<std::vector<int8_t>> captured_gap_;
  std::vector<bool> is_captured_;
  // Compares the captured `got` of `tensor` (layer `layer`'s) with the reference's.
  void compare(size_t layer, int tensor, const std::vector<int8_t>& got);
  uint64_t checked_ = 0, mismatches_ = 0;
  std::vector<std::string> details_;
  std::vector<Fidelity> layer_fidelity_;
  Fidelity output_fidelity_;
};

}  // namespace strider
