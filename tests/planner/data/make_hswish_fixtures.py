#!/usr/bin/python3
"""Writes the hard-swish-as-Mul fixtures, built with the onnx helper (Debian's python3-onnx): one
small CNN, input [1, 4, 8, 8]:

hswish_cnn.onnx          hard-swish written as torchvision's mobilenet_v3 exports it at opset 13,
                         Mul(x, HardSigmoid(x; alpha 1/6, beta 0.5)): conv1 (3x3, 8 channels) ->
                         hard-swish (x first), conv2 (1x1) -> hard-swish (HardSigmoid first), then
                         a squeeze-excitation gate that is not a hard-swish: GlobalAveragePool ->
                         HardSigmoid -> Mul with conv2's hard-swish.
hswish_cnn_fused.onnx    the same weights with the HardSwish op (opset 14) in place of each pair.
hswish_cnn_alpha02.onnx  hswish_cnn.onnx with conv1's HardSigmoid at alpha 0.2 (ONNX's default).
hswish_shared.onnx       conv (3x3, 8 channels) -> HardSigmoid h; Mul(c, h) + h: the HardSigmoid
                         is read twice, so it is not folded.

Weights are seeded floats (numpy default_rng(0)), so the files are reproducible byte for byte.
usage: make_hswish_fixtures.py  (writes next to this script)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def weights():
    rng = np.random.default_rng(0)

    def weight(name, shape, scale=0.3):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32),
                                       name)

    return [weight("w1", (8, 4, 3, 3)), weight("b1", (8,)), weight("w2", (8, 8, 1, 1)),
            weight("b2", (8,))]


def save(name, nodes, inits, out_dims, opset):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, out_dims)
    graph = helper.make_graph(nodes, name, [x], [y], initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="strider-fixture")
    m.ir_version = 7
    onnx.checker.check_model(m)
    path = os.path.join(HERE, name + ".onnx")
    onnx.save(m, path)
    print(f"{path}: {os.path.getsize(path)} bytes")


def cnn(name, fused=False, alpha1=1.0 / 6):
    def hswish(x, y, node, x_first=True, alpha=1.0 / 6):
        if fused:
            return [helper.make_node("HardSwish", [x], [y], name=node)]
        operands = [x, node + "_hs"] if x_first else [node + "_hs", x]
        return [helper.make_node("HardSigmoid", [x], [node + "_hs"], name=node + "_hardsigmoid",
                                 alpha=alpha, beta=0.5),
                helper.make_node("Mul", operands, [y], name=node)]

    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1])]
    nodes += hswish("c1", "a1", "act1", alpha=alpha1)
    nodes += [helper.make_node("Conv", ["a1", "w2", "b2"], ["c2"], name="conv2",
                               kernel_shape=[1, 1])]
    nodes += hswish("c2", "a2", "act2", x_first=False)
    nodes += [helper.make_node("GlobalAveragePool", ["a2"], ["p"], name="gap"),
              helper.make_node("HardSigmoid", ["p"], ["g"], name="gate_hardsigmoid",
                               alpha=1.0 / 6, beta=0.5),
              helper.make_node("Mul", ["a2", "g"], ["y"], name="gate")]
    save(name, nodes, weights(), [1, 8, 8, 8], 14 if fused else 13)


def shared():
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c"], name="conv",
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("HardSigmoid", ["c"], ["h"], name="hs", alpha=1.0 / 6, beta=0.5),
             helper.make_node("Mul", ["c", "h"], ["m"], name="mul"),
             helper.make_node("Add", ["m", "h"], ["y"], name="add")]
    save("hswish_shared", nodes, weights()[:2], [1, 8, 8, 8], 13)


if __name__ == "__main__":
    cnn("hswish_cnn")
    cnn("hswish_cnn_fused", fused=True)
    cnn("hswish_cnn_alpha02", alpha1=0.2)
    shared()
