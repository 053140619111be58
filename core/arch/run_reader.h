// Reading the run-level keys of a run file (networks, execution, planner, sim, output_dir) into a
// RunConfig, plus the path helpers the loader shares: resolve_path() turns a path written in a
// file (or a --set) into one usable from the current directory, and normalize_run_tree() rewrites
// shorthands (`arch: FILE`, `- NETWORK_FILE`) into maps so that `--set arch.*` becomes an inline
// override and `--set networks[i].*` works on a bare path.
#pragma once

#include <string>

#include "core/arch/config_node.h"
#include "core/arch/diagnostics.h"
#include "core/arch/field_reader.h"
#include "core/arch/run_config.h"

namespace strider::config {

// `written` resolved against `base_dir` (absolute), lexically normalised, then expressed relative
// to the current directory when it lies inside it, else absolute.
std::string resolve_path(const std::string& base_dir, const std::string& written);

// Empty when `path` names an existing file, else `file not found: PATH` or `is a directory...`.
std::string file_problem(const std::string& path);

// Rewrites the shorthands of a run tree into their long form, keeping origins, so that `--set`
// paths reach into them: `arch: FILE` -> `arch: {file: FILE}` and a network item `- FILE` ->
// `- {path: FILE}`. Anything else is left alone (and reported when read).
void normalize_run_tree(ConfigNode& root);

// Reads networks, execution, planner, sim and output_dir through `top` (the run file's top-level
// reader) into `run`, with their checks. `file` locates errors about missing keys.
void read_run_fields(FieldReader& top, const Origin& file, RunConfig& run, Diagnostics& diags);

}  // namespace strider::config
