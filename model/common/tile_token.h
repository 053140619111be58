// TileToken: what travels down the compute pipeline (load unit -> neuron array -> store unit) for
// one operation descriptor: the descriptor, its closed-form work, the times each stage finished,
// and in functional mode the computed output bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "core/timing/tile_work.h"
#include "core/contract/descriptor.h"

namespace strider {

struct TileToken {
  const Descriptor* desc = nullptr;
  TileWork work;
  uint64_t load_end = 0;     // cycle the last line-buffer fill was written
  uint64_t neuron_end = 0;   // cycle the last result left the post-op pipeline
  std::vector<int8_t> output;  // functional mode: [channel][row][col] of the tile
};

}  // namespace strider
