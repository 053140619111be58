// `strider run RUN.yaml [--out DIR] [--set key=value ...] [--dump-tensors DIR]`: plan, lower,
// simulate, report. In functional mode a layer output that differs from the reference is
// described on stderr and the command exits 1 (after writing the reports).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>

#include "core/arch/config_loader.h"
#include "tb/cli_args.h"
#include "tb/commands.h"
#include "tb/list_run.h"
#include "tb/run_flow.h"
#include "tb/quant_report.h"
#include "tb/report_writer.h"
#include "tb/run_observers.h"
#include "tb/run_summary.h"
#include "tb/stage_progress.h"

namespace strider {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int run_command(const Args& args, std::ostream& out, std::ostream& err) {
  CliArgs cli(
      "run",
      "usage: strider run RUN.yaml [--out DIR] [--set key=value ...] [--dump-tensors DIR]\n"
      "       strider run LIST.strd --arch ARCH.yaml [--out DIR] [--set arch.key=value ...]",
      "Plans, lowers and simulates a run, then writes summary.json, layers.csv and the other\n"
      "reports to the output directory and prints a summary. Exit status: 0 ok, 1 failed run\n"
      "(bad input, deadlock, functional mismatch), 2 usage error.",
      "  RUN.yaml              a run file (network, arch, planner, sim and output_dir)\n"
      "  LIST.strd             or a descriptor list written by `strider plan --emit`\n",
      {{"out", "DIR", "write the reports to DIR (sets output_dir)"},
       {"set", "KEY=VALUE",
        "override a run-file key, e.g. arch.l2.size_bytes=524288 or sim.detail=layers "
        "(repeatable)"},
       {"dump-tensors", "DIR",
        "functional mode only: write every layer's output tensor to DIR"},
       {"arch", "ARCH.yaml", "the architecture a descriptor list (.strd) runs on"}});
  RunResult r;
  try {
    if (!cli.parse(args, out)) return 0;
    if (cli.positional().size() != 1) throw UsageError("expected one run file");
    std::vector<std::string> sets = cli.values("--set");
    if (cli.has("--out")) sets.push_back("output_dir=" + cli.value("--out"));
    if (is_list_path(cli.positional()[0])) {
      if (!cli.has("--arch")) throw UsageError("a descriptor list needs --arch ARCH.yaml");
      load_list_run(cli.positional()[0], cli.value("--arch"), sets, r);
    } else {
      if (cli.has("--arch")) throw UsageError("--arch goes with a descriptor list (.strd)");
      r.config = load_run(cli.positional()[0], sets);
    }
    if (cli.has("--dump-tensors")) {
      if (!r.config.sim.functional) {
        throw UsageError("--dump-tensors needs functional mode (sim.functional: true, e.g. --set "
                         "sim.functional=true)");
      }
      r.dump_tensors_dir = cli.value("--dump-tensors");
    }
  } catch (const UsageError& e) {
    return cli.usage_error(e.what(), err);
  } catch (const std::exception& e) {
    err << e.what() << "\n";
    return 1;
  }
  r.command_line = {"strider", "run"};
  r.command_line.insert(r.command_line.end(), args.begin(), args.end());
  return execute_run(r, out, err);
}

int execute_run(RunResult& r, std::ostream& out, std::ostream& err, const ExtraReports& extra) {
  try {
    // From here until run.json is written the directory does not look complete.
    std::vector<std::string> names = run_report_names();
    names.insert(names.end(), extra.names.begin(), extra.names.end());
    OutputDir dir(r.config.output_dir, run_inputs(r.config), "run.json", &names);
    std::optional<RunSummary> summary;
    double plan_s = 0, simulate_s = 0, reports_s = 0;
    {
      // Watches the simulation: unit tracks for trace.json, line-buffer occupancy, waves.vcd,
      // and a progress bar when stderr is a terminal. waves.vcd is closed at the end of scope.
      RunObservers observers("observers", r, isatty(STDERR_FILENO) ? &err : nullptr);
      const auto t0 = std::chrono::steady_clock::now();
      if (r.graph.nodes.empty() && !r.lowered.list.descriptors.empty()) {
        simulate_planned(r);  // an emitted list: nothing to plan
      } else {
        plan_run(r);
        plan_s = seconds_since(t0);
        simulate_planned(r);
      }
      r.wall_seconds = seconds_since(t0);
      simulate_s = r.wall_seconds - plan_s;
      if (!observers.vcd_error().empty()) {
        err << "waves.vcd not written: " << observers.vcd_error() << "\n";
      }
      const auto t1 = std::chrono::steady_clock::now();
      summary = summarise(r, &observers.timeline());
      write_reports(r, *summary, dir, &observers.timeline());
      if (extra.write) extra.write(r, *summary, dir);
      reports_s = seconds_since(t1);
    }
    if (r.config.sim.vcd) dir.adopt("waves.vcd");
    dir.finish(r.command_line);
    const RunSummary& s = *summary;
    if (r.record.deadlock) {
      err << r.record.deadlock_report << "\n";
      return 1;
    }
    print_summary(r, s, out);
    // Each stage's time: import, calibration (functional mode), planning, then simulate and
    // reports (an emitted list has no planning stages).
    std::vector<std::pair<std::string, double>> times = r.stage_seconds;
    if (times.empty() && plan_s > 0) times.emplace_back("import and plan", plan_s);
    times.emplace_back("simulate", simulate_s);
    times.emplace_back("reports", reports_s);
    out << "  stages           " << StageProgress::summary(times) << "\n";
    print_quant(r, out, err);
    out << "  results in " << r.config.output_dir << "/\n";
    if (!r.dump_tensors_dir.empty()) out << "  tensors in " << r.dump_tensors_dir << "/\n";
    if (r.mismatches > 0) {
      err << "functional check: " << r.mismatches << " of " << r.checked_tensors
          << " layer outputs differ from the reference\n";
      for (const std::string& d : r.functional_details) err << "  " << d << "\n";
      return 1;
    }
  } catch (const std::exception& e) {
    err << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace strider
