// `strider regress [--update] [--dir DIR] [--out OUT] [--case NAME]... [-j N]`: the regression
// suite. DIR (default configs/regression) holds suite.yaml (cases: name, run file, `set`
// overrides) and golden.yaml (per case, every figure of regression_figures(): summary
// counters, stats, per-layer cycles). Each case runs as its own `strider run` process (in DIR,
// output in OUT/<case>, default results/regression); its figures are compared with the golden
// ones exactly (as text). Prints one line per case and a table of every figure that moved
// (case, figure, golden, now, delta); a figure that appears or disappears counts as moved.
// --update writes the figures of the cases run into golden.yaml (other cases' goldens are
// kept; cases no longer in the suite are dropped). --case limits the run to the named cases.
// Exit status: 0 nothing moved, 1 something moved, a case failed or the suite is bad (with
// --update: 1 only when a case failed), 2 usage error.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace strider {

int regress_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace strider
