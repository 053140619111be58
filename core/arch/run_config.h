// A run: an arch (file plus inline overrides), one or more networks, planner and sim options and an
// output directory (DESIGN section 5). Loaded from configs/runs/*.yaml; any key can be overridden
// with `--set path=value` before validation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/arch/arch_config.h"

namespace strider {

struct NetworkSpec {
  std::string path;     // ONNX, YAML or CSV network file; written relative to the run file,
                        // loaded as a path usable from the current directory
  std::string name;     // defaults to the file stem
  int64_t input_h = 0;  // 0: as declared in the network file
  int64_t input_w = 0;
  uint64_t seed = 1;  // weights for parameter-free graphs
  uint32_t batch = 0;  // images per run (N of every graph input); 0: as declared in the file
  std::string scalesim_output_size = "ceil";  // SCALE-Sim CSV: ceil (SCALE-Sim's) | floor
};

struct PlannerOptions {
  std::string allocator = "auto";
  std::string schedule = "dfs";  // dfs | memory
  double time_limit_s = 10.0;
  // A batch: which schedule steps run image after image (planner/lower/batch_segments.cpp):
  // auto (chosen by DRAM bytes) | none | whole (every run of steps that can).
  std::string image_segments = "auto";
};

struct SimOptions {
  bool functional = false;
  bool trace = true;
  bool vcd = false;
  uint64_t watchdog_cycles = 10000000;  // cycles with no descriptor retiring before a deadlock
  // full: every report; layers: no per-descriptor reports (descriptors.csv, occupancy.csv), which
  // grow with the descriptor count (hundreds of MB for large GEMM topologies).
  std::string detail = "full";
  // Above this many descriptors trace.json merges a layer's consecutive slices on one track.
  uint64_t trace_max_slices = 20000;
};

// Preprocessing of calibration and evaluation images (quant.preprocess), as torchvision's
// transforms do it: pixel / 255, the shorter side resized to `resize` (bilinear, half-pixel
// centres) and the centre H x W cropped (resize 0: the whole image resized to H x W), then
// (v - mean[c]) / std[c] per channel (one value: every channel), channels in `channels` order.
// .npy files are taken as they are (already preprocessed), in `layout`.
struct Preprocess {
  uint64_t resize = 0;
  std::vector<double> mean = {0.0};
  std::vector<double> std = {1.0};
  std::string channels = "rgb";  // rgb | bgr
  std::string layout = "nchw";   // .npy arrays: nchw (C, H, W) | nhwc (H, W, C)
};

// A set of input files (quant.calibration / quant.evaluation): a path, a directory (its .npy,
// .png, .jpg and .jpeg files) or a glob pattern, sorted by name, the first `count` (0: all).
struct InputSet {
  std::string inputs;  // empty: none given
  uint64_t count = 0;
};

struct QuantOptions {
  InputSet calibration;
  // How a free activation group's clipping threshold is chosen (planner/quant/calibrator.h):
  // mse (clipping plus rounding error, at most 0.5 % clipped), minmax, percentile, entropy (KL).
  std::string method = "mse";
  double percentile = 99.99;  // method percentile: of |x|
  // The graph outputs' threshold x this factor (>= 1): room for held-out inputs whose logits
  // exceed every calibration image's (calibrator.h CalibrationOptions::output_headroom).
  double output_headroom = 1.0;
  // quant.calibration.bias_correction: each conv / fc bias less the mean output error its
  // weights' rounding causes on the calibration inputs (planner/quant/bias_correction.h).
  bool bias_correction = true;
  // quant.unsigned_activations: tensors holding no negative value (a ReLU's, ReLU6's, sigmoid's
  // output) stored as uint8 with zero point 0 (calibrator.h CalibrationOptions).
  bool unsigned_activations = true;
  InputSet evaluation;
  Preprocess preprocess;
};

struct RunConfig {
  std::string source;     // the run file path
  std::string arch_file;  // the arch file, usable from the current directory (empty: defaults)
  ArchConfig arch;
  std::vector<NetworkSpec> networks;
  std::string execution = "serial";  // serial | concurrent
  PlannerOptions planner;
  SimOptions sim;
  QuantOptions quant;
  std::string output_dir = "results/default";
};

}  // namespace strider
