// Network loading front door (see network_loader.h).
#include "planner/import/network_loader.h"

#include <cctype>
#include <stdexcept>

#include "planner/import/onnx_importer.h"
#include "planner/import/scalesim_csv.h"
#include "planner/import/yaml_network.h"

namespace strider {
namespace {

std::string extension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext;
}

// `sized`: an input size override follows, so symbolic ONNX height and width are allowed.
Graph import_by_extension(const std::string& path, const ImportOptions& opt, bool sized) {
  const std::string ext = extension(path);
  if (ext == "yaml" || ext == "yml") return import_yaml_network(path);
  if (ext == "csv") return import_scalesim_csv(path, opt.scalesim);
  if (ext == "onnx") {
    OnnxInputDims dims;
    dims.batch = opt.batch;
    if (sized) dims.h = opt.input_h, dims.w = opt.input_w;
    return import_onnx(path, dims, opt.progress);
  }
  throw std::runtime_error(path + ": unknown network file type '" + ext +
                           "' (expected .onnx, .yaml, .yml or .csv)");
}

}  // namespace

Graph import_network(const std::string& path, const ImportOptions& opt) {
  const int64_t input_h = opt.input_h, input_w = opt.input_w;
  if ((input_h == 0) != (input_w == 0) || input_h < 0 || input_w < 0) {
    throw std::runtime_error(path + ": input size override " + std::to_string(input_h) + "," +
                             std::to_string(input_w) + " must give both height and width > 0");
  }
  if (opt.batch < 0) {
    throw std::runtime_error(path + ": batch " + std::to_string(opt.batch) + " must be >= 1");
  }
  if (input_h > 0 && extension(path) == "csv") {
    throw std::runtime_error(path + ": an input size (" + std::to_string(input_h) + "x" +
                             std::to_string(input_w) +
                             ") cannot be applied to a SCALE-Sim topology: each row gives its own "
                             "IFMAP size (edit the CSV instead)");
  }
  Graph g = import_by_extension(path, opt, input_h > 0);
  if (input_h > 0 || opt.batch > 0) {
    for (int id : g.inputs) {
      // A constant the importer made an input, with its values (Swin's relative-position bias
      // and shifted-window mask, Tensor::float_data) is not an image: its size stays.
      if (!g.tensors[id].float_data.empty()) continue;
      if (input_h > 0) {
        g.tensors[id].shape.h = input_h;
        g.tensors[id].shape.w = input_w;
      }
      if (opt.batch > 0) g.tensors[id].shape.n = opt.batch;
    }
    const std::string what = input_h > 0 ? "with input size " + std::to_string(input_h) + "x" +
                                               std::to_string(input_w)
                                         : "with batch " + std::to_string(opt.batch);
    try {
      reinfer_shapes(&g);
      validate(g);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(path + ": " + what + ": " + e.what());
    }
  }
  return g;
}

Graph import_network(const std::string& path, int64_t input_h, int64_t input_w) {
  ImportOptions opt;
  opt.input_h = input_h;
  opt.input_w = input_w;
  return import_network(path, opt);
}

Graph load_network(const std::string& path, int64_t input_h, int64_t input_w, uint64_t seed) {
  Graph g = import_network(path, input_h, input_w);
  materialise_parameters(&g, seed);
  return g;
}

}  // namespace strider
