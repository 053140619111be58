// `strider plan RUN.yaml [--emit LIST.strd] [--text LIST.yaml] [--out DIR] [--set key=value]`:
// plans and lowers without simulating; prints the plan summary and writes plan_memory.csv and
// plan_lowering.csv (names of its own: a run's memory_plan.csv in the same directory is left
// alone), each written under a temporary name and renamed into place, and plan.json listing
// them (tb/output_dir.h: a file there that strider did not write is never overwritten).
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>

#include "core/arch/config_loader.h"
#include "core/common/csv.h"
#include "tb/cli_args.h"
#include "tb/commands.h"
#include "tb/output_dir.h"
#include "tb/plan_tables.h"
#include "tb/report_writer.h"
#include "tb/run_harness.h"

namespace strider {
namespace {

// plan_lowering.csv: per layer, the tiles and the bytes moved and why.
void write_lowering(const RunResult& r, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open for writing");
  write_csv_table(f, r.lowered.layers, [](const LayerReport& l, auto&& column) {
    for_each_lowering_field(l, column);
  });
}

}  // namespace

int plan_command(const Args& args, std::ostream& out, std::ostream& err) {
  CliArgs cli("plan",
              "usage: strider plan RUN.yaml [--emit LIST.strd] [--text LIST.yaml] [--check] "
              "[--out DIR] [--set key=value ...]",
              "Plans and lowers a run without simulating it: prints the memory plan's figures and\n"
              "writes plan_memory.csv and plan_lowering.csv to the output directory.",
              "  RUN.yaml              the run file\n",
              {{"out", "DIR", "write plan_memory.csv and plan_lowering.csv to DIR (sets output_dir)"},
               {"set", "KEY=VALUE", "override a run-file key (repeatable)"},
               {"emit", "LIST.strd", "write the descriptor list, binary, for `strider run`"},
               {"text", "LIST.yaml", "write the descriptor list as readable YAML"},
               {"check", "",
                "validate the list as `strider run` does (structure, limits, data flow) and "
                "print the check's processor time"}});
  RunResult r;
  std::string emit, text;
  bool check = false;
  double check_seconds = 0;
  try {
    if (!cli.parse(args, out)) return 0;
    if (cli.positional().size() != 1) throw UsageError("expected one run file");
    std::vector<std::string> sets = cli.values("--set");
    if (cli.has("--out")) sets.push_back("output_dir=" + cli.value("--out"));
    emit = cli.value("--emit");
    text = cli.value("--text");
    check = cli.has("--check");
    r.config = load_run(cli.positional()[0], sets);
  } catch (const UsageError& e) {
    return cli.usage_error(e.what(), err);
  } catch (const std::exception& e) {
    err << e.what() << "\n";
    return 1;
  }
  try {
    // Refused before planning: an output that is one of the inputs, a report-set file in the
    // output directory that strider did not write.
    const std::vector<std::string> inputs = run_inputs(r.config);
    if (!emit.empty()) refuse_input_as_output(emit, inputs, "--emit");
    if (!text.empty()) refuse_input_as_output(text, inputs, "--text");
    OutputDir dir(r.config.output_dir, inputs, "plan.json", &plan_report_names());
    plan_run(r);
    const Lowered& l = r.lowered;
    const std::string memory_plan = r.config.output_dir + "/plan_memory.csv";
    const std::string lowering = r.config.output_dir + "/plan_lowering.csv";
    write_memory_plan(l, dir.temp("plan_memory.csv"));
    dir.commit("plan_memory.csv");
    if (!emit.empty()) {
      write_whole_file(emit, "--emit", [&](std::ostream& f) { write_binary(l.list, f); });
    }
    if (!text.empty()) {
      write_whole_file(text, "--text", [&](std::ostream& f) { f << to_text(l.list); });
    }
    if (check) {
      // Processor time: the figure that does not depend on what else the machine runs.
      const std::clock_t c0 = std::clock();
      check_planned(r);
      check_seconds = double(std::clock() - c0) / CLOCKS_PER_SEC;
    }
    out << "plan: " << r.graph.name << " on " << r.config.arch.name << "\n"
        << "  activations  " << l.arena_bytes << " B (lower bound " << l.lower_bound_bytes
        << " B, allocator " << l.allocator << (l.proven_optimal ? ", optimal" : "") << ")\n"
        << "  staging      weight slots placed as scratch in the activation plan's holes; heap "
           "growth "
        << l.staging_bytes << " B, fast region " << l.fast_region_bytes << " B\n"
        << "  row bands    " << l.band_bytes << " B\n"
        << "  weights      " << l.weights_stored_bytes << " B stored of " << l.weights_total_bytes
        << " B (identical parameters stored once)\n"
        << "  L2           " << l.arena_bytes + l.staging_bytes + l.band_bytes << " of "
        << r.config.arch.l2.size_bytes << " B\n"
        << "  descriptors  " << l.list.descriptors.size() << " over " << l.list.layers.size()
        << " layers\n"
        << "  memory plan  " << memory_plan << "\n"
        << "  lowering     " << lowering << "\n";
    if (r.config.arch.lowering.mapping == "search") {  // wall clock: stdout only, not the files
      out << "  mapping      search over " << l.mapping.size() << " layers, weight slot "
          << l.weight_slot_bytes << " B, in " << std::fixed << std::setprecision(3)
          << l.search_seconds << " s\n";
      out.unsetf(std::ios::floatfield);
    }
    if (check) {
      out << "  checked      structure, limits and data flow in " << std::fixed
          << std::setprecision(3) << check_seconds << " s of processor time\n";
      out.unsetf(std::ios::floatfield);
    }
    if (r.models.size() > 1) {
      uint64_t arenas = 0, weights = 0;
      for (const ModelFigures& m : r.models) {
        out << "  model " << m.name << " alone: activations " << m.arena_bytes << " B, weights "
            << m.weights_stored_bytes << " B\n";
        arenas += m.arena_bytes;
        weights += m.weights_stored_bytes;
      }
      out << "  sharing saved " << arenas - std::min(arenas, l.arena_bytes)
          << " B of activations and " << weights - std::min(weights, l.weights_stored_bytes)
          << " B of weights against planning each model alone\n";
    }
    write_lowering(r, dir.temp("plan_lowering.csv"));
    dir.commit("plan_lowering.csv");
    std::vector<std::string> command = {"strider", "plan"};
    command.insert(command.end(), args.begin(), args.end());
    dir.finish(command);
  } catch (const std::exception& e) {
    err << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace strider
