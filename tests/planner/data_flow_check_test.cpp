// The data-flow check (planner/lower/data_flow_check.h, issue 31) on hand-built lists: the
// hazards the planner's lists had before it ordered its two op queues (a softmax on the vector
// unit still reading the scores a later matmul on the compute pipeline overwrites), op writers
// in the write-after-read and write-after-write rules, and 2-D moves as their rows (a read of the
// gap between two rows is no hazard, a read of a row is). Exact messages; each list is fixed the
// way the planner now fixes it and passes.
#include "planner/lower/data_flow_check.h"

#include <gtest/gtest.h>

#include <string>

namespace strider {
namespace {

// A 1 x rows x w int8 tensor in L2 at `addr`.
TensorRef l2(uint64_t addr, uint32_t rows, uint32_t w) {
  TensorRef t;
  t.space = MemSpace::kL2;
  t.addr = addr;
  t.c = 1, t.h = rows, t.w = w;
  t.row_stride = w;
  t.channel_stride = rows * w;
  return t;
}

Descriptor move_in(uint32_t id, uint64_t dst, uint32_t rows, uint32_t row_bytes,
                   uint32_t dst_stride, std::vector<uint32_t> deps = {}) {
  Descriptor d;
  d.id = id;
  d.kind = DescKind::kMove;
  d.deps = std::move(deps);
  d.move = MoveDesc{MemSpace::kDram, MemSpace::kL2, 0x100000,  dst, rows,
                    row_bytes,       row_bytes,     dst_stride};
  return d;
}

// An op over the whole of `out` (rows x w) reading `in`.
Descriptor op(uint32_t id, OpCode code, const TensorRef& in, const TensorRef& out,
              std::vector<uint32_t> deps = {}) {
  Descriptor d;
  d.id = id;
  d.kind = DescKind::kOp;
  d.deps = std::move(deps);
  d.op.op = code;
  d.op.input = in;
  d.op.output = out;
  d.op.row_end = out.h;
  d.op.ch_end = out.c;
  return d;
}

std::string hazards(const DescriptorList& l, DataFlowStats* stats = nullptr) {
  std::string out;
  const DataFlowStats s =
      check_data_flow(l, [&](const Descriptor& d, const std::string& f, const std::string& p) {
        out += std::to_string(d.id) + " " + f + ": " + p + "\n";
      });
  if (stats) *stats = s;
  return out;
}

// gpt2_decoder's hazard in miniature: a matmul on the compute pipeline writes the scores (4 x 64
// at 0x0), a softmax on the vector unit reads them into probabilities at 0x100, then the next
// matmul on the compute pipeline (the V projection in gpt2) writes its output over the scores,
// dead after the softmax. That matmul follows the first (one in-order queue) but not the
// softmax: the two queues run side by side.
TEST(DataFlowCheck, ComputeOpOverwritingWhatAVectorOpReadsIsRefused) {
  DescriptorList l;
  l.layers = {"x"};
  l.descriptors.push_back(move_in(0, 0x200, 1, 256, 0));
  l.descriptors.push_back(op(1, OpCode::kMatMul, l2(0x200, 4, 64), l2(0x0, 4, 64), {0}));
  l.descriptors.push_back(op(2, OpCode::kSoftmax, l2(0x0, 4, 64), l2(0x100, 4, 64), {1}));
  l.descriptors.push_back(op(3, OpCode::kMatMul, l2(0x200, 4, 64), l2(0x0, 4, 64), {}));
  EXPECT_EQ(hazards(l),
            "3 op.output: overwrites l2 [0x0, 0x100) read by descriptor 2 (softmax) without "
            "depending on it (write after read)\n");
  // The planner's fix: the matmul waits for the softmax (Lowerer::order_queues).
  l.descriptors[3].deps = {2};
  EXPECT_EQ(hazards(l), "");
  // The same overwrite by a conv queued after that matmul, the matmul writing elsewhere.
  l.descriptors[3].deps = {};
  l.descriptors[3].op.output = l2(0x300, 4, 64);
  l.descriptors.push_back(op(4, OpCode::kConv, l2(0x200, 4, 64), l2(0x0, 4, 64), {}));
  EXPECT_EQ(hazards(l),
            "4 op.output: overwrites l2 [0x0, 0x100) read by descriptor 2 (softmax) without "
            "depending on it (write after read)\n");
  l.descriptors[3].deps = {2};  // the matmul waits for the softmax: the conv follows it
  EXPECT_EQ(hazards(l), "");
}

// A vector op writing bytes a compute op still reads, and an op writing bytes a move wrote that
// nothing read (write after write: the move could land after the op).
TEST(DataFlowCheck, OpWritersAreCheckedForWriteAfterReadAndWrite) {
  DescriptorList l;
  l.layers = {"x"};
  l.descriptors.push_back(move_in(0, 0x0, 1, 256, 0));
  l.descriptors.push_back(op(1, OpCode::kConv, l2(0x0, 4, 64), l2(0x100, 4, 64), {0}));
  l.descriptors.push_back(move_in(2, 0x200, 1, 256, 0));
  l.descriptors.push_back(op(3, OpCode::kGelu, l2(0x200, 4, 64), l2(0x0, 4, 64), {2}));
  EXPECT_EQ(hazards(l),
            "3 op.output: overwrites l2 [0x0, 0x100) written by descriptor 0 (move) without "
            "depending on it (write after write)\n"
            "3 op.output: overwrites l2 [0x0, 0x100) read by descriptor 1 (conv) without "
            "depending on it (write after read)\n");
  l.descriptors[3].deps = {1, 2};
  EXPECT_EQ(hazards(l), "");

  DescriptorList w;
  w.layers = {"x"};
  w.descriptors.push_back(move_in(0, 0x0, 1, 256, 0));
  w.descriptors.push_back(move_in(1, 0x100, 1, 64, 0));  // written, never read
  w.descriptors.push_back(op(2, OpCode::kActivation, l2(0x0, 4, 64), l2(0x100, 1, 64), {0}));
  EXPECT_EQ(hazards(w),
            "2 op.output: overwrites l2 [0x100, 0x140) written by descriptor 1 (move) without "
            "depending on it (write after write)\n");
  // The op's own later reader: a move storing the op's output depends on the op (read after
  // write from an op writer).
  w.descriptors[2].deps = {0, 1};
  Descriptor store;
  store.id = 3;
  store.kind = DescKind::kMove;
  store.move = MoveDesc{MemSpace::kL2, MemSpace::kDram, 0x100, 0x200000, 1, 64, 0, 0};
  w.descriptors.push_back(store);
  EXPECT_EQ(hazards(w),
            "3 move.src: reads l2 [0x100, 0x140) written by descriptor 2 (activation) without "
            "depending on it (read after write)\n");
  w.descriptors[3].deps = {2};
  EXPECT_EQ(hazards(w), "");
}

// A 2-D move of 4 rows of 16 bytes, 64 apart, is its 4 rows: a read of the gaps between them
// needs no dependency, a read of one row does; an op tile of some rows of a tensor whose
// channels interleave with another tile's is its rows too.
TEST(DataFlowCheck, StridedMovesAreTheirRows) {
  DescriptorList l;
  l.layers = {"x"};
  l.descriptors.push_back(move_in(0, 0x0, 4, 16, 64));  // [0,16) [64,80) [128,144) [192,208)
  l.descriptors.push_back(op(1, OpCode::kActivation, l2(0x10, 4, 48), l2(0x400, 4, 48), {}));
  l.descriptors[1].op.input.row_stride = 64;  // the 48-byte gaps after each row
  DataFlowStats s;
  EXPECT_EQ(hazards(l, &s), "");
  EXPECT_EQ(s.bounded, 0u);
  l.descriptors[1].op.input = l2(0x40, 1, 16);  // the second row: written by the move
  EXPECT_EQ(hazards(l),
            "1 op.input: reads l2 [0x40, 0x50) written by descriptor 0 (move) without depending "
            "on it (read after write)\n");
  // Two tiles of a 2-channel, 4-row tensor at 0x400, rows [0, 2) and [2, 4): their bytes
  // interleave (channel 0 rows 2-3 lie between the first tile's two channels) but do not
  // overlap; a move storing rows [2, 4) of channel 0 depends on the second tile only.
  DescriptorList t;
  t.layers = {"x"};
  TensorRef out = l2(0x400, 4, 16);
  out.c = 2;
  t.descriptors.push_back(op(0, OpCode::kAdd, l2(0x0, 4, 16), out, {}));
  t.descriptors[0].op.row_end = 2;
  t.descriptors[0].op.ch_end = 2;
  t.descriptors.push_back(move_in(1, 0x0, 1, 64, 0));  // refills the input after tile 0...
  t.descriptors[1].deps = {0};
  t.descriptors.push_back(op(2, OpCode::kAdd, l2(0x0, 4, 16), out, {1}));
  t.descriptors[2].op.row_begin = 2;
  t.descriptors[2].op.ch_end = 2;
  Descriptor store;
  store.id = 3;
  store.kind = DescKind::kMove;
  store.deps = {2};
  store.move = MoveDesc{MemSpace::kL2, MemSpace::kDram, 0x420, 0x200000, 1, 32, 0, 0};
  t.descriptors.push_back(store);
  EXPECT_EQ(hazards(t, &s), "");
  EXPECT_EQ(s.bounded, 0u);
  // Past 16384 rows a move is taken as its bounding interval and not checked (counted).
  l.descriptors[0] = move_in(0, 0x0, 20000, 1, 2);
  l.descriptors[1].op.input = l2(0x40, 1, 16);
  EXPECT_EQ(hazards(l, &s), "");
  EXPECT_EQ(s.bounded, 1u);
}

}  // namespace
}  // namespace strider
