// CalibrationInputs: the user's calibration and evaluation inputs (run keys quant.calibration /
// quant.evaluation, core/arch/run_config.h) as float tensors for a graph input.
//
// Files: a path, a directory (its .npy, .png, .jpg and .jpeg files) or a glob pattern, sorted by
// name, the first `count` (0: all). Images (PNG, JPEG; decoded by Debian's stb_image) become
// CHW floats with the run's preprocessing (Preprocess: pixel / 255, resize of the shorter side
// and centre crop, or a resize to H x W; bilinear with half-pixel centres and no antialiasing;
// (v - mean[c]) / std[c]; channels in rgb or bgr order); a grey image is replicated to three
// channels, an alpha channel dropped. .npy arrays (float32, float64 or uint8, little-endian, C
// order) of shape (C, H, W) or (1, C, H, W) in layout nchw, (H, W, C) or (1, H, W, C) in nhwc,
// are taken as they are (already preprocessed), uint8 as plain numbers.
//
// A graph input of batch N takes N files per sample. Errors (std::runtime_error) name the key,
// the file and what was expected.
#pragma once

#include <string>
#include <vector>

#include "core/arch/run_config.h"
#include "planner/ir/graph.h"

namespace strider {

// The files of `set` (key: its run key, for errors, e.g. "quant.calibration.inputs"); throws
// when the pattern names no file.
std::vector<std::string> input_files(const InputSet& set, const std::string& key);

// One file as `c` x `h` x `w` floats (CHW).
std::vector<float> load_input(const std::string& path, int64_t c, int64_t h, int64_t w,
                              const Preprocess& p, const std::string& key);

// The samples of `set` for graph input `t` (each t.shape.elements() floats: N files per sample
// for a batch of N); throws when fewer than N files are given. `names`, when given, receives each
// sample's first file.
std::vector<std::vector<float>> load_input_set(const InputSet& set, const Tensor& t,
                                               const Preprocess& p, const std::string& key,
                                               std::vector<std::string>* names = nullptr);

}  // namespace strider
