#!/usr/bin/python3
"""Writes ONNX fixtures exported by PyTorch (Debian's python3-torch), each under 1 MB:

Into tests/planner/data: small CNNs exported at old opsets with a symbolic batch dim
(dynamic_axes {0: 'N'}), using the rectifiers with a negative slope:

torch_leaky_prelu_opset9.onnx   opset 9:  Conv -> LeakyRelu(0.1) -> MaxPool -> Conv ->
                                PRelu (8 channels, one slope each) -> Conv -> PRelu (one slope) ->
                                GlobalAveragePool -> Flatten -> Gemm (10 classes)
torch_leaky_prelu_opset10.onnx  the same network exported at opset 10

Parameters are seeded (torch.manual_seed(0)); the PRelu slopes are set to distinct values
(0.05 .. 0.4, one negative: -0.1) so that per-channel slopes are exercised.
err_prelu_axis.onnx             (onnx helper) PRelu on X [1, 4, 3, 5] with a slope [5]: one slope
                                per column, refused (only one slope or one per channel)
err_leaky_alpha.onnx            (onnx helper) LeakyRelu with alpha = inf, refused

Also into tests/planner/data:
tiny_ocr.onnx                   an OCR-style (CRNN-like) recogniser at opset 13: a 1 x 16 x 64
                                grey text line -> Conv 3x3 (16) -> ReLU -> MaxPool 2 -> Conv 3x3
                                (32) -> ReLU -> MaxPool (8, 1) -> [N, 32, 1, 32] flattened and
                                transposed to 32 time steps of 32 features -> LayerNorm (nn.LayerNorm
                                exported at opset 13 as ReduceMean / Sub / Pow / ReduceMean / Add /
                                Sqrt / Div / Mul / Add) -> Linear (37 classes: 36 characters and the
                                CTC blank) -> Softmax over the classes of each time step.

usage: /usr/bin/python3 scripts/export_torch_fixtures.py  (from any directory)
"""
import os

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, "tests", "planner", "data")


class RectifierCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.leaky = nn.LeakyReLU(0.1)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.prelu_c = nn.PReLU(8)
        self.conv3 = nn.Conv2d(8, 16, 1)
        self.prelu_1 = nn.PReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)
        with torch.no_grad():
            self.prelu_c.weight.copy_(torch.tensor([0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, -0.1]))
            self.prelu_1.weight.fill_(0.2)

    def forward(self, x):
        x = self.pool(self.leaky(self.conv1(x)))
        x = self.prelu_c(self.conv2(x))
        x = self.prelu_1(self.conv3(x))
        return self.fc(torch.flatten(self.gap(x), 1))


def main():
    torch.manual_seed(0)
    net = RectifierCnn().eval()
    x = torch.randn(1, 3, 16, 16)
    for opset in (9, 10):
        path = os.path.join(HERE, f"torch_leaky_prelu_opset{opset}.onnx")
        torch.onnx.export(net, x, path, opset_version=opset, input_names=["x"],
                          output_names=["y"], dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
        print(f"{path}: {os.path.getsize(path)} bytes, opset {opset}")
    error_fixtures()
    ocr_fixture()


class OcrRecogniser(nn.Module):
    def __init__(self, classes=37):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool1 = nn.MaxPool2d(2)
        self.pool2 = nn.MaxPool2d((8, 1))
        self.norm = nn.LayerNorm(32)
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        x = self.pool1(torch.relu(self.conv1(x)))
        x = self.pool2(torch.relu(self.conv2(x)))  # [N, 32, 1, 32]
        seq = x.flatten(2).transpose(1, 2)  # [N, 32 time steps, 32 features]
        return torch.softmax(self.head(self.norm(seq)), dim=-1)


def ocr_fixture():
    torch.manual_seed(1)
    net = OcrRecogniser().eval()
    path = os.path.join(HERE, "tiny_ocr.onnx")
    torch.onnx.export(net, torch.randn(1, 1, 16, 64), path, opset_version=13,
                      input_names=["image"], output_names=["probs"])
    print(f"{path}: {os.path.getsize(path)} bytes, opset 13")


def error_fixtures():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 3, 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 3, 5])
    slope = numpy_helper.from_array(np.linspace(0.1, 0.5, 5).astype(np.float32), "slope")
    for name, node, inits in [
            ("err_prelu_axis", helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu"),
             [slope]),
            ("err_leaky_alpha", helper.make_node("LeakyRelu", ["x"], ["y"], name="leaky",
                                                 alpha=float("inf")), [])]:
        graph = helper.make_graph([node], name, [x], [y], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                                  producer_name="strider-fixture")
        model.ir_version = 7
        path = os.path.join(HERE, name + ".onnx")
        onnx.save(model, path)
        print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
