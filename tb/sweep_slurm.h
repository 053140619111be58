// SweepSlurm: the Slurm job scripts for running a sweep on a cluster, written by
// `strider sweep FILE --emit-slurm DIR [--shards N] [-j J] [--sbatch OPTION]...`:
//
//   DIR/sweep_array.sbatch  an array job, task K (1..N) runs
//                           `strider sweep FILE --shard K/N --out OUT/shards/K --resume -j J`
//                           (--resume: a requeued task continues where it stopped)
//   DIR/merge.sbatch        `strider sweep merge OUT/shards/1 ... OUT/shards/N --out OUT`
//   DIR/submit.sh           submits the array, then the merge with --dependency=afterany on it
//   DIR/logs/               the tasks' stdout/stderr (%a = array index)
//
// Paths in the scripts are absolute (the strider program, the sweep file, OUT) so they run from
// any directory on a shared file system. Each script also runs under plain bash: set
// SLURM_ARRAY_TASK_ID=K to run shard K by hand.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace strider {

struct SlurmJob {
  std::string exe;         // absolute path of the strider program
  std::string sweep_file;  // absolute
  std::string out_dir;     // absolute; shards write OUT/shards/K, the merge OUT/results.csv
  std::string name;        // job name suffix (the sweep file's stem)
  size_t shards = 1;
  size_t jobs_per_shard = 1;              // -j of each task and its --cpus-per-task
  std::vector<std::string> sbatch_lines;  // extra `#SBATCH` options, e.g. "--partition=cpu"
};

// Writes the scripts into `dir` (created). Returns the paths written. Throws std::runtime_error.
std::vector<std::string> write_slurm_scripts(const SlurmJob& job, const std::string& dir);

// `text` quoted for a POSIX shell ('...' with embedded quotes escaped).
std::string shell_quote(const std::string& text);

}  // namespace strider
