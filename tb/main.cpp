// strider: the command-line program. Subcommands: run, plan, pack, inspect, sweep, regress.
#include <systemc>

#ifdef __GLIBC__
#include <malloc.h>
#endif

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
#ifdef __GLIBC__
  // Freed blocks up to 32 MiB (a layer's float or int8 activations) stay in the heap for the
  // next layer instead of going back to the kernel and faulting in again as zeroed pages:
  // functional resnet50 58,000 -> 47,700 page faults, about 7 % less CPU time, the same peak
  // resident size (204 MB) and the same bytes out.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  return sc_core::sc_elab_and_sim(argc, argv);
}
