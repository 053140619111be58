#!/usr/bin/python3
"""Writes the hard-swish fixtures, built with the onnx helper (Debian's python3-onnx): one small
CNN twice, input [1, 3, 16, 16]:

hard_swish_cnn.onnx        opset 13, activations written out as Paddle2ONNX / tf2onnx / PyTorch's
                           `x * F.relu6(x + 3) / 6` export them: conv1 -> x * Clip(x + 3, 0, 6) / 6
                           -> conv2 -> Clip(x + 3, 0, 6) * (1/6) (a hard-sigmoid gate) -> Mul with
                           conv2's output -> GlobalAveragePool -> Flatten -> Gemm (10 classes).
hard_swish_cnn_fused.onnx  opset 14, the same weights with HardSwish and HardSigmoid (alpha 1/6).

Weights are seeded floats (numpy default_rng(0)), so the files are reproducible byte for byte.
usage: make_hard_swish_fixtures.py  (writes next to this script)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def scalar(name, v):
    return numpy_helper.from_array(np.array(v, np.float32), name)


def model(fused):
    rng = np.random.default_rng(0)

    def weight(name, shape, scale=0.3):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32),
                                       name)

    inits = [weight("w1", (8, 3, 3, 3)), weight("b1", (8,)), weight("w2", (8, 8, 3, 3)),
             weight("b2", (8,)), weight("fc_w", (10, 8)), weight("fc_b", (10,))]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1])]
    if fused:
        nodes += [helper.make_node("HardSwish", ["c1"], ["h1"], name="hswish1")]
    else:
        inits += [scalar("three", 3.0), scalar("zero", 0.0), scalar("six", 6.0),
                  scalar("sixth", 1.0 / 6.0)]
        nodes += [helper.make_node("Add", ["c1", "three"], ["a1"], name="add3"),
                  helper.make_node("Clip", ["a1", "zero", "six"], ["k1"], name="clip1"),
                  helper.make_node("Mul", ["c1", "k1"], ["m1"], name="mul1"),
                  helper.make_node("Div", ["m1", "six"], ["h1"], name="div6")]
    nodes += [helper.make_node("Conv", ["h1", "w2", "b2"], ["c2"], name="conv2",
                               kernel_shape=[3, 3], pads=[1, 1, 1, 1])]
    if fused:
        nodes += [helper.make_node("HardSigmoid", ["c2"], ["g"], name="hsig",
                                   alpha=1.0 / 6.0, beta=0.5)]
    else:
        nodes += [helper.make_node("Add", ["three", "c2"], ["a2"], name="add3_gate"),
                  helper.make_node("Clip", ["a2", "zero", "six"], ["k2"], name="clip2"),
                  helper.make_node("Mul", ["k2", "sixth"], ["g"], name="mul_sixth")]
    nodes += [helper.make_node("Mul", ["c2", "g"], ["s"], name="gate"),
              helper.make_node("GlobalAveragePool", ["s"], ["p"], name="gap"),
              helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
              helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], name="fc", transB=1)]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])
    graph = helper.make_graph(nodes, "hard_swish_cnn", [x], [y], initializer=inits)
    opset = 14 if fused else 13
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="strider-fixture")
    m.ir_version = 7
    onnx.checker.check_model(m)
    path = os.path.join(HERE, "hard_swish_cnn" + ("_fused" if fused else "") + ".onnx")
    onnx.save(m, path)
    print(f"{path}: {os.path.getsize(path)} bytes, opset {opset}")


if __name__ == "__main__":
    model(False)
    model(True)
