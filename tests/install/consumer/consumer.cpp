// Consumer of the installed Strider package: a SystemC program (sc_main) that loads an arch file
// with the installed library and prints the version line, the arch's name, a CSV row and an
// FNV-1a reference vector through the installed helpers (core/common/), every header included
// as <strider/...>.
#include <systemc>

#include <cstdio>
#include <iostream>

#include <strider/core/arch/config_loader.h>
#include <strider/core/common/csv.h>
#include <strider/core/common/hash.h>
#include <strider/tb/commands.h>

int sc_main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer ARCH.yaml\n";
    return 2;
  }
  const strider::ArchConfig arch = strider::load_arch(argv[1]);
  char hex[32];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(strider::fnv1a64("a")));
  std::cout << strider::version_line() << "\n"
            << arch.name << " " << strider::csv::join({"conv,1", "x"}) << " " << hex << "\n";
  return 0;
}
