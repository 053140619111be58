#!/usr/bin/python3
"""Writes tiny_gpt2_fused_qkv.onnx: tiny_gpt2.onnx (scripts/transformer_models.py, 2 pre-LN
blocks, d = 32, 16 tokens) with each block's three Q, K, V projections fused into one, as GPT-2
and nanoGPT write them (`q, k, v = self.c_attn(x).split(d, dim=2)`) and as PyTorch exports that
at opset 13: one MatMul [32, 96], one bias Add [96] and a Split along axis 2 with split sizes
[32, 32, 32] as an int64 input. The rest of the graph is unchanged. Like tiny_gpt2.onnx the
weights carry shapes only (Strider materialises them). Needs Debian's python3-onnx.

usage: make_tiny_gpt2_fused_qkv.py  (from any directory; writes next to this script)
"""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def shape_only(name, dims):
    t = TensorProto()
    t.name, t.data_type = name, TensorProto.FLOAT
    t.dims.extend(dims)
    return t


def main():
    m = onnx.load(os.path.join(HERE, "tiny_gpt2.onnx"))
    g = m.graph
    nodes = list(g.node)
    out = []
    inits = {t.name: t for t in g.initializer}
    split = helper.make_tensor("qkv_split", TensorProto.INT64, [3], [32, 32, 32])
    g.initializer.append(split)
    dropped = set()
    for n in nodes:
        if n.op_type == "MatMul" and "/attn/q/" in n.output[0]:
            block = n.output[0].split("/attn/")[0]  # "/blocks.0"
            b = block.strip("/")
            w = shape_only(f"{b}.attn.qkv.weight", [32, 96])
            bias = shape_only(f"{b}.attn.qkv.bias", [96])
            g.initializer.extend([w, bias])
            mm = helper.make_node("MatMul", [n.input[0], w.name], [f"{block}/attn/qkv/MatMul_output_0"],
                                  name=f"{block}/attn/qkv/MatMul")
            add = helper.make_node("Add", [bias.name, mm.output[0]], [f"{block}/attn/qkv/Add_output_0"],
                                   name=f"{block}/attn/qkv/Add")
            sp = helper.make_node("Split", [add.output[0], "qkv_split"],
                                  [f"{block}/attn/{p}/Add_output_0" for p in "qkv"],
                                  name=f"{block}/attn/Split", axis=2)
            out.extend([mm, add, sp])
            dropped.add(n.name)
            continue
        if any(f"/attn/{p}/" in o for o in n.output for p in "qkv"):
            continue  # the separate projections' MatMul and bias Add
        out.append(n)
    del g.node[:]
    g.node.extend(out)
    used = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    path = os.path.join(HERE, "tiny_gpt2_fused_qkv.onnx")
    onnx.save(m, path)
    print(f"{path}: {os.path.getsize(path)} bytes, {len(g.node)} nodes")


if __name__ == "__main__":
    main()
