// The body shared by the network importer targets: write the bytes to a file with the reader's
// extension, import it, then validate the graph and compute its totals (what `strider inspect`
// does next). Errors must be exceptions derived from std::exception; with STRIDER_FUZZ_STRICT=1
// their message must also name the file.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "fuzz/fuzz_input.h"
#include "planner/ir/graph.h"

namespace strider::fuzz {

template <typename Import>
int run_network_target(const uint8_t* data, size_t size, const char* file_name, Import import) {
  if (size > kMaxInputBytes) return -1;
  const std::string path = TempDir::get().write(file_name, data, size);
  try {
    Graph g = import(path);
    validate(g);
    (void)graph_totals(g);
  } catch (const std::exception& e) {
    static const bool strict = std::getenv("STRIDER_FUZZ_STRICT") != nullptr;
    if (strict && std::string(e.what()).find(path) == std::string::npos) {
      std::fprintf(stderr, "error message does not name the file: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}

}  // namespace strider::fuzz
