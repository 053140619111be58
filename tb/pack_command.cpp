// `strider pack`: see pack_command.h. A thin command-line layer over memory::PackJob.
#include "tb/pack_command.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "core/arch/strict_number.h"
#include "planner/memory/allocator.h"
#include "planner/memory/pack_job.h"
#include "tb/cli_args.h"

namespace strider {
namespace {

// The report as JSON: the same figures as the text report, as numbers and booleans.
nlohmann::ordered_json report_json(const memory::PackRequest& q, const memory::PackResult& r) {
  nlohmann::ordered_json j;
  j["input"] = q.input;
  j["buffers"] = r.problem.buffers.size();
  j["lower_bound"] = r.lower_bound;
  j["height"] = r.solution.height;
  j["gap_percent"] = memory::gap_percent(r.solution.height, r.lower_bound);
  j["capacity"] = r.problem.capacity > 0 ? nlohmann::ordered_json(r.problem.capacity) : nullptr;
  j["allocator"] = r.solution.allocator;
  j["optimal"] = r.solution.height <= r.lower_bound || r.solution.proven_optimal;
  j["proven_by_search"] = r.solution.height > r.lower_bound && r.solution.proven_optimal;
  j["stacked"] = r.solution.stacked;
  j["seconds"] = r.solution.seconds;
  j["read_seconds"] = r.read_seconds;
  j["solution"] = q.output.empty() ? nullptr : nlohmann::ordered_json(q.output);
  return j;
}

}  // namespace

int pack_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string allocators;
  for (const std::string& n : memory::allocator_names())
    allocators += (allocators.empty() ? "" : ", ") + n + (n == "auto" ? " (default)" : "");
  CliArgs cli("pack",
              "usage: strider pack FILE.csv [--capacity N] [--allocator NAME] [--time-limit S] "
              "[--seed N] [--out SOLUTION.csv] [--json]",
              "Solves a memory-planning problem (buffers with lifetimes and sizes) and reports the\n"
              "peak, the lower bound and whether the placement is proven optimal.",
              "  FILE.csv              id,lower,upper,size[,alignment][,offset], one buffer a row\n",
              {{"capacity", "N", "bytes available, 0 for unbounded (default: N of a file named A.N.csv, else 0)"},
               {"allocator", "NAME", "the allocator: " + allocators},
               {"time-limit", "S", "seconds the search may take (a positive number)"},
               {"seed", "N", "seed of the randomised search (default 1)"},
               {"out", "SOLUTION.csv", "write the offsets found to SOLUTION.csv"},
               {"json", "", "print the report as JSON (numbers, not text)"}});
  memory::PackRequest request;
  try {
    if (!cli.parse(args, out)) return 0;
    if (cli.positional().size() != 1) throw UsageError("expected one problem file");
    request.input = cli.positional()[0];
    if (cli.has("--capacity")) {
      const uint64_t c = parse_u64(cli.value("--capacity"), "--capacity");
      if (c > uint64_t{1} << 62) throw UsageError("--capacity " + cli.value("--capacity") + ": above 2^62");
      request.capacity = static_cast<int64_t>(c);
    }
    if (cli.has("--time-limit")) {
      request.time_limit_s = parse_double(cli.value("--time-limit"), "--time-limit");
      if (!(request.time_limit_s > 0) || request.time_limit_s > 1e6)
        throw UsageError("--time-limit expects a positive number of seconds up to 1e6, got '" +
                         cli.value("--time-limit") + "'");
    }
    if (cli.has("--seed")) request.seed = parse_u64(cli.value("--seed"), "--seed");
    request.allocator = cli.value("--allocator", "auto");
    request.output = cli.value("--out");
    memory::make_allocator(request.allocator);  // unknown names: a usage error listing valid ones
  } catch (const UsageError& e) {
    return cli.usage_error(e.what(), err);
  } catch (const std::invalid_argument& e) {
    return cli.usage_error(e.what(), err);
  }
  try {
    memory::PackJob job(request);
    memory::PackResult r = job.run();
    if (cli.has("--json")) {
      out << report_json(request, r).dump(2) << "\n";
    } else {
      job.report(r, out);
    }
  } catch (const std::exception& e) {
    err << "strider pack: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace strider
