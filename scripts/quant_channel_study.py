#!/usr/bin/python3
"""What per-channel activation scales would buy, measured in PyTorch before building them.

Fake-quantises a torchvision model (torchvision's initialisation under torch.manual_seed(SEED),
as scripts/compare_pytorch.py builds it) the way Strider's int8 datapath does to first order:
weights int8 per output channel; every activation tensor a layer writes (a conv with its batch
norm folded, an activation, a squeeze-excitation product, a residual sum, a pool, the
classifier) rounded to int8, or uint8 when it cannot be negative, at a minmax scale over the
calibration photographs, times a headroom. Per-channel mode gives each channel of the tensors a
conv reads its own scale (the others keep one). Prints the output SQNR against the float model
on compare_pytorch.py's held-out photographs and its out-of-distribution charts, with the same
images and preprocessing. An estimate, not Strider's arithmetic (its tables, rounding and scale
rules differ in detail): the committed figures come from compare_pytorch.py.

--strider follows Strider's rules more closely: a conv / fc whose one reader is a ReLU or ReLU6
is rounded once (after the activation, fused); one whose reader is a lookup activation
(hard-swish, hard-sigmoid, SiLU) is rounded twice, as the table's int8 index and at the table's
output; a hard-sigmoid writes uint8 at 1/255; the headroom list applies to the body and
--output-headroom (default 1.5, quant.calibration.output_headroom) to every global average
pool's output and to the logits (Strider before issue 28's pooled-tensor headroom), or with
--pooled-headroom to every tensor computed from a pool alone (Strider now). With it:
  --zero-point compares symmetric int8 (as Strider stores a signed tensor) with the hard-swish /
    SiLU outputs stored as uint8 with a zero point (s = (max - min) / 255, zp = round(-min / s))
    and with every signed tensor so;
  --sensitivity rounds one tensor at a time (weights int8 throughout) and ranks the tensors by
    the output noise each adds on the held-out photographs, then rounds the K noisiest at 16 bits
    (--wide K...) and the rest at 8.

    /usr/bin/python3 scripts/quant_channel_study.py mobilenet_v3_small --seed 1
    /usr/bin/python3 scripts/quant_channel_study.py mobilenet_v3_small --seed 1 --strider --zero-point --headroom 1
    /usr/bin/python3 scripts/quant_channel_study.py mobilenet_v3_small --seed 1 --strider --sensitivity --headroom 1
"""
import argparse
import math
import operator
import os
import sys

import numpy as np
import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_pytorch as cp  # noqa: E402

def fold_batch_norms(model):
    """Each Conv2d's BatchNorm2d folded into it (Strider's importer does the same)."""
    mods = dict(model.named_modules())
    with torch.no_grad():
        for name, m in mods.items():
            if type(m).__name__ != "Conv2dNormActivation" or len(m) < 2:
                continue
            conv, bn = m[0], m[1]
            if not isinstance(bn, torch.nn.BatchNorm2d):
                continue
            k = bn.weight / torch.sqrt(bn.running_var + bn.eps)
            conv.weight.mul_(k.view(-1, 1, 1, 1))
            bias = bn.bias - bn.running_mean * k
            conv.bias = torch.nn.Parameter(bias if conv.bias is None else conv.bias * k + bias)
            m[1] = torch.nn.Identity()


def fold_weights(model):
    """int8 per-output-channel weights (symmetric, round half away from zero)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                w = m.weight
                s = w.abs().flatten(1).amax(1).clamp_min(1e-12) / 127
                s = s.view(-1, *([1] * (w.dim() - 1)))
                m.weight.copy_(torch.sign(w / s) * torch.floor(torch.abs(w / s) + 0.5) * s)


class Quantise(torch.nn.Module):
    """Records a tensor's per-channel range (mode "record") or rounds it to int8 / uint8."""

    def __init__(self, conv_fed, name="", kind=""):
        super().__init__()
        self.conv_fed, self.lo, self.hi, self.scale, self.rounding = conv_fed, None, None, None, False
        # kind (--strider): "fused" (a conv / fc before a ReLU: not rounded), "swish" (a
        # hard-swish / SiLU output), "unit" (a hard-sigmoid output: uint8 at 1/255), "pooled"
        # (a global average pool's output: the output headroom), "" otherwise.
        self.name, self.kind, self.zero_point, self.skip, self.bits = name, kind, None, False, 8

    def forward(self, x):
        if not self.rounding:
            self.pooled_shape = x.dim() == 2 or tuple(x.shape[2:]) == (1, 1)
            per = x.detach().transpose(0, 1).flatten(1)
            lo, hi = per.amin(1), per.amax(1)
            self.lo = lo if self.lo is None else torch.minimum(self.lo, lo)
            self.hi = hi if self.hi is None else torch.maximum(self.hi, hi)
            return x
        if self.skip:
            return x
        s = self.scale.view([1, -1] + [1] * (x.dim() - 2))
        if self.zero_point is not None:  # uint8 b, real = s (b - zp)
            b = torch.floor(x / s + 0.5) + self.zero_point
            return (b.clamp(0, 255) - self.zero_point) * s
        top = 2 ** (self.bits - 1) - 1
        q = torch.sign(x / s) * torch.floor(torch.abs(x / s) + 0.5)
        return (q.clamp(0, 2 * top + 1) if self.unsigned else q.clamp(-top - 1, top)) * s

    def freeze(self, headroom, per_channel, zero_point="none", strider=False):
        """zero_point: "none" (signed symmetric, as Strider stores a signed tensor), "swish" (a
        hard-swish / SiLU output is uint8 with zp = round(-min / s), s = (max - min) / 255),
        "all" (every signed tensor so)."""
        self.unsigned = bool((self.lo >= 0).all())
        self.zero_point = None
        top = 2 ** (self.bits - 1) - 1
        if strider and self.kind == "unit":
            self.scale = torch.full_like(self.lo, 1.0 / (2 * top + 1))
        elif not self.unsigned and self.bits == 8 and (
                zero_point == "all" or (zero_point == "swish" and self.kind == "swish")):
            lo, hi = self.lo.min() * headroom, self.hi.max() * headroom
            self.scale = ((hi - lo).clamp_min(1e-12) / 255).expand_as(self.lo).clone()
            self.zero_point = float(torch.floor(-lo / self.scale[0] + 0.5))
        else:
            amax = torch.maximum(self.hi.abs(), self.lo.abs()) * headroom
            if not (per_channel and self.conv_fed):
                amax = amax.max().expand_as(amax).clone()
            self.scale = amax.clamp_min(1e-12) / (2 * top + 1 if self.unsigned else top)
        self.rounding = True


RELUS = (torch.nn.ReLU, torch.nn.ReLU6)
SWISHES = (torch.nn.Hardswish, torch.nn.SiLU)


def instrument(model):
    """The model traced (torch.fx) with a Quantise after every value a layer writes: modules
    (conv, activations, pools, the classifier) and the Adds and Muls between them. A tensor
    every reader of which is a Conv2d may take per-channel scales. A conv and the activation after
it round twice here (Strider rounds once, the activation fused): a first-order model."""
    gm = torch.fx.symbolic_trace(model)
    mods = dict(gm.named_modules())
    quants = []
    for node in list(gm.graph.nodes):
        writes = (node.op == "call_module" and not isinstance(
            mods[node.target], (torch.nn.Identity, torch.nn.Dropout))) or (
            node.op == "call_function" and node.target in (operator.add, operator.mul, torch.add,
                                                            torch.mul))
        if not writes:
            continue
        users = list(node.users)
        conv_fed = bool(users) and all(
            u.op == "call_module" and isinstance(mods[u.target], torch.nn.Conv2d) for u in users)
        kind = ""
        if node.op == "call_module":
            m = mods[node.target]
            if isinstance(m, SWISHES):
                kind = "swish"
            elif isinstance(m, torch.nn.Hardsigmoid):
                kind = "unit"
            elif isinstance(m, torch.nn.AdaptiveAvgPool2d):
                kind = "pooled"
            elif (isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)) and len(users) == 1 and
                  users[0].op == "call_module" and isinstance(mods[users[0].target], RELUS)):
                kind = "fused"
        q = Quantise(conv_fed, str(node.target) if node.op == "call_module" else node.name, kind)
        name = "quant_%d" % len(quants)
        gm.add_submodule(name, q)
        quants.append(q)
        with gm.graph.inserting_after(node):
            new = gm.graph.call_module(name, (node,))
        node.replace_all_uses_with(new, delete_user_cb=lambda u: u is not new)
    gm.graph.lint()
    gm.recompile()
    return gm, quants


def sqnr(ref, out):
    signal = float((ref.double() ** 2).sum())
    noise = float(((ref.double() - out.double()) ** 2).sum())
    return 10 * math.log10(signal / noise) if noise > 0 else float("inf"), signal, noise


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--headroom", type=float, nargs="+", default=[1.0, 1.25, 1.5])
    ap.add_argument("--strider", action="store_true", help="Strider's rounding and headroom rules")
    ap.add_argument("--output-headroom", type=float, default=1.5,
                    help="--strider: the headroom of the global average pools and the logits")
    ap.add_argument("--pooled-headroom", action="store_true",
                    help="--strider: the output headroom on every pooled (1 x 1) tensor, as "
                    "Strider now does; without it, on the pools and the logits only (Strider "
                    "before issue 28's change)")
    ap.add_argument("--zero-point", action="store_true",
                    help="--strider: symmetric against zero points on the swishes / on all")
    ap.add_argument("--sensitivity", action="store_true",
                    help="--strider: each tensor's own output noise, ranked")
    ap.add_argument("--wide", type=int, nargs="+", default=[1, 2, 4, 8],
                    help="--sensitivity: how many of the noisiest tensors to round at 16 bits")
    args = ap.parse_args()
    if (args.zero_point or args.sensitivity) and not args.strider:
        ap.error("--zero-point and --sensitivity need --strider")
    torch.manual_seed(args.seed)
    model = getattr(torchvision.models, args.model)(weights=None).eval()
    load = lambda files: torch.from_numpy(np.stack([cp.preprocess(cp.SKIMAGE + f) for f in files]))
    cal, photos, charts = load(cp.CALIBRATION), load(cp.PHOTOGRAPHS), load(cp.CHARTS)
    with torch.no_grad():
        ref = {k: model(x) for k, x in (("photographs", photos), ("charts", charts))}
    fold_batch_norms(model)
    fold_weights(model)
    gm, quants = instrument(model)
    with torch.no_grad():
        gm(cal)
        print("%s seed %d: %d tensors rounded, %d read only by convs (per-channel candidates)" % (
            args.model, args.seed, len(quants), sum(q.conv_fed for q in quants)))
        if args.strider:
            strider_modes(args, gm, quants, ref, photos, charts)
            return
        for per_channel in (False, True):
            for h in args.headroom:
                for q in quants:
                    q.freeze(h, per_channel)
                print("  %-11s headroom %.2f: %s" % (
                    "per-channel" if per_channel else "per-tensor", h,
                    figures(gm, ref, photos, charts)))


def figures(gm, ref, photos, charts):
    row = []
    for k, x in (("photographs", photos), ("charts", charts)):
        out = gm(x)
        db = sqnr(ref[k], out)[0]
        per = [sqnr(ref[k][i], out[i])[0] for i in range(len(x))]
        row.append("%s %.1f dB (lowest %.1f, median %.1f)" % (k, db, min(per), float(np.median(per))))
    return "; ".join(row)


def freeze_strider(quants, headroom, output_headroom, zero_point="none", pooled=False):
    """Strider's rules: the body at `headroom`, the pools' and the logits' at output_headroom
    (pooled: every 1 x 1 tensor's, i.e. everything computed from a pool alone, as Strider does
    since issue 28's pooled-tensor headroom)."""
    for q in quants:
        q.skip = q.kind == "fused"
        wide = q.kind == "pooled" or q is quants[-1] or (pooled and q.pooled_shape)
        q.freeze(output_headroom if wide else headroom, False, zero_point, strider=True)


def strider_modes(args, gm, quants, ref, photos, charts):
    """--strider: --zero-point's comparison, --sensitivity's ranking, or the symmetric figure."""
    print("  (--strider: %d tensors rounded; output headroom %.2f)" % (
        sum(q.kind != "fused" for q in quants), args.output_headroom))
    for h in args.headroom:
        for zp in (("none", "swish", "all") if args.zero_point else ("none",)):
            freeze_strider(quants, h, args.output_headroom, zp, args.pooled_headroom)
            swishes = [q for q in quants if q.kind == "swish" and q.zero_point is not None]
            print("  per-tensor body headroom %.2f, zero points %-5s (%d swish outputs with one): %s" % (
                h, zp, len(swishes), figures(gm, ref, photos, charts)))
        if args.zero_point:
            freeze_strider(quants, h, args.output_headroom, "swish", args.pooled_headroom)
            for q in quants:
                if q.kind == "swish":
                    lo, hi = float(q.lo.min()), float(q.hi.max())
                    sym = max(-lo, hi) / 127
                    print("    %-28s range [%.3g, %.3g]: step with a zero point / symmetric %.2f" % (
                        q.name, lo, hi, float(q.scale[0]) / sym))
        if not args.sensitivity:
            continue
        freeze_strider(quants, h, args.output_headroom, pooled=args.pooled_headroom)
        x, y = photos, ref["photographs"]
        live = [q for q in quants if q.kind != "fused"]
        for q in live:
            q.rounding = False  # records again, harmlessly: the scales are frozen
        floor = sqnr(y, gm(x))
        print("  weights alone: %.1f dB" % floor[0])
        rows = []
        for q in live:
            q.rounding = True
            rows.append((max(sqnr(y, gm(x))[2] - floor[2], 0.0), q))
            q.rounding = False
        total = sum(r[0] for r in rows)
        for q in live:
            q.rounding = True
        print("  all rounded: %.1f dB; each tensor's own noise summed with the weights': %.1f dB" % (
            sqnr(y, gm(x))[0], 10 * math.log10(floor[1] / (total + floor[2]))))
        rows.sort(key=lambda r: -r[0])
        cumulative = 0.0
        for noise, q in rows[:12]:
            cumulative += noise
            print("    %-28s %5.1f %% of the activations' noise (cumulative %5.1f %%), range [%.3g, %.3g]" % (
                q.name, 100 * noise / total, 100 * cumulative / total, float(q.lo.min()),
                float(q.hi.max())))
        for k in args.wide:
            for i, (_, q) in enumerate(rows):
                q.bits = 16 if i < k else 8
            freeze_strider(quants, h, args.output_headroom, pooled=args.pooled_headroom)
            print("  the %d noisiest at 16 bits: %s" % (k, figures(gm, ref, photos, charts)))
        for q in quants:
            q.bits = 8


if __name__ == "__main__":
    main()
