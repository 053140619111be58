// `strider sweep`: runs every point of a sweep file (tb/sweep_spec.h) as its own `strider run`
// process, N at a time, and collects one row per point in OUT/results.csv.
//
//   strider sweep FILE.yaml [-j N] [--out DIR] [--resume] [--shard K/N] [--timeout S] [--list]
//   strider sweep FILE.yaml --emit-slurm DIR [--shards N] [-j N] [--out DIR] [--sbatch OPT]...
//   strider sweep merge DIR... [--out DIR]
//
// OUT (default results/sweeps/<sweep file stem>) receives:
//   results.csv   point, the varied keys, the summary figures (sweep_figures.h),
//                 process_seconds, fingerprint (tb/sweep_fingerprint.h), error; a row is appended as each point finishes (see
//                 sweep_results.h for why a kill never leaves a torn row) and, once every
//                 point has run, the file is replaced by the same rows sorted by point id
//   points.csv    every point of the sweep: point, the varied keys (written at the start)
//   sweep.json    the sweep's identity (version, base run SHA-256, set:, keys, points)
//   points/<id>/  the point's run output (summary.json, layers.csv, ...) and stdout/stderr.txt
// --resume keeps the rows already in results.csv whose fingerprint is still the point's and runs
// the missing or stale points, saying how many were stale (without it
// a results.csv with rows is an error). A failed point gets a row with its error and the sweep
// goes on. --shard K/N runs the points i with i % N == K-1 (round-robin slices; the shards of
// one N are disjoint and cover the sweep); give each shard its own --out and join them with
// `strider sweep merge`. --list prints the expanded points and exits. --emit-slurm writes Slurm
// scripts for the sharded run (tb/sweep_slurm.h); --shards defaults to one per point, at most
// 100. Exit status: 0 when every selected point has a row without error, 1 when a point failed
// or the input is bad, 2 on a usage error, 130 when interrupted (rerun with --resume).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "tb/sweep_spec.h"

namespace strider {

// The columns of results.csv for `spec`.
std::vector<std::string> sweep_results_header(const SweepSpec& spec);

int sweep_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace strider
