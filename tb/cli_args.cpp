#include "tb/cli_args.h"

namespace strider {

CliArgs::CliArgs(const std::vector<std::string>& args, const std::set<std::string>& with_value,
                 const std::set<std::string>& switches) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0 || a == "--") {
      positional_.push_back(a);
    } else if (with_value.count(a)) {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      values_[a].push_back(args[++i]);
    } else if (switches.count(a)) {
      set_.insert(a);
    } else {
      throw UsageError("unknown option " + a);
    }
  }
}

std::string CliArgs::value(const std::string& opt, const std::string& fallback) const {
  auto it = values_.find(opt);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> CliArgs::values(const std::string& opt) const {
  auto it = values_.find(opt);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

}  // namespace strider
