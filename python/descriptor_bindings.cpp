// DescriptorList in Python: read and write the binary `.strd` form (each file written under a
// temporary name and renamed into place) and the readable YAML form, check it for an arch
// (the semantic validator every simulation runs first), and view it as a numpy structured array,
// one record per descriptor, the dependencies as one flat array indexed by deps_begin/deps_count.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/arch/config_loader.h"
#include "core/common/input_file.h"
#include "core/contract/descriptor.h"
#include "planner/lower/descriptor_validator.h"
#include "python/bindings.h"

namespace py = pybind11;

namespace strider::python {
namespace {

// One descriptor as a numpy record: the common fields, the move's and the op's main fields
// (zero where they do not apply). The full descriptor stays available through text().
struct DescriptorRow {
  uint32_t id, layer, deps_begin, deps_count;
  uint8_t kind;  // 0 move, 1 op
  uint8_t src_space, dst_space;
  uint64_t src_addr, dst_addr;
  uint32_t rows, row_bytes, src_stride, dst_stride;
  uint8_t op, mapping, act;
  uint64_t input_addr, weights_addr, output_addr;
  uint32_t in_c, in_h, in_w, out_c, out_h, out_w;
  uint16_t kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, pad_bottom, pad_right;
  uint32_t groups, row_begin, row_end, ch_begin, ch_end;
};

DescriptorRow row_of(const Descriptor& d, uint32_t deps_begin) {
  DescriptorRow r{};
  r.id = d.id;
  r.layer = d.layer;
  r.deps_begin = deps_begin;
  r.deps_count = uint32_t(d.deps.size());
  r.kind = uint8_t(d.kind);
  if (d.kind == DescKind::kMove) {
    const MoveDesc& m = d.move;
    r.src_space = uint8_t(m.src_space);
    r.dst_space = uint8_t(m.dst_space);
    r.src_addr = m.src_addr;
    r.dst_addr = m.dst_addr;
    r.rows = m.rows;
    r.row_bytes = m.row_bytes;
    r.src_stride = m.src_stride;
    r.dst_stride = m.dst_stride;
    return r;
  }
  const OpDesc& o = d.op;
  r.op = uint8_t(o.op);
  r.mapping = uint8_t(o.mapping);
  r.act = uint8_t(o.act);
  r.input_addr = o.input.addr;
  r.weights_addr = o.weights.addr;
  r.output_addr = o.output.addr;
  r.in_c = o.input.c, r.in_h = o.input.h, r.in_w = o.input.w;
  r.out_c = o.output.c, r.out_h = o.output.h, r.out_w = o.output.w;
  r.kernel_h = o.kernel_h, r.kernel_w = o.kernel_w, r.stride_h = o.stride_h,
  r.stride_w = o.stride_w;
  r.pad_top = o.pad_top, r.pad_left = o.pad_left, r.pad_bottom = o.pad_bottom;
  r.pad_right = o.pad_right;
  r.groups = o.groups, r.row_begin = o.row_begin, r.row_end = o.row_end;
  r.ch_begin = o.ch_begin, r.ch_end = o.ch_end;
  return r;
}

py::tuple to_numpy(const DescriptorList& list) {
  py::array_t<DescriptorRow> rows{py::ssize_t(list.descriptors.size())};
  DescriptorRow* out = rows.mutable_data();
  size_t ndeps = 0;
  for (const Descriptor& d : list.descriptors) ndeps += d.deps.size();
  py::array_t<uint32_t> deps{py::ssize_t(ndeps)};
  uint32_t* dp = deps.mutable_data();
  uint32_t k = 0;
  for (size_t i = 0; i < list.descriptors.size(); ++i) {
    out[i] = row_of(list.descriptors[i], k);
    for (uint32_t dep : list.descriptors[i].deps) dp[k++] = dep;
  }
  return py::make_tuple(rows, deps);
}

DescriptorList read_strd(const std::string& path) {
  std::istringstream f(read_input_file(path, kMaxDescriptorFileBytes));
  if (f.str().empty()) {
    throw std::runtime_error(path + ": empty file, expected a Strider descriptor list");
  }
  return read_binary(f, path);
}

// Written whole under PATH.partial, then renamed into place.
void write_file(const std::string& path, const std::string& bytes) {
  const std::string temp = path + ".partial";
  {
    std::ofstream f(temp, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open for writing");
    f << bytes;
    if (!f.flush()) {
      std::remove(temp.c_str());
      throw std::runtime_error(path + ": cannot write");
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw std::runtime_error(path + ": cannot rename " + temp + " into place");
  }
}

}  // namespace

void bind_descriptors(py::module_& m) {
  PYBIND11_NUMPY_DTYPE(DescriptorRow, id, layer, deps_begin, deps_count, kind, src_space, dst_space,
                       src_addr, dst_addr, rows, row_bytes, src_stride, dst_stride, op, mapping,
                       act, input_addr, weights_addr, output_addr, in_c, in_h, in_w, out_c, out_h,
                       out_w, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, pad_bottom,
                       pad_right, groups, row_begin, row_end, ch_begin, ch_end);
  py::class_<DescriptorList>(m, "DescriptorList",
                             "A planned descriptor list (core/contract/descriptor.h).")
      .def_static("read", &read_strd, py::arg("path"), "Reads a binary .strd file.")
      .def_static(
          "from_text",
          [](const std::string& text, const std::string& source) {
            return read_text(text, source);
          },
          py::arg("text"), py::arg("source") = "<text>", "Parses the readable YAML form.")
      .def(
          "write",
          [](const DescriptorList& l, const std::string& path) {
            std::ostringstream s;
            write_binary(l, s);
            write_file(path, s.str());
          },
          py::arg("path"), "Writes the binary .strd form (for `strider run LIST.strd`).")
      .def(
          "text", [](const DescriptorList& l) { return to_text(l); }, "The readable YAML form.")
      .def(
          "validate",
          [](const DescriptorList& l, const std::string& arch_file,
             const std::vector<std::string>& arch_sets, const std::string& source) {
            validate_descriptors(l, load_arch(arch_file, arch_sets), source);
          },
          py::arg("arch_file"), py::arg("arch_sets") = std::vector<std::string>{},
          py::arg("source") = "descriptor list",
          "Checks the list's meaning for an arch, as before every simulation; raises naming the "
          "descriptor, layer and field.")
      .def("to_numpy", &to_numpy, "(records, deps): one record per descriptor, deps flat.")
      .def("__len__", [](const DescriptorList& l) { return l.descriptors.size(); })
      .def("__eq__", [](const DescriptorList& a, const DescriptorList& b) { return a == b; })
      .def_readonly("version", &DescriptorList::version)
      .def_readonly("arch_fingerprint", &DescriptorList::arch_fingerprint)
      .def_readonly("layers", &DescriptorList::layers)
      .def_property_readonly("tensors", [](const DescriptorList& l) {
        py::list out;
        for (const TensorEntry& t : l.tensors) {
          py::dict e;
          e["name"] = t.name;
          e["role"] = to_string(t.role);
          e["space"] = to_string(t.space);
          e["addr"] = t.addr;
          e["bytes"] = t.bytes;
          out.append(e);
        }
        return out;
      });
  py::dict codes;
  for (int i = 0; i <= int(OpCode::kGelu); ++i) codes[py::int_(i)] = to_string(OpCode(i));
  m.attr("OP_NAMES") = codes;
}

}  // namespace strider::python
