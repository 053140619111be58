// `strider pack`: see pack_command.h. A thin command-line layer over memory::PackJob.
#include "tb/pack_command.h"

#include <cstdlib>
#include <string>

#include "planner/memory/allocator.h"
#include "planner/memory/pack_job.h"
#include "tb/cli_args.h"

namespace strider {
namespace {

int64_t parse_count(const std::string& opt, const std::string& text) {
  bool ok = !text.empty() && text.size() <= 18;
  for (char c : text) ok = ok && c >= '0' && c <= '9';
  if (!ok) throw UsageError(opt + " expects a non-negative integer, got '" + text + "'");
  return std::stoll(text);
}

double parse_seconds(const std::string& opt, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v > 0) || v > 1e6) {
    throw UsageError(opt + " expects a positive number of seconds, got '" + text + "'");
  }
  return v;
}

}  // namespace

int pack_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const char* usage =
      "usage: strider pack FILE.csv [--capacity N] [--allocator NAME] [--time-limit S] "
      "[--seed N] [--out SOLUTION.csv]";
  memory::PackRequest request;
  try {
    CliArgs cli(args, {"--capacity", "--allocator", "--time-limit", "--seed", "--out"}, {});
    if (cli.positional().size() != 1) throw UsageError("expected one problem file");
    request.input = cli.positional()[0];
    if (cli.has("--capacity")) request.capacity = parse_count("--capacity", cli.value("--capacity"));
    if (cli.has("--time-limit")) {
      request.time_limit_s = parse_seconds("--time-limit", cli.value("--time-limit"));
    }
    if (cli.has("--seed")) request.seed = static_cast<uint64_t>(parse_count("--seed", cli.value("--seed")));
    request.allocator = cli.value("--allocator", "auto");
    request.output = cli.value("--out");
    memory::make_allocator(request.allocator);  // unknown names: a usage error listing valid ones
  } catch (const UsageError& e) {
    err << "strider pack: " << e.what() << "\n" << usage << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    err << "strider pack: " << e.what() << "\n" << usage << "\n";
    return 2;
  }
  try {
    memory::PackJob job(request);
    memory::PackResult r = job.run();
    job.report(r, out);
  } catch (const std::exception& e) {
    err << "strider pack: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace strider
