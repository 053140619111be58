// Consumer of the installed Strider package: a SystemC program (sc_main) that loads an arch file
// with the installed library and prints the version line and the arch's fingerprint.
#include <systemc>

#include <cstdio>
#include <iostream>

#include "arch/config_loader.h"
#include "tb/commands.h"

int sc_main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer ARCH.yaml\n";
    return 2;
  }
  const strider::ArchConfig arch = strider::load_arch(argv[1]);
  char hex[32];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(arch.fingerprint()));
  std::cout << strider::version_line() << "\n" << arch.name << " arch fingerprint " << hex << "\n";
  return 0;
}
