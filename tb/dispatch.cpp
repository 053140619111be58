// The `strider` program's top level: `strider COMMAND [ARGS]`, `strider --help` (or `strider
// help`), `strider --version`, `strider help COMMAND`. Exit codes: 0 ok, 1 error, 2 usage.
#include <new>
#include <string>

#include "tb/commands.h"
#include "tb/version.h"

namespace strider {
namespace {

struct Command {
  const char* name;
  int (*fn)(const Args&, std::ostream&, std::ostream&);
  const char* help;
};

constexpr Command kCommands[] = {
    {"run", run_command, "simulate a run file (or a planned descriptor list)"},
    {"plan", plan_command, "plan and lower a run without simulating it"},
    {"pack", pack_command, "solve a memory-planning problem from a CSV file"},
    {"inspect", inspect_command, "list a network's layers, shapes, MACs and weights"},
    {"sweep", sweep_command, "run a parameter sweep, one process per point"},
    {"regress", regress_command, "run the regression suite against its golden figures"},
    {"scalesim", scalesim_command, "run a SCALE-Sim .cfg and topology, with SCALE-Sim's reports"},
    {"dram", dram_command, "replay a DRAM request trace on a JEDEC DRAM preset"},
};

void usage(std::ostream& os) {
  os << "usage: strider COMMAND [ARGS]\n"
        "       strider COMMAND --help     the command's arguments and options (or strider help COMMAND)\n"
        "       strider --version          version and git revision\n\n"
        "commands:\n";
  for (const Command& c : kCommands) {
    os << "  " << c.name << std::string(10 - std::string(c.name).size(), ' ') << c.help << "\n";
  }
  os << "\nexit status: 0 ok, 1 error (bad input, failed run), 2 usage error\n";
}

// What a failed allocation reads like when it reaches a command's error line (instead of a bare
// "std::bad_alloc"): the resource limits refuse large runs before planning, so this is a host
// with less memory free than the run needs.
class OutOfHostMemory : public std::bad_alloc {
 public:
  const char* what() const noexcept override {
    return "out of host memory: an allocation failed (the run needs more memory than this host "
           "has free; a larger arch.l2.size_bytes makes fewer, larger tiles)";
  }
};

[[noreturn]] void out_of_host_memory() { throw OutOfHostMemory(); }

}  // namespace

std::string version_line() {
  return "strider " + strider_version() + " (git " + strider_git_revision() + ")";
}

int dispatch(const Args& args, std::ostream& out, std::ostream& err) {
  std::set_new_handler(out_of_host_memory);
  if (args.empty()) {
    usage(err);
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h" || (args[0] == "help" && args.size() == 1)) {
    usage(out);
    return 0;
  }
  if (args[0] == "--version") {
    out << version_line() << "\n";
    return 0;
  }
  if (args[0] == "help" && args.size() == 2) return dispatch({args[1], "--help"}, out, err);
  for (const Command& c : kCommands) {
    if (args[0] == c.name) return c.fn(Args(args.begin() + 1, args.end()), out, err);
  }
  err << "strider: unknown command '" << args[0] << "'\n";
  usage(err);
  return 2;
}

}  // namespace strider
