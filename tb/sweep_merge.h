// SweepMerge: `strider sweep merge DIR... [--out DIR]` joins the results.csv of several shard
// directories (or results.csv files) into one: identical headers required, rows deduplicated by
// point id (a row without error wins over a failed one, otherwise the first input wins), sorted
// by point id. When an input holds points.csv (the full list of the sweep's points, written by
// every `strider sweep` run) the merge also names the points that have no row. Shards of
// different sweeps are refused (tb/sweep_fingerprint.h): inputs whose sweep.json differ, or rows
// whose fingerprints name another base run, set: or program version.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tb/sweep_results.h"

namespace strider {

struct MergeOutcome {
  ResultsTable table;
  size_t duplicates = 0;              // rows dropped as a second row of a point
  size_t expected = 0;                // points in points.csv (0: no points.csv found)
  std::vector<size_t> missing;        // ids listed in points.csv without a row
  std::vector<std::string> problems;  // inputs that could not be read (file: why)
};

// Merges the results of `inputs` (directories holding results.csv, or CSV files). Throws
// std::runtime_error when two inputs have different headers or none could be read.
MergeOutcome merge_results(const std::vector<std::string>& inputs);

// The table as CSV text (header line, then rows by point id).
std::string results_text(const ResultsTable& t);

}  // namespace strider
