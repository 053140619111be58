#!/usr/bin/python3
"""Writes the SiLU fixtures, built with the onnx helper (Debian's python3-onnx): one small CNN
twice, input [1, 4, 8, 8], opset 13:

silu_cnn.onnx       SiLU written as torchvision's efficientnet_b0 exports it, Mul(x, Sigmoid(x)):
                    on the graph input (x first), then conv1 (3x3, 8 channels) -> SiLU (x first),
                    conv2 (1x1) -> SiLU (Sigmoid first), then a squeeze-excitation gate that is not
                    a SiLU: GlobalAveragePool -> Sigmoid -> Mul with conv2's SiLU.
silu_cnn_relu.onnx  the same weights with Relu in place of each of the three SiLUs.

Weights are seeded floats (numpy default_rng(0)), so the files are reproducible byte for byte.
usage: make_silu_fixtures.py  (writes next to this script)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def model(relu):
    rng = np.random.default_rng(0)

    def weight(name, shape, scale=0.3):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32),
                                       name)

    def silu(x, y, name, x_first=True):
        if relu:
            return [helper.make_node("Relu", [x], [y], name=name)]
        operands = [x, name + "_s"] if x_first else [name + "_s", x]
        return [helper.make_node("Sigmoid", [x], [name + "_s"], name=name + "_sigmoid"),
                helper.make_node("Mul", operands, [y], name=name)]

    inits = [weight("w1", (8, 4, 3, 3)), weight("b1", (8,)), weight("w2", (8, 8, 1, 1)),
             weight("b2", (8,))]
    nodes = silu("x", "a0", "act0")
    nodes += [helper.make_node("Conv", ["a0", "w1", "b1"], ["c1"], name="conv1",
                               kernel_shape=[3, 3], pads=[1, 1, 1, 1])]
    nodes += silu("c1", "a1", "act1")
    nodes += [helper.make_node("Conv", ["a1", "w2", "b2"], ["c2"], name="conv2",
                               kernel_shape=[1, 1])]
    nodes += silu("c2", "a2", "act2", x_first=False)
    nodes += [helper.make_node("GlobalAveragePool", ["a2"], ["p"], name="gap"),
              helper.make_node("Sigmoid", ["p"], ["g"], name="gate_sigmoid"),
              helper.make_node("Mul", ["a2", "g"], ["y"], name="gate")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])
    graph = helper.make_graph(nodes, "silu_cnn", [x], [y], initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="strider-fixture")
    m.ir_version = 7
    onnx.checker.check_model(m)
    path = os.path.join(HERE, "silu_cnn" + ("_relu" if relu else "") + ".onnx")
    onnx.save(m, path)
    print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    model(False)
    model(True)
