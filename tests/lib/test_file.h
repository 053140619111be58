// The one helper the tests use to write an input file: `text` into NAME in the build directory
// (STRIDER_BINARY_DIR), returning its path.
#pragma once

#include <fstream>
#include <string>

namespace strider {

inline std::string write_test_file(const std::string& name, const std::string& text) {
  const std::string path = std::string(STRIDER_BINARY_DIR) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace strider
