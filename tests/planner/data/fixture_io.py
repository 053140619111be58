"""Shared by the make_*_fixtures.py scripts: checks an ONNX graph as a model (IR 7, the given
default-domain opset, producer strider-fixture) and writes it next to the scripts as NAME.onnx."""
import os

import onnx
from onnx import helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save_model(graph, name, opset=13):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="strider-fixture")
    m.ir_version = 7
    onnx.checker.check_model(m)
    path = os.path.join(HERE, name + ".onnx")
    onnx.save(m, path)
    print(f"{path}: {os.path.getsize(path)} bytes")
