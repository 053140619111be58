// strider: the command-line program. Subcommands: run, plan, pack, inspect, sweep, regress.
#include <systemc>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tb/commands.h"

int sc_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return strider::dispatch(args, std::cout, std::cerr);
}

// SystemC prints its banner before sc_main unless told not to; keep stdout for the results.
int main(int argc, char** argv) {
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
