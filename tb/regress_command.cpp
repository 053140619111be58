// `strider regress` (see regress_command.h).
#include "tb/regress_command.h"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "core/arch/config_error.h"
#include "core/arch/strict_number.h"
#include "tb/bundled_configs.h"
#include "tb/cli_args.h"
#include "tb/sweep_figures.h"
#include "tb/sweep_results.h"
#include "tb/sweep_runner.h"
#include "tb/sweep_spec.h"
#include "core/common/input_file.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

constexpr char kUsage[] =
    "usage: strider regress [--update] [--dir DIR] [--out DIR] [--case NAME]... [-j N]";

// The suite when --dir is not given: configs/regression under the current directory, else
// next to the program (build/strider -> ../configs/regression, an installed bin/strider ->
// ../share/strider/configs/regression).
std::string find_suite_dir() {
  std::vector<std::string> tried;
  const std::string suite = find_bundled_config("regression/suite.yaml", &tried);
  if (!suite.empty()) return fs::path(suite).parent_path().string();
  std::string list;
  for (const std::string& p : tried) {
    list += (list.empty() ? "" : ", ") + fs::path(p).parent_path().string();
  }
  throw std::runtime_error("no regression suite (suite.yaml) found in " + list +
                           "; give one with --dir DIR");
}

struct Case {
  std::string name, run;          // run: absolute path
  std::vector<std::string> sets;  // `key=value`
};

std::string where(const std::string& file, const YAML::Node& n) {
  return n.IsDefined() && n.Mark().line >= 0 ? file + ":" + std::to_string(n.Mark().line + 1)
                                             : file;
}

std::vector<Case> load_suite(const std::string& dir) {
  const std::string file = dir + "/suite.yaml";
  YAML::Node root;
  try {
    root = YAML::Load(read_input_file(file, kMaxYamlFileBytes));
  } catch (const InputFileError& e) {
    throw ConfigError({e.what()});
  } catch (const YAML::Exception& e) {
    throw ConfigError({file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg});
  }
  std::vector<std::string> errors;
  std::vector<Case> cases;
  const YAML::Node list = root.IsMap() ? root["cases"] : YAML::Node();
  if (!list || !list.IsSequence() || list.size() == 0)
    throw ConfigError({where(file, root) + ": cases: expected a non-empty list of cases"});
  std::set<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node c = list[i];
    const std::string key = "cases[" + std::to_string(i) + "]";
    if (!c.IsMap()) {
      errors.push_back(where(file, c) + ": " + key + ": expected a map {name, run, set}");
      continue;
    }
    for (const auto& kv : c) {
      const std::string k = kv.first.Scalar();
      if (k != "name" && k != "run" && k != "set")
        errors.push_back(where(file, kv.first) + ": " + key + "." + k +
                         ": unknown key (expected name, run or set)");
    }
    Case cs;
    const YAML::Node name = c["name"], run = c["run"], set = c["set"];
    if (!name || !name.IsScalar() || name.Scalar().empty() ||
        name.Scalar().find_first_of("/ \t") != std::string::npos) {
      errors.push_back(where(file, c) + ": " + key +
                       ".name: expected a case name without / or spaces");
      continue;
    }
    cs.name = name.Scalar();
    if (!names.insert(cs.name).second)
      errors.push_back(where(file, name) + ": " + key + ".name: case '" + cs.name +
                       "' is defined twice");
    if (!run || !run.IsScalar() || run.Scalar().empty()) {
      errors.push_back(where(file, c) + ": " + key + ".run: expected a run file path");
    } else {
      fs::path p = run.Scalar();
      if (p.is_relative()) p = fs::path(dir) / p;
      cs.run = p.lexically_normal().string();
      std::error_code ec;
      if (!fs::is_regular_file(cs.run, ec))
        errors.push_back(where(file, run) + ": " + key + ".run: file not found: " + cs.run);
    }
    if (set && !set.IsMap()) {
      errors.push_back(where(file, set) + ": " + key + ".set: expected a map key -> value");
    } else if (set) {
      for (const auto& kv : set)
        cs.sets.push_back(kv.first.Scalar() + "=" + set_value_text(kv.second));
    }
    cases.push_back(cs);
  }
  if (!errors.empty()) throw ConfigError(errors);
  return cases;
}

using Golden = std::map<std::string, Figures>;

Golden load_golden(const std::string& file) {
  Golden g;
  std::error_code ec;
  if (!fs::exists(file, ec)) return g;
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    throw ConfigError({file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg});
  }
  if (root.IsNull()) return g;
  if (!root.IsMap()) throw ConfigError({where(file, root) + ": expected a map case -> figures"});
  for (const auto& c : root) {
    if (!c.second.IsMap())
      throw ConfigError(
          {where(file, c.second) + ": " + c.first.Scalar() + ": expected a map figure -> value"});
    Figures& f = g[c.first.Scalar()];
    for (const auto& kv : c.second) f.emplace_back(kv.first.Scalar(), kv.second.Scalar());
  }
  return g;
}

void write_golden(const std::string& file, const std::vector<Case>& suite, const Golden& g) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  for (const Case& c : suite) {
    auto it = g.find(c.name);
    if (it == g.end()) continue;
    e << YAML::Key << c.name << YAML::Value << YAML::BeginMap;
    for (const auto& kv : it->second) e << YAML::Key << kv.first << YAML::Value << kv.second;
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
  write_file_atomic(file,
                    "# Golden figures of the regression cases in suite.yaml, compared exactly by "
                    "`strider regress`.\n# Generated by `strider regress --update`; review its "
                    "diff like code.\n" +
                        std::string(e.c_str()) + "\n");
}

struct Moved {
  std::string name, golden, now;
};

std::vector<Moved> compare(const Figures& golden, const Figures& now) {
  std::map<std::string, std::string> g(golden.begin(), golden.end());
  std::vector<Moved> moved;
  std::set<std::string> seen;
  for (const auto& kv : now) {
    seen.insert(kv.first);
    auto it = g.find(kv.first);
    if (it == g.end()) {
      moved.push_back({kv.first, "-", kv.second});
    } else if (it->second != kv.second) {
      moved.push_back({kv.first, it->second, kv.second});
    }
  }
  for (const auto& kv : golden) {
    if (!seen.count(kv.first)) moved.push_back({kv.first, kv.second, "-"});
  }
  return moved;
}

// now - golden when both are numbers ("+12", "-3", "+0.25"), else "".
std::string delta(const std::string& golden, const std::string& now) {
  char* end = nullptr;
  const long long gi = std::strtoll(golden.c_str(), &end, 10);
  const bool g_int = !golden.empty() && *end == '\0';
  const long long ni = std::strtoll(now.c_str(), &end, 10);
  const bool n_int = !now.empty() && *end == '\0';
  if (g_int && n_int) return (ni >= gi ? "+" : "") + std::to_string(ni - gi);
  const double gd = std::strtod(golden.c_str(), &end);
  const bool g_num = !golden.empty() && *end == '\0';
  const double nd = std::strtod(now.c_str(), &end);
  if (!g_num || now.empty() || *end != '\0') return "";
  std::ostringstream s;
  s << (nd >= gd ? "+" : "") << std::setprecision(6) << nd - gd;
  return s.str();
}

struct Result {
  bool ran = false, ok = false;
  std::string error;
  Figures figures;
};

void print_table(const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  std::vector<size_t> w(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  for (const auto& r : rows) {
    out << " ";
    for (size_t i = 0; i < r.size(); ++i) {
      const bool right = i >= 2;  // numbers right-aligned
      out << " " << (right ? std::right : std::left) << std::setw(int(w[i])) << r[i];
    }
    out << std::left << "\n";
  }
}

}  // namespace

int regress_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CliArgs cli("regress", kUsage,
              "Runs every case of the regression suite (suite.yaml), each in its own process, and\n"
              "compares cycles and counters exactly with golden.yaml. Exit status 0 when every\n"
              "figure matches, 1 when one moved or a case failed, 2 on a usage error.",
              "",
              {{"update", "", "write the figures of this run to golden.yaml instead of comparing"},
               {"dir", "DIR",
                "the suite's directory (default: configs/regression under the current "
                "directory, else next to the program)"},
               {"out", "DIR", "the cases' output directories go under DIR (default "
                              "results/regression)"},
               {"case", "NAME", "run only this case (repeatable)"},
               {"jobs,j", "N", "run N cases at a time (1 to 9999, default 1)"}});
  try {
    if (!cli.parse(args, out)) return 0;
    if (!cli.positional().empty()) throw UsageError("unexpected argument " + cli.positional()[0]);
    const std::string jobs_text = cli.value("--jobs", "1");
    uint64_t jobs_count = 0;
    try {
      jobs_count = parse_u64(jobs_text, "-j");
    } catch (const std::invalid_argument&) {
    }
    if (jobs_count == 0 || jobs_count > 9999)
      throw UsageError("-j " + jobs_text + ": expected a whole number from 1 to 9999");
    std::error_code ec;
    const std::string dir =
        cli.has("--dir")
            ? fs::absolute(cli.value("--dir"), ec).lexically_normal().string()
            : find_suite_dir();
    const std::string out_dir =
        fs::absolute(cli.value("--out", "results/regression"), ec).lexically_normal().string();
    const bool update = cli.has("--update");
    const std::vector<Case> suite = load_suite(dir);
    const std::string golden_file = dir + "/golden.yaml";
    Golden golden = load_golden(golden_file);

    std::vector<std::string> only = cli.values("--case");
    for (const std::string& n : only) {
      if (std::none_of(suite.begin(), suite.end(), [&](const Case& c) { return c.name == n; }))
        throw UsageError("--case " + n + ": no such case in " + dir + "/suite.yaml");
    }
    std::vector<PointJob> jobs;
    for (size_t i = 0; i < suite.size(); ++i) {
      const Case& c = suite[i];
      if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
      PointJob j;
      j.id = i;
      j.label = c.name;
      j.run_file = c.run;
      j.sets = c.sets;
      j.out_dir = out_dir + "/" + c.name;
      j.cwd = dir;
      jobs.push_back(j);
    }
    std::map<std::string, Result> results;
    SweepProgress progress(err, jobs.size(), ::isatty(2) == 1);
    SweepRunner(self_exe(), jobs_count)
        .run(
            jobs,
            [&](const PointJob& j, const PointOutcome& o) {
              Result& r = results[j.label];
              r.ran = true;
              r.ok = o.ok;
              r.error = o.error;
              if (!o.ok) return;
              try {
                r.figures = regression_figures(j.out_dir);
              } catch (const std::exception& e) {
                r.ok = false;
                r.error = e.what();
              }
            },
            &progress);

    size_t failed = 0, moved_cases = 0, changed = 0;
    std::vector<std::vector<std::string>> table = {{"case", "figure", "golden", "now", "delta"}};
    out << "regression " << dir << ": " << jobs.size() << " case(s)\n";
    for (const PointJob& j : jobs) {
      const Result& r = results[j.label];
      const auto g = golden.find(j.label);
      std::string status;
      if (!r.ok) {
        ++failed;
        status = "FAILED   " + r.error;
      } else if (update) {
        const bool same = g != golden.end() && compare(g->second, r.figures).empty();
        if (!same) ++changed;
        status = same ? "ok       unchanged"
                      : "updated  " + std::to_string(r.figures.size()) + " figures";
        golden[j.label] = r.figures;
      } else if (g == golden.end()) {
        ++moved_cases;
        status = "NEW      no golden figures (run strider regress --update)";
      } else {
        const std::vector<Moved> m = compare(g->second, r.figures);
        if (m.empty()) {
          status = "ok       " + std::to_string(r.figures.size()) + " figures";
        } else {
          ++moved_cases;
          status = "MOVED    " + std::to_string(m.size()) + " of " +
                   std::to_string(r.figures.size()) + " figures";
          for (const Moved& x : m)
            table.push_back({j.label, x.name, x.golden, x.now, delta(x.golden, x.now)});
        }
      }
      out << "  " << std::left << std::setw(28) << j.label << " " << status << "\n";
    }
    if (update) {
      for (auto it = golden.begin(); it != golden.end();) {
        const bool in_suite = std::any_of(suite.begin(), suite.end(),
                                          [&](const Case& c) { return c.name == it->first; });
        it = in_suite ? std::next(it) : golden.erase(it);
      }
      write_golden(golden_file, suite, golden);
      out << "updated " << golden_file << " (" << changed << " case(s) changed)\n";
      return failed ? 1 : 0;
    }
    if (table.size() > 1) {
      out << "moved figures:\n";
      print_table(table, out);
    }
    out << (failed + moved_cases == 0 ? "PASS" : "FAIL") << ": "
        << jobs.size() - failed - moved_cases << " ok, " << moved_cases << " moved, " << failed
        << " failed\n";
    return failed + moved_cases == 0 ? 0 : 1;
  } catch (const UsageError& e) {
    return cli.usage_error(e.what(), err);
  } catch (const SweepInterrupted& e) {
    err << "strider regress: " << e.what() << "\n";
    return 130;
  } catch (const std::exception& e) {
    err << "strider regress: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace strider
