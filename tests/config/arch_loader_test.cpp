// Arch files: the seed and tiny presets load with their exact figures; typos, wrong types and
// bad cross-field values give exact error texts naming the file, line and full key path; every
// error is collected before failing.
#include <gtest/gtest.h>

#include "core/arch/arch_reader.h"
#include "core/arch/config_loader.h"
#include "core/common/hash.h"
#include "tests/config/config_test_util.h"

namespace strider {
namespace {

using testing::errors_of;
using testing::source_path;
using testing::TempDir;
using Errors = std::vector<std::string>;

TEST(ArchLoader, SeedHasTheSeedFigures) {
  const ArchConfig a = load_arch(source_path("configs/arch/seed.yaml"));
  EXPECT_EQ(a.name, "seed");
  EXPECT_EQ(a.clock.frequency_mhz, 1000.0);
  EXPECT_EQ(a.neurons.count, 64u);
  EXPECT_EQ(a.neurons.macs_per_cycle, 4u);
  EXPECT_EQ(a.l1.lines, 64u);
  EXPECT_EQ(a.l1.line_bytes, 32u);
  EXPECT_EQ(a.l1.kernel_bytes, 2048u);
  EXPECT_TRUE(a.l1.shift_stride);
  EXPECT_TRUE(a.l1.pad_in_block);
  EXPECT_TRUE(a.l1.shared_pad);
  EXPECT_EQ(a.neurons.accumulators, 8u);
  EXPECT_EQ(a.lowering.mapping, "auto");
  // 2 x 64 lines x 32 B (two fill buffers) + 2048 B kernel region + 64 x 8 x 4 B accumulators
  // = 4096 + 2048 + 2048 = 8192 B = 8 KiB, all of arch.l1.size_bytes.
  EXPECT_EQ(l1_required_bytes(a.l1, a.neurons), 8192u);
  EXPECT_EQ(a.l1.size_bytes, 8192u);
  EXPECT_EQ(a.l2.size_bytes, 1048576u);  // 1 MiB
  EXPECT_EQ(a.l2.banks, 16u);
  EXPECT_EQ(a.l2.bank_width_bytes, 8u);
  EXPECT_EQ(a.l2.port_bytes_per_cycle, 64u);
  EXPECT_EQ(a.l2.alignment_bytes, 64u);
  EXPECT_EQ(a.dram.bytes_per_cycle, 16u);
  EXPECT_EQ(a.dram.latency_cycles, 100u);
  EXPECT_EQ(a.dma.channels, 2u);
  EXPECT_EQ(a.controller.prefetch_depth, 8u);
  // The struct defaults are the seed architecture, field for field.
  EXPECT_EQ(arch_yaml(a), arch_yaml(ArchConfig{}));
}

TEST(ArchLoader, TinyIsSmall) {
  const ArchConfig a = load_arch(source_path("configs/arch/tiny.yaml"));
  EXPECT_EQ(a.name, "tiny");
  EXPECT_EQ(a.neurons.count, 8u);
  EXPECT_EQ(a.l1.lines, 8u);
  EXPECT_EQ(a.l1.line_bytes, 16u);
  EXPECT_EQ(a.l1.kernel_bytes, 512u);
  EXPECT_EQ(l1_required_bytes(a.l1, a.neurons), 896u);  // 2 x 8 x 16 + 512 + 8 x 4 x 4
  EXPECT_EQ(a.l2.size_bytes, 65536u);
  EXPECT_EQ(a.l2.banks, 4u);
  EXPECT_EQ(a.dram.bytes_per_cycle, 8u);
  EXPECT_EQ(a.dram.latency_cycles, 20u);
}

TEST(ArchLoader, MissingKeysTakeDefaults) {
  TempDir t;
  const std::string f = t.write("a.yaml", "arch:\n  name: mine\n  l2:\n    size_bytes: 524288\n");
  const ArchConfig a = load_arch(f);
  ArchConfig expected;
  expected.name = "mine";
  expected.l2.size_bytes = 524288;
  EXPECT_EQ(arch_yaml(a), arch_yaml(expected));
}

TEST(ArchLoader, TypoedKeyNamesTheKeyAndTheValidOnes) {
  TempDir t;
  const std::string f = t.write("a.yaml", "arch:\n  l2:\n    bankz: 8\n");
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            Errors{f + ":3: arch.l2.bankz: unknown key, expected one of: size_bytes, banks, "
                       "bank_width_bytes, port_bytes_per_cycle, latency_cycles, "
                       "fast_region_bytes, fast_latency_cycles, alignment_bytes"});
}

TEST(ArchLoader, TypoedSectionAndTopLevelKey) {
  TempDir t;
  const std::string f = t.write("a.yaml", "arch:\n  neuron:\n    count: 8\nnetworks: []\n");
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            (Errors{f + ":2: arch.neuron: unknown key, expected one of: name, clock, controller, "
                        "dma, dram, l2, l1, neurons, vector, lowering, energy",
                    f + ":4: networks: unknown key, expected one of: arch"}));
}

TEST(ArchLoader, WrongTypes) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  l2:\n"
                                "    size_bytes: abc\n"  // line 3
                                "    banks: -4\n"        // line 4
                                "    latency_cycles: 5000000000\n"
                                "  clock:\n"
                                "    frequency_mhz: fast\n"  // line 7
                                "  l1:\n"
                                "    shift_stride: yes\n"  // line 9
                                "    lines: [1, 2]\n"      // line 10
                                "  dma: 3\n");             // line 11
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            (Errors{
                f + ":3: arch.l2.size_bytes: expected an unsigned integer, got \"abc\"",
                f + ":4: arch.l2.banks: expected an unsigned integer, got \"-4\"",
                f + ":5: arch.l2.latency_cycles: expected an unsigned integer of at most "
                    "4294967295, got \"5000000000\"",
                f + ":7: arch.clock.frequency_mhz: expected a number, got \"fast\"",
                f + ":9: arch.l1.shift_stride: expected true or false, got \"yes\"",
                f + ":10: arch.l1.lines: expected an unsigned integer, got a list of 2 items",
                f + ":11: arch.dma: expected a map of settings, got \"3\"",
            }));
}

// dma.background_priority: a bool; a bad value names the component's key and its line.
TEST(ArchLoader, DmaBackgroundPriority) {
  TempDir t;
  EXPECT_TRUE(load_arch(t.write("on.yaml", "arch:\n  name: x\n")).dma.background_priority);
  EXPECT_FALSE(load_arch(t.write("off.yaml", "arch:\n  dma:\n    background_priority: false\n"))
                   .dma.background_priority);
  const std::string f = t.write("bad.yaml",
                                "arch:\n"
                                "  dma:\n"
                                "    background_priority: low\n");  // line 3
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            (Errors{f + ":3: arch.dma.background_priority: expected true or false, got \"low\""}));
}

TEST(ArchLoader, PowerOfTwoCheck) {
  TempDir t;
  const std::string f = t.write("x.yaml", "arch:\n  l2:\n    size_bytes: 786432\n    banks: 6\n");
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            Errors{f + ":4: arch.l2.banks: must be a power of two, got 6"});
}

TEST(ArchLoader, CrossFieldErrorIsAtTheFirstFieldInvolved) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  l2:\n"
                                "    size_bytes: 65536\n"
                                "    fast_region_bytes: 131072\n"  // line 4
                                "  l1:\n"
                                "    lines: 16\n"  // line 6
                                "  neurons:\n"
                                "    count: 8\n");
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            (Errors{f + ":4: arch.l2.fast_region_bytes: must not exceed arch.l2.size_bytes "
                        "(65536), got 131072",
                    f + ":6: arch.l1.lines: must equal arch.neurons.count (line i feeds neuron "
                        "i), got 16 lines and 8 neurons"}));
}

// arch.l1.lines must equal arch.neurons.count: the one set at the stronger level (--set over a
// file over the default) leads and the other follows; set at the same level they must agree.
TEST(ArchLoader, LinesFollowNeuronsUnlessSetExplicitly) {
  TempDir t;
  const std::string f = t.write("a.yaml", "arch:\n  neurons:\n    count: 32\n");
  ArchConfig a = load_arch(f);  // lines not written: they follow the 32 neurons
  EXPECT_EQ(a.l1.lines, 32u);
  EXPECT_EQ(a.neurons.count, 32u);
  // seed.yaml writes both (64); a --set of one moves the other.
  a = load_arch(source_path("configs/arch/seed.yaml"), {"arch.neurons.count=32"});
  EXPECT_EQ(a.l1.lines, 32u);
  a = load_arch(source_path("configs/arch/seed.yaml"), {"arch.l1.lines=16"});
  EXPECT_EQ(a.neurons.count, 16u);
  // Both set, differently: still an error.
  EXPECT_EQ(errors_of([&] {
              load_arch(source_path("configs/arch/seed.yaml"),
                        {"arch.l1.lines=16", "arch.neurons.count=32"});
            }),
            Errors{"--set arch.l1.lines=16: must equal arch.neurons.count (line i feeds neuron i), "
                   "got 16 lines and 32 neurons"});
}

TEST(ArchLoader, L1MustHoldFillBuffersKernelRegionAndAccumulators) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  l1:\n"
                                "    kernel_bytes: 256\n"  // line 3
                                "  neurons:\n"
                                "    accumulators: 16\n"  // line 5
                                "  lowering:\n"
                                "    mapping: rows\n");  // line 7
  // Kernel region: 2 x 16 accumulators x 32 B = 1024 B. L1: 2 x 64 x 32 = 4096 B of fill buffers
  // + 256 B kernel region + 64 x 16 x 4 = 4096 B of accumulators = 8448 B > 8192 B.
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            (Errors{f + ":3: arch.l1.kernel_bytes: must hold two fills of the broadcast operand, "
                        "2 x arch.neurons.accumulators x arch.l1.line_bytes (2 x 16 x 32 = 1024 B), "
                        "got 256",
                    f + ":3: arch.l1.size_bytes: must hold the line buffer's two fill buffers "
                        "(2 x 64 x 32 B), the kernel region (256 B) and the accumulators (64 x 16 "
                        "x 4 B): 8448 B, got 8192",
                    f + ":7: arch.lowering.mapping: must be auto, positions, channels, im2col "
                        "or search, got 'rows'"}));
}

TEST(ArchLoader, MappingSearchObjectiveIsNamed) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  lowering:\n"
                                "    mapping: search\n"
                                "    objective: latency\n");  // line 4
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            (Errors{f + ":4: arch.lowering.objective: must be cycles, energy or edp, got "
                        "'latency'"}));
  const std::string ok = t.write("b.yaml",
                                 "arch:\n"
                                 "  lowering: {mapping: search, objective: edp}\n");
  const ArchConfig a = load_arch(ok);
  EXPECT_EQ(a.lowering.mapping, "search");
  EXPECT_EQ(a.lowering.objective, "edp");
}

TEST(ArchLoader, SkewPlanesIsABoolean) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  lowering:\n"
                                "    skew_planes: sometimes\n");  // line 3
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            (Errors{f + ":3: arch.lowering.skew_planes: expected true or false, got "
                        "\"sometimes\""}));
  EXPECT_TRUE(ArchConfig{}.lowering.skew_planes);
  const ArchConfig a = load_arch(t.write("b.yaml", "arch:\n  lowering: {skew_planes: false}\n"));
  EXPECT_FALSE(a.lowering.skew_planes);
  // Written (and so fingerprinted) only when off: the default's fingerprint is unchanged.
  EXPECT_NE(arch_yaml(a).find("skew_planes: false"), std::string::npos);
  EXPECT_EQ(arch_yaml(ArchConfig{}).find("skew_planes"), std::string::npos);
}

TEST(ArchLoader, ShuffleLayoutIsABoolean) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  lowering:\n"
                                "    shuffle_layout: 2\n");  // line 3
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            (Errors{f + ":3: arch.lowering.shuffle_layout: expected true or false, got \"2\""}));
  EXPECT_TRUE(ArchConfig{}.lowering.shuffle_layout);
  const ArchConfig a = load_arch(t.write("b.yaml", "arch:\n  lowering: {shuffle_layout: false}\n"));
  EXPECT_FALSE(a.lowering.shuffle_layout);
  // Written (and so fingerprinted) only when off: the default's fingerprint is unchanged.
  EXPECT_NE(arch_yaml(a).find("shuffle_layout: false"), std::string::npos);
  EXPECT_EQ(arch_yaml(ArchConfig{}).find("shuffle_layout"), std::string::npos);
}

// The store unit's row buffer of a fused max-pool (core/timing/fused_pool.h).
TEST(ArchLoader, PoolRowBufferBytesIsACount) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  l1:\n"
                                "    pool_row_buffer_bytes: lots\n");  // line 3
  EXPECT_EQ(errors_of([&] { load_arch(f); }).size(), 1u);
  EXPECT_NE(errors_of([&] { load_arch(f); })[0].find(f + ":3: arch.l1.pool_row_buffer_bytes"),
            std::string::npos);
  EXPECT_EQ(load_arch(source_path("configs/arch/seed.yaml")).l1.pool_row_buffer_bytes, 8192u);
  const ArchConfig a = load_arch(t.write("b.yaml", "arch:\n  l1: {pool_row_buffer_bytes: 0}\n"));
  EXPECT_EQ(a.l1.pool_row_buffer_bytes, 0u);
  // Written (and so fingerprinted) only when changed: the seed's fingerprint is unchanged.
  EXPECT_NE(arch_yaml(a).find("pool_row_buffer_bytes: 0"), std::string::npos);
  EXPECT_EQ(arch_yaml(ArchConfig{}).find("pool_row_buffer_bytes"), std::string::npos);
  EXPECT_NE(a.fingerprint(), ArchConfig{}.fingerprint());
}

// Stride-1 streams sharing their pad columns (core/timing/tile_work.h stream_pitch): a boolean,
// on in the seed, written and fingerprinted both ways (a list planned with the other stream is
// refused).
TEST(ArchLoader, SharedPadIsABoolean) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  l1:\n"
                                "    shared_pad: sometimes\n");  // line 3
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            Errors{f + ":3: arch.l1.shared_pad: expected true or false, got \"sometimes\""});
  const ArchConfig seed = load_arch(source_path("configs/arch/seed.yaml"));
  EXPECT_TRUE(seed.l1.shared_pad);
  EXPECT_TRUE(ArchConfig{}.l1.shared_pad);
  const ArchConfig off = load_arch(source_path("configs/arch/seed.yaml"), {"arch.l1.shared_pad=false"});
  EXPECT_FALSE(off.l1.shared_pad);
  EXPECT_NE(arch_yaml(seed).find("shared_pad: true"), std::string::npos);
  EXPECT_NE(arch_yaml(off).find("shared_pad: false"), std::string::npos);
  EXPECT_NE(off.fingerprint(), seed.fingerprint());
}

// The load path's input-scale pipeline depth (OpDesc::input_scale): a count, at most 1e6 cycles
// as every latency, written (and fingerprinted) only when changed from the seed's 2.
TEST(ArchLoader, InputScaleCyclesIsALatency) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  l1:\n"
                                "    input_scale_cycles: 2000000\n");  // line 3
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            Errors{f + ":3: arch.l1.input_scale_cycles: must be at most 1000000, got 2000000"});
  const std::string g = t.write("c.yaml", "arch:\n  l1:\n    input_scale_cycles: -1\n");
  EXPECT_EQ(errors_of([&] { load_arch(g); }).size(), 1u);
  EXPECT_NE(errors_of([&] { load_arch(g); })[0].find(g + ":3: arch.l1.input_scale_cycles"),
            std::string::npos);
  EXPECT_EQ(load_arch(source_path("configs/arch/seed.yaml")).l1.input_scale_cycles, 2u);
  const ArchConfig a = load_arch(t.write("b.yaml", "arch:\n  l1: {input_scale_cycles: 0}\n"));
  EXPECT_EQ(a.l1.input_scale_cycles, 0u);
  EXPECT_NE(arch_yaml(a).find("input_scale_cycles: 0"), std::string::npos);
  EXPECT_EQ(arch_yaml(ArchConfig{}).find("input_scale_cycles"), std::string::npos);
  EXPECT_NE(a.fingerprint(), ArchConfig{}.fingerprint());
}

// JEDEC lets a controller postpone at most 8 REF commands (model/dram/dram_channel.h).
TEST(ArchLoader, RefreshPostponeIsAtMostJedecsEight) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  dram:\n"
                                "    refresh_postpone: 9\n");  // line 3
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            Errors{f + ":3: arch.dram.refresh_postpone: must be at most 8, got 9"});
  EXPECT_EQ(load_arch(source_path("configs/arch/seed.yaml")).dram.refresh_postpone, 8u);
  const ArchConfig a = load_arch(t.write("b.yaml", "arch:\n  dram: {refresh_postpone: 0}\n"));
  EXPECT_EQ(a.dram.refresh_postpone, 0u);
  // Written (and so fingerprinted) only when changed: the seed's fingerprint is unchanged.
  EXPECT_NE(arch_yaml(a).find("refresh_postpone: 0"), std::string::npos);
  EXPECT_EQ(arch_yaml(ArchConfig{}).find("refresh_postpone"), std::string::npos);
}

// FR-FCFS+Cap (model/dram/dram_channel.h): a count of row hits, 0 for none; 16 on the seed.
TEST(ArchLoader, RowHitCapIsACount) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  dram:\n"
                                "    row_hit_cap: -4\n");  // line 3
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            Errors{f + ":3: arch.dram.row_hit_cap: expected an unsigned integer, got \"-4\""});
  const std::string g = t.write("b.yaml", "arch:\n  dram: {row_hit_cap: many}\n");
  EXPECT_EQ(errors_of([&] { load_arch(g); }),
            Errors{g + ":2: arch.dram.row_hit_cap: expected an unsigned integer, got \"many\""});
  EXPECT_EQ(load_arch(source_path("configs/arch/seed.yaml")).dram.row_hit_cap, 16u);
  const ArchConfig a = load_arch(t.write("c.yaml", "arch:\n  dram: {row_hit_cap: 0}\n"));
  EXPECT_EQ(a.dram.row_hit_cap, 0u);
  // Written (and so fingerprinted) only when changed: the seed's fingerprint is unchanged.
  EXPECT_NE(arch_yaml(a).find("row_hit_cap: 0"), std::string::npos);
  EXPECT_EQ(arch_yaml(ArchConfig{}).find("row_hit_cap"), std::string::npos);
}

TEST(ArchLoader, L2GeometryChecks) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  l2:\n"
                                "    size_bytes: 1000\n"  // line 3
                                "    banks: 4\n"
                                "    bank_width_bytes: 8\n"
                                "    port_bytes_per_cycle: 64\n"  // line 6
                                "    fast_region_bytes: 100\n"    // line 7
                                "    latency_cycles: 2\n"
                                "    fast_latency_cycles: 3\n"  // line 9
                                "    alignment_bytes: 16\n");
  // 4 banks x 8 B = 32 B per interleave row: 1000 is not a multiple of 32, nor of 16.
  EXPECT_EQ(
      errors_of([&] { load_arch(f); }),
      (Errors{f + ":3: arch.l2.size_bytes: must be a multiple of arch.l2.banks x "
                  "arch.l2.bank_width_bytes (4 x 8 = 32), got 1000",
              f + ":3: arch.l2.size_bytes: must be a multiple of arch.l2.alignment_bytes (16), "
                  "got 1000",
              f + ":6: arch.l2.port_bytes_per_cycle: must not exceed arch.l2.banks x "
                  "arch.l2.bank_width_bytes (4 x 8 = 32), got 64",
              f + ":7: arch.l2.fast_region_bytes: must be a multiple of "
                  "arch.l2.alignment_bytes (16), got 100",
              f + ":9: arch.l2.fast_latency_cycles: must not exceed arch.l2.latency_cycles (2) "
                  "when there is a fast region, got 3"}));
}

TEST(ArchLoader, EveryErrorIsCollectedInFileOrder) {
  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n"
                                "  name: ''\n"  // line 2
                                "  clock:\n"
                                "    frequency_mhz: 0\n"  // line 4
                                "  controller:\n"
                                "    prefetch_depth: 0\n"  // line 6
                                "  dma:\n"
                                "    burst_bytes: 48\n"  // line 8
                                "    chanels: 2\n"       // line 9
                                "  dram:\n"
                                "    banks: 3\n"  // line 11
                                "  l2:\n"
                                "    alignment_bytes: 0\n"  // line 13
                                "  l1:\n"
                                "    line_bytes: 0\n"  // line 15
                                "  neurons:\n"
                                "    macs_per_cycle: 0\n");  // line 17
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            (Errors{
                f + ":2: arch.name: must not be empty",
                f + ":4: arch.clock.frequency_mhz: must be between 0.001 (1 kHz) and 100000 (100 GHz), got 0",
                f + ":6: arch.controller.prefetch_depth: must be at least 1, got 0",
                f + ":8: arch.dma.burst_bytes: must be a power of two, got 48",
                f + ":9: arch.dma.chanels: unknown key, expected one of: channels, burst_bytes, "
                    "setup_cycles, row_setup_cycles, background_priority",
                f + ":11: arch.dram.banks: must be a power of two, got 3",
                f + ":13: arch.l2.alignment_bytes: must be a power of two, got 0",
                f + ":15: arch.l1.line_bytes: must be at least 1, got 0",
                f + ":17: arch.neurons.macs_per_cycle: must be at least 1, got 0",
            }));
}

TEST(ArchLoader, AValueThatCannotBeReadSkipsTheChecksOnIt) {
  TempDir t;
  // lines is unreadable: no "must equal arch.neurons.count" on top of the type error.
  const std::string f =
      t.write("a.yaml", "arch:\n  l1:\n    lines: eight\n  neurons:\n    count: 8\n");
  EXPECT_EQ(errors_of([&] { load_arch(f); }),
            Errors{f + ":3: arch.l1.lines: expected an unsigned integer, got \"eight\""});
}

TEST(ArchLoader, FileLevelErrors) {
  TempDir t;
  const std::string missing = (t.path() / "nope.yaml").string();
  EXPECT_EQ(errors_of([&] { load_arch(missing); }), Errors{missing + ": file not found"});

  const std::string syntax = t.write("s.yaml", "arch:\n  l2: [1, 2\n");
  const Errors e = errors_of([&] { load_arch(syntax); });
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind(syntax + ":3: YAML syntax error: ", 0), 0u) << e[0];

  const std::string dup = t.write("d.yaml", "arch:\n  l2:\n    banks: 16\n    banks: 8\n");
  EXPECT_EQ(errors_of([&] { load_arch(dup); }),
            Errors{dup + ":4: arch.l2.banks: duplicate key (first written at line 3)"});

  const std::string empty = t.write("e.yaml", "");
  EXPECT_EQ(errors_of([&] { load_arch(empty); }),
            Errors{empty + ": arch: required key is missing (an arch file is a map under "
                           "`arch:`)"});

  const std::string two = t.write("two.yaml", "arch:\n  name: a\n---\narch:\n  name: b\n");
  EXPECT_EQ(errors_of([&] { load_arch(two); }),
            Errors{two + ":4: expected one YAML document, found 2"});

  EXPECT_EQ(errors_of([&] { load_arch(t.path().string()); }),
            Errors{t.path().string() + ": is a directory, expected a regular file"});

  // A recursive alias is cut off instead of recursing until the stack runs out.
  const std::string cyclic = t.write("c.yaml", "arch: &a\n  l2: *a\n");
  const Errors c = errors_of([&] { load_arch(cyclic); });
  ASSERT_EQ(c.size(), 2u);
  const std::string tail = ": nested more than 32 levels deep (a recursive alias?)";
  EXPECT_EQ(c[0].rfind(cyclic + ":1: arch.l2.l2.l2.", 0), 0u) << c[0];
  EXPECT_EQ(c[0].substr(c[0].size() - tail.size()), tail);

  const std::string list = t.write("l.yaml", "- arch\n");
  EXPECT_EQ(errors_of([&] { load_arch(list); }),
            Errors{list + ":1: expected a map of settings, got a list of 1 item"});
}

TEST(ArchLoader, EmptyArchSectionIsTheDefaults) {
  TempDir t;
  const std::string f = t.write("a.yaml", "arch:\n");
  EXPECT_EQ(arch_yaml(load_arch(f)), arch_yaml(ArchConfig{}));
}

TEST(ArchLoader, Overrides) {
  const ArchConfig a = load_arch(source_path("configs/arch/tiny.yaml"),
                                 {"arch.l2.size_bytes=32768", "l1.shift_stride=false"});
  EXPECT_EQ(a.l2.size_bytes, 32768u);
  EXPECT_FALSE(a.l1.shift_stride);
  EXPECT_EQ(a.l2.banks, 4u);  // the rest is tiny's
  EXPECT_EQ(
      errors_of([&] { load_arch(source_path("configs/arch/tiny.yaml"), {"arch.l2.banks=6"}); }),
      Errors{"--set arch.l2.banks=6: must be a power of two, got 6"});
}

TEST(ArchLoader, FingerprintIsFnv1aOfTheCanonicalYaml) {
  const ArchConfig seed = load_arch(source_path("configs/arch/seed.yaml"));
  EXPECT_EQ(seed.fingerprint(), fnv1a64(arch_yaml(seed)));  // core/common/hash.h, tested on its own
  // Pinned: changes only when a field or the canonical form changes (then descriptor lists
  // planned before are refused, which is the point).
  // With dram.model, preset and policies, energy.clock_gating, dma.background_priority and
  // l1.shared_pad.
  EXPECT_EQ(seed.fingerprint(), 0xc55c5af90ec1514eull);
  ArchConfig other = seed;
  other.l2.size_bytes = 524288;
  EXPECT_NE(other.fingerprint(), seed.fingerprint());
  other.l2.size_bytes = seed.l2.size_bytes;
  EXPECT_EQ(other.fingerprint(), seed.fingerprint());
}

TEST(ArchLoader, CanonicalYamlStartsWithArch) {
  const std::string y = arch_yaml(ArchConfig{});
  const std::string head = "arch:\n  name: seed\n  clock:\n    frequency_mhz: 1000\n";
  EXPECT_EQ(y.substr(0, head.size()), head);
}

}  // namespace
}  // namespace strider
