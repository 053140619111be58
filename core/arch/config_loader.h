// Configuration loading: arch files (configs/arch/*.yaml, top-level key `arch:`) and run files
// (configs/runs/*.yaml, DESIGN section 5), with `--set key.path=value` overrides applied to the
// YAML tree before validation. Every problem is collected and thrown at once as a ConfigError
// whose lines read `FILE:LINE: full.key.path: message` (or `--set k=v: ...` when the value came
// from an override). Plain C++ and yaml-cpp; no SystemC.
//
// Run file keys:
//   arch:       an arch file path (relative to the run file), or a map `{file: PATH, <section>:
//               {<key>: value}...}` of inline overrides on top of that file (no `file`: the
//               built-in defaults of arch_config.h, i.e. the seed architecture)
//   networks:   list of {path (relative to the run file), name (default: file stem),
//               input: [H, W] (optional), seed (optional)}; a bare string is a path
//   execution:  serial | concurrent
//   planner:    {allocator, schedule: dfs | memory, time_limit_s, image_segments}
//   sim:        {functional, trace, vcd, watchdog_cycles}
//   output_dir: relative to the current directory
// `--set` keys use the same paths (`arch.l2.size_bytes=524288`, `networks[0].input=[32, 32]`,
// `sim.functional=true`, `output_dir=out/x`); their values are parsed as YAML, relative paths in
// them resolve against the current directory, and `--set arch=FILE` replaces the whole arch
// (while `--set arch.file=FILE` keeps the run's inline overrides).
//
// Paths in the result (RunConfig::arch_file, NetworkSpec::path) are usable from the current
// directory: relative to it when inside it, absolute otherwise.
#pragma once

#include <string>
#include <vector>

#include "core/arch/arch_config.h"
#include "core/arch/config_error.h"
#include "core/arch/config_writer.h"
#include "core/arch/run_config.h"

namespace strider {

// Loads an arch file. `overrides` are `key.path=value` assignments like run `--set`s, written
// either `arch.l2.size_bytes=524288` or `l2.size_bytes=524288`. Throws ConfigError.
ArchConfig load_arch(const std::string& path, const std::vector<std::string>& overrides = {});

// The built-in (seed) arch with `overrides` applied, as load_arch's. Throws ConfigError.
ArchConfig default_arch(const std::vector<std::string>& overrides);

// Loads a run file, applying `sets` (`key.path=value`) in order. Throws ConfigError.
RunConfig load_run(const std::string& path, const std::vector<std::string>& sets = {});

}  // namespace strider
