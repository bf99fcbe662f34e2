#!/usr/bin/env python3
"""Cross-checks the shape-*.dx tables against PyTorch (not run by lit).

For every layer row listed below, builds the PyTorch equivalent, runs it on a
batch of 2, and compares the output shape, the learnable parameter count and
(for layers with weights) the FLOPs per sample with what `dxc check
--print-model` prints for the test file.

  /usr/bin/python3 compiler/sema/test/Inputs/torch-reference.py build/compiler/dxc
"""
import math
import os
import re
import subprocess
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

N = 2
HERE = os.path.dirname(os.path.abspath(__file__))


def same_pad(size, k, s, d=1):
    """TensorFlow 'same': output = ceil(in / stride); extra padding bottom/right."""
    out = -(-size // s)
    total = max(0, (out - 1) * s + d * (k - 1) + 1 - size)
    return total // 2, total - total // 2


def conv(cin, f, k, stride=1, pad=0, dilation=1, groups=1, bias=True, hw=(32, 32)):
    k2 = k if isinstance(k, tuple) else (k, k)
    s2 = stride if isinstance(stride, tuple) else (stride, stride)
    d2 = dilation if isinstance(dilation, tuple) else (dilation, dilation)
    m = nn.Conv2d(cin, f, k2, s2, 0, d2, groups, bias)
    if pad == "same":
        (t, b), (l, r) = same_pad(hw[0], k2[0], s2[0], d2[0]), same_pad(hw[1], k2[1], s2[1], d2[1])
        p4 = (l, r, t, b)
    elif isinstance(pad, tuple) and len(pad) == 4:  # dx order: top, bottom, left, right
        p4 = (pad[2], pad[3], pad[0], pad[1])
    else:
        ph, pw = pad if isinstance(pad, tuple) else (pad, pad)
        p4 = (pw, pw, ph, ph)

    def run(x):
        y = m(F.pad(x, p4))
        macs = y[0].numel() * m.weight[0].numel()
        return y, m, 2 * macs + (y[0].numel() if bias else 0)
    return run


def deconv(cin, f, k, stride=1, pad=0, output_padding=0, dilation=1, groups=1, bias=True):
    k2 = k if isinstance(k, tuple) else (k, k)
    s2 = stride if isinstance(stride, tuple) else (stride, stride)
    o2 = output_padding if isinstance(output_padding, tuple) else (output_padding, output_padding)
    d2 = dilation if isinstance(dilation, tuple) else (dilation, dilation)
    if pad == "same":
        # Keras: output = input * stride; crop the surplus, the odd row/col at the bottom/right.
        m = nn.ConvTranspose2d(cin, f, k2, s2, 0, (0, 0), groups, bias, d2)
    else:
        p2 = pad if isinstance(pad, tuple) else (pad, pad)
        m = nn.ConvTranspose2d(cin, f, k2, s2, p2, o2, groups, bias, d2)

    def run(x):
        y = m(x)
        if pad == "same":
            H, W = x.shape[2] * s2[0], x.shape[3] * s2[1]
            th = y.shape[2] + o2[0] - H
            tw = y.shape[3] + o2[1] - W
            y = F.pad(y, (0, o2[1], 0, o2[0]))[:, :, th // 2: th // 2 + H, tw // 2: tw // 2 + W]
        macs = x[0].numel() * m.weight.shape[1] * m.weight.shape[2] * m.weight.shape[3]
        return y, m, 2 * macs + (y[0].numel() if bias else 0)
    return run


def conv3(cin, f, k, stride=1, pad=0, dilation=1, groups=1, bias=True, dhw=(8, 9, 10)):
    """nn.Conv3d behind F.pad with the dx padding: an int, one per dim, six values or same."""
    t3 = lambda v: v if isinstance(v, tuple) else (v, v, v)
    k3, s3, d3 = t3(k), t3(stride), t3(dilation)
    m = nn.Conv3d(cin, f, k3, s3, 0, d3, groups, bias)
    if pad == "same":
        lohi = [same_pad(dhw[i], k3[i], s3[i], d3[i]) for i in range(3)]
    elif isinstance(pad, tuple) and len(pad) == 6:
        lohi = [(pad[0], pad[1]), (pad[2], pad[3]), (pad[4], pad[5])]
    else:
        lohi = [(p, p) for p in t3(pad)]
    p6 = (lohi[2][0], lohi[2][1], lohi[1][0], lohi[1][1], lohi[0][0], lohi[0][1])

    def run(x):
        y = m(F.pad(x, p6))
        macs = y[0].numel() * m.weight[0].numel()
        return y, m, 2 * macs + (y[0].numel() if bias else 0)
    return run


def deconv3(cin, f, k, stride=1, pad=0, output_padding=0, groups=1, bias=True):
    t3 = lambda v: v if isinstance(v, tuple) else (v, v, v)
    k3, s3, o3 = t3(k), t3(stride), t3(output_padding)
    if pad == "same":
        m = nn.ConvTranspose3d(cin, f, k3, s3, 0, 0, groups, bias)
    else:
        m = nn.ConvTranspose3d(cin, f, k3, s3, t3(pad), o3, groups, bias)

    def run(x):
        y = m(x)
        if pad == "same":  # output = input * stride, the surplus cropped, the extra at the end
            sl = [slice(None), slice(None)]
            for i in range(3):
                tot = y.shape[2 + i] - x.shape[2 + i] * s3[i]
                sl.append(slice(tot // 2, tot // 2 + x.shape[2 + i] * s3[i]))
            y = y[tuple(sl)]
        macs = x[0].numel() * m.weight.shape[1] * m.weight[0, 0].numel()
        return y, m, 2 * macs + (y[0].numel() if bias else 0)
    return run


def module(m, flops=None):
    def run(x):
        y = m(x)
        return y, m, flops(x, y) if flops else None
    return run


def fn(f):
    return lambda x: (f(x), None, None)


def dense(cin, units, bias=True):
    m = nn.Linear(cin, units, bias)
    return module(m, lambda x, y: (y[0].numel() // units) * (2 * cin * units + (units if bias else 0)))


def same_pool(kind, k, s, hw):
    (t, b), (l, r) = same_pad(hw[0], k, s), same_pad(hw[1], k, s)
    pool = nn.MaxPool2d(k, s) if kind == "max" else nn.AvgPool2d(k, s)
    fill = -math.inf if kind == "max" else 0.0
    return fn(lambda x: pool(F.pad(x, (l, r, t, b), value=fill)))


# test file -> {layer: (input shape per sample, torch equivalent)}
CASES = {
    "shape-conv2d.dx": {
        "conv2d_1": ((3, 32, 32), conv(3, 16, 3)),
        "conv2d_2": ((3, 32, 32), conv(3, 16, 3, pad=1)),
        "conv2d_3": ((3, 32, 32), conv(3, 16, 3, stride=2)),
        "conv2d_4": ((3, 32, 32), conv(3, 16, 3, stride=2, pad="same")),
        "conv2d_5": ((3, 32, 32), conv(3, 16, 4, stride=3, pad="same")),
        "conv2d_6": ((3, 32, 32), conv(3, 16, 5, pad="same")),
        "conv2d_7": ((3, 32, 32), conv(3, 16, 5)),
        "conv2d_8": ((3, 32, 32), conv(3, 16, (3, 5), stride=(2, 1), pad=(1, 2))),
        "conv2d_9": ((3, 32, 32), conv(3, 16, 3, pad=(0, 1, 2, 3))),
        "conv2d_10": ((3, 32, 32), conv(3, 16, 3, dilation=2)),
        "conv2d_11": ((3, 32, 32), conv(3, 16, 3, dilation=(1, 3), pad="same")),
        "conv2d_12": ((3, 32, 32), conv(3, 6, 3, groups=3, bias=False)),
        "conv2d_13": ((3, 32, 32), conv(3, 3, 3, pad=1, groups=3)),
        "conv2d_14": ((3, 32, 32), conv(3, 8, 1)),
    },
    "shape-conv-transpose2d.dx": {
        "conv_transpose2d_1": ((8, 7, 7), deconv(8, 4, 3)),
        "conv_transpose2d_2": ((8, 7, 7), deconv(8, 4, 3, stride=2, pad=1, output_padding=1)),
        "conv_transpose2d_3": ((8, 7, 7), deconv(8, 4, 4, stride=2, pad=1)),
        "conv_transpose2d_4": ((8, 7, 7), deconv(8, 4, 4, stride=2, pad="same")),
        "conv_transpose2d_5": ((8, 7, 7), deconv(8, 4, 3, stride=2, pad="same")),
        "conv_transpose2d_6": ((8, 7, 7), deconv(8, 4, 2, stride=2, pad="same")),
        "conv_transpose2d_7": ((8, 7, 7), deconv(8, 4, 3, stride=2, pad="same", output_padding=1)),
        "conv_transpose2d_8": ((8, 7, 7), deconv(8, 4, 3, stride=3)),
        "conv_transpose2d_9": ((8, 7, 7), deconv(8, 4, 3, dilation=2)),
        "conv_transpose2d_10": ((8, 7, 7), deconv(8, 4, (3, 5), stride=(1, 2), pad=(1, 2))),
        "conv_transpose2d_11": ((8, 7, 7), deconv(8, 4, 3, stride=(2, 3), output_padding=(1, 2))),
        "conv_transpose2d_12": ((8, 7, 7), deconv(8, 4, 3, groups=2, bias=False)),
        "conv_transpose2d_13": ((8, 7, 7), deconv(8, 8, 1, groups=8)),
    },
    "shape-pool.dx": {
        "maxpool_1": ((8, 7, 7), fn(nn.MaxPool2d(2))),
        "maxpool_2": ((8, 7, 7), fn(nn.MaxPool2d(3, 2))),
        "maxpool_3": ((8, 7, 7), fn(nn.MaxPool2d(3, 1, 1))),
        "maxpool_4": ((8, 7, 7), same_pool("max", 2, 2, (7, 7))),
        "maxpool_5": ((8, 7, 7), fn(nn.MaxPool2d(3, 2, (1, 0)))),
        "maxpool_6": ((8, 7, 7), fn(nn.MaxPool2d((2, 3), (1, 2)))),
        "avgpool_1": ((8, 7, 7), fn(nn.AvgPool2d(2))),
        "avgpool_2": ((8, 7, 7), same_pool("avg", 3, 2, (7, 7))),
        "avgpool_3": ((8, 7, 7), fn(lambda x: F.avg_pool2d(F.pad(x, (1, 0, 0, 1)), 3, 1))),
        "avgpool_4": ((8, 7, 7), fn(nn.AvgPool2d(7))),
        "global_avgpool_1": ((8, 7, 7), fn(lambda x: x.mean((2, 3)))),
        "upsample_1": ((8, 7, 7), fn(nn.Upsample(scale_factor=2))),
        "upsample_2": ((8, 7, 7), fn(nn.Upsample(scale_factor=(2, 3), mode="bilinear"))),
        "upsample_3": ((8, 7, 7), fn(nn.Upsample(scale_factor=3))),
    },
    "shape-3d.dx": {
        "conv3d_1": ((4, 8, 9, 10), conv3(4, 8, 3)),
        "conv3d_2": ((4, 8, 9, 10), conv3(4, 8, 3, pad="same")),
        "conv3d_3": ((4, 8, 9, 10), conv3(4, 8, (1, 3, 5), stride=(1, 2, 3), pad=(0, 1, 2))),
        "conv3d_4": ((4, 8, 9, 10), conv3(4, 6, 3, stride=2, pad="same", dilation=2, groups=2, bias=False)),
        "conv3d_5": ((4, 8, 9, 10), conv3(4, 8, 3, pad=(0, 1, 1, 2, 2, 0))),
        "conv_transpose3d_1": ((4, 8, 9, 10), deconv3(4, 4, 2, stride=2)),
        "conv_transpose3d_2": ((4, 8, 9, 10), deconv3(4, 4, 3, stride=2, pad=1, output_padding=1)),
        "conv_transpose3d_3": ((4, 8, 9, 10), deconv3(4, 4, (2, 3, 3), stride=(2, 1, 2), pad="same", groups=2)),
        "maxpool3d_1": ((4, 8, 9, 10), fn(nn.MaxPool3d(2))),
        "maxpool3d_2": ((4, 8, 9, 10), fn(nn.MaxPool3d(3, 2, 1))),
        "avgpool3d_1": ((4, 8, 9, 10), fn(nn.AvgPool3d((1, 2, 2)))),
        "avgpool3d_2": ((4, 8, 9, 10), fn(lambda x: F.avg_pool3d(F.pad(x, (0, 0, 0, 1, 0, 0)), 2, 2))),
        "global_avgpool_1": ((4, 8, 9, 10), fn(lambda x: x.mean((2, 3, 4)))),
        "upsample_1": ((4, 8, 9, 10), fn(nn.Upsample(scale_factor=(1, 2, 3)))),
        "upsample_2": ((4, 8, 9, 10), fn(nn.Upsample(scale_factor=2))),
        "upsample_3": ((4, 8, 9, 10), fn(nn.Upsample(scale_factor=(2, 1, 3), mode="trilinear"))),
        "batchnorm_1": ((4, 8, 9, 10), module(nn.BatchNorm3d(4))),
    },
    "shape-norm.dx": {
        "batchnorm_1": ((8, 4, 4), module(nn.BatchNorm2d(8))),
        "batchnorm_2": ((10,), module(nn.BatchNorm1d(10, eps=1e-3, momentum=0.01))),
        "batchnorm_3": ((6, 5), module(nn.BatchNorm1d(6, affine=False))),
        "layernorm_1": ((10,), module(nn.LayerNorm(10))),
        "layernorm_2": ((8, 4, 4), module(nn.LayerNorm([8, 4, 4]))),
        "layernorm_3": ((8, 4, 4), module(nn.LayerNorm([4, 4], eps=1e-6))),
        "layernorm_4": ((6, 5), module(nn.LayerNorm(5, elementwise_affine=False))),
        "dropout_1": ((10,), module(nn.Dropout())),
        "dropout_2": ((8, 4, 4), module(nn.Dropout(0.25))),
    },
    "shape-dense.dx": {
        "dense_1": ((784,), dense(784, 128)),
        "dense_2": ((784,), dense(784, 10, bias=False)),
        "dense_3": ((5, 16), dense(16, 32)),
        "dense_4": ((128,), dense(128, 1)),
    },
    "shape-reshape.dx": {
        "flatten_1": ((8, 4, 4), fn(lambda x: torch.flatten(x, 1))),
        "flatten_2": ((8, 4, 4), fn(lambda x: torch.flatten(x, 2))),
        "flatten_3": ((8, 4, 4), fn(lambda x: torch.flatten(x, -3))),
        "reshape_1": ((8, 4, 4), fn(lambda x: x.reshape(N, 2, -1))),
        "reshape_3": ((8, 4, 4), fn(lambda x: x.reshape(N, 128))),
        "reshape_4": ((10,), fn(lambda x: x.reshape(N, -1, 1, 1))),
        "concat_2": ((8, 4, 4), fn(lambda x: torch.cat([x, x, x], 3))),
    },
    "shape-reduce.dx": {
        "sum_2": ((8, 4, 4), fn(lambda x: x.sum(1))),
        "mean_2": ((8, 4, 4), fn(lambda x: x.mean((2, 3)))),
        "sum_3": ((8, 4, 4), fn(lambda x: x.sum((1, 2, 3), keepdim=True))),
        "mean_3": ((8, 4, 4), fn(lambda x: x.mean(-1, keepdim=True))),
        "randn_like_2": ((8, 4, 4), fn(torch.randn_like)),
    },
}

ROW = re.compile(r"^\s*\d+\s+(\S+)\s+\S+\s+(\w+\[[^\]]*\])")


def table(dxc, test):
    out = subprocess.run([dxc, "check", "--print-model", os.path.join(HERE, "..", test)],
                         check=True, capture_output=True, text=True).stdout
    rows = {}
    end = None  # the params column is right-aligned and ends where its header does
    for line in out.splitlines():
        if end is None and "params" in line and "FLOPs" in line:
            end = line.index("params") + len("params")
        m = ROW.match(line)
        if m and end is not None:
            rows.setdefault(m.group(1), (m.group(2), line[end - 12:end].strip(), line[end:].strip()))
    return rows


def main():
    dxc = sys.argv[1] if len(sys.argv) > 1 else "build/compiler/dxc"
    torch.manual_seed(0)
    bad = 0
    checked = 0
    for test, cases in CASES.items():
        rows = table(dxc, test)
        for layer, (shape, make) in cases.items():
            ty, params, flops = rows[layer]
            dims = ty[ty.index("[") + 1:-1].split(", ")
            want_shape = tuple(N if d == "B" else int(d) for d in dims)
            y, m, f = make(torch.randn(N, *shape))
            got_params = sum(p.numel() for p in m.parameters()) if m is not None else 0
            problems = []
            if tuple(y.shape) != want_shape:
                problems.append(f"shape: torch {tuple(y.shape)}, dxc {want_shape}")
            if got_params != int(params.replace(",", "") or 0):
                problems.append(f"params: torch {got_params}, dxc {params or 0}")
            if f is not None and m is not None and m.__class__.__name__.startswith(("Conv", "Linear")):
                if f != int(flops.replace(",", "") or 0):
                    problems.append(f"FLOPs: formula {f}, dxc {flops}")
            checked += 1
            if problems:
                bad += 1
                print(f"MISMATCH {test} {layer}: " + "; ".join(problems))
    print(f"{checked} layers checked, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
