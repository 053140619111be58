// CliArgs: the small argument parser the subcommands share: positionals, `--flag value` options
// (repeatable ones collected in order) and boolean switches. Unknown options are errors.
#pragma once

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace strider {

class CliArgs {
 public:
  // `with_value`: options that take a value; `switches`: options that take none.
  CliArgs(const std::vector<std::string>& args, const std::set<std::string>& with_value,
          const std::set<std::string>& switches);

  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& opt) const { return values_.count(opt) || set_.count(opt); }
  // Last value of an option, or `fallback`.
  std::string value(const std::string& opt, const std::string& fallback = "") const;
  std::vector<std::string> values(const std::string& opt) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
  std::set<std::string> set_;
};

// Thrown for a usage error; the command prints it with its usage line and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace strider
