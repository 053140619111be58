// SweepSpec: a sweep file (configs/sweeps/*.yaml) read and expanded into its points. A sweep is
// a base run plus the run keys to vary, each point being the base run with `--set key=value`
// overrides (the same key paths and YAML values `strider run --set` takes):
//
//   base: ../runs/resnet50.yaml        # required; relative to the sweep file
//   set: {sim.trace: false}            # optional; fixed overrides applied to every point
//   grid:                              # optional; cartesian product of its dimensions
//     arch.l2.size_bytes: [262144, 524288]
//     [arch.neurons.count, arch.l1.lines]: [[16, 16], [32, 32]]   # one dimension, two keys
//   zip:                               # optional; equal-length lists stepped in lock-step
//     arch.dram.bytes_per_cycle: [8, 16]
//     arch.dram.latency_cycles: [40, 20]
//   points:                            # optional; explicit list of maps key -> value
//     - {planner.allocator: greedy_by_size}
//     - {planner.allocator: best_fit, arch.l2.size_bytes: 65536}
//   max_points: 100000                 # optional; a sweep with more points is refused (default)
//
// Expansion: the factors present, in the order points, zip, grid dimensions (in file order), are
// multiplied out like an odometer, the last grid dimension varying fastest. A point's id is its
// index (0-based) in that order, so ids are stable for resume, shards and merge. A sweep with no
// factor has one point (the base run). Relative paths inside values (e.g. `networks`) resolve
// against the sweep file's directory: the runner starts each point there.
//
// Errors (ConfigError) name the sweep file, line and key and what was expected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace YAML {
class Node;
}

namespace strider {

// The text `--set` takes for a YAML value: plain scalars as written, quoted scalars quoted (so
// "true" stays a string), lists and maps in flow style.
std::string set_value_text(const YAML::Node& value);

constexpr uint64_t kDefaultMaxSweepPoints = 100000;

struct SweepPoint {
  size_t id = 0;
  std::vector<std::string> values;  // value text per SweepSpec::columns() ("" when not set)
  std::vector<std::string> sets;    // `key=value` overrides: the fixed set, then the varied keys
};

class SweepSpec {
 public:
  // Reads and expands `path`. Throws ConfigError.
  static SweepSpec load(const std::string& path);

  const std::string& file() const { return file_; }  // absolute path of the sweep file
  const std::string& dir() const { return dir_; }    // its directory (points run there)
  const std::string& base() const { return base_; }  // absolute path of the base run
  const std::vector<std::string>& columns() const { return columns_; }  // varied keys
  const std::vector<SweepPoint>& points() const { return points_; }
  const std::vector<std::string>& fixed() const { return fixed_; }  // the `set:` overrides

 private:
  std::string file_, dir_, base_;
  std::vector<std::string> fixed_;
  std::vector<std::string> columns_;
  std::vector<SweepPoint> points_;
};

// The ids of shard `k` of `n` (1 <= k <= n) of a sweep of `count` points: the points i with
// i % n == k - 1 (round-robin, so neighbouring grid points, often of similar cost, spread over
// the shards). The shards of one n are disjoint and together cover 0..count-1.
std::vector<size_t> shard_ids(size_t count, size_t k, size_t n);

// Parses "K/N" (1 <= K <= N). Throws std::invalid_argument with a message saying what was wrong.
void parse_shard(const std::string& text, size_t& k, size_t& n);

}  // namespace strider
