// The subcommands of the `strider` program. Each takes the arguments after its name and returns
// the process exit code (0 success, 1 bad input or failed run, 2 usage error).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace strider {

using Args = std::vector<std::string>;

int run_command(const Args& args, std::ostream& out, std::ostream& err);
int plan_command(const Args& args, std::ostream& out, std::ostream& err);
int sweep_command(const Args& args, std::ostream& out, std::ostream& err);
int regress_command(const Args& args, std::ostream& out, std::ostream& err);
int pack_command(const Args& args, std::ostream& out, std::ostream& err);
int inspect_command(const Args& args, std::ostream& out, std::ostream& err);
int scalesim_command(const Args& args, std::ostream& out, std::ostream& err);
int dram_command(const Args& args, std::ostream& out, std::ostream& err);

// Dispatches argv[1..] to a subcommand; prints usage on unknown ones. Handles --help and
// --version (printed on `out`).
int dispatch(const Args& args, std::ostream& out, std::ostream& err);
// "strider VERSION (git REVISION)".
std::string version_line();

}  // namespace strider
