#!/usr/bin/python3
"""Writes the GELU tanh-form fixtures, built with the onnx helper (Debian's python3-onnx): one
token-sequence MLP, input [1, 8, 16] -> Linear 16x32 -> GELU -> Linear 32x16, with the GELU written
four ways (opset 13, the same weights):

gelu_tanh_torch.onnx   PyTorch's F.gelu(x, approximate='tanh') export: x * x, * x, * 0.044715,
                       x +, * sqrt(2 / pi), Tanh, 1 +, x *, 0.5 *.
gelu_tanh_gpt2.onnx    GPT-2's gelu_new: 0.5 * x first, Pow(x, 3), ..., (0.5 x) * (1 + tanh).
gelu_erf.onnx          the erf form x * 0.5 * (1 + Erf(x / sqrt 2)) as Strider already read it.
square_mlp.onnx        x * x alone (a squared activation, not a GELU).

Weights are seeded floats (numpy default_rng(0)), so the files are reproducible byte for byte.
usage: make_gelu_tanh_fixtures.py  (writes next to this script)
"""
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from fixture_io import save_model


def c(name, v):
    return numpy_helper.from_array(np.array(v, np.float32), name)


def mk(n, a, b, o):
    return helper.make_node(n, [a, b], [o], name=o)


def gelu_nodes(form):
    if form == "torch":
        return [mk("Mul", "h", "h", "sq"), mk("Mul", "h", "sq", "cube"),
                mk("Mul", "k0", "cube", "cs"), mk("Add", "h", "cs", "inner"),
                mk("Mul", "k1", "inner", "isc"),
                helper.make_node("Tanh", ["isc"], ["th"], name="th"),
                mk("Add", "one", "th", "tp1"), mk("Mul", "h", "tp1", "xt"),
                mk("Mul", "half", "xt", "g")]
    if form == "gpt2":
        return [mk("Mul", "h", "half", "hx"), mk("Pow", "h", "three", "cube"),
                mk("Mul", "cube", "k0", "cs"), mk("Add", "h", "cs", "inner"),
                mk("Mul", "inner", "k1", "isc"),
                helper.make_node("Tanh", ["isc"], ["th"], name="th"),
                mk("Add", "th", "one", "tp1"), mk("Mul", "hx", "tp1", "g")]
    if form == "erf":
        return [mk("Div", "h", "sqrt2", "hs"), helper.make_node("Erf", ["hs"], ["e"], name="e"),
                mk("Add", "e", "one", "e1"), mk("Mul", "h", "e1", "xe"),
                mk("Mul", "xe", "half", "g")]
    return [mk("Mul", "h", "h", "g")]


def model(form, name):
    rng = np.random.default_rng(0)
    w1 = numpy_helper.from_array((rng.standard_normal((16, 32)) * 0.4).astype(np.float32), "w1")
    w2 = numpy_helper.from_array((rng.standard_normal((32, 16)) * 0.3).astype(np.float32), "w2")
    inits = [w1, w2, c("k0", 0.044715), c("k1", math.sqrt(2 / math.pi)), c("one", 1.0),
             c("half", 0.5), c("three", 3.0), c("sqrt2", math.sqrt(2.0))]
    nodes = [mk("MatMul", "x", "w1", "h")] + gelu_nodes(form) + [mk("MatMul", "g", "w2", "y")]
    used = {i for n in nodes for i in n.input}
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 16])
    graph = helper.make_graph(nodes, name, [x], [y],
                              initializer=[i for i in inits if i.name in used])
    save_model(graph, name)


if __name__ == "__main__":
    model("torch", "gelu_tanh_torch")
    model("gpt2", "gelu_tanh_gpt2")
    model("erf", "gelu_erf")
    model("square", "square_mlp")
