#!/usr/bin/python3
"""Writes tests/e2e/data/tiny_fpn_det.onnx: an FPN-like detection head exported by PyTorch
(torch.onnx.export, opset 13, seeded weights, so the file is reproducible), input [1, 3, 32, 32]:

  backbone  c2 = relu(conv3x3 3->8)            32 x 32
            c3 = relu(conv3x3 8->16, stride 2) 16 x 16
            c4 = relu(conv3x3 16->32, stride 2) 8 x 8
  FPN       p4 = conv1x1(c4) 32->16
            p3 = conv1x1(c3) 16->16 + Resize(p4, x2, nearest)       (PyTorch: asymmetric, floor)
            p2 = conv1x1(c2)  8->16 + Resize(p3, x2, bilinear)      (pytorch_half_pixel)
            d2 = relu(ConvTranspose 16->8, kernel 4, stride 2, pad 1)(p3)   32 x 32
            f2 = Concat(p2, d2)                                              24 channels
  heads     per level f2, p3: class conv3x3 (2 anchors x 3 classes = 6) and box conv3x3
            (2 anchors x 4 = 8).

Outputs: cls_p2, box_p2, cls_p3, box_p3.
usage: make_detection_head.py  (writes tests/e2e/data/tiny_fpn_det.onnx; needs python3-torch)
"""
import os

import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "e2e", "data", "tiny_fpn_det.onnx")


class TinyFpnDet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c2 = nn.Conv2d(3, 8, 3, padding=1)
        self.c3 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.c4 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.l2 = nn.Conv2d(8, 16, 1)
        self.l3 = nn.Conv2d(16, 16, 1)
        self.l4 = nn.Conv2d(32, 16, 1)
        self.up = nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)
        self.cls2 = nn.Conv2d(24, 6, 3, padding=1)
        self.box2 = nn.Conv2d(24, 8, 3, padding=1)
        self.cls3 = nn.Conv2d(16, 6, 3, padding=1)
        self.box3 = nn.Conv2d(16, 8, 3, padding=1)

    def forward(self, x):
        c2 = F.relu(self.c2(x))
        c3 = F.relu(self.c3(c2))
        c4 = F.relu(self.c4(c3))
        p4 = self.l4(c4)
        p3 = self.l3(c3) + F.interpolate(p4, scale_factor=2, mode="nearest")
        p2 = self.l2(c2) + F.interpolate(p3, scale_factor=2, mode="bilinear", align_corners=False)
        f2 = torch.cat([p2, F.relu(self.up(p3))], dim=1)
        return self.cls2(f2), self.box2(f2), self.cls3(p3), self.box3(p3)


def main():
    torch.manual_seed(0)
    model = TinyFpnDet().eval()
    x = torch.zeros(1, 3, 32, 32)
    torch.onnx.export(model, x, OUT, opset_version=13, input_names=["image"],
                      output_names=["cls_p2", "box_p2", "cls_p3", "box_p3"],
                      do_constant_folding=True)
    print(OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
