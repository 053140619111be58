#!/usr/bin/python3
"""Run one torchvision model through PyTorch and through Strider on the same calibration and
evaluation images, and print both figures: the int8 network's output SQNR and top-1 agreement
with the float network on the calibration set (in-sample) and on the held-out evaluation set.

The model is built with torchvision's own random initialisation under torch.manual_seed(SEED)
(Debian's python3-torchvision ships no pretrained weights and nothing is downloaded) and
exported with its parameters (ONNX opset 13). Images: the photographs of Debian's
python3-skimage (skimage/data), preprocessed here as ImageNet models expect (shorter side 256,
centre crop 224, mean / std of ImageNet; bilinear with half-pixel centres, as Strider's own
image loader does it) and written as .npy, so PyTorch and Strider read the same floats.
PyTorch's float top-1 per evaluation image is printed beside Strider's figures, and Strider's
float network is checked against PyTorch's on the calibration image Strider simulates.

Images, by one rule fixed before measuring (never chosen by their figures): a photograph is an
image a sensor recorded of a real scene or specimen (camera, scanner, microscope, telescope); a
chart is one a program or a hand drew (colour wheel, logo, checkerboard, clip art, phantom,
rendered text). skimage/data's photographs, colour and grey (grey ones replicated to RGB), each
group in file-name order, alternate: the 1st, 3rd, ... calibrate (11), the 2nd, 4th, ... are held
out (9). The charts (7) are evaluated too but reported in their own out-of-distribution row, not
mixed into the held-out figure. Files under 64 pixels a side (decoder test fixtures) are neither.
Fresh photographs (python3-sklearn's china.jpg and flower.jpg, python3-matplotlib's
grace_hopper.jpg, those installed) get a row of their own: the held-out photographs were looked at
while choosing the pooled tensors' headroom, these were not.
--calibration colour takes the 5 colour calibration photographs alone. Defaults: method minmax,
the thresholds of the graph output and of the pooled tensors (a global average pool's output and
the fc layers computed from it) x 1.5 (quant.calibration.output_headroom; docs/planner.md has
the measured steps).

    /usr/bin/python3 scripts/compare_pytorch.py resnet18
    /usr/bin/python3 scripts/compare_pytorch.py mobilenet_v3_small --method mse --headroom 1 --calibration colour
    /usr/bin/python3 scripts/compare_pytorch.py mobilenet_v3_small --seed 1 --per-image

A pooled SQNR is dominated by the images with the most signal and noise: --per-image prints each
image's SQNR, its relative RMS error (sqrt(noise / signal)), whether top-1 agrees and the float
top-1's lead over its runner-up in units of the output's RMS error (below about 1 a disagreement
is a near tie within the noise), and the fraction of its layers' values that clip.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torchvision
from PIL import Image

SKIMAGE = "/usr/lib/python3/dist-packages/skimage/data/"
PHOTO_COLOUR = ["astronaut.png", "chelsea.png", "coffee.png", "hubble_deep_field.jpg", "ihc.png",
                "motorcycle_left.png", "motorcycle_right.png", "retina.jpg", "rocket.jpg"]
PHOTO_GREY = ["brick.png", "camera.png", "cell.png", "clock_motion.png", "coins.png", "grass.png",
              "gravel.png", "microaneurysms.png", "moon.png", "page.png", "text.png"]
CHARTS = ["bw_text.png", "chessboard_RGB.png", "color.png", "green_palette.png", "horse.png",
          "logo.png", "phantom.png"]
CALIBRATION_COLOUR = PHOTO_COLOUR[0::2]
CALIBRATION = CALIBRATION_COLOUR + PHOTO_GREY[0::2]
PHOTOGRAPHS = PHOTO_COLOUR[1::2] + PHOTO_GREY[1::2]
# Photographs from other Debian packages (python3-sklearn's two sample photographs,
# python3-matplotlib's Grace Hopper portrait), each used when installed: a fresh held-out row
# that no calibration choice was tuned on (the held-out photographs above were looked at).
FRESH = [p for p in ("/usr/lib/python3/dist-packages/sklearn/datasets/images/china.jpg",
                     "/usr/lib/python3/dist-packages/sklearn/datasets/images/flower.jpg",
                     "/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg")
         if os.path.exists(p)]
EVALUATION = PHOTOGRAPHS + CHARTS + FRESH
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def preprocess(path, resize=256, crop=224):
    """Strider's quant.preprocess (planner/quant/calibration_inputs.cpp) in numpy."""
    img = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
    ih, iw = img.shape[:2]
    s = resize / min(ih, iw)
    rh, rw = round(ih * s), round(iw * s)
    oy, ox = round((rh - crop) / 2), round((rw - crop) / 2)
    ys = np.clip((np.arange(crop) + oy + 0.5) * (ih / rh) - 0.5, 0, ih - 1)
    xs = np.clip((np.arange(crop) + ox + 0.5) * (iw / rw) - 0.5, 0, iw - 1)
    y0, x0 = ys.astype(int), xs.astype(int)
    y1, x1 = np.minimum(y0 + 1, ih - 1), np.minimum(x0 + 1, iw - 1)
    fy, fx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
    top = img[y0][:, x0] * (1 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1 - fx) + img[y1][:, x1] * fx
    v = (top * (1 - fy) + bottom * fy) / 255.0
    v = (v - np.array(MEAN)) / np.array(STD)
    return np.ascontiguousarray(v.transpose(2, 0, 1), dtype=np.float32)


def figure(v, fmt):
    return "null" if v is None else fmt % v


def group_row(label, names, rows, outs):
    """One group's pooled output SQNR (sum of the float outputs' power over the sum of the
    noise, each image's noise its power x its relative error squared), top-1 agreement and its
    images' lowest and median SQNR."""
    signal = [float(np.square(o.astype(np.float64)).sum()) for o in outs]
    rel = [p["output_relative_error"] for p in rows]
    text = "%-26s %2d images: " % (label, len(names))
    if any(r is None for r in rel) or sum(signal) == 0:
        text += "output SQNR null (a zero float output)"
    else:
        noise = sum(s * r * r for s, r in zip(signal, rel))
        text += "output SQNR %s (relative RMS error %.3f)" % (
            "%.1f dB" % (10 * math.log10(sum(signal) / noise)) if noise > 0 else "inf",
            math.sqrt(noise / sum(signal)))
    agree = [p["top1_agree"] for p in rows if "top1_agree" in p]
    if agree:
        text += ", top-1 %d / %d" % (sum(agree), len(agree))
    per = sorted((p["output_sqnr_db"], f) for p, f in zip(rows, names)
                 if p["output_sqnr_db"] is not None)
    if per:
        text += "; per image lowest %.1f dB (%s), median %.1f dB" % (
            per[0][0], per[0][1].split(".")[0], float(np.median([v for v, _ in per])))
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--method", default="minmax")
    ap.add_argument("--headroom", default="1.5", help="quant.calibration.output_headroom")
    ap.add_argument("--calibration", choices=("all", "colour"), default="all",
                    help="calibration photographs: all %d, or the %d colour ones" % (
                        len(CALIBRATION), len(CALIBRATION_COLOUR)))
    ap.add_argument("--strider", default=os.path.join(os.path.dirname(__file__), "..", "build", "strider"))
    ap.add_argument("--per-image", action="store_true",
                    help="each image's output SQNR, relative error, top-1 margin over the noise, clipping")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="passed to strider run as --set KEY=VALUE (e.g. arch.lowering.fuse=false)")
    ap.add_argument("--keep", metavar="DIR", help="keep Strider's run folder (layers.csv, summary.json) in DIR")
    args = ap.parse_args()
    if args.keep and os.path.exists(args.keep):
        sys.exit("compare_pytorch: %s exists; give a new folder to --keep" % args.keep)
    if not os.path.isdir(SKIMAGE):
        sys.exit("compare_pytorch: needs Debian's python3-skimage (photographs in %s)" % SKIMAGE)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    with tempfile.TemporaryDirectory() as tmp:
        torch.manual_seed(args.seed)
        model = getattr(torchvision.models, args.model)(weights=None).eval()
        onnx_path = os.path.join(tmp, args.model + ".onnx")
        torch.onnx.export(model, torch.zeros(1, 3, 224, 224), onnx_path, opset_version=13,
                          export_params=True)
        sets = {}
        calibration = CALIBRATION if args.calibration == "all" else CALIBRATION_COLOUR
        for name, files in (("calibration", calibration), ("evaluation", EVALUATION)):
            os.makedirs(os.path.join(tmp, name))
            xs = []
            for i, f in enumerate(files):
                x = preprocess(f if os.path.isabs(f) else SKIMAGE + f)
                np.save(os.path.join(tmp, name, "%02d.npy" % i), x)
                xs.append(x)
            with torch.no_grad():
                sets[name] = model(torch.from_numpy(np.stack(xs))).numpy()
        out = os.path.abspath(args.keep) if args.keep else os.path.join(tmp, "out")
        dump = os.path.join(out if args.keep else tmp, "dump")
        cmd = [args.strider, "run", os.path.join(root, "configs/runs/default.yaml"), "--out", out,
               "--set", "networks[0].path=" + onnx_path, "--set", "networks[0].input=[224, 224]",
               "--set", "sim.functional=true", "--set", "sim.trace=false",
               "--set", "quant.calibration.inputs=" + os.path.join(tmp, "calibration", "*.npy"),
               "--set", "quant.calibration.method=" + args.method,
               "--set", "quant.calibration.output_headroom=" + args.headroom,
               "--set", "quant.evaluation.inputs=" + os.path.join(tmp, "evaluation", "*.npy"),
               "--dump-tensors", dump]
        for kv in args.set:
            cmd += ["--set", kv]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("compare_pytorch: strider failed:\n" + run.stderr)
        q = json.load(open(os.path.join(out, "summary.json")))["quant"]
        # Strider's float network against PyTorch on calibration image 0 (the simulated one).
        # The layers whose float output has the classifier's size (the last one: the logits).
        ref = sets["calibration"][0].reshape(-1)
        logits = [f for f in sorted(os.listdir(dump)) if f.endswith(".output.float.npy")
                  and np.load(os.path.join(dump, f)).size == ref.size]
        print("%s (torchvision initialisation, seed %d), method %s" % (args.model, args.seed, q["method"]))
        files = {"calibration": calibration, "evaluation": EVALUATION}
        for name in ("calibration", "evaluation"):
            s = q[name]
            top1 = "" if s["top1_agreement"] is None else ", top-1 agrees on %d of %d" % (
                s["top1_agree"], s["top1_total"])
            label = name if name == "calibration" else "evaluation (photographs and charts)"
            print("  %s, %d images: output SQNR %s (relative RMS error %s)%s; worst layer %s %s" % (
                label, s["samples"], figure(s["output_sqnr_db"], "%.1f dB"),
                figure(s["output_relative_error"], "%.3f"), top1, s["worst_layer"],
                figure(s["worst_layer_sqnr_db"], "%.1f dB")))
        print("  largest float logit: %.3g" % float(np.abs(sets["evaluation"]).max()))
        groups = (("calibration", "calibration photographs", calibration, 0),
                  ("evaluation", "held-out photographs", PHOTOGRAPHS, 0),
                  ("evaluation", "out-of-distribution charts", CHARTS, len(PHOTOGRAPHS)),
                  ("evaluation", "fresh photographs", FRESH, len(PHOTOGRAPHS) + len(CHARTS)))
        for name, label, names, first in groups:
            if not names:
                continue
            names = [os.path.basename(f) for f in names]
            rows = q[name]["per_sample"][first:first + len(names)]
            outs = sets[name][first:first + len(names)]
            for i, p in enumerate(rows):  # Strider's samples in the order written here
                assert p["input"].endswith("%02d.npy" % (first + i)), p["input"]
            print("  %s" % group_row(label, names, rows, outs))
            if args.per_image:
                print("    PyTorch float top-1: %s" % list(outs.argmax(1)))
                for f, p in zip(names, rows):
                    print("    %-22s %8s  rel. error %6s  top-1 %-5s margin/noise %6s  clips %.2f %%" % (
                        f, figure(p["output_sqnr_db"], "%.1f dB"),
                        figure(p["output_relative_error"], "%.3f"), p.get("top1_agree", "-"),
                        figure(p.get("top1_margin_over_noise"), "%.2f"),
                        100 * p["clipped_fraction"]))
        diffs = [float(np.abs(np.load(os.path.join(dump, f)).reshape(-1) - ref).max()) for f in logits]
        if diffs:
            print("  Strider's float logits vs PyTorch's on calibration image 0: max |diff| %.2e"
                  " (largest logit %.3g)" % (min(diffs), float(np.abs(ref).max())))
        for w in q["warnings"]:
            for name in files:
                for i, f in enumerate(files[name]):
                    w = w.replace(os.path.join(tmp, name, "%02d.npy" % i), f)
            print("  warning: " + w)


if __name__ == "__main__":
    main()
