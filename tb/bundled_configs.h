// BundledConfigs: where the configs/ that ship with Strider are when a command needs one it was
// not given (the regression suite, the seed arch of `strider scalesim`): configs/ under the
// current directory, else next to the program (build/strider -> ../configs, an installed
// bin/strider -> ../share/strider/configs).
#pragma once

#include <string>
#include <vector>

namespace strider {

// The first of the candidate paths of `relative` (e.g. "arch/seed.yaml") that is a regular file;
// empty when none is. `tried` (optional) receives every candidate, in order.
std::string find_bundled_config(const std::string& relative,
                                std::vector<std::string>* tried = nullptr);

}  // namespace strider
