// _strider: the module definition (see bindings.h).
#include <exception>

#include "python/bindings.h"

namespace py = pybind11;

PYBIND11_MODULE(_strider, m) {
  m.doc() = "Strider's planner in-process: networks, memory plans, descriptor lists.";
  static py::exception<std::exception> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::bad_alloc&) {
      throw;  // pybind11 turns it into MemoryError
    } catch (const std::exception& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  m.attr("version") = STRIDER_VERSION;
  m.attr("git_revision") = STRIDER_GIT_REVISION;
  strider::python::bind_network(m);
  strider::python::bind_descriptors(m);
  strider::python::bind_plan(m);
}
