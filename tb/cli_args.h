// CliArgs: the command line of one subcommand, on Boost.program_options. A command declares its
// options with a value name and a description; `--help`/`-h` prints the usage, a summary and
// every option described, on stdout. Options taking a value may repeat (values() keeps them in
// order, value() is the last); switches take none. Unknown options and missing values are usage
// errors (UsageError: the command prints it with its usage and exits 2).
#pragma once

#include <boost/program_options.hpp>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace strider {

struct CliOption {
  std::string name;   // "out", or "jobs,j" with a one-letter alias
  std::string value;  // the value's name in the help ("DIR"); empty for a switch
  std::string help;
};

// Thrown for a usage error; the command prints it with its usage line and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CliArgs {
 public:
  // `command`: "run"; `usage`: the synopsis ("usage: strider run ..." lines); `about`: what the
  // command does; `arguments`: the positional arguments described, one "NAME  text" per line.
  CliArgs(std::string command, std::string usage, std::string about, std::string arguments,
          const std::vector<CliOption>& options);

  // Parses `args`. Returns false when --help was asked for (the help is then on `out`). Throws
  // UsageError for an unknown option or a missing value.
  bool parse(const std::vector<std::string>& args, std::ostream& out);
  void print_help(std::ostream& out) const;
  // "strider CMD: MESSAGE\nUSAGE\n" on `err`; returns 2, the usage exit code.
  int usage_error(const std::string& message, std::ostream& err) const;

  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& opt) const;  // "--out" or "out"
  // Last value of an option, or `fallback`.
  std::string value(const std::string& opt, const std::string& fallback = "") const;
  std::vector<std::string> values(const std::string& opt) const;

 private:
  static std::string key(const std::string& opt);

  std::string command_, usage_, about_, arguments_;
  boost::program_options::options_description options_;
  std::set<std::string> switches_;
  boost::program_options::variables_map vm_;
  std::vector<std::string> positional_;
};

}  // namespace strider
