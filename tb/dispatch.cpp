#include <string>

#include "tb/commands.h"

namespace strider {
namespace {

struct Command {
  const char* name;
  int (*fn)(const Args&, std::ostream&, std::ostream&);
  const char* help;
};

constexpr Command kCommands[] = {
    {"run", run_command, "RUN.yaml|LIST.strd [--out DIR] [--set key=value ...]  simulate a run"},
    {"plan", plan_command, "RUN.yaml [--emit FILE] [--text FILE] [--set k=v]  plan and lower only"},
    {"pack", pack_command, "FILE.csv [--capacity N] [--allocator NAME] [--time-limit S] [--out F]"},
    {"inspect", inspect_command, "NETWORK [--json] [--input H,W]  layers, shapes, MACs, weights"},
    {"sweep", sweep_command, "FILE.yaml [-j N] [--out D] [--resume] [--shard K/N] | merge D..."},
    {"regress", regress_command, "[--update] [--dir DIR] [--case NAME]... [-j N]  regression suite"},
};

void usage(std::ostream& err) {
  err << "usage: strider COMMAND [ARGS]\ncommands:\n";
  for (const Command& c : kCommands) err << "  " << c.name << " " << c.help << "\n";
}

}  // namespace

int dispatch(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    usage(err);
    return args.empty() ? 2 : 0;
  }
  for (const Command& c : kCommands) {
    if (args[0] == c.name) return c.fn(Args(args.begin() + 1, args.end()), out, err);
  }
  err << "strider: unknown command '" << args[0] << "'\n";
  usage(err);
  return 2;
}

}  // namespace strider
