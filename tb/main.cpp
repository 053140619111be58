// strider: the command-line program. Subcommands: run, plan, pack, inspect, sweep, regress.
#include <systemc>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tb/commands.h"

int sc_main(int argc, char** argv) {  // SystemC's library owns main()
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);  // keep stdout for the results
  std::vector<std::string> args(argv + 1, argv + argc);
  return strider::dispatch(args, std::cout, std::cerr);
}
