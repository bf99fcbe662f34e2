#!/usr/bin/python3
"""PyTorch twins of the DeepEx examples that bench/vs_pytorch.sh times.

Four models, one training loop:

  mlp, cnn    examples/fashion-mnist/{mlp,cnn}.dx: the networks, data and SGD
              settings of bench/torch_fashion.py (imported from there).
  cvae        examples/protein-folding/cvae.dx: the contact-map VAE
              (stdlib/vae.dx) on the maps of `dx-datagen peptide`.
  microscopy  examples/microscopy/cnn.dx: the lattice CNN (stdlib/blocks.dx)
              on the images of `dx-datagen stem`.

Three subcommands:

  torch_models.py train --model M [--data DIR] [--steps N] [--epochs E] [--seed S]
                        [--precision fp32|bf16] [--out FILE]
      Trains the twin of M on one thread for one epoch (or the first N steps
      of it) and appends one JSON line with the result to FILE (stdout by
      default). DIR holds peptide/ and stem/ as dx-datagen wrote them (the
      DeepEx executables read the same files as data/peptide/..., data/stem/...).
      --precision bf16 runs the forward pass and the loss, in training and in
      evaluation, under torch.autocast("cpu", dtype=torch.bfloat16) (the
      backward pass follows the forward's dtypes; parameters, gradients and
      optimizer stay fp32); default fp32, no autocast. The line records it as
      "precision".

  torch_models.py deepex LOG --model M [--precision fp32|bf16] [--out FILE]
      Turns the metrics log of a DeepEx executable into the same JSON line,
      with the precision of the log's start event (absent: fp32); with
      --precision, exits 1 when the log says another.

  torch_models.py table FILE
      Prints the tables of a file of such lines; with the lines of
      bench/sgemm_rate.c --json among them, also the GFLOP/s of the DeepEx cnn
      runs against the one-core sgemm rate. Lines without "precision" are
      fp32. With bf16 lines, also DeepEx bf16 against PyTorch bf16, and with
      both precisions, bf16 against fp32 (the speed-ups of issue 15).

Run it with Debian's /usr/bin/python3 (python3-torch). What the two new twins
mirror, and where DeepEx defines it:

  cvae       stdlib/vae.dx conv_vae_encoder(latent 3, filters 64, hidden 128):
             conv 3x3 x 64 with bias, strides 1, 2, 1, 1, pad same, ReLU each
             (22 -> 22 -> 11 -> 11 -> 11); flatten; dense 7744-128, ReLU; mu and
             logvar heads dense 128-3. reparameterize: z = mu + exp(0.5 logvar)
             * randn_like(mu) in training, z = mu in evaluation (randn_like gives
             zeros there, docs/language.md). conv_vae_decoder(channels 1, side
             11): dense 3-128, ReLU, dense 128-7744, ReLU, reshape [64, 11, 11],
             conv_transpose 3x3 x 64 strides 1, 1, 2 with ReLU, then 3x3 x 1,
             stride 1, no activation (logits), all pad same.
             2,214,407 parameters, as `dxc check --print-model` counts.
  microscopy conv_bn_relu(16) maxpool 2, conv_bn_relu(32) maxpool 2,
             conv_bn_relu(64) conv_bn_relu(64) maxpool 2, conv_bn_relu(128),
             global_avgpool, dense 128-5; conv_bn_relu = conv 3x3 pad same (= 1)
             no bias, BatchNorm2d (momentum 0.1, eps 1e-5), ReLU. 135,029
             parameters.
  pad same   compiler/sema/OpRegistry.cpp, TensorFlow/Keras style. conv2d:
             output ceil(n / stride), the total padding split with the smaller
             half at the top/left; for the cvae's stride-2 convolution on 22x22
             that is 0 rows before and 1 after, which PyTorch's symmetric
             padding cannot say: F.pad(x, (0, 1, 0, 1)) then padding 0.
             conv_transpose2d: output n * stride, crop kernel - stride rows of
             the full output, the smaller half at the top: 1 and 1 for stride
             1 (PyTorch padding=1), 0 and 1 for stride 2 (padding=0, then the
             first 22 rows and columns of the 23).
  init       PyTorch's defaults, which are runtime/model/Init.cpp's:
             U(+-1/sqrt(fan_in)) for weights and biases (a transposed
             convolution's fan-in from weight dim 1, out_channels * 9, in both),
             batch norm 1 and 0.
  loss       cvae: bce_with_logits(recon, x, reduction: batch_mean) +
             kl_normal(mu, logvar): BCEWithLogits summed over the map / B, plus
             -0.5 * sum(1 + logvar - mu^2 - exp(logvar)) / B.
             microscopy: mean softmax cross-entropy.
  optimizer  compiler/lowering/BuildABI.cpp, PyTorch's update rules:
             cvae rmsprop(lr 1e-3, rho 0.9) = torch.optim.RMSprop(lr=1e-3,
             alpha=0.9, eps=1e-8); microscopy adam(lr 1e-3) =
             torch.optim.Adam(lr=1e-3, betas=(0.9, 0.999), eps=1e-8).
  schedule   dx_learning_rate (BuildABI.cpp): cvae constant; microscopy
             cosine over the run (one epoch here, as --epochs 1 tells the
             executable), per step: lr_k = 0.5 * lr (1 + cos(pi (k-1) / S)).
  batch      64; the last batch of the epoch is the remainder, not dropped.
  data       the NPY files as dx-datagen wrote them, in memory, unchanged
             (the .dx datasets declare no scale, mean or std); a
             torch.randperm per epoch and batches by index_select.
  timing     as torch_fashion.py and DeepEx's epoch_time_s: the sum over
             steps of gather, forward, backward, learning rate, update.
  evaluation the test split in file order, batches of 64, eval mode (batch
             norm's running statistics; the VAE at z = mu).
  bf16       --precision bf16: PyTorch 1.13's CPU autocast policy, not
             DeepEx's. Convolutions and linear layers cast their inputs and
             weights to bf16 and return bf16; batch norm, ReLU, pooling,
             dropout and flatten then run on bf16 tensors (they are on
             neither autocast list and keep their input's dtype);
             cross_entropy is on the fp32 list. ConvTranspose2d is on the
             fp32 list on the CPU in 1.13, so the cvae's decoder
             convolutions, and its BCE loss after them, run in fp32. DeepEx
             bf16 rounds only the inputs of convolutions and dense layers
             and keeps everything else in fp32.
"""
import argparse
import contextlib
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_fashion as fashion  # noqa: E402  (mlp and cnn: network, data, SGD settings)

MODELS = ("mlp", "cnn", "cvae", "microscopy")
PRECISIONS = ("fp32", "bf16")
BATCH = 64
LOSS_TOLERANCE = 0.10  # the loss check of the table: |DeepEx - PyTorch| / PyTorch
SPEEDUP_TARGET = 2.5   # issue 15: DeepEx bf16 against DeepEx fp32, on the CNNs
SPEEDUP_MODELS = ("cnn", "microscopy")
RATIO_TARGET = 0.5     # DeepEx / PyTorch, in either precision


# ---- schedules -----------------------------------------------------------------------------------

def learning_rate(step, steps_per_epoch, epochs, base, kind, warmup_epochs=0.0, min_lr=0.0):
    """dx_learning_rate of compiler/lowering/BuildABI.cpp for constant and cosine, with or without
    warm-up. step is 1-based: the k-th update of the run uses learning_rate(k)."""
    S = max(steps_per_epoch, 1)
    t = max(step, 1) - 1
    warm = warmup_epochs * S
    lr = base
    if kind == "cosine":
        total, done = epochs * S - warm, t - warm
        if total > 0:
            lr = min_lr + (base - min_lr) * 0.5 * (1.0 + math.cos(math.pi * min(done / total, 1.0)))
    elif kind != "constant":
        sys.exit(f"schedule '{kind}' is not mirrored here")
    if warmup_epochs > 0 and t < warm:
        lr = base * (t + 1) / warm
    return lr


# ---- 'same' padding as DeepEx defines it ---------------------------------------------------------

def same_conv_padding(n, kernel, stride):
    """conv2d pad: same (OpRegistry.cpp resolvePadding): (before, after) along one axis."""
    out = (n + stride - 1) // stride
    total = max(0, (out - 1) * stride + kernel - n)
    return total // 2, total - total // 2


def same_conv_transpose_crop(kernel, stride):
    """conv_transpose2d pad: same: rows cropped (top, bottom) from the full output."""
    total = kernel - stride
    return total // 2, total - total // 2


def make_same_conv(nn, F, cin, cout, side, kernel=3, stride=1, bias=True):
    """nn.Conv2d with DeepEx's pad: same on a side x side input."""
    before, after = same_conv_padding(side, kernel, stride)
    if before == after:
        return nn.Conv2d(cin, cout, kernel, stride=stride, padding=before, bias=bias)

    class PaddedConv(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, kernel, stride=stride, padding=0, bias=bias)

        def forward(self, x):
            return self.conv(F.pad(x, (before, after, before, after)))
    return PaddedConv()


def make_same_conv_transpose(nn, cin, cout, kernel=3, stride=1):
    """nn.ConvTranspose2d with DeepEx's pad: same (output = input * stride)."""
    top, bottom = same_conv_transpose_crop(kernel, stride)
    if top == bottom:
        return nn.ConvTranspose2d(cin, cout, kernel, stride=stride, padding=top)

    class CroppedConvTranspose(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.ConvTranspose2d(cin, cout, kernel, stride=stride, padding=0)

        def forward(self, x):
            h = self.conv(x)
            H, W = h.shape[2], h.shape[3]
            return h[:, :, top:H - bottom, top:W - bottom]
    return CroppedConvTranspose()


# ---- the networks --------------------------------------------------------------------------------

def build_cvae(torch, latent=3, filters=64, hidden=128, side=11, channels=1, n=22):
    """examples/protein-folding/cvae.dx: conv_vae_encoder, reparameterize, conv_vae_decoder."""
    nn, F = torch.nn, torch.nn.functional

    class CVAE(nn.Module):
        def __init__(self):
            super().__init__()
            # conv_vae_encoder: strides 1, 2, 1, 1, pad same, ReLU
            self.enc = nn.ModuleList([
                make_same_conv(nn, F, channels, filters, n, stride=1),
                make_same_conv(nn, F, filters, filters, n, stride=2),
                make_same_conv(nn, F, filters, filters, side, stride=1),
                make_same_conv(nn, F, filters, filters, side, stride=1)])
            self.fc = nn.Linear(filters * side * side, hidden)
            self.mu = nn.Linear(hidden, latent)      # gaussian_head: dense(h, latent), dense(h, latent)
            self.logvar = nn.Linear(hidden, latent)
            # conv_vae_decoder
            self.dfc1 = nn.Linear(latent, hidden)
            self.dfc2 = nn.Linear(hidden, filters * side * side)
            self.dec = nn.ModuleList([
                make_same_conv_transpose(nn, filters, filters, stride=1),
                make_same_conv_transpose(nn, filters, filters, stride=1),
                make_same_conv_transpose(nn, filters, filters, stride=2)])
            self.out = make_same_conv_transpose(nn, filters, channels, stride=1)

        def forward(self, x):
            h = x
            for conv in self.enc:
                h = F.relu(conv(h))
            h = F.relu(self.fc(h.flatten(1)))
            mu, logvar = self.mu(h), self.logvar(h)
            # randn_like gives zeros in evaluation: z = mu there
            z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu) if self.training else mu
            h = F.relu(self.dfc1(z))
            h = F.relu(self.dfc2(h)).reshape(-1, filters, side, side)
            for conv in self.dec:
                h = F.relu(conv(h))
            return self.out(h), mu, logvar
    return CVAE()


def build_microscopy(torch, classes=5):
    """examples/microscopy/cnn.dx, lattice_cnn."""
    nn = torch.nn

    def conv_bn_relu(cin, cout):  # stdlib/blocks.dx: 3x3, pad same (1 on each side at stride 1), no bias
        return [nn.Conv2d(cin, cout, 3, stride=1, padding=1, bias=False),
                nn.BatchNorm2d(cout, eps=1e-5, momentum=0.1), nn.ReLU()]
    return nn.Sequential(*conv_bn_relu(1, 16), nn.MaxPool2d(2),
                         *conv_bn_relu(16, 32), nn.MaxPool2d(2),
                         *conv_bn_relu(32, 64), *conv_bn_relu(64, 64), nn.MaxPool2d(2),
                         *conv_bn_relu(64, 128), nn.AdaptiveAvgPool2d(1), nn.Flatten(),  # global_avgpool: [B, 128]
                         nn.Linear(128, classes))


# ---- losses --------------------------------------------------------------------------------------

def cross_entropy(torch, out, x, y):
    return torch.nn.functional.cross_entropy(out, y)


def vae_loss(torch, out, x, y):
    """bce_with_logits(recon, x, reduction: batch_mean) + kl_normal(mu, logvar) (batch_mean)."""
    recon, mu, logvar = out
    B = x.shape[0]
    bce = torch.nn.functional.binary_cross_entropy_with_logits(recon, x, reduction="sum") / B
    kl = -0.5 * torch.sum(1.0 + logvar - mu * mu - torch.exp(logvar)) / B
    return bce + kl


# ---- data ----------------------------------------------------------------------------------------

def load_npy(torch, path, dtype):
    import numpy as np
    a = np.load(path)
    if a.dtype != dtype:
        sys.exit(f"{path}: dtype {a.dtype}, expected {dtype}")
    return torch.from_numpy(np.ascontiguousarray(a))


def data_fashion(torch, data_dir):
    x, y = fashion.load_split(torch, "train")
    xt, yt = fashion.load_split(torch, "t10k")
    return x, y, xt, yt


def data_peptide(torch, data_dir):
    d = os.path.join(data_dir, "peptide")
    return (load_npy(torch, os.path.join(d, "train_maps.npy"), "float32"), None,
            load_npy(torch, os.path.join(d, "test_maps.npy"), "float32"), None)


def data_stem(torch, data_dir):
    d = os.path.join(data_dir, "stem")
    return (load_npy(torch, os.path.join(d, "train_images.npy"), "float32"),
            load_npy(torch, os.path.join(d, "train_labels.npy"), "int64"),
            load_npy(torch, os.path.join(d, "test_images.npy"), "float32"),
            load_npy(torch, os.path.join(d, "test_labels.npy"), "int64"))


# ---- what each model is --------------------------------------------------------------------------

def sgd_fashion(torch, params):
    return torch.optim.SGD(params, lr=fashion.BASE_LR, momentum=fashion.MOMENTUM, nesterov=True,
                           weight_decay=fashion.WEIGHT_DECAY)


SPECS = {
    "mlp": dict(build=lambda torch: fashion.build(torch, "mlp"), data=data_fashion, loss=cross_entropy,
                optimizer=sgd_fashion, base_lr=fashion.BASE_LR, schedule="cosine", warmup=fashion.WARMUP_EPOCHS),
    "cnn": dict(build=lambda torch: fashion.build(torch, "cnn"), data=data_fashion, loss=cross_entropy,
                optimizer=sgd_fashion, base_lr=fashion.BASE_LR, schedule="cosine", warmup=fashion.WARMUP_EPOCHS),
    "cvae": dict(build=build_cvae, data=data_peptide, loss=vae_loss,
                 optimizer=lambda torch, p: torch.optim.RMSprop(p, lr=1e-3, alpha=0.9, eps=1e-8),
                 base_lr=1e-3, schedule="constant", warmup=0.0),
    "microscopy": dict(build=build_microscopy, data=data_stem, loss=cross_entropy,
                       optimizer=lambda torch, p: torch.optim.Adam(p, lr=1e-3, betas=(0.9, 0.999), eps=1e-8),
                       base_lr=1e-3, schedule="cosine", warmup=0.0),
}


# ---- training ------------------------------------------------------------------------------------

def autocast_of(torch, precision):
    """The context of a forward pass and its loss: autocast to bf16, or nothing for fp32."""
    if precision == "bf16":
        return lambda: torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext


def evaluate(torch, net, loss_fn, x, y, batch, autocast=contextlib.nullcontext):
    """Mean loss over the split (batch losses weighted by their sizes, as runtime/train/Evaluate.cpp)
    and, with labels, the accuracy."""
    net.eval()
    loss_sum, correct = 0.0, 0
    with torch.no_grad():
        for lo in range(0, x.shape[0], batch):
            xb = x[lo:lo + batch]
            yb = None if y is None else y[lo:lo + batch]
            with autocast():
                out = net(xb)
                loss = loss_fn(torch, out, xb, yb)
            loss_sum += loss.item() * xb.shape[0]
            if y is not None:
                correct += int((out.argmax(dim=1) == yb).sum())
    net.train()
    n = x.shape[0]
    return loss_sum / n, (correct / n if y is not None else None)


def cmd_train(a):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    spec = SPECS[a.model]
    t_load = time.perf_counter()
    x, y, xt, yt = spec["data"](torch, a.data)
    load_s = time.perf_counter() - t_load

    torch.manual_seed(a.seed)
    net = spec["build"](torch)
    net.train()
    params = sum(p.numel() for p in net.parameters())
    opt = spec["optimizer"](torch, net.parameters())
    loss_fn = spec["loss"]
    autocast = autocast_of(torch, a.precision)
    n = x.shape[0]
    steps_per_epoch = (n + BATCH - 1) // BATCH
    step, train_time, stats = 0, 0.0, None
    for epoch in range(1, a.epochs + 1):
        perm = torch.randperm(n)
        loss_sum, samples, epoch_time, lr, done = 0.0, 0, 0.0, 0.0, 0
        for k in range(steps_per_epoch):
            if a.steps and step >= a.steps:
                break
            t0 = time.perf_counter()
            idx = perm[k * BATCH:(k + 1) * BATCH]
            xb = x.index_select(0, idx)
            yb = None if y is None else y.index_select(0, idx)
            step += 1
            with autocast():  # forward and loss; backward and update outside, as torch.autocast's docs have it
                loss = loss_fn(torch, net(xb), xb, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            lr = learning_rate(step, steps_per_epoch, a.epochs, spec["base_lr"], spec["schedule"], spec["warmup"])
            for g in opt.param_groups:
                g["lr"] = lr
            opt.step()
            loss_sum += loss.item() * xb.shape[0]
            samples += xb.shape[0]
            epoch_time += time.perf_counter() - t0
            done += 1
        train_time += epoch_time
        val_loss, val_acc = evaluate(torch, net, loss_fn, xt, yt, BATCH, autocast)
        stats = dict(epoch=epoch, steps=done, epoch_time_s=epoch_time, train_time_s=train_time,
                     samples_per_s=samples / epoch_time if epoch_time > 0 else 0.0,
                     train_loss=loss_sum / max(samples, 1), val_loss=val_loss, val_accuracy=val_acc, lr=lr)
        if a.steps and step >= a.steps:
            break
    rec = dict(impl="pytorch", model=a.model, precision=a.precision, run=a.run, steps_per_epoch=steps_per_epoch,
               load_s=load_s, params=params, threads=torch.get_num_threads(), version=torch.__version__, **stats)
    fashion.emit(rec, a.out)


def cmd_deepex(a):
    start, epoch = None, None
    with open(a.log) as f:
        for line in f:
            e = json.loads(line)
            if e.get("event") == "start":
                start = e
            elif e.get("event") == "epoch":
                epoch = e
    if start is None or epoch is None:
        sys.exit(f"{a.log}: no start or epoch event")
    precision = start.get("precision") or "fp32"  # metrics log 1.3.0; absent (older logs): fp32
    if a.precision and precision != a.precision:
        sys.exit(f"{a.log}: the start event says precision {precision}, not {a.precision} as compiled "
                 f"(does the build have dxc compile --precision?)")
    rec = dict(impl="deepex", model=a.model, precision=precision, run=a.run,
               steps_per_epoch=start["steps_per_epoch"], params=start.get("params"), threads=start.get("blas_threads"),
               flops_per_sample=start.get("flops_per_sample"), batch=start.get("global_batch"))
    for k in ("epoch", "steps", "epoch_time_s", "train_time_s", "samples_per_s", "train_loss", "val_loss",
              "val_accuracy", "lr"):
        rec[k] = epoch.get(k)
    fashion.emit(rec, a.out)


# ---- tables --------------------------------------------------------------------------------------

def median(v):
    s = sorted(v)
    m = len(s) // 2
    return s[m] if len(s) % 2 else 0.5 * (s[m - 1] + s[m])


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def joined(rs, key, spec):
    """One value when all runs agree, else each run's, separated by '/'."""
    vals = [r.get(key) for r in rs]
    if len({fmt(v, spec) for v in vals}) == 1:
        return fmt(vals[0], spec)
    return "/".join(fmt(v, spec) for v in vals)


def ms_per_step(r):
    return 1000.0 * r["epoch_time_s"] / max(r["steps"], 1)


STEP_FLOPS_FACTOR = 3  # a training step: the forward pass and the backward pass's two products
GFLOPS_TARGET = 0.50   # the CNN step's GFLOP/s against the one-core sgemm rate


def gflops(r):
    """The GFLOP/s of a DeepEx run: 3 x forward FLOPs per sample x samples trained / time, that is
    3 x flops_per_sample x batch / (ms/step) when every step has a full batch."""
    return STEP_FLOPS_FACTOR * r["flops_per_sample"] * r["samples_per_s"] / 1e9


def sgemm_section(recs, sg, bf16_recs=()):
    """The Fashion CNN step's GFLOP/s against the one-core sgemm rate of bench/sgemm_rate.c: the fp32 runs of recs,
    and, for comparison, a line for the DeepEx bf16 cnn runs of bf16_recs."""
    d = [r for r in recs if r["model"] == "cnn" and r["impl"] == "deepex" and r.get("flops_per_sample")]
    if not d or not sg:
        return
    ref = sum(s["onednn_gflops"] for s in sg) / len(sg)
    ob = sum(s["openblas_gflops"] for s in sg) / len(sg)
    f, batch = d[0]["flops_per_sample"], d[0].get("batch") or BATCH
    step = STEP_FLOPS_FACTOR * f * batch
    print("## Fashion CNN step against the one-core sgemm rate\n")
    print(f"A training step counts as {STEP_FLOPS_FACTOR} x forward FLOPs x batch (the forward pass, and the backward "
          f"pass's two products: the gradients of the activations and of the weights) = {STEP_FLOPS_FACTOR} x "
          f"{f:,.0f} x {batch} = {step / 1e9:.3f} GFLOP; GFLOP/s = that / DeepEx's time per step (gather, forward, "
          f"backward, update: everything the ms/step above counts, with the first steps' one-off costs, which weigh more "
          f"in a short --steps N). The reference is the mean oneDNN rate of "
          f"bench/sgemm_rate.c's {len(sg)} run{'s' if len(sg) != 1 else ''}: dnnl_sgemm (libdxrt's products) of "
          f"{sg[0]['n']}x{sg[0]['n']}x{sg[0]['n']} on one thread, best of {sg[0]['reps']}; OpenBLAS's cblas_sgemm "
          f"(kernel {sg[0].get('openblas_core', '?')}) alongside.\n")
    print("| sgemm run | oneDNN GFLOP/s | OpenBLAS GFLOP/s | load |")
    print("|---|---|---|---|")
    for s in sg:
        print(f"| {s['label']} | {s['onednn_gflops']:.1f} | {s['openblas_gflops']:.1f} | {fmt(s.get('load1'), '.2f')} |")
    print()
    print("| DeepEx cnn run | steps | ms/step | GFLOP/s | of sgemm |")
    print("|---|---|---|---|---|")
    for r in d:
        print(f"| {r['run']} | {r['steps']} | {ms_per_step(r):.2f} | {gflops(r):.2f} | {100 * gflops(r) / ref:.1f}% |")
    print()
    best = max(gflops(r) for r in d)
    med = f" (median of {len(d)} runs: {median([gflops(r) for r in d]):.2f} GFLOP/s)" if len(d) > 1 else ""
    print(f"Fashion CNN step: {best:.2f} GFLOP/s = {100 * best / ref:.1f}% of the one-core sgemm rate "
          f"({ref:.1f} GFLOP/s, oneDNN; OpenBLAS {ob:.1f} GFLOP/s){med}; the target is >= "
          f"{100 * GFLOPS_TARGET:.0f}%{' (met)' if best >= GFLOPS_TARGET * ref else ' (not met)'}.")
    d16 = [r for r in bf16_recs if r["model"] == "cnn" and r["impl"] == "deepex" and r.get("flops_per_sample")]
    if d16:
        best16 = max(gflops(r) for r in d16)
        print(f"\nThe bf16 Fashion CNN step, the same count: {best16:.2f} GFLOP/s (best of {len(d16)}) = "
              f"{100 * best16 / ref:.1f}% of the fp32 sgemm rate above (no bf16 GEMM rate is measured).")


def precision_of(r):
    return r.get("precision") or "fp32"


def impl_label(r):
    """The impl column of the runs table: 'deepex', 'pytorch', or with ' bf16' after it."""
    return r["impl"] if precision_of(r) == "fp32" else f"{r['impl']} {precision_of(r)}"


def compare_section(recs, precision, runs):
    """DeepEx against PyTorch in one precision: the table, the loss check and the models above the target."""
    if precision == "fp32":
        print(f"## DeepEx vs PyTorch, {runs} run{'s' if runs != 1 else ''} each "
              "(ms per step: best and median; ratio = DeepEx / PyTorch, target <= 0.5)\n")
    else:
        print(f"## DeepEx vs PyTorch in {precision}, {runs} run{'s' if runs != 1 else ''} each (DeepEx: dxc compile "
              f"--precision {precision}; PyTorch: torch.autocast(\"cpu\", dtype=torch.bfloat16); ms per step: best and "
              f"median; ratio = DeepEx / PyTorch, target <= {RATIO_TARGET})\n")
    models = list(dict.fromkeys(r["model"] for r in recs))
    print("| model | steps | DeepEx ms/step | PyTorch ms/step | ratio | DeepEx median | PyTorch median "
          "| ratio median | DeepEx train loss | PyTorch train loss | loss diff | DeepEx test acc | PyTorch test acc |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    checks, slow = [], []
    for m in models:
        d = [r for r in recs if r["model"] == m and r["impl"] == "deepex"]
        p = [r for r in recs if r["model"] == m and r["impl"] == "pytorch"]
        if not d or not p:
            continue
        steps = {r["steps"] for r in d + p}
        if len(steps) != 1:
            print(f"warning: {m}: the runs differ in step count {sorted(steps)}", file=sys.stderr)
        dt, pt = [ms_per_step(r) for r in d], [ms_per_step(r) for r in p]
        ratio = min(dt) / min(pt)
        if ratio > RATIO_TARGET:
            slow.append(f"{m} {ratio:.2f}")
        dl = [r["train_loss"] for r in d if r["train_loss"] is not None]
        pl = [r["train_loss"] for r in p if r["train_loss"] is not None]
        if dl and pl and median(pl) != 0:
            rel = (median(dl) - median(pl)) / abs(median(pl))
            ok = abs(rel) <= LOSS_TOLERANCE
            diff = f"{100 * rel:+.1f}%{'' if ok else ' (!)'}"
            checks.append((m, rel, ok))
        else:
            diff = "-"
            checks.append((m, None, False))
        print(f"| {m} | {'/'.join(map(str, sorted(steps)))} | {min(dt):.2f} | {min(pt):.2f} | {ratio:.2f} | "
              f"{median(dt):.2f} | {median(pt):.2f} | {median(dt) / median(pt):.2f} | "
              f"{joined(d, 'train_loss', '.4f')} | {joined(p, 'train_loss', '.4f')} | {diff} | "
              f"{joined(d, 'val_accuracy', '.4f')} | {joined(p, 'val_accuracy', '.4f')} |")
    print()
    # The loss check: after the same steps both sides should have trained the same network about
    # equally far (different random streams: initial weights, data order, dropout and VAE noise).
    tag = "" if precision == "fp32" else f" ({precision})"
    bad = [m for m, _, ok in checks if not ok]
    summary = ", ".join(f"{m} {'-' if rel is None else format(100 * rel, '+.1f') + '%'}" for m, rel, _ in checks)
    if not bad:
        print(f"Loss check{tag}: the mean train losses of the two sides agree within "
              f"{100 * LOSS_TOLERANCE:.0f}% for every model ({summary}).")
    else:
        print(f"Loss check{tag}: the mean train losses differ by more than {100 * LOSS_TOLERANCE:.0f}% for "
              f"{', '.join(bad)} ({summary}); different random streams can do this after few steps, a large "
              "gap after many steps means the two sides do not train the same network.")
    if slow:
        where = "" if precision == "fp32" else f" in {precision}"
        print(f"\nAbove the target ratio of {RATIO_TARGET}{where} (best times): {', '.join(slow)}.")


def bf16_section(recs, runs):
    """Issue 15: DeepEx bf16 against DeepEx fp32 (speed-up, losses, accuracies) and against PyTorch bf16."""
    def pick(m, impl, precision):
        return [r for r in recs if r["model"] == m and r["impl"] == impl and precision_of(r) == precision]

    print(f"## bf16 against fp32, {runs} run{'s' if runs != 1 else ''} each (speed-up = DeepEx fp32 / DeepEx bf16 "
          f"ms per step, target >= {SPEEDUP_TARGET} on {' and '.join(SPEEDUP_MODELS)}; bf16 ratio = DeepEx bf16 / "
          f"PyTorch bf16, target <= {RATIO_TARGET}; best times, and medians)\n")
    print("| model | steps | DeepEx fp32 ms/step | DeepEx bf16 ms/step | speed-up | speed-up median "
          "| PyTorch bf16 ms/step | bf16 ratio | bf16 ratio median | PyTorch speed-up "
          "| DeepEx fp32 train loss | DeepEx bf16 train loss | loss diff | DeepEx fp32 test acc | DeepEx bf16 test acc "
          "| acc diff (points) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    speedups, ratios, far = [], [], []
    for m in dict.fromkeys(r["model"] for r in recs):
        d32, d16 = pick(m, "deepex", "fp32"), pick(m, "deepex", "bf16")
        p32, p16 = pick(m, "pytorch", "fp32"), pick(m, "pytorch", "bf16")
        if not d32 or not d16:
            continue
        steps = {r["steps"] for r in d32 + d16 + p32 + p16}
        t32, t16 = [ms_per_step(r) for r in d32], [ms_per_step(r) for r in d16]
        up = min(t32) / min(t16)
        speedups.append((m, up))
        if p16:
            tp = [ms_per_step(r) for r in p16]
            ratio = min(t16) / min(tp)
            ratios.append((m, ratio))
            pcols = f"{min(tp):.2f} | {ratio:.2f} | {median(t16) / median(tp):.2f}"
        else:
            pcols = "- | - | -"
        pup = "-"
        if p32 and p16:
            pup = f"{min(ms_per_step(r) for r in p32) / min(ms_per_step(r) for r in p16):.2f}"
        l32 = [r["train_loss"] for r in d32 if r["train_loss"] is not None]
        l16 = [r["train_loss"] for r in d16 if r["train_loss"] is not None]
        ldiff = "-"
        if l32 and l16 and median(l32) != 0:
            rel = (median(l16) - median(l32)) / abs(median(l32))
            ldiff = f"{100 * rel:+.1f}%{'' if abs(rel) <= LOSS_TOLERANCE else ' (!)'}"
            if abs(rel) > LOSS_TOLERANCE:
                far.append(m)
        a32 = [r["val_accuracy"] for r in d32 if r.get("val_accuracy") is not None]
        a16 = [r["val_accuracy"] for r in d16 if r.get("val_accuracy") is not None]
        adiff = f"{100 * (median(a16) - median(a32)):+.2f}" if a32 and a16 else "-"
        print(f"| {m} | {'/'.join(map(str, sorted(steps)))} | {min(t32):.2f} | {min(t16):.2f} | {up:.2f} | "
              f"{median(t32) / median(t16):.2f} | {pcols} | {pup} | "
              f"{joined(d32, 'train_loss', '.4f')} | {joined(d16, 'train_loss', '.4f')} | {ldiff} | "
              f"{joined(d32, 'val_accuracy', '.4f')} | {joined(d16, 'val_accuracy', '.4f')} | {adiff} |")
    print()
    # DeepEx's two executables draw the same initial weights, data order, dropout masks and noise (the same seed):
    # their losses differ only by the rounding, so a large gap is a bf16 bug, not chance.
    print(f"DeepEx bf16 and fp32 run the same seed (the same initial weights, data order, dropout masks and VAE noise): "
          f"loss diff = (bf16 - fp32) / fp32 of the median mean train losses, "
          + (f"within {100 * LOSS_TOLERANCE:.0f}% for every model." if not far else
             f"more than {100 * LOSS_TOLERANCE:.0f}% (!) for {', '.join(far)}: from the same seed, a gap this large "
             "points at a bf16 bug rather than rounding.")
          + " acc diff = bf16 - fp32 test accuracy in points (medians).\n")

    def verdict(pairs, ok):
        return ", ".join(f"{m} {v:.2f} ({'met' if ok(v) else 'not met'})" for m, v in pairs)
    targeted = [(m, v) for m, v in speedups if m in SPEEDUP_MODELS]
    others = [(m, v) for m, v in speedups if m not in SPEEDUP_MODELS]
    if targeted:
        print(f"Speed-up of DeepEx bf16 over DeepEx fp32, target >= {SPEEDUP_TARGET} (best times): "
              f"{verdict(targeted, lambda v: v >= SPEEDUP_TARGET)}"
              f"{'; no target: ' + ', '.join(f'{m} {v:.2f}' for m, v in others) if others else ''}.")
    elif others:
        print(f"Speed-up of DeepEx bf16 over DeepEx fp32 (no target for these models; best times): "
              f"{', '.join(f'{m} {v:.2f}' for m, v in others)}.")
    if ratios:
        print(f"\nDeepEx bf16 / PyTorch bf16, target <= {RATIO_TARGET} (best times): "
              f"{verdict(ratios, lambda v: v <= RATIO_TARGET)}.")


def cmd_table(a):
    recs = [json.loads(l) for l in open(a.file) if l.strip()]
    sg = [r for r in recs if r.get("kind") == "sgemm"]  # bench/sgemm_rate.c --json
    recs = [r for r in recs if r.get("kind") != "sgemm"]
    runs = max((r["run"] for r in recs), default=0)
    print("## Runs, in the order they ran\n")
    print("| run | model | impl | steps | time (s) | ms/step | samples/s | train loss | test loss | test acc "
          "| final lr | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in recs:
        print(f"| {r['run']} | {r['model']} | {impl_label(r)} | {r['steps']} | {r['epoch_time_s']:.3f} | "
              f"{ms_per_step(r):.2f} | {r['samples_per_s']:,.0f} | {fmt(r['train_loss'], '.4f')} | "
              f"{fmt(r.get('val_loss'), '.4f')} | {fmt(r.get('val_accuracy'), '.4f')} | {r['lr']:.6g} | "
              f"{fmt(r.get('load1'), '.2f')} |")
    print()
    loads = [r["load1"] for r in recs if r.get("load1") is not None]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if loads and max(loads) > cpus:
        print(f"Note: the load average reached {max(loads):.2f} on {cpus} CPUs: other work shared the cores, and the "
              "times are inflated, PyTorch's and DeepEx's not necessarily alike. Prefer the ratios of runs with a low "
              "load, or rerun with --repeat.\n")
    by_precision = {p: [r for r in recs if precision_of(r) == p] for p in PRECISIONS}
    first = True
    for p in PRECISIONS:
        if by_precision[p]:
            if not first:
                print()
            compare_section(by_precision[p], p, runs)
            first = False
    if by_precision["fp32"] and by_precision["bf16"]:
        print()
        bf16_section(recs, runs)
    if sg:
        print()
        sgemm_section(by_precision["fp32"], sg, by_precision["bf16"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="train the PyTorch twin of an example")
    t.add_argument("--model", required=True, choices=MODELS)
    t.add_argument("--data", default="data", help="directory with peptide/ and stem/ from dx-datagen (default data)")
    t.add_argument("--steps", type=int, default=0, help="stop after N steps in all (0: whole epochs)")
    t.add_argument("--epochs", type=int, default=1)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--run", type=int, default=1, help="run number to record")
    t.add_argument("--precision", choices=PRECISIONS, default="fp32",
                   help='bf16: forward and loss under torch.autocast("cpu", dtype=torch.bfloat16) (default fp32)')
    t.add_argument("--out", help="append the JSON line to this file (default: stdout)")
    d = sub.add_parser("deepex", help="one JSON line from a DeepEx metrics log")
    d.add_argument("log")
    d.add_argument("--model", required=True)
    d.add_argument("--precision", choices=PRECISIONS, help="the precision the executable was compiled with: "
                   "exit 1 when the log's start event says another")
    d.add_argument("--run", type=int, default=1)
    d.add_argument("--out")
    tb = sub.add_parser("table", help="print the tables of a results file")
    tb.add_argument("file")
    a = ap.parse_args()
    {"train": cmd_train, "deepex": cmd_deepex, "table": cmd_table}[a.cmd](a)


if __name__ == "__main__":
    main()
