// Entry point of the test binaries that link SystemC: its library owns main() and calls sc_main.
#include <gtest/gtest.h>

#include <systemc>

#include <cstdlib>

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
