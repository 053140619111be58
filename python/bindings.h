// The compiled half of the `strider` Python package (pybind11), in-process: the planner and the
// ground floor, never SystemC (the simulation runs the `strider` program in a child process, as
// SystemC elaborates once per process). Each binder adds one area's functions to the module;
// every C++ exception reaches Python as _strider.Error, which the package turns into
// strider.StriderError with the command.
#pragma once

#include <pybind11/pybind11.h>

namespace strider::python {

void bind_network(pybind11::module_& m);      // import_network
void bind_descriptors(pybind11::module_& m);  // DescriptorList: read, write, numpy, validate
void bind_plan(pybind11::module_& m);         // run_info, plan

}  // namespace strider::python
