// A small hand-built DRAM spec for the exact-timing tests (tests/dram): one channel, one rank,
// 2 bank groups x 4 banks, 64 B bursts (64-bit bus, BL8), 16 bursts per row, mapping RoBaBgCo
// (burst index bits: column 0-3, bank group 4, bank 5-6, row above). Timings in DRAM cycles:
//   nBL 4, nCL 10, nCWL 8, nRCD 10, nRP 10, nRAS 24, nRC 34, nRRDS 4, nRRDL 6, nFAW 20,
//   nCCDS 4, nCCDL 6, nWTRS 2, nWTRL 6, nRTP 5, nWR 12, nRFC 50, nREFI 1000;
//   read latency nCL + nBL = 14, write latency nCWL + nBL = 12; every command one bus cycle.
#pragma once

#include "core/arch/dram_spec.h"

namespace strider::test {

inline DramSpec small_dram_spec() {
  DramSpec s;
  s.name = "test";
  s.channels = 1;
  s.ranks = 1;
  s.bankgroups = 2;
  s.banks = 4;
  s.rows = 1024;
  s.columns = 128;
  s.dq_bits = 64;
  s.burst_length = 8;
  s.tck_ps = 1000;
  s.mapping = "RoBaBgCo";
  s.mapping_fields = {DramField::kRow, DramField::kBank, DramField::kBankGroup, DramField::kColumn};
  s.timing = {{"nBL", 4},   {"nCL", 10},  {"nCWL", 8},    {"nRCD", 10}, {"nRP", 10},
              {"nRAS", 24}, {"nRC", 34},  {"nRRDS", 4},   {"nRRDL", 6}, {"nFAW", 20},
              {"nCCDS", 4}, {"nCCDL", 6}, {"nWTRS", 2},   {"nWTRL", 6}, {"nRTP", 5},
              {"nWR", 12},  {"nRFC", 50}, {"nREFI", 1000}};
  using C = DramCmd;
  using S = DramScope;
  s.constraints = {
      {C::kRd, C::kRd, S::kChannel, 4},     {C::kWr, C::kWr, S::kChannel, 4},
      {C::kRd, C::kRd, S::kRank, 4},        {C::kWr, C::kWr, S::kRank, 4},
      {C::kRd, C::kRd, S::kBankGroup, 6},   {C::kWr, C::kWr, S::kBankGroup, 6},
      {C::kRd, C::kWr, S::kRank, 8},        // nCL + nBL + 2 - nCWL
      {C::kWr, C::kRd, S::kRank, 14},       // nCWL + nBL + nWTRS
      {C::kWr, C::kRd, S::kBankGroup, 18},  // nCWL + nBL + nWTRL
      {C::kAct, C::kAct, S::kBank, 34},     {C::kAct, C::kAct, S::kRank, 4},
      {C::kAct, C::kAct, S::kBankGroup, 6}, {C::kAct, C::kAct, S::kRank, 20, 4},
      {C::kAct, C::kRd, S::kBank, 10},      {C::kAct, C::kWr, S::kBank, 10},
      {C::kAct, C::kPre, S::kBank, 24},     {C::kAct, C::kPrea, S::kBank, 24},
      {C::kRd, C::kPre, S::kBank, 5},       {C::kRd, C::kPrea, S::kBank, 5},
      {C::kWr, C::kPre, S::kBank, 24},      {C::kWr, C::kPrea, S::kBank, 24},  // nCWL+nBL+nWR
      {C::kPre, C::kAct, S::kBank, 10},     {C::kPrea, C::kAct, S::kRank, 10},
      {C::kPre, C::kRef, S::kBank, 10},     {C::kPrea, C::kRef, S::kRank, 10},
      {C::kAct, C::kRef, S::kBank, 34},     {C::kRef, C::kAct, S::kRank, 50},
      {C::kRef, C::kRef, S::kRank, 50}};
  s.read_latency = 14;
  s.write_latency = 12;
  s.refresh_interval = 1000;
  s.refresh_cycles = 50;
  s.pj_per_byte = 1;
  return s;
}

// The same with per-bank refresh: one REFPB every nREFIpb 250 cycles, banks in turn, each holding
// its bank for nRFCpb 30; constraints PRE -> REFPB (bank) nRP 10, ACT -> REFPB (bank) nRC 34,
// ACT <-> REFPB (rank) nRRDS 4, REFPB -> ACT / REFPB (bank) nRFCpb 30; one command-bus cycle.
inline DramSpec small_dram_spec_per_bank() {
  DramSpec s = small_dram_spec();
  using C = DramCmd;
  using S = DramScope;
  s.per_bank_refresh = true;
  s.timing["nRFCpb"] = 30;
  s.timing["nREFIpb"] = 250;
  s.refresh_interval = 250;
  s.refresh_cycles = 30;
  s.constraints.insert(s.constraints.end(), {{C::kPre, C::kRefpb, S::kBank, 10},
                                             {C::kAct, C::kRefpb, S::kBank, 34},
                                             {C::kAct, C::kRefpb, S::kRank, 4},
                                             {C::kRefpb, C::kAct, S::kRank, 4},
                                             {C::kRefpb, C::kAct, S::kBank, 30},
                                             {C::kRefpb, C::kRefpb, S::kBank, 30}});
  return s;
}

// The same with power-down: a rank idle 20 cycles enters it (powerdown_idle), leaves it nXP 6
// cycles before its next command (powerdown_exit) and stays at least nCKE 5 (powerdown_min).
inline DramSpec small_dram_spec_powerdown() {
  DramSpec s = small_dram_spec();
  s.timing["nXP"] = 6;
  s.timing["nCKE"] = 5;
  s.powerdown_idle = 20;
  s.powerdown_exit = 6;
  s.powerdown_min = 5;
  return s;
}

}  // namespace strider::test
