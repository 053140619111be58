// `strider run RUN.yaml [--out DIR] [--set key=value ...]`: plan, lower, simulate, report.
#include <fstream>

#include "model/config/config_loader.h"
#include "tb/cli_args.h"
#include "tb/commands.h"
#include "tb/report_writer.h"
#include "tb/run_summary.h"

namespace strider {

int run_command(const Args& args, std::ostream& out, std::ostream& err) {
  const char* usage = "usage: strider run RUN.yaml [--out DIR] [--set key=value ...]";
  RunResult r;
  try {
    CliArgs cli(args, {"--out", "--set"}, {});
    if (cli.positional().size() != 1) throw UsageError("expected one run file");
    std::vector<std::string> sets = cli.values("--set");
    if (cli.has("--out")) sets.push_back("output_dir=" + cli.value("--out"));
    r.config = load_run(cli.positional()[0], sets);
  } catch (const UsageError& e) {
    err << "strider run: " << e.what() << "\n" << usage << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << e.what() << "\n";
    return 1;
  }
  try {
    simulate_run(r);
    const RunSummary s = summarise(r);
    write_reports(r, s, r.config.output_dir);
    if (r.record.deadlock) {
      err << r.record.deadlock_report << "\n";
      return 1;
    }
    print_summary(r, s, out);
    out << "  results in " << r.config.output_dir << "/\n";
  } catch (const std::exception& e) {
    err << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace strider
