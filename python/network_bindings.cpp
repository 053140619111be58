// import_network: a network file (ONNX, YAML, SCALE-Sim CSV) imported in-process; the layers
// as `strider inspect --json` lists them, every tensor, and the weights and biases as numpy
// arrays (materialised as a run would: seeded pseudo-random values where the file has none).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>

#include "planner/import/network_loader.h"
#include "python/bindings.h"
#include "tb/network_summary.h"

namespace py = pybind11;

namespace strider::python {
namespace {

const char* kind_name(TensorKind k) {
  switch (k) {
    case TensorKind::kActivation:
      return "activation";
    case TensorKind::kWeight:
      return "weight";
    case TensorKind::kBias:
      return "bias";
  }
  return "?";
}

template <typename T>
py::array_t<T> array_of(const std::vector<T>& v, const TensorShape& s, bool weight) {
  std::vector<py::ssize_t> shape;
  if (weight) {
    shape = {py::ssize_t(s.n), py::ssize_t(s.c), py::ssize_t(s.h), py::ssize_t(s.w)};
  } else {
    shape = {py::ssize_t(v.size())};
  }
  py::array_t<T> a(shape);
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

py::dict import_network_py(const std::string& path, int64_t input_h, int64_t input_w, int64_t batch,
                           uint64_t seed, bool materialise) {
  Graph g;
  {
    py::gil_scoped_release release;
    ImportOptions opt;
    opt.input_h = input_h;
    opt.input_w = input_w;
    opt.batch = batch;
    g = import_network(path, opt);
    if (materialise) materialise_parameters(&g, seed);
  }
  py::dict d;
  d["summary"] = network_json(g).dump();
  py::list tensors;
  py::dict weights;
  for (const Tensor& t : g.tensors) {
    py::dict e;
    e["name"] = t.name;
    e["kind"] = kind_name(t.kind);
    e["shape"] = py::make_tuple(t.shape.n, t.shape.c, t.shape.h, t.shape.w);
    e["bytes"] = t.bytes();
    e["scale"] = t.scale;
    tensors.append(e);
    if (!materialise) continue;  // inspect: the layers and tensors only, no arrays copied
    if (t.kind == TensorKind::kWeight && !t.data.empty()) {
      weights[py::str(t.name)] = array_of(t.data, t.shape, true);
    } else if (t.kind == TensorKind::kBias && !t.bias.empty()) {
      weights[py::str(t.name)] = array_of(t.bias, t.shape, false);
    }
  }
  py::list nodes;
  for (const Node& n : g.nodes) {
    py::dict e;
    e["name"] = n.name;
    e["weights"] = n.weights >= 0 ? py::object(py::str(g.tensors[n.weights].name)) : py::none();
    e["bias"] = n.bias >= 0 ? py::object(py::str(g.tensors[n.bias].name)) : py::none();
    nodes.append(e);
  }
  d["tensors"] = tensors;
  d["arrays"] = weights;
  d["nodes"] = nodes;
  d["warnings"] = g.warnings;
  return d;
}

}  // namespace

void bind_network(py::module_& m) {
  m.def("import_network", &import_network_py, py::arg("path"), py::arg("input_h") = 0,
        py::arg("input_w") = 0, py::arg("batch") = 0, py::arg("seed") = 1,
        py::arg("materialise") = true,
        "Imports a network file; returns summary (inspect --json text), tensors, arrays "
        "(weights and biases by tensor name), nodes (their weight and bias tensor names), "
        "warnings.");
}

}  // namespace strider::python
