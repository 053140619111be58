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

Graph import_by_extension(const std::string& path, bool sized) {
  const std::string ext = extension(path);
  if (ext == "yaml" || ext == "yml") return import_yaml_network(path);
  if (ext == "csv") return import_scalesim_csv(path);
  if (ext == "onnx") return import_onnx(path, sized);
  throw std::runtime_error(path + ": unknown network file type '" + ext +
                           "' (expected .onnx, .yaml, .yml or .csv)");
}

}  // namespace

Graph import_network(const std::string& path, int64_t input_h, int64_t input_w) {
  if ((input_h == 0) != (input_w == 0) || input_h < 0 || input_w < 0) {
    throw std::runtime_error(path + ": input size override " + std::to_string(input_h) + "," +
                             std::to_string(input_w) + " must give both height and width > 0");
  }
  Graph g = import_by_extension(path, input_h > 0);
  if (input_h > 0) {
    for (int id : g.inputs) {
      g.tensors[id].shape.h = input_h;
      g.tensors[id].shape.w = input_w;
    }
    try {
      reinfer_shapes(&g);
      validate(g);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(path + ": with input size " + std::to_string(input_h) + "x" +
                               std::to_string(input_w) + ": " + e.what());
    }
  }
  return g;
}

Graph load_network(const std::string& path, int64_t input_h, int64_t input_w, uint64_t seed) {
  Graph g = import_network(path, input_h, input_w);
  materialise_parameters(&g, seed);
  return g;
}

}  // namespace strider
