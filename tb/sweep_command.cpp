// `strider sweep` (see sweep_command.h).
#include "tb/sweep_command.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>

#include "core/arch/config_error.h"
#include "core/arch/strict_number.h"
#include "tb/cli_args.h"
#include "tb/sweep_figures.h"
#include "tb/sweep_fingerprint.h"
#include "tb/sweep_merge.h"
#include "tb/sweep_results.h"
#include "tb/sweep_runner.h"
#include "tb/sweep_slurm.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

constexpr char kUsage[] =
    "usage: strider sweep FILE.yaml [-j N] [--out DIR] [--resume] [--shard K/N] [--timeout S] "
    "[--list]\n"
    "       strider sweep FILE.yaml --emit-slurm DIR [--shards N] [-j N] [--out DIR] "
    "[--sbatch OPTION]...\n"
    "       strider sweep merge DIR... [--out DIR]";

CliArgs sweep_cli() {
  return CliArgs(
      "sweep", kUsage,
      "Runs every point of a sweep (a base run file and the keys to vary), each in its own\n"
      "process, and collects one row per point in results.csv. `strider sweep merge --help`\n"
      "describes merging the shards of a sweep run on a cluster.",
      "  FILE.yaml             the sweep file (base: RUN.yaml, vary: KEY: [values])\n",
      {{"jobs,j", "N", "run N points at a time (1 to 1024, default 1)"},
       {"out", "DIR", "the sweep's directory (default results/sweeps/<sweep name>)"},
       {"resume", "", "keep the rows already in DIR/results.csv and run only the others"},
       {"shard", "K/N", "run only shard K of N (1 <= K <= N), one N-th of the points"},
       {"timeout", "S", "stop a point that runs longer than S seconds (a positive number)"},
       {"list", "", "print the points and their settings, run nothing"},
       {"emit-slurm", "DIR", "write Slurm array-job scripts to DIR instead of running"},
       {"shards", "N",
        "with --emit-slurm: the number of array tasks (default: the points, at most 100)"},
       {"sbatch", "OPTION", "with --emit-slurm: an extra #SBATCH line (repeatable)"}});
}

// A count option: a whole number from 1 to `max`, or `fallback` when absent.
size_t count_option(const CliArgs& cli, const std::string& opt, size_t fallback, size_t max) {
  if (!cli.has(opt)) return fallback;
  const std::string name = opt == "--jobs" ? "-j" : opt;
  uint64_t v = 0;
  try {
    v = parse_u64(cli.value(opt), name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (v < 1 || v > max)
    throw UsageError(name + " " + cli.value(opt) + ": expected a whole number from 1 to " +
                     std::to_string(max));
  return v;
}

std::string absolute(const std::string& p) {
  std::error_code ec;
  return fs::absolute(p, ec).lexically_normal().string();
}

void write_points_csv(const SweepSpec& spec, const std::string& out_dir) {
  std::vector<std::string> head = {"point"};
  head.insert(head.end(), spec.columns().begin(), spec.columns().end());
  std::string text = csv::join(head) + "\n";
  for (const SweepPoint& p : spec.points()) {
    std::vector<std::string> row = {std::to_string(p.id)};
    row.insert(row.end(), p.values.begin(), p.values.end());
    text += csv::join(row) + "\n";
  }
  write_file_atomic(out_dir + "/points.csv", text);
}

int merge_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CliArgs cli("sweep merge", "usage: strider sweep merge DIR... [--out DIR]",
              "Merges the results.csv of the shards of one sweep into one table sorted by point,\n"
              "dropping duplicate rows and listing points that have none.",
              "  DIR...                shard directories (or their results.csv files)\n",
              {{"out", "DIR", "write DIR/results.csv instead of printing the table"}});
  if (!cli.parse(args, out)) return 0;
  if (cli.positional().empty()) throw UsageError("merge needs at least one shard directory");
  const MergeOutcome m = merge_results(cli.positional());
  for (const std::string& p : m.problems) err << "strider sweep merge: " << p << "\n";
  const std::string text = results_text(m.table);
  if (cli.has("--out")) {
    const std::string dir = cli.value("--out");
    std::error_code ec;
    fs::create_directories(dir, ec);
    write_file_atomic(dir + "/results.csv", text);
    out << "merged " << m.table.rows.size() << " rows into " << dir << "/results.csv";
    if (m.duplicates) out << " (" << m.duplicates << " duplicate rows dropped)";
    out << "\n";
  } else {
    out << text;
  }
  if (!m.missing.empty()) {
    err << "strider sweep merge: " << m.missing.size() << " of " << m.expected
        << " points have no row:";
    for (size_t id : m.missing) err << " " << id;
    err << "\n";
  }
  return m.problems.empty() && m.missing.empty() ? 0 : 1;
}

int emit_slurm(const SweepSpec& spec, const CliArgs& cli, const std::string& out_dir,
               std::ostream& out) {
  SlurmJob job;
  job.exe = self_exe();
  job.sweep_file = spec.file();
  job.out_dir = absolute(out_dir);
  job.name = fs::path(spec.file()).stem().string();
  job.shards = count_option(cli, "--shards", std::min<size_t>(spec.points().size(), 100), 100000);
  job.jobs_per_shard = count_option(cli, "--jobs", 1, 1024);
  job.sbatch_lines = cli.values("--sbatch");
  for (const std::string& p : write_slurm_scripts(job, cli.value("--emit-slurm"))) out << p << "\n";
  out << job.shards << " shards of " << spec.points().size() << " points; submit with "
      << cli.value("--emit-slurm") << "/submit.sh\n";
  return 0;
}

int run_sweep(const SweepSpec& spec, const CliArgs& cli, const std::string& out_dir,
              std::ostream& out, std::ostream& err) {
  const size_t jobs = count_option(cli, "--jobs", 1, 1024);
  double timeout = 0;
  if (cli.has("--timeout")) {
    try {
      timeout = parse_double(cli.value("--timeout"), "--timeout");
    } catch (const std::invalid_argument&) {
      timeout = -1;
    }
    if (!(timeout > 0))
      throw UsageError("--timeout " + cli.value("--timeout") + ": expected seconds > 0");
  }
  std::vector<size_t> ids;
  std::string shard_text;
  if (cli.has("--shard")) {
    size_t k = 0, n = 0;
    try {
      parse_shard(cli.value("--shard"), k, n);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    ids = shard_ids(spec.points().size(), k, n);
    shard_text = " (shard " + cli.value("--shard") + ": " + std::to_string(ids.size()) + ")";
  } else {
    for (const SweepPoint& p : spec.points()) ids.push_back(p.id);
  }

  const std::string out_abs = absolute(out_dir);
  std::error_code ec;
  fs::create_directories(out_abs, ec);
  if (ec) throw std::runtime_error(out_dir + ": cannot create: " + ec.message());
  // One sweep per directory at a time: a second one would interleave rows and re-run points.
  const int lock = ::open((out_abs + "/.sweep.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX | LOCK_NB) != 0)
    throw std::runtime_error(out_dir + " is in use by another strider sweep (lock " + out_dir +
                             "/.sweep.lock)");
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  write_points_csv(spec, out_abs);
  const SweepIdentity identity = SweepIdentity::of(spec);
  write_file_atomic(out_abs + "/sweep.json", identity.json());
  const std::vector<std::string> header = sweep_results_header(spec);
  SweepResults results(out_abs + "/results.csv", header, cli.has("--resume"));
  // A row counts as done only for the point with the same parameter values (the grid may have
  // been edited since) and the same fingerprint (base run content, set:, program version): rows
  // are re-keyed by their values; rows of vanished points, or made for another base run, set:
  // or program, are dropped (and their points run again).
  std::map<std::vector<std::string>, size_t> by_values;
  for (const SweepPoint& p : spec.points()) by_values.emplace(p.values, p.id);
  const size_t ncols = spec.columns().size();
  const size_t fp_col = header.size() - 2;
  size_t stale = 0;
  const size_t dropped = results.retain([&](const std::vector<std::string>& row) {
    const std::vector<std::string> values(row.begin() + 1, row.begin() + 1 + ncols);
    auto it = by_values.find(values);
    if (it == by_values.end()) return std::optional<size_t>();
    if (row[fp_col] != identity.fingerprint(spec.points()[it->second])) {
      ++stale;
      return std::optional<size_t>();
    }
    return std::optional<size_t>(it->second);
  });
  if (dropped > stale) {
    err << "sweep: dropped " << dropped - stale << " row" << (dropped - stale == 1 ? "" : "s")
        << " of results.csv whose parameter values are no longer in the sweep\n";
  }
  if (stale > 0) {
    err << "sweep: " << stale << " row" << (stale == 1 ? "" : "s")
        << " of results.csv made with another base run, set: or program version (fingerprint "
           "differs): running "
        << (stale == 1 ? "it" : "them") << " again\n";
  }

  std::vector<PointJob> todo;
  for (size_t id : ids) {
    if (results.done().count(id)) continue;
    const SweepPoint& p = spec.points()[id];
    PointJob j;
    j.id = id;
    j.label = "point " + std::to_string(id);
    j.run_file = spec.base();
    j.sets = p.sets;
    j.out_dir = out_abs + "/points/" + std::to_string(id);
    j.cwd = spec.dir();
    todo.push_back(j);
  }
  err << "sweep " << spec.file() << ": " << spec.points().size() << " points" << shard_text << ", "
      << ids.size() - todo.size() << " already in results.csv, running " << todo.size()
      << " with -j " << jobs << "\n";

  const auto start = std::chrono::steady_clock::now();
  SweepProgress progress(err, todo.size(), ::isatty(2) == 1);
  SweepRunner runner(self_exe(), jobs, timeout);
  runner.run(
      todo,
      [&](const PointJob& job, const PointOutcome& o) {
        std::vector<std::string> row = {std::to_string(job.id)};
        const SweepPoint& p = spec.points()[job.id];
        row.insert(row.end(), p.values.begin(), p.values.end());
        std::vector<std::string> metrics(sweep_metric_keys().size());
        std::string error = o.error;
        // Only a run that succeeded wrote its summary (a failed one may leave an earlier one).
        if (o.ok) {
          try {
            metrics = sweep_metrics(job.out_dir);
          } catch (const std::exception& e) {
            error = e.what();
          }
        }
        row.insert(row.end(), metrics.begin(), metrics.end());
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.3f", o.seconds);
        row.push_back(secs);
        row.push_back(identity.fingerprint(p));
        row.push_back(error);
        results.append(row);
      },
      &progress);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Every point ran: leave the file sorted by point id (atomically replaced, rows unchanged).
  const std::string results_path = out_abs + "/results.csv";
  write_file_atomic(results_path, results_text(read_results(results_path)));

  size_t rows = 0, failed = 0;
  for (size_t id : ids) {
    auto it = results.done().find(id);
    if (it == results.done().end()) continue;
    ++rows;
    if (!it->second.back().empty()) ++failed;
  }
  char w[32];
  std::snprintf(w, sizeof w, "%.2f", wall);
  out << rows << " of " << ids.size() << " points in " << out_dir << "/results.csv";
  if (failed) out << ", " << failed << " failed (see the error column)";
  out << "; ran " << todo.size() << " in " << w << " s\n";
  return failed == 0 && rows == ids.size() ? 0 : 1;
}

}  // namespace

std::vector<std::string> sweep_results_header(const SweepSpec& spec) {
  std::vector<std::string> h = {"point"};
  h.insert(h.end(), spec.columns().begin(), spec.columns().end());
  for (const std::string& k : sweep_metric_keys()) {
    // A summary figure named like a varied run key (planner.allocator) gets a "result." prefix.
    const bool clash = std::count(spec.columns().begin(), spec.columns().end(), k) > 0;
    h.push_back(clash ? "result." + k : k);
  }
  h.push_back("process_seconds");
  h.push_back("fingerprint");
  h.push_back("error");
  return h;
}

int sweep_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CliArgs cli = sweep_cli();
  try {
    if (!args.empty() && args[0] == "merge")
      return merge_command(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    if (!cli.parse(args, out)) return 0;
    if (cli.positional().size() != 1) throw UsageError("expected one sweep file");
    const SweepSpec spec = SweepSpec::load(cli.positional()[0]);
    const std::string out_dir =
        cli.value("--out", "results/sweeps/" + fs::path(spec.file()).stem().string());
    if (cli.has("--list")) {
      for (const SweepPoint& p : spec.points()) {
        out << p.id;
        for (const std::string& s : p.sets) out << "  " << s;
        out << "\n";
      }
      return 0;
    }
    if (cli.has("--emit-slurm")) return emit_slurm(spec, cli, out_dir, out);
    return run_sweep(spec, cli, out_dir, out, err);
  } catch (const UsageError& e) {
    return cli.usage_error(e.what(), err);
  } catch (const SweepInterrupted& e) {
    err << "strider sweep: " << e.what() << "; finished points are in results.csv, rerun with "
        << "--resume to continue\n";
    return 130;
  } catch (const std::exception& e) {
    err << "strider sweep: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace strider
