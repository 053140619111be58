#!/usr/bin/python3
"""Checks Strider's float network (the calibrator's C++ float reference) layer by layer with
PyTorch, independently of the C++ code: for every layer of a `strider run --dump-tensors DIR`
dump of a calibrated run (functional mode), recomputes the layer in float64 from the dumped float
inputs, weights and biases and compares with the dumped float output (relative error of the
layer, max |torch - strider| / max |torch|, must be under --tol). Also prints the int8 network's
SQNR against the float one per layer (from the dumped int8 output and the output scale).
Usage: /usr/bin/python3 scripts/check_float.py DIR [--tol 1e-4]
Exit status 1 when a layer differs."""
import argparse, json, math, os, sys
import numpy as np
import torch
import torch.nn.functional as F


def act(x, j):
    a = j['activation']
    if a == 'none': return x
    if a == 'relu': return torch.relu(x)
    if a == 'relu6': return torch.clamp(x, 0, 6)
    if a == 'sigmoid': return torch.sigmoid(x)
    if a == 'hardsigmoid': return torch.clamp(x / 6 + 0.5, 0, 1)
    if a == 'hardswish': return x * torch.clamp(x / 6 + 0.5, 0, 1)
    return None  # clip: its real bounds are not in the dump


def layer(d, j):
    load = lambda f: torch.tensor(np.load(os.path.join(d, f)).astype(np.float64))
    ins = [load(i['float_file']) for i in j['inputs']]
    op, p = j['op'], j['padding']
    if op == 'conv':
        x = F.pad(ins[0], (p['left'], p['right'], p['top'], p['bottom']))
        y = F.conv2d(x, load(j['weights']['float_file']), load(j['weights']['bias_float_file']),
                     stride=j['stride'], dilation=j['dilation'], groups=j['groups'])
    elif op == 'fc':
        y = load(j['weights']['float_file']) @ ins[0].reshape(-1) + load(j['weights']['bias_float_file'])
    elif op == 'maxpool':
        x = F.pad(ins[0], (p['left'], p['right'], p['top'], p['bottom']), value=-math.inf)
        y = F.max_pool2d(x, j['kernel'], j['stride'], ceil_mode=j['ceil_mode'])
    elif op == 'avgpool':
        x = F.pad(ins[0], (p['left'], p['right'], p['top'], p['bottom']))
        s = F.avg_pool2d(x, j['kernel'], j['stride'], ceil_mode=j['ceil_mode'], divisor_override=1)
        ones = torch.ones_like(ins[0]) if not j['count_include_pad'] else None
        if ones is None:  # positions inside the padded input
            cnt = F.avg_pool2d(torch.ones_like(x), j['kernel'], j['stride'], ceil_mode=j['ceil_mode'], divisor_override=1)
        else:
            cnt = F.avg_pool2d(F.pad(ones, (p['left'], p['right'], p['top'], p['bottom'])), j['kernel'],
                               j['stride'], ceil_mode=j['ceil_mode'], divisor_override=1)
        y = s / cnt
    elif op == 'globalavgpool':
        y = ins[0].mean(dim=(2, 3), keepdim=True)
    elif op == 'add':
        y = ins[0] + ins[1]
    elif op == 'mul':
        y = ins[0] * ins[1]
    elif op == 'activation':
        y = ins[0]
    elif op == 'softmax':
        return torch.softmax(ins[0], dim=1)
    else:
        return None
    return act(y, j)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('dir')
    ap.add_argument('--tol', type=float, default=1e-4)
    a = ap.parse_args()
    bad = checked = 0
    for e in json.load(open(os.path.join(a.dir, 'index.json'))):
        j = json.load(open(os.path.join(a.dir, e['stem'] + '.json')))
        if 'float_file' not in j['output'] or any('float_file' not in i for i in j['inputs']):
            continue
        want = layer(a.dir, j)
        if want is None:
            print('skip', j['layer'], j['op'], j['activation']); continue
        got = np.load(os.path.join(a.dir, j['output']['float_file'])).astype(np.float64)
        want = want.numpy().reshape(got.shape)
        err = np.abs(want - got).max() / max(np.abs(want).max(), 1e-30)
        q = np.load(os.path.join(a.dir, j['output']['file'])).astype(np.float64) * j['quant']['output_scale']
        noise = ((got - q) ** 2).sum()
        sqnr = 10 * math.log10((got ** 2).sum() / noise) if noise > 0 else float('inf')
        checked += 1
        status = 'ok' if err <= a.tol else 'DIFFERS'
        bad += status != 'ok'
        print(f"{status} {j['layer']} {j['op']} rel_err {err:.2e} int8_sqnr_db {sqnr:.1f}")
    print(f'{checked} layers checked in float, {bad} differ')
    return 1 if bad or not checked else 0


if __name__ == '__main__':
    sys.exit(main())
