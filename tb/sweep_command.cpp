// `strider sweep` (see sweep_command.h).
#include "tb/sweep_command.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "arch/config_error.h"
#include "tb/cli_args.h"
#include "tb/sweep_figures.h"
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
    "       strider sweep merge DIR... [--out DIR]\n";

// `-j N` / `-jN` are spelled `--jobs N` for CliArgs.
std::vector<std::string> normalise(const std::vector<std::string>& args) {
  std::vector<std::string> a;
  for (const std::string& s : args) {
    if (s == "-j") {
      a.push_back("--jobs");
    } else if (s.size() > 2 && s.rfind("-j", 0) == 0 && s[2] != '-') {
      a.push_back("--jobs");
      a.push_back(s.substr(2));
    } else {
      a.push_back(s);
    }
  }
  return a;
}

size_t count_option(const CliArgs& cli, const std::string& opt, size_t fallback, size_t max) {
  if (!cli.has(opt)) return fallback;
  const std::string v = cli.value(opt);
  if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(v) < 1 || std::stoul(v) > max)
    throw UsageError((opt == "--jobs" ? "-j" : opt) + " " + v +
                     ": expected a whole number from 1 to " + std::to_string(max));
  return std::stoul(v);
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
  CliArgs cli(args, {"--out"}, {});
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
      timeout = std::stod(cli.value("--timeout"));
    } catch (const std::exception&) {
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
  SweepResults results(out_abs + "/results.csv", sweep_results_header(spec), cli.has("--resume"));
  // A row counts as done only for the point with the same parameter values (the grid may have
  // been edited since): rows are re-keyed by their values, rows of vanished points dropped.
  std::map<std::vector<std::string>, size_t> by_values;
  for (const SweepPoint& p : spec.points()) by_values.emplace(p.values, p.id);
  const size_t ncols = spec.columns().size();
  const size_t dropped = results.retain([&](const std::vector<std::string>& row) {
    const std::vector<std::string> values(row.begin() + 1, row.begin() + 1 + ncols);
    auto it = by_values.find(values);
    return it == by_values.end() ? std::nullopt : std::optional<size_t>(it->second);
  });
  if (dropped > 0) {
    err << "sweep: dropped " << dropped << " row" << (dropped == 1 ? "" : "s")
        << " of results.csv whose parameter values are no longer in the sweep\n";
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
        try {
          metrics = sweep_metrics(job.out_dir);
        } catch (const std::exception& e) {
          if (o.ok) error = e.what();  // a failed run usually wrote no summary: keep its error
        }
        row.insert(row.end(), metrics.begin(), metrics.end());
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.3f", o.seconds);
        row.push_back(secs);
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
  h.push_back("error");
  return h;
}

int sweep_command(const std::vector<std::string>& raw, std::ostream& out, std::ostream& err) {
  const std::vector<std::string> args = normalise(raw);
  try {
    if (!args.empty() && args[0] == "merge")
      return merge_command(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    CliArgs cli(args,
                {"--jobs", "--out", "--shard", "--timeout", "--emit-slurm", "--shards", "--sbatch"},
                {"--resume", "--list"});
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
    err << "strider sweep: " << e.what() << "\n" << kUsage;
    return 2;
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
