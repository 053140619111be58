// CliArgs on Boost.program_options: see cli_args.h.
#include "tb/cli_args.h"

namespace strider {

namespace po = boost::program_options;

namespace {
constexpr char kPositional[] = "positional-arguments";
constexpr unsigned kLineLength = 100;
}  // namespace

CliArgs::CliArgs(std::string command, std::string usage, std::string about, std::string arguments,
                 const std::vector<CliOption>& options)
    : command_(std::move(command)),
      usage_(std::move(usage)),
      about_(std::move(about)),
      arguments_(std::move(arguments)),
      options_("options", kLineLength, kLineLength / 2) {
  options_.add_options()("help,h", "print this help and exit");
  for (const CliOption& o : options) {
    if (o.value.empty()) {
      options_.add_options()(o.name.c_str(), po::bool_switch(), o.help.c_str());
      switches_.insert(o.name.substr(0, o.name.find(',')));
    } else {
      options_.add_options()(o.name.c_str(),
                             po::value<std::vector<std::string>>()->value_name(o.value),
                             o.help.c_str());
    }
  }
}

std::string CliArgs::key(const std::string& opt) {
  return opt.rfind("--", 0) == 0 ? opt.substr(2) : opt;
}

bool CliArgs::parse(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description all;
  all.add(options_).add_options()(kPositional, po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add(kPositional, -1);
  const int style = po::command_line_style::default_style &
                    ~po::command_line_style::allow_guessing;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).style(style).run(), vm_);
  } catch (const po::unknown_option& e) {
    throw UsageError("unknown option '" + e.get_option_name() + "'");
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (vm_.count("help") != 0) {
    print_help(out);
    return false;
  }
  if (vm_.count(kPositional) != 0) positional_ = vm_[kPositional].as<std::vector<std::string>>();
  return true;
}

void CliArgs::print_help(std::ostream& out) const {
  out << usage_ << "\n\n" << about_ << "\n";
  if (!arguments_.empty()) out << "\narguments:\n" << arguments_;
  out << "\n" << options_;
}

int CliArgs::usage_error(const std::string& message, std::ostream& err) const {
  err << "strider " << command_ << ": " << message << "\n" << usage_ << "\n";
  return 2;
}

bool CliArgs::has(const std::string& opt) const {
  const std::string k = key(opt);
  if (switches_.count(k) != 0) return vm_.count(k) != 0 && vm_[k].as<bool>();
  return vm_.count(k) != 0;
}

std::string CliArgs::value(const std::string& opt, const std::string& fallback) const {
  const std::vector<std::string> v = values(opt);
  return v.empty() ? fallback : v.back();
}

std::vector<std::string> CliArgs::values(const std::string& opt) const {
  const std::string k = key(opt);
  if (vm_.count(k) == 0 || switches_.count(k) != 0) return {};
  return vm_[k].as<std::vector<std::string>>();
}

}  // namespace strider
