#!/usr/bin/python3
"""Finite-difference gradient check of every operator and every loss.

For each model in cases/*.dx: compile it with dxc (--emit=obj), link it with
the runner (runner.cpp, built as libdxgc_runner.a), run one training step on
random float32 parameters and inputs, and compare what the generated code
computes with a float64 PyTorch reference of the same model (REFS below):

  * the loss;
  * every parameter gradient, against central finite differences of the
    float64 reference AND against torch autograd in float64;
  * every buffer update (batchnorm running statistics).

Error metric, per tensor: max|a - b| / max(max|b|, 1e-6); a case passes when
every tensor's error is below TOL (1e-3). The ABI exports no input gradients,
so every operator sits after a first dense/conv layer: its input gradient
feeds a parameter gradient.

The random ops (dropout, randn_like) cannot be differenced; they are checked
for determinism (same key, same result; another key, another result) and for
the exact rule of their gradient (see check_dropout / check_randn_like).

  /usr/bin/python3 gradcheck.py --dxc build/compiler/dxc --build-dir build [-k NAME] [-j 2] [-v]
      [--dxc-flag=FLAG ...] [--bf16]

--bf16 compiles every case with --precision bf16: convolutions and dense
layers read their inputs rounded to bf16 (8 significant bits, unit roundoff
u = 2^-9) and accumulate in fp32, in the forward pass and in both gradients
(whose products read the rounded output gradient dy). Two checks then:

  * the loss, every gradient (autograd) and buffer update against a float64
    reference that rounds exactly those inputs the same way (BF16_EMULATE:
    x and w of each product forward, dy backward, straight through
    otherwise), at the fp32 tolerance TOL: what remains is fp32's rounding
    elsewhere, so this is as tight as the fp32 check and finds any
    operator whose bf16 gradient is wrong;
  * every gradient against finite differences of the exact float64
    reference at BF16_FD_TOL = 0.1: how far bf16 moves a gradient from the
    exact one, a sanity bound. A product of two rounded inputs is off by up
    to 2u = 3.9e-3 per term; a case's gradient passes through up to four
    products, and a gradient that is a sum of terms of both signs (a bias
    before a product of two branches: broadcast_rank3, mul) loses the
    cancelled part's relative accuracy: the cases measure up to 6.0e-2
    (31u). A wrong gradient gives order 1 (a factor 2 is 0.5); the first
    check is the one that finds a wrong bf16 gradient.
"""
import argparse
import concurrent.futures
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
TOL = 1e-3
BF16_FD_TOL = 0.1
BF16 = False  # --bf16 (see above)
FD_STEP = 1e-6

torch.set_num_threads(1)


# ---------------------------------------------------------------------------
# Reference building blocks (float64, PyTorch semantics as docs/language.md says)
# ---------------------------------------------------------------------------
class Ctx:
    """Parameters and buffers of one reference evaluation, by metadata name."""

    def __init__(self, params, buffers):
        self.P, self.B = params, buffers
        self.used = set()
        self.new_buffers = {}

    def p(self, name, optional=False):
        if optional and name not in self.P:
            return None
        self.used.add(name)
        return self.P[name]


def pair(v, n=2):
    return (v,) * n if isinstance(v, int) else tuple(v)


def same_pad(n, k, s, d):
    """TensorFlow 'same': output ceil(n / s), the odd pixel at the bottom/right."""
    out = -(-n // s)
    total = max(0, (out - 1) * s + d * (k - 1) + 1 - n)
    return total // 2, total - total // 2


def to_bf16(t):
    """Rounds to bf16 (nearest even) and back: float64 values with 8 significant bits."""
    return t.to(torch.float32).to(torch.bfloat16).to(torch.float64)


class _RoundInput(torch.autograd.Function):
    """A product's input as bf16 sees it; the gradient passes straight through."""

    @staticmethod
    def forward(ctx, t):
        return to_bf16(t)

    @staticmethod
    def backward(ctx, g):
        return g


class _RoundGradient(torch.autograd.Function):
    """The identity, whose gradient (a product's dy) is rounded to bf16."""

    @staticmethod
    def forward(ctx, t):
        return t.clone()

    @staticmethod
    def backward(ctx, g):
        return to_bf16(g)


def product(f, x, w, *args, **kw):
    """f(x, w, ...) of a convolution or dense layer, without its bias: in
    BF16_EMULATE mode as DeepEx's bf16 precision computes it."""
    if not BF16_EMULATE:
        return f(x, w, None, *args, **kw)
    return _RoundGradient.apply(f(_RoundInput.apply(x), _RoundInput.apply(w), None, *args, **kw))


BF16_EMULATE = False  # set while check_fd evaluates the bf16 reference


def dense(c, name, h, bias=True):
    y = product(F.linear, h, c.p(name + ".weight"))
    return y + c.p(name + ".bias") if bias else y


def resolve_pad(h, pad, k, s, d):
    """[(lo, hi)] per spatial dim of h (NCHW or NCDHW) for a pad attribute:
    same, an int, one value per dim, or two per dim."""
    n = h.dim() - 2
    if pad == "same":
        return [same_pad(h.shape[2 + i], k[i], s[i], d[i]) for i in range(n)]
    p = pair(pad, n)
    if len(p) == 2 * n:
        return [(p[2 * i], p[2 * i + 1]) for i in range(n)]
    return [(p[i], p[i]) for i in range(n)]


def f_pad(h, lohi, value=0.0):
    """F.pad takes the last dim first."""
    flat = []
    for lo, hi in reversed(lohi):
        flat += [lo, hi]
    return F.pad(h, tuple(flat), value=value)


def conv(c, name, h, kernel, stride=1, pad=0, dilation=1, groups=1, bias=True):
    n = h.dim() - 2
    k, s, d = pair(kernel, n), pair(stride, n), pair(dilation, n)
    h = f_pad(h, resolve_pad(h, pad, k, s, d))
    f = F.conv3d if n == 3 else F.conv2d
    y = product(f, h, c.p(name + ".weight"), s, 0, d, groups)
    return y + c.p(name + ".bias").view((1, -1) + (1,) * n) if bias else y


def conv_t(c, name, h, kernel, stride=1, pad=0, dilation=1, groups=1, output_padding=0, bias=True):
    """Transposed convolution: the full (unpadded) result, cropped by the padding."""
    n = h.dim() - 2
    k, s, d, op = pair(kernel, n), pair(stride, n), pair(dilation, n), pair(output_padding, n)
    if pad == "same":  # output = input * stride, surplus cropped, the extra at the end of each dim
        tot = [d[i] * (k[i] - 1) + 1 + op[i] - s[i] for i in range(n)]
        lohi = [(t // 2, t - t // 2) for t in tot]
    else:
        lohi = [(p, p) for p in pair(pad, n)]
    f = F.conv_transpose3d if n == 3 else F.conv_transpose2d
    y = product(f, h, c.p(name + ".weight"), s, 0, op, groups, d)
    y = y[(slice(None), slice(None)) + tuple(slice(lo, y.shape[2 + i] - hi) for i, (lo, hi) in enumerate(lohi))]
    if bias:
        y = y + c.p(name + ".bias").view((1, -1) + (1,) * n)
    return y


def pool(h, kind, kernel, stride=None, pad=0):
    n = h.dim() - 2
    k = pair(kernel, n)
    s = pair(stride, n) if stride is not None else k
    lohi = resolve_pad(h, pad, k, s, (1,) * n)
    if kind == "max":
        f = F.max_pool3d if n == 3 else F.max_pool2d
        return f(f_pad(h, lohi, -math.inf), k, s)
    f = F.avg_pool3d if n == 3 else F.avg_pool2d
    return f(f_pad(h, lohi), k, s)  # padding counts as zeros, divisor = window size


def batchnorm(c, name, h, momentum=0.1, eps=1e-5, affine=True):
    rm, rv = c.B[name + ".running_mean"].clone(), c.B[name + ".running_var"].clone()
    w = c.p(name + ".weight") if affine else None
    b = c.p(name + ".bias") if affine else None
    y = F.batch_norm(h, rm, rv, w, b, training=True, momentum=momentum, eps=eps)
    c.new_buffers[name + ".running_mean"], c.new_buffers[name + ".running_var"] = rm, rv
    return y


def layernorm(c, name, h, dims=1, eps=1e-5, affine=True):
    shape = h.shape[h.dim() - dims:]
    w = c.p(name + ".weight") if affine else None
    b = c.p(name + ".bias") if affine else None
    return F.layer_norm(h, shape, w, b, eps)


def gelu_tanh(h):
    return 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))


def reduce(loss, reduction):
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss.sum() / loss.shape[0]  # batch_mean


def bce_with_logits(z, t, reduction="mean"):
    return reduce(torch.clamp(z, min=0) - z * t + torch.log1p(torch.exp(-z.abs())), reduction)


def binary_cross_entropy(p, t, reduction="mean"):
    lp, lq = torch.clamp(torch.log(p), min=-100), torch.clamp(torch.log(1 - p), min=-100)
    return reduce(-(t * lp + (1 - t) * lq), reduction)


def mse(y, t, reduction="mean"):
    return reduce((y - t) ** 2, reduction)


def mae(y, t, reduction="mean"):
    return reduce((y - t).abs(), reduction)


def huber(y, t, delta=1.0, reduction="mean"):
    d = y - t
    return reduce(torch.where(d.abs() < delta, 0.5 * d ** 2, delta * (d.abs() - 0.5 * delta)), reduction)


def kl_normal(mu, lv, reduction="batch_mean"):
    return reduce(-0.5 * (1 + lv - mu ** 2 - torch.exp(lv)), reduction)


def msq(y):
    """The default loss of the cases: mean(square(output))."""
    return (y ** 2).mean()


# ---------------------------------------------------------------------------
# The reference of every case: f(ctx, x, labels) -> loss. Layers are named as
# dxc names them (<op>_<n> in order of appearance).
# ---------------------------------------------------------------------------
REFS = {}


def ref(name, batch=3, classes=None, tol=TOL):
    def register(f):
        REFS[name] = dict(f=f, batch=batch, classes=classes, tol=tol)
        return f
    return register


def act(name, fn):
    ref(name)(lambda c, x, L: msq(dense(c, "dense_2", fn(dense(c, "dense_1", x)))))


# ---- layers ----
ref("dense")(lambda c, x, L: msq(dense(c, "dense_2", dense(c, "dense_1", x))))
ref("dense_nobias")(lambda c, x, L: msq(dense(c, "dense_2", torch.tanh(dense(c, "dense_1", x, False)), False)))
ref("dense_rank3")(lambda c, x, L: msq(dense(c, "dense_2", torch.tanh(dense(c, "dense_1", x)))))


@ref("conv2d")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv2d_1", x, 3, pad=1))
    return msq(dense(c, "dense_1", conv(c, "conv2d_2", h, 3).flatten(1)))


@ref("conv2d_winograd")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv2d_1", x, 3, pad=1))
    h = torch.tanh(conv_t(c, "conv_transpose2d_1", h, 3, pad=1))
    return msq(dense(c, "dense_1", h.flatten(1)))


@ref("conv2d_stride2_same")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv2d_1", x, 3, pad=1))
    return msq(dense(c, "dense_1", conv(c, "conv2d_2", h, 3, stride=2, pad="same").flatten(1)))


@ref("conv2d_same_even_kernel")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv2d_1", x, 1))
    return msq(dense(c, "dense_1", conv(c, "conv2d_2", h, 4, pad="same").flatten(1)))


@ref("conv2d_dilation")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv2d_1", x, 3, dilation=2, pad=2))
    return msq(dense(c, "dense_1", conv(c, "conv2d_2", h, (2, 3), stride=(1, 2), pad=(1, 0)).flatten(1)))


@ref("conv2d_groups")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv2d_1", x, 1))
    h = torch.tanh(conv(c, "conv2d_2", h, 3, groups=2, pad=1))
    return msq(dense(c, "dense_1", conv(c, "conv2d_3", h, 3, groups=6).flatten(1)))


@ref("conv2d_all")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv2d_1", x, 1))
    h = conv(c, "conv2d_2", h, 3, stride=2, pad="same", dilation=2, groups=2, bias=False)
    return msq(dense(c, "dense_1", h.flatten(1)))


@ref("conv_transpose2d")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv2d_1", x, 1))
    h = conv_t(c, "conv_transpose2d_1", h, 3, stride=2, pad=1, output_padding=1)
    return msq(dense(c, "dense_1", h.flatten(1)))


@ref("conv_transpose2d_same")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv2d_1", x, 1))
    h = conv_t(c, "conv_transpose2d_1", h, 3, stride=2, pad="same")
    return msq(dense(c, "dense_1", h.flatten(1)))


@ref("conv_transpose2d_groups")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv2d_1", x, 1))
    h = conv_t(c, "conv_transpose2d_1", h, 3, stride=2, pad=1, dilation=2, groups=2, output_padding=1, bias=False)
    return msq(dense(c, "dense_1", h.flatten(1)))


# ---- pooling ----
ref("maxpool")(lambda c, x, L: msq(dense(c, "dense_1", pool(conv(c, "conv2d_1", x, 3, pad=1), "max", 2).flatten(1))))
ref("maxpool_pad")(lambda c, x, L: msq(dense(c, "dense_1", pool(conv(c, "conv2d_1", x, 1), "max", 3, 2, 1).flatten(1))))
@ref("maxpool_blocked")
def _(c, x, L):
    h = torch.relu(batchnorm(c, "batchnorm_1", conv(c, "conv2d_1", x, 3, pad=1, bias=False)))
    h = conv(c, "conv2d_2", pool(h, "max", 2), 3, pad=1, bias=False)
    return msq(dense(c, "dense_1", torch.tanh(h).flatten(1)))


ref("maxpool_same")(lambda c, x, L: msq(dense(c, "dense_1", pool(conv(c, "conv2d_1", x, 1), "max", 2, pad="same").flatten(1))))
ref("avgpool")(lambda c, x, L: msq(dense(c, "dense_1", pool(conv(c, "conv2d_1", x, 3, pad=1), "avg", 2).flatten(1))))
ref("avgpool_pad")(lambda c, x, L: msq(dense(c, "dense_1", pool(conv(c, "conv2d_1", x, 1), "avg", 3, 2, 1).flatten(1))))
ref("avgpool_same")(lambda c, x, L: msq(dense(c, "dense_1", pool(conv(c, "conv2d_1", x, 1), "avg", 2, pad="same").flatten(1))))
ref("global_avgpool")(lambda c, x, L: msq(dense(c, "dense_1", torch.tanh(conv(c, "conv2d_1", x, 3, pad=1)).mean((2, 3)))))


@ref("upsample")
def _(c, x, L):
    h = F.interpolate(conv(c, "conv2d_1", x, 1), scale_factor=2, mode="nearest")
    return msq(dense(c, "dense_1", conv(c, "conv2d_2", h, 3).flatten(1)))


@ref("upsample_rect")
def _(c, x, L):
    h = F.interpolate(conv(c, "conv2d_1", x, 1), scale_factor=(2, 3), mode="nearest")
    return msq(dense(c, "dense_1", torch.tanh(h).flatten(1)))


@ref("upsample_bilinear")
def _(c, x, L):
    h = F.interpolate(conv(c, "conv2d_1", x, 1), scale_factor=(2, 3), mode="bilinear", align_corners=False)
    return msq(dense(c, "dense_1", torch.tanh(h).flatten(1)))


# ---- 3-D (NCDHW) ----
@ref("conv3d")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv3d_1", x, 3, pad=1))
    return msq(dense(c, "dense_1", conv(c, "conv3d_2", h, (2, 3, 1), stride=(1, 2, 1), pad="same").flatten(1)))


@ref("conv3d_all")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv3d_1", x, 1))
    h = conv(c, "conv3d_2", h, 3, stride=2, pad="same", dilation=2, groups=2, bias=False)
    return msq(dense(c, "dense_1", h.flatten(1)))


@ref("conv3d_pad6")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv3d_1", x, 1))
    h = conv(c, "conv3d_2", h, 3, stride=(2, 1, 1), pad=(0, 1, 1, 2, 2, 0))
    return msq(dense(c, "dense_1", h.flatten(1)))


@ref("conv_transpose3d")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv3d_1", x, 1))
    h = conv_t(c, "conv_transpose3d_1", h, 3, stride=2, pad=1, output_padding=1)
    return msq(dense(c, "dense_1", h.flatten(1)))


@ref("conv_transpose3d_same_groups")
def _(c, x, L):
    h = torch.tanh(conv(c, "conv3d_1", x, 1))
    h = conv_t(c, "conv_transpose3d_1", h, (2, 3, 3), stride=(2, 1, 2), pad="same", groups=2, bias=False)
    return msq(dense(c, "dense_1", h.flatten(1)))


ref("maxpool3d")(lambda c, x, L: msq(dense(c, "dense_1", pool(torch.tanh(conv(c, "conv3d_1", x, 3, pad=1)), "max", 2).flatten(1))))
ref("maxpool3d_pad")(lambda c, x, L: msq(dense(c, "dense_1", pool(conv(c, "conv3d_1", x, 1), "max", 3, 2, 1).flatten(1))))
ref("avgpool3d")(lambda c, x, L: msq(dense(c, "dense_1", pool(conv(c, "conv3d_1", x, 3, pad=1), "avg", (1, 2, 2)).flatten(1))))
ref("avgpool3d_same")(lambda c, x, L: msq(dense(c, "dense_1", pool(conv(c, "conv3d_1", x, 1), "avg", 2, pad="same").flatten(1))))
ref("global_avgpool3d")(lambda c, x, L: msq(dense(c, "dense_1", torch.tanh(conv(c, "conv3d_1", x, 3, pad=1)).mean((2, 3, 4)))))


@ref("upsample3d")
def _(c, x, L):
    h = F.interpolate(conv(c, "conv3d_1", x, 1), scale_factor=(2, 1, 3), mode="nearest")
    return msq(dense(c, "dense_1", torch.tanh(h).flatten(1)))


@ref("upsample_trilinear")
def _(c, x, L):
    h = F.interpolate(conv(c, "conv3d_1", x, 1), scale_factor=(2, 1, 3), mode="trilinear", align_corners=False)
    return msq(dense(c, "dense_1", torch.tanh(h).flatten(1)))


@ref("batchnorm_5d")
def _(c, x, L):
    h = batchnorm(c, "batchnorm_1", conv(c, "conv3d_1", x, 3, pad=1, bias=False), momentum=0.3)
    return msq(dense(c, "dense_1", torch.tanh(h).flatten(1)))


# ---- normalisation ----
ref("batchnorm_2d")(lambda c, x, L: msq(dense(c, "dense_2", torch.tanh(batchnorm(c, "batchnorm_1", dense(c, "dense_1", x, False))))))


@ref("batchnorm_4d")
def _(c, x, L):
    h = batchnorm(c, "batchnorm_1", conv(c, "conv2d_1", x, 3, pad=1, bias=False), momentum=0.3)
    return msq(dense(c, "dense_1", torch.tanh(h).flatten(1)))


@ref("batchnorm_noaffine")
def _(c, x, L):
    h = batchnorm(c, "batchnorm_1", conv(c, "conv2d_1", x, 1, bias=False), eps=1e-3, affine=False)
    return msq(dense(c, "dense_1", torch.tanh(h).flatten(1)))


ref("layernorm")(lambda c, x, L: msq(dense(c, "dense_2", torch.tanh(layernorm(c, "layernorm_1", dense(c, "dense_1", x))))))
ref("layernorm_dims2")(lambda c, x, L: msq(dense(c, "dense_2", torch.tanh(layernorm(c, "layernorm_1", dense(c, "dense_1", x), dims=2)).flatten(1))))
ref("layernorm_noaffine")(lambda c, x, L: msq(dense(c, "dense_2", layernorm(c, "layernorm_1", dense(c, "dense_1", x), eps=1e-3, affine=False))))

# ---- activations ----
act("relu", torch.relu)
act("leaky_relu", lambda h: F.leaky_relu(h, 0.2))
act("elu", lambda h: F.elu(h, 0.7))
act("gelu", F.gelu)
act("gelu_tanh", gelu_tanh)
act("tanh", torch.tanh)
act("sigmoid", torch.sigmoid)
act("softmax", lambda h: torch.softmax(h, -1))
act("log_softmax", lambda h: torch.log_softmax(h, -1))
ref("softmax_axis1")(lambda c, x, L: msq(dense(c, "dense_1", torch.softmax(conv(c, "conv2d_1", x, 1), 1).flatten(1))))
ref("log_softmax_axis1")(lambda c, x, L: msq(dense(c, "dense_1", torch.log_softmax(conv(c, "conv2d_1", x, 1), 1).flatten(1))))

# ---- shapes ----
ref("flatten_start2")(lambda c, x, L: msq(dense(c, "dense_2", torch.tanh(dense(c, "dense_1", conv(c, "conv2d_1", x, 1).flatten(2))).flatten(1))))


@ref("reshape")
def _(c, x, L):
    h = dense(c, "dense_1", x).reshape(-1, 3, 4)
    h = dense(c, "dense_2", h).reshape(h.shape[0], -1)
    return msq(dense(c, "dense_3", torch.tanh(h)))


@ref("concat")
def _(c, x, L):
    h = torch.tanh(torch.cat([conv(c, "conv2d_1", x, 1), conv(c, "conv2d_2", x, 3, pad=1)], 1)).flatten(1)
    h = torch.cat([dense(c, "dense_1", h), dense(c, "dense_2", h), dense(c, "dense_3", h)], -1)
    return msq(dense(c, "dense_4", torch.tanh(h)))


# ---- elementwise with broadcasting ----
def abc(c, x):
    return dense(c, "dense_1", x), dense(c, "dense_2", x), dense(c, "dense_3", x).mean(0)


@ref("add")
def _(c, x, L):
    a, b, cc = abc(c, x)
    return msq(dense(c, "dense_4", torch.tanh(a + b + cc + 0.5)))


@ref("sub")
def _(c, x, L):
    a, b, cc = abc(c, x)
    return msq(dense(c, "dense_4", torch.tanh(1.5 - (a - b - cc))))


@ref("mul")
def _(c, x, L):
    a, b, cc = abc(c, x)
    return msq(dense(c, "dense_4", a * b * cc * 0.5))


@ref("div")
def _(c, x, L):
    a, b, cc = abc(c, x)
    return msq(dense(c, "dense_4", a / (b ** 2 + 1.0) + 2.0 / (cc ** 2 + 1.0)))


@ref("broadcast_rank3")
def _(c, x, L):
    a, b = dense(c, "dense_1", x), dense(c, "dense_2", x)
    cc = dense(c, "dense_3", x.mean(1, keepdim=True))
    return msq(dense(c, "dense_4", (a * b + cc - b / (cc ** 2 + 1.0)).flatten(1)))


# ---- math ----
ref("neg")(lambda c, x, L: msq(-dense(c, "dense_2", torch.tanh(-dense(c, "dense_1", x)))))
ref("exp")(lambda c, x, L: msq(dense(c, "dense_2", torch.exp(dense(c, "dense_1", x)))))
ref("log")(lambda c, x, L: msq(dense(c, "dense_2", torch.log(dense(c, "dense_1", x) ** 2 + 0.5))))
ref("sqrt")(lambda c, x, L: msq(dense(c, "dense_2", torch.sqrt(dense(c, "dense_1", x) ** 2 + 0.5))))
ref("log1p")(lambda c, x, L: msq(dense(c, "dense_2", torch.log1p(dense(c, "dense_1", x) ** 2 - 0.5))))


@ref("abs")
def _(c, x, L):
    h = dense(c, "dense_1", x)
    return msq(dense(c, "dense_2", h.abs() + 0.3 * torch.sign(h) * h))
ref("square")(lambda c, x, L: msq(dense(c, "dense_2", dense(c, "dense_1", x) ** 2)))


# ---- reductions ----
def th(c, x):
    return torch.tanh(dense(c, "dense_1", x))


ref("sum_axis")(lambda c, x, L: msq(dense(c, "dense_2", th(c, x).sum(2))))
# h computed once, as the model computes it (in bf16 the one dense layer's
# weight gradient rounds the sum of the gradients reaching h).
ref("sum_axes_keepdim")(lambda c, x, L: (lambda h: msq(dense(c, "dense_2", (h * h.sum((1, 2), keepdim=True)).flatten(1))))(th(c, x)))
ref("mean_axis")(lambda c, x, L: (lambda h: msq(dense(c, "dense_2", torch.cat([h.mean(1), h.mean(-1)], 1) * 2.0)))(th(c, x)))
ref("mean_keepdim")(lambda c, x, L: (lambda h: msq(dense(c, "dense_2", (h * h.mean(2, keepdim=True)).flatten(1))))(th(c, x)))
ref("sum_mean_all")(lambda c, x, L: (lambda h: msq(dense(c, "dense_2", (h * h.sum() + h.mean()).flatten(1))))(th(c, x)))


@ref("reduce_batch")
def _(c, x, L):
    h = th(c, x)
    return msq(dense(c, "dense_2", (h * h.sum(0) + (h ** 2).mean((0, 2), keepdim=True)).flatten(1)))


# ---- losses ----
@ref("softmax_cross_entropy", classes=4)
def _(c, x, L):
    return F.cross_entropy(dense(c, "dense_2", torch.tanh(dense(c, "dense_1", x))), L)


def two_heads(c, x):
    h = torch.tanh(dense(c, "dense_1", x))
    return dense(c, "dense_2", h), dense(c, "dense_3", h)


for _red in ["mean", "sum", "batch_mean"]:
    def _bce_logits(c, x, L, red=_red):
        z, t = two_heads(c, x)
        return bce_with_logits(z, torch.sigmoid(t), red)

    def _bce(c, x, L, red=_red):
        p, t = two_heads(c, x)
        return binary_cross_entropy(torch.sigmoid(p), torch.sigmoid(t), red)

    def _mse(c, x, L, red=_red):
        return mse(*two_heads(c, x), red)

    def _kl(c, x, L, red=_red):
        return kl_normal(*two_heads(c, x), red)

    ref("bce_with_logits_" + _red)(_bce_logits)
    ref("binary_cross_entropy_" + _red)(_bce)
    ref("mse_" + _red)(_mse)
    ref("kl_normal_" + _red)(_kl)

ref("mse_input_target")(lambda c, x, L: mse(dense(c, "dense_2", torch.tanh(dense(c, "dense_1", x))), x))


# Losses against a dataset's continuous targets (L is float64 [B, ...targets]).
def mlp_head(c, x):
    return dense(c, "dense_2", torch.tanh(dense(c, "dense_1", x)))


for _red in ["mean", "sum", "batch_mean"]:
    ref("mae_targets_" + _red)(lambda c, x, L, red=_red: mae(mlp_head(c, x), L, red))
    ref("huber_targets_" + _red)(lambda c, x, L, red=_red: huber(mlp_head(c, x), L, 0.5, red))
ref("l1_targets")(lambda c, x, L: F.l1_loss(mlp_head(c, x).reshape(-1, 2, 2), L))
ref("huber_default_delta")(lambda c, x, L: F.huber_loss(2 * mlp_head(c, x), L))


# Cross-entropy over class scores per pixel / per position (dim 1 = classes).
@ref("softmax_cross_entropy_pixels", classes=3)
def _(c, x, L):
    return F.cross_entropy(conv(c, "conv2d_2", torch.tanh(conv(c, "conv2d_1", x, 3, pad="same")), 1), L)


@ref("softmax_cross_entropy_pixels_weights", classes=3)
def _(c, x, L):
    z = conv(c, "conv2d_2", torch.tanh(conv(c, "conv2d_1", x, 3, pad="same")), 1)
    return F.cross_entropy(z, L, weight=torch.tensor([0.5, 4, 1.5], dtype=torch.float64))


ref("softmax_cross_entropy_weights", classes=4)(
    lambda c, x, L: F.cross_entropy(mlp_head(c, x), L, weight=torch.tensor([1, 3.5, 0.25, 2], dtype=torch.float64)))
ref("softmax_cross_entropy_rank3", classes=4)(lambda c, x, L: F.cross_entropy(mlp_head(c, x).reshape(-1, 4, 2), L))


@ref("loss_expression")
def _(c, x, L):
    mu, lv = two_heads(c, x)
    return kl_normal(mu, lv) + 0.5 * mse(mu, lv, "sum") - 0.1 * (lv ** 2).mean()


# The random ops: their own checks (batch 1, see check_dropout / check_randn_like).
RANDOM = {"dropout": dict(batch=1, p=0.3), "randn_like": dict(batch=1)}


# ---------------------------------------------------------------------------
# NPY files, building and running
# ---------------------------------------------------------------------------
def save(path, a):
    np.save(path, np.ascontiguousarray(a))


class Tools:
    def __init__(self, args, work):
        self.dxc = args.dxc
        self.dxc_flags = args.dxc_flag
        self.work = work
        build = args.build_dir
        self.libdxrt = os.path.join(build, "runtime", "libdxrt.a")
        if not os.path.exists(self.libdxrt):
            sys.exit(f"gradcheck: {self.libdxrt} not found: build the runtime first")
        link_txt = os.path.join(build, "runtime", "dxrt-link.txt")
        if not os.path.exists(link_txt):
            sys.exit(f"gradcheck: {link_txt} not found: configure the build first")
        self.link = open(link_txt).read().split()
        # The linker dxc uses (CMake's DX_LINKER: lld, several times faster
        # than GNU ld on these executables), where the build wrote it.
        flag_txt = os.path.join(build, "runtime", "dxrt-linker-flag.txt")
        self.linker = open(flag_txt).read().split() if os.path.exists(flag_txt) else []
        self.runner = os.path.join(build, "test", "gradcheck", "libdxgc_runner.a")
        if not os.path.exists(self.runner):  # not built by CMake (yet): build it here
            self.runner = os.path.join(work, "runner.o")
            run(["c++", "-std=c++17", "-O1", "-c", os.path.join(HERE, "runner.cpp"), "-I",
                 os.path.join(SOURCE_ROOT, "runtime", "include"), "-o", self.runner])

    def build(self, name):
        d = os.path.join(self.work, name)
        os.makedirs(d, exist_ok=True)
        obj, exe = os.path.join(d, "model.o"), os.path.join(d, "runner")
        run([self.dxc, "compile", os.path.join(HERE, "cases", name + ".dx"), "--emit=obj", "-o", obj] + self.dxc_flags)
        # The runner's main() first, so that libdxrt's driver/main.o is not pulled in.
        # libdxrt and what it needs (OpenBLAS, zlib, MPI, oneDNN), as dxc links it.
        run(["c++"] + self.linker + ["-o", exe, self.runner, obj] + self.link)
        meta = json.loads(run([exe, "--metadata"]))
        return d, exe, meta


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-3000:]}{p.stderr[-3000:]}")
    return p.stdout


def step(d, exe, params, buffers, x, labels, seed=1, stepno=1, rank=0, tag="run"):
    out = os.path.join(d, tag)
    os.makedirs(out, exist_ok=True)
    files = [os.path.join(d, f"{tag}_{n}.npy") for n in ("params", "buffers", "x", "labels")]
    # Class labels stay int64; a dataset's continuous targets are float32.
    lab = labels.astype(np.float32 if labels.dtype.kind == "f" else np.int64)
    for f, a in zip(files, (params.astype(np.float32), buffers.astype(np.float32), x.astype(np.float32), lab)):
        save(f, a)
    run([exe] + files + [str(seed), str(stepno), str(rank), out])
    return (float(np.load(os.path.join(out, "loss.npy"))[0]), np.load(os.path.join(out, "grads.npy")),
            np.load(os.path.join(out, "new_buffers.npy")))


def random_inputs(name, meta, batch, classes):
    """Random float32 parameters (by their init kind), buffers, inputs and labels."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    params = np.zeros(meta["param_floats"], np.float32)
    for p in meta["params"]:
        n, init = p["size"], p.get("init")
        if init == "uniform_fan_in":  # 1.5x PyTorch's bound: activations of order 1
            v = rng.uniform(-1.5, 1.5, n) / math.sqrt(max(p.get("fan_in", 1), 1))
        elif init == "ones":
            v = 1 + rng.uniform(-0.3, 0.3, n)
        else:
            v = rng.uniform(-0.3, 0.3, n)
        params[p["offset"]:p["offset"] + n] = v
    buffers = np.zeros(meta["buffer_floats"], np.float32)
    for b in meta["buffers"]:
        n = b["size"]
        v = rng.uniform(0.5, 1.5, n) if b["name"].endswith("running_var") else rng.uniform(-0.3, 0.3, n)
        buffers[b["offset"]:b["offset"] + n] = v
    x = rng.standard_normal([batch] + meta["input"]["shape"]).astype(np.float32)
    ds = meta.get("dataset", {})
    if ds.get("targets"):
        labels = rng.standard_normal([batch] + ds["target_shape"]).astype(np.float32)
    else:
        labels = rng.integers(0, classes or 1, [batch] + ds.get("label_shape", [])).astype(np.int64)
    return params, buffers, x, labels


def views(flat, entries):
    return {e["name"]: flat[e["offset"]:e["offset"] + e["size"]].view(e["shape"]) for e in entries}


def rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)) if b.size else 0.0, 1e-6)) if b.size else 0.0


# ---------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------
def check_fd(name, spec, meta, got, inputs):
    """Loss, gradients (vs FD and autograd) and buffer updates of one case."""
    params, buffers, x, labels = inputs
    loss32, grads32, newbuf32 = got
    theta = torch.tensor(params, dtype=torch.float64)
    buf = views(torch.tensor(buffers, dtype=torch.float64), meta["buffers"])
    xt = torch.tensor(x, dtype=torch.float64)
    lt = torch.tensor(labels, dtype=torch.float64) if labels.dtype.kind == "f" else torch.tensor(labels)

    def f(th):
        c = Ctx(views(th, meta["params"]), buf)
        return spec["f"](c, xt, lt), c

    # autograd
    th = theta.clone().requires_grad_(True)
    loss, c = f(th)
    unused = [p["name"] for p in meta["params"] if p["name"] not in c.used]
    if unused:
        raise RuntimeError(f"the reference does not use {unused}: it does not match the case")
    (g_ag,) = torch.autograd.grad(loss, th)
    g_ag = g_ag.numpy()
    # central finite differences, only at the parameters' own floats
    g_fd = np.zeros_like(g_ag)
    with torch.no_grad():
        th = theta.clone()
        for p in meta["params"]:
            for i in range(p["offset"], p["offset"] + p["size"]):
                v = th[i].item()
                th[i] = v + FD_STEP
                up = f(th)[0].item()
                th[i] = v - FD_STEP
                down = f(th)[0].item()
                th[i] = v
                g_fd[i] = (up - down) / (2 * FD_STEP)
    g_exact = g_ag
    if BF16:  # loss, autograd and buffers against the reference that rounds as bf16 does
        global BF16_EMULATE
        BF16_EMULATE = True
        try:
            th = theta.clone().requires_grad_(True)
            loss, c = f(th)
            (g_ag,) = torch.autograd.grad(loss, th)
            g_ag = g_ag.numpy()
        finally:
            BF16_EMULATE = False
    tol = spec["tol"]
    fd_tol = BF16_FD_TOL if BF16 else tol
    r = dict(loss=rel(loss32, loss.item()), fd=0.0, ag=0.0, buf=0.0 if meta["buffers"] else float("nan"),
             worst="", ref=0.0)
    for p in meta["params"]:
        s = slice(p["offset"], p["offset"] + p["size"])
        e_fd, e_ag = rel(grads32[s], g_fd[s]), rel(grads32[s], g_ag[s])
        r["ref"] = max(r["ref"], rel(g_exact[s], g_fd[s]))  # the reference's own consistency
        if max(e_fd / fd_tol, e_ag / tol) > max(r["fd"] / fd_tol, r["ag"] / tol):
            r["worst"] = p["name"]
        r["fd"], r["ag"] = max(r["fd"], e_fd), max(r["ag"], e_ag)
    for b in meta["buffers"]:
        s = slice(b["offset"], b["offset"] + b["size"])
        want = c.new_buffers[b["name"]].detach().numpy().ravel()
        e = rel(newbuf32[s], want)
        if not e <= r["buf"]:
            r["buf"] = e
            if e > spec["tol"]:
                r["worst"] = b["name"]
    ok = all(np.isfinite(v) for v in (r["loss"], r["fd"], r["ag"]))
    ok = ok and r["loss"] < tol and r["fd"] < fd_tol and r["ag"] < tol and r["ref"] < 1e-5
    ok = ok and (not meta["buffers"] or r["buf"] < tol)
    return ok, r


def rb(a):
    """A product's input as the build's precision sees it (numpy, float64)."""
    return to_bf16(torch.from_numpy(np.asarray(a, np.float64))).numpy() if BF16 else a


def check_dropout(name, meta, d, exe, inputs, p):
    """y = dropout(h) with h = dense(x), loss = sum(y), batch 1. Then
    d loss / d bias_j = mask_j / (1 - p) exactly (mask in {0, 1}), d loss / d W_ji
    = that times x_i, and the loss is sum_j h_j * mask_j / (1 - p): the forward
    pass used the same mask as the backward pass. Same key -> same bits."""
    params, buffers, x, labels = inputs
    loss, g, _ = step(d, exe, *inputs)
    P = {q["name"]: q for q in meta["params"]}
    get = lambda a, n: a[P[n]["offset"]:P[n]["offset"] + P[n]["size"]].astype(np.float64).reshape(P[n]["shape"])
    W, bias = get(params, "dense_1.weight"), get(params, "dense_1.bias")
    gw, gb = get(g, "dense_1.weight"), get(g, "dense_1.bias")
    scale = 1 / (1 - p)
    mask_ok = bool(np.all((np.abs(gb) < 1e-7) | (np.abs(gb - scale) < 1e-6 * scale)))
    kept = float(np.mean(gb > 0.5 * scale))
    h = rb(W) @ rb(x[0].astype(np.float64)) + bias
    errs = {"mask values": 0.0 if mask_ok else 1.0,
            "dW = dbias * x": rel(gw, np.outer(rb(gb), rb(x[0].astype(np.float64)))),
            "forward mask == backward mask": rel(loss, float(np.dot(h, gb)))}
    loss2, g2, _ = step(d, exe, *inputs, tag="again")
    errs["same key, same result"] = 0.0 if (loss2 == loss and np.array_equal(g2, g)) else 1.0
    _, g3, _ = step(d, exe, *inputs, stepno=2, tag="step2")
    _, g4, _ = step(d, exe, *inputs, rank=1, tag="rank1")
    errs["new step/rank, new mask"] = 0.0 if not (np.array_equal(g3, g) or np.array_equal(g4, g)) else 1.0
    errs["kept fraction ~ 1-p"] = 0.0 if 0.45 <= kept <= 0.95 else 1.0  # 64 draws: 0.7 +- 4 sigma
    return summarize_rules(errs)


def check_randn_like(name, meta, d, exe, inputs):
    """z = mu + exp(0.5 lv) * eps, loss = sum(z), batch 1: d loss / d mu_bias = 1,
    d loss / d lv_bias_j = 0.5 exp(0.5 lv_j) eps_j, which gives eps; then the loss
    must be sum(mu + exp(0.5 lv) eps), d W = d bias * x, and eps ~ N(0, 1)."""
    params, buffers, x, labels = inputs
    loss, g, _ = step(d, exe, *inputs)
    P = {q["name"]: q for q in meta["params"]}
    get = lambda a, n: a[P[n]["offset"]:P[n]["offset"] + P[n]["size"]].astype(np.float64).reshape(P[n]["shape"])
    x0 = x[0].astype(np.float64)
    mu = rb(get(params, "dense_1.weight")) @ rb(x0) + get(params, "dense_1.bias")
    lv = rb(get(params, "dense_2.weight")) @ rb(x0) + get(params, "dense_2.bias")
    eps = get(g, "dense_2.bias") / (0.5 * np.exp(0.5 * lv))
    errs = {"d mu = 1": rel(get(g, "dense_1.bias"), np.ones(64)),
            "dW = dbias * x": max(rel(get(g, "dense_1.weight"), np.outer(rb(get(g, "dense_1.bias")), rb(x0))),
                                  rel(get(g, "dense_2.weight"), np.outer(rb(get(g, "dense_2.bias")), rb(x0)))),
            "forward noise == backward noise": rel(loss, float(np.sum(mu + np.exp(0.5 * lv) * eps)))}
    loss2, g2, _ = step(d, exe, *inputs, tag="again")
    errs["same key, same result"] = 0.0 if (loss2 == loss and np.array_equal(g2, g)) else 1.0
    _, g3, _ = step(d, exe, *inputs, stepno=2, tag="step2")
    _, g4, _ = step(d, exe, *inputs, seed=2, tag="seed2")
    errs["new step/seed, new noise"] = 0.0 if not (np.array_equal(g3, g) or np.array_equal(g4, g)) else 1.0
    # 64 standard normals: mean within 4/sqrt(64), std within [0.6, 1.4]
    errs["noise ~ N(0, 1)"] = 0.0 if abs(eps.mean()) < 0.5 and 0.6 < eps.std() < 1.4 else 1.0
    return summarize_rules(errs)


def summarize_rules(errs):
    worst = max(errs, key=errs.get)
    ok = all(v < TOL for v in errs.values())
    return ok, dict(loss=float("nan"), fd=float("nan"), ag=float("nan"), buf=float("nan"),
                    rules=max(errs.values()), worst="" if ok else worst)


# ---------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dxc", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("-k", "--filter", action="append", default=[], help="run only cases containing this text")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--dxc-flag", action="append", default=[], metavar="FLAG",
                    help="pass FLAG to every dxc compile (e.g. --dxc-flag=--emulate-gpu=reverse)")
    ap.add_argument("--bf16", action="store_true",
                    help="compile with --precision bf16 and check against bf16-rounding references (see above)")
    args = ap.parse_args()
    global BF16
    BF16 = args.bf16
    if BF16:
        args.dxc_flag.append("--precision=bf16")

    names = sorted(f[:-3] for f in os.listdir(os.path.join(HERE, "cases")) if f.endswith(".dx"))
    missing = [n for n in names if n not in REFS and n not in RANDOM]
    stale = [n for n in list(REFS) + list(RANDOM) if n not in names]
    if missing or stale:
        sys.exit(f"gradcheck: cases without a reference: {missing}; references without a case: {stale}")
    if args.filter:
        names = [n for n in names if any(k in n for k in args.filter)]

    work = tempfile.mkdtemp(prefix="dxgc-")
    t0 = time.time()
    tools = Tools(args, work)

    def prepare(name):
        d, exe, meta = tools.build(name)
        spec = REFS.get(name) or RANDOM[name]
        inputs = random_inputs(name, meta, spec["batch"], spec.get("classes"))
        got = None if name in RANDOM else step(d, exe, *inputs)
        return d, exe, meta, inputs, got

    results, failed = [], 0
    print(f"{'case':<32} {'loss':>9} {'vs FD':>9} {'vs autograd':>11} {'buffers':>9} {'rules':>9}  result")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {n: pool.submit(prepare, n) for n in names}
        for name in names:
            try:
                d, exe, meta, inputs, got = futures[name].result()
                if name == "dropout":
                    ok, r = check_dropout(name, meta, d, exe, inputs, RANDOM[name]["p"])
                elif name == "randn_like":
                    ok, r = check_randn_like(name, meta, d, exe, inputs)
                else:
                    ok, r = check_fd(name, REFS[name], meta, got, inputs)
            except Exception as e:  # a compile, link or run failure is a failed case
                ok, r = False, dict(error=str(e))
            failed += not ok
            if ok and not args.keep:
                # A case's directory holds its linked runner (about 45 MB):
                # 104 of them, several gradcheck runs at once, filled a CI
                # machine's disk. A failed case keeps its files until the end.
                shutil.rmtree(d, ignore_errors=True)
            if "error" in r:
                print(f"{name:<32} {'ERROR':>52}  FAIL\n    " + r["error"].replace("\n", "\n    ")[:4000])
                continue
            fmt = lambda v: f"{v:9.1e}" if v == v else f"{'-':>9}"
            note = "" if ok else f"  ({r['worst']})" if r.get("worst") else ""
            if r.get("ref", 0) >= 1e-5:
                note += f"  (reference autograd vs FD {r['ref']:.1e}: the reference is wrong)"
            print(f"{name:<32} {fmt(r['loss'])} {fmt(r['fd'])} {r['ag']:11.1e} {fmt(r['buf'])} "
                  f"{fmt(r.get('rules', float('nan')))}  {'PASS' if ok else 'FAIL'}{note}"
                  if r["ag"] == r["ag"] else
                  f"{name:<32} {fmt(r['loss'])} {fmt(r['fd'])} {'-':>11} {fmt(r['buf'])} "
                  f"{fmt(r.get('rules', float('nan')))}  {'PASS' if ok else 'FAIL'}{note}")
            sys.stdout.flush()
    if BF16:
        print(f"bf16: loss, autograd and buffers against the bf16-rounding float64 reference at {TOL:g}, "
              f"finite differences of the exact float64 reference at {BF16_FD_TOL:g}")
    print(f"{len(names) - failed} of {len(names)} cases passed, tolerance {TOL:g} "
          f"(relative: max|a-b| / max(max|b|, 1e-6)), {time.time() - t0:.0f} s")
    if args.keep:
        print(f"work directory: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
