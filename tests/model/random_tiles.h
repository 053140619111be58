// Seeded random tiles of every op kind, both mappings and random machines, for the stepped
// references' tests (tile_work_stepped_test.cpp, row_pieces_stepped_test.cpp).
#pragma once

#include <cstdint>
#include <random>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"

namespace strider::random_tiles {

using Rng = std::mt19937_64;

inline uint32_t pick(Rng& rng, uint32_t lo, uint32_t hi) {  // uniform in [lo, hi]
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}
inline bool coin(Rng& rng, double p = 0.5) { return std::bernoulli_distribution(p)(rng); }

inline TensorRef tensor(uint32_t c, uint32_t h, uint32_t w, uint8_t element_bytes = 1) {
  return TensorRef{MemSpace::kL2, 0, c, h, w, w * element_bytes, h * w * element_bytes,
                   element_bytes};
}

struct Tile {
  OpDesc op;
  L1Config l1;
  NeuronConfig nc;
  bool stream = false;  // row pieces: the tile walks one stream (TileWork::streamed)
  bool hybrid = false;  // row pieces: the partial last run in the channels form (tail_positions)
};

enum class Kind {
  kConv,
  kPointwise,
  kMaxPool,
  kAvgPool,
  kGlobalPool,
  kFc,
  kAdd,
  kMul,
  kAct,
  kSoftmax
};
inline constexpr int kKinds = 10;

// A random tile of `kind`: its layer, a block of its rows and channels, its mapping and a random
// machine (lines, line width, lanes, accumulators, kernel region, shift stride, padding in block).
Tile random_tile(Rng& rng, Kind kind);

}  // namespace strider::random_tiles
