// DramSpec: a JEDEC DRAM standard and speed bin as data (configs/dram/*.yaml), as Ramulator 2
// declares one: the organisation (channels, ranks, bank groups, banks, rows, columns, data bus
// width, burst length), the DRAM clock period, named timing parameters in DRAM clock cycles
// (nRCD, nCL, ...), and the timing constraints as a table of (earlier command, later command,
// scope, minimum cycles[, window]) whose cycle values are sums of named timings and integers
// (`nCWL + nBL + nWTRS`). A new standard is a new YAML file, not new code. The preset also
// carries the IDD currents / voltages from which the energy model computes DRAM energy per
// command and per cycle of state residency (DRAMPower's equations, core/arch/energy_presets.h),
// and the energy per byte the simple DRAM model charges.
//
// Commands: ACT, PRE, PREA (all banks of a rank), RD, WR, REF (all-bank refresh of a rank),
// REFPB (per-bank refresh of one bank, LPDDR4 / LPDDR5).
// Power-down: see DramSpec::powerdown_idle and model/dram/dram_channel.h.
// Refresh (`refresh:` in the preset): all_bank (default) issues one REF per rank every nREFI,
// which holds the whole rank for nRFC; per_bank issues one REFPB every nREFIpb to the banks of a
// rank in turn (bank 0, 1, ...), each holding only its bank (the table's REFPB constraints, e.g.
// [REFPB, ACT, bank, nRFCpb]) while the other banks keep serving requests.
// Scopes: channel, rank, bankgroup, bank (the later command is held back when it targets the same
// channel / rank / bank group / bank as the earlier one). A window constraint (window w > 1, e.g.
// tFAW with w = 4) holds the later command until `cycles` after the w-th most recent earlier one.
//
// Address mapping: a name such as RoBaRaCoCh lists the address fields from the most significant
// to the least significant, above the burst offset (log2 of the bytes of one burst): Ch channel,
// Ra rank, Bg bank group, Ba bank (within its group), Ro row, Co column in bursts (columns /
// burst_length). Every field of the organisation with more than one element must appear once.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/arch/diagnostics.h"

namespace strider {

enum class DramCmd : uint8_t { kAct, kPre, kPrea, kRd, kWr, kRef, kRefpb };
constexpr int kDramCmdCount = 7;
enum class DramScope : uint8_t { kChannel, kRank, kBankGroup, kBank };
const char* to_string(DramCmd c);
const char* to_string(DramScope s);
// The stat counting command c ("dram.cmd_act", ...): model/dram registers it, the reports read it.
std::string dram_command_stat(DramCmd c);
// True for the commands that act on a whole rank (PREA, REF).
inline bool rank_command(DramCmd c) { return c == DramCmd::kPrea || c == DramCmd::kRef; }

enum class DramField : uint8_t { kChannel, kRank, kBankGroup, kBank, kRow, kColumn };

struct DramConstraint {
  DramCmd first = DramCmd::kAct;
  DramCmd second = DramCmd::kAct;
  DramScope scope = DramScope::kBank;
  uint32_t cycles = 0;  // DRAM clock cycles
  uint32_t window = 1;  // 1: after the last `first`; w: after the w-th most recent `first`
};

struct DramSpec {
  std::string name;    // e.g. LPDDR4-3200
  std::string source;  // the standard / datasheet and speed bin the numbers come from
  std::string file;    // the preset file it was read from
  // Organisation (per channel, except channels).
  uint32_t channels = 1, ranks = 1, bankgroups = 1, banks = 8;  // banks per bank group
  uint32_t rows = 32768, columns = 1024;
  uint32_t dq_bits = 16;       // data bus width of one channel
  uint32_t burst_length = 16;  // beats per burst
  uint32_t tck_ps = 625;       // DRAM clock period
  std::string mapping = "RoBaRaCoCh";
  std::vector<DramField> mapping_fields;   // most significant first
  std::map<std::string, uint32_t> timing;  // named timings in DRAM cycles (nBL, nCL, ...)
  std::vector<DramConstraint> constraints;
  std::array<uint32_t, kDramCmdCount> command_cycles{1, 1, 1, 1, 1, 1, 1};  // command-bus cycles
  uint32_t read_latency = 0;      // RD to last data beat (expression, e.g. nCL + nBL)
  uint32_t write_latency = 0;     // WR to last data beat (e.g. nCWL + nBL)
  bool per_bank_refresh = false;  // refresh: per_bank
  uint32_t refresh_interval = 0;  // nREFI (per_bank: nREFIpb): one refresh per rank this often
  uint32_t refresh_cycles = 0;    // nRFC (per_bank: nRFCpb): what one refresh holds
  // Power-down (`powerdown_idle_cycles` in the preset, arch.dram.powerdown_idle_cycles over it):
  // a rank with nothing queued enters precharge / active power-down this many DRAM cycles after
  // its last command (0: never); leaving takes nXP before its next command, a stay lasts at least
  // nCKE (both required in the timing table when powerdown_idle > 0).
  uint32_t powerdown_idle = 0;
  uint32_t powerdown_exit = 0;  // nXP
  uint32_t powerdown_min = 0;   // nCKE
  // Energy: per byte (the simple model, or a preset without currents), and the currents.
  double pj_per_byte = 0;
  // vdd, idd0, idd2n, idd3n, idd4r, idd4w, idd5, idd2p / idd3p (precharge / active power-down)
  // (V, mA per device), devices (per rank),
  // io_mw / odt_mw (read I/O / write termination power per pin while a burst is on the bus).
  std::map<std::string, double> power;

  uint32_t burst_bytes() const { return dq_bits / 8 * burst_length; }
  uint32_t burst_cycles() const { return timing.at("nBL"); }  // data-bus cycles of one burst
  uint32_t banks_per_rank() const { return bankgroups * banks; }
  // Peak bandwidth in bytes per second over all channels.
  double peak_bytes_per_second() const {
    return double(channels) * burst_bytes() / (double(burst_cycles()) * tck_ps * 1e-12);
  }
};

// Reads a preset file (top-level key `dram:`). Every problem goes to `diags` naming the file,
// line and key path (`dram.timing.nRAS`) and the constraint broken; returns false on any error.
bool read_dram_spec(const std::string& path, config::Diagnostics& diags, DramSpec& out);

// Parses a mapping name (RoBaRaCoCh) against the organisation of `spec`; "" when valid, else why
// not.
std::string parse_dram_mapping(const std::string& name, const DramSpec& spec,
                               std::vector<DramField>& fields);

// Sets spec.powerdown_exit / powerdown_min from nXP / nCKE when spec.powerdown_idle > 0; "" when
// valid, else what is missing.
std::string dram_powerdown_timings(DramSpec& spec);

// The preset file for `preset`: a path (contains '/' or ends in .yaml, relative to `base_dir`)
// or a name looked up as <name>.yaml in `search_dirs`, then in configs/dram of the current
// directory, next to the program and in the source and install trees. "" when not found; `tried`
// lists the places looked at.
std::string find_dram_preset(const std::string& preset, const std::string& base_dir,
                             std::vector<std::string>& tried);

}  // namespace strider
