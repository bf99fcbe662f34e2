#!/usr/bin/python3
"""PyTorch twin of examples/fashion-mnist/{mlp,cnn}.dx for bench/vs_pytorch.sh.

Three subcommands:

  torch_fashion.py train --model mlp|cnn [--steps N] [--epochs E] [--seed S] [--out FILE]
      Trains the same network as the .dx file for one epoch (or N steps of it)
      on one thread and appends one JSON line with the result to FILE (stdout
      by default).

  torch_fashion.py deepex LOG --model NAME [--out FILE]
      Turns the metrics log of a DeepEx executable into the same JSON line.

  torch_fashion.py table FILE
      Prints the side-by-side tables of a file of such lines.

Run it with Debian's /usr/bin/python3 (python3-torch). What it mirrors, and
where DeepEx defines it:

  layers     mlp: flatten, 784-256-128-10 dense with ReLU.
             cnn: conv_bn_relu(32) = conv 3x3 pad 1 no bias, BatchNorm2d, ReLU
             (stdlib/blocks.dx), maxpool 2; the same with 64; flatten,
             dense 3136-128, ReLU, dropout 0.25, dense 128-10.
  init       PyTorch's defaults: U(+-1/sqrt(fan_in)) for weights and biases,
             BN weight 1, bias 0 (runtime/model/Init.cpp does the same).
  batchnorm  momentum 0.1, eps 1e-5, unbiased running variance.
  loss       mean softmax cross-entropy.
  optimizer  SGD lr 0.05, momentum 0.9, Nesterov, weight decay 5e-4 on every
             parameter (compiler/lowering/BuildABI.cpp: PyTorch's rules).
  schedule   warmup(epochs: 1) then cosine, per step, as learning_rate() in
             runtime/train/Schedule.cpp computes it.
  data       /usr/share/datasets/fashion-mnist, x / 255, then (x - 0.2860) /
             0.3530 (stdlib/data.dx); the last batch of an epoch is the
             remainder (60000 = 937 * 64 + 32: 938 steps), not dropped.
  timing     the sum over steps of the wall time of one step (gather the
             batch, forward, backward, learning rate, update), like DeepEx's
             epoch_time_s (runtime/train/Trainer.cpp); the shuffle before the
             epoch and the evaluation after it are outside.
  evaluation the test set in file order, batches of 64, eval mode.
"""
import argparse
import gzip
import json
import math
import os
import sys
import time

DATA_DIR = "/usr/share/datasets/fashion-mnist"
SCALE, MEAN, STD = 1.0 / 255.0, 0.2860, 0.3530
BATCH = 64
BASE_LR, MOMENTUM, WEIGHT_DECAY = 0.05, 0.9, 5e-4
WARMUP_EPOCHS, MIN_LR = 1.0, 0.0


def learning_rate(step, steps_per_epoch, epochs, base=BASE_LR):
    """runtime/train/Schedule.cpp, learning_rate(), for warmup then cosine.

    step is 1-based: the k-th update of the run uses learning_rate(k)."""
    S = max(steps_per_epoch, 1)
    t = max(step, 1) - 1
    warmup = WARMUP_EPOCHS * S
    if t < warmup:
        return base * (t + 1) / warmup
    total, done = epochs * S - warmup, t - warmup
    if total <= 0:
        return base
    progress = min(done / total, 1.0)
    return MIN_LR + (base - MIN_LR) * 0.5 * (1.0 + math.cos(math.pi * progress))


def read_idx(path, torch):
    """An IDX file (gzip), as a uint8 tensor of its dimensions."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[0:4], "big")
    if magic >> 8 != 0x08:
        sys.exit(f"{path}: not an unsigned-byte IDX file (magic {magic:#x})")
    ndim = magic & 0xFF
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    body = bytearray(data[4 + 4 * ndim:])
    return torch.frombuffer(body, dtype=torch.uint8).reshape(dims)


def load_split(torch, prefix):
    x = read_idx(os.path.join(DATA_DIR, f"{prefix}-images-idx3-ubyte.gz"), torch)
    y = read_idx(os.path.join(DATA_DIR, f"{prefix}-labels-idx1-ubyte.gz"), torch)
    # (x * scale - mean) * (1 / std) in float32, as runtime/data/Load.cpp normalize() does
    x = x.to(torch.float32).mul_(SCALE).sub_(MEAN).mul_(1.0 / STD).reshape(-1, 1, 28, 28).contiguous()
    return x, y.to(torch.int64).contiguous()


def build(torch, model):
    nn = torch.nn
    if model == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                             nn.Linear(128, 10))
    if model == "cnn":
        def conv_bn_relu(cin, cout):
            return [nn.Conv2d(cin, cout, 3, stride=1, padding=1, bias=False),
                    nn.BatchNorm2d(cout, eps=1e-5, momentum=0.1), nn.ReLU()]
        return nn.Sequential(*conv_bn_relu(1, 32), nn.MaxPool2d(2), *conv_bn_relu(32, 64), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Dropout(0.25),
                             nn.Linear(128, 10))
    sys.exit(f"unknown model '{model}' (mlp or cnn)")


def evaluate(torch, net, x, y, batch):
    F = torch.nn.functional
    net.eval()
    loss_sum, correct = 0.0, 0
    with torch.no_grad():
        for lo in range(0, x.shape[0], batch):
            out = net(x[lo:lo + batch])
            yb = y[lo:lo + batch]
            loss_sum += F.cross_entropy(out, yb).item() * yb.shape[0]
            correct += int((out.argmax(dim=1) == yb).sum())
    net.train()
    return loss_sum / x.shape[0], correct / x.shape[0]


def load1():
    """The 1-minute load average (this run itself adds about 1)."""
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def emit(record, out):
    record["load1"] = load1()
    line = json.dumps(record)
    if out:
        with open(out, "a") as f:
            f.write(line + "\n")
    else:
        print(line, flush=True)


def cmd_train(a):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    F = torch.nn.functional
    t_load = time.perf_counter()
    x, y = load_split(torch, "train")
    xt, yt = load_split(torch, "t10k")
    load_s = time.perf_counter() - t_load

    torch.manual_seed(a.seed)
    net = build(torch, a.model)
    net.train()
    opt = torch.optim.SGD(net.parameters(), lr=BASE_LR, momentum=MOMENTUM, nesterov=True, weight_decay=WEIGHT_DECAY)
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
            xb, yb = x.index_select(0, idx), y.index_select(0, idx)
            step += 1
            loss = F.cross_entropy(net(xb), yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            lr = learning_rate(step, steps_per_epoch, a.epochs)
            for g in opt.param_groups:
                g["lr"] = lr
            opt.step()
            loss_sum += loss.item() * yb.shape[0]
            samples += yb.shape[0]
            epoch_time += time.perf_counter() - t0
            done += 1
        train_time += epoch_time
        val_loss, val_acc = evaluate(torch, net, xt, yt, BATCH)
        stats = dict(epoch=epoch, steps=done, epoch_time_s=epoch_time, train_time_s=train_time,
                     samples_per_s=samples / epoch_time if epoch_time > 0 else 0.0,
                     train_loss=loss_sum / max(samples, 1), val_loss=val_loss, val_accuracy=val_acc, lr=lr)
        if a.steps and step >= a.steps:
            break
    rec = dict(impl="pytorch", model=a.model, run=a.run, steps_per_epoch=steps_per_epoch, load_s=load_s,
               threads=torch.get_num_threads(), version=torch.__version__, **stats)
    emit(rec, a.out)


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
    rec = dict(impl="deepex", model=a.model, run=a.run, steps_per_epoch=start["steps_per_epoch"],
               threads=start.get("blas_threads"))
    for k in ("epoch", "steps", "epoch_time_s", "train_time_s", "samples_per_s", "train_loss", "val_loss",
              "val_accuracy", "lr"):
        rec[k] = epoch.get(k)
    emit(rec, a.out)


def median(v):
    s = sorted(v)
    m = len(s) // 2
    return s[m] if len(s) % 2 else 0.5 * (s[m - 1] + s[m])


def cmd_table(a):
    recs = [json.loads(l) for l in open(a.file) if l.strip()]
    models = list(dict.fromkeys(r["model"] for r in recs))
    runs = max((r["run"] for r in recs), default=0)
    fmt_acc = lambda v: "-" if v is None else f"{v:.4f}"
    print("## Runs, in the order they ran\n")
    print("| run | model | impl | steps | time (s) | ms/step | samples/s | train loss | test acc | final lr | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in recs:
        print(f"| {r['run']} | {r['model']} | {r['impl']} | {r['steps']} | {r['epoch_time_s']:.3f} | "
              f"{1000 * r['epoch_time_s'] / max(r['steps'], 1):.3f} | {r['samples_per_s']:,.0f} | "
              f"{r['train_loss']:.4f} | {fmt_acc(r['val_accuracy'])} | {r['lr']:.6g} | "
              f"{'-' if r.get('load1') is None else format(r['load1'], '.2f')} |")
    print()
    loads = [r["load1"] for r in recs if r.get("load1") is not None]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if loads and max(loads) > cpus:
        print(f"Note: the load average reached {max(loads):.2f} on {cpus} CPUs: other work shared the cores, and the "
              "times are inflated, PyTorch's and DeepEx's not necessarily alike. Prefer the ratios of runs with a low "
              "load, or rerun with --repeat.\n")
    print(f"## DeepEx vs PyTorch, {runs} run{'s' if runs != 1 else ''} each "
          "(time: best and median; ratio = DeepEx time / PyTorch time, target <= 1.0)\n")
    print("| model | steps | DeepEx best (s) | PyTorch best (s) | ratio best | DeepEx median (s) | PyTorch median (s) "
          "| ratio median | DeepEx test acc | PyTorch test acc |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m in models:
        d = [r for r in recs if r["model"] == m and r["impl"] == "deepex"]
        p = [r for r in recs if r["model"] == m and r["impl"] == "pytorch"]
        if not d or not p:
            continue
        steps = {r["steps"] for r in d + p}
        if len(steps) != 1:
            print(f"warning: {m}: the runs differ in step count {sorted(steps)}", file=sys.stderr)
        dt = [r["epoch_time_s"] for r in d]
        pt = [r["epoch_time_s"] for r in p]
        accs = lambda rs: "/".join(fmt_acc(r["val_accuracy"]) for r in rs) if len(
            {r["val_accuracy"] for r in rs}) > 1 else fmt_acc(rs[0]["val_accuracy"])
        print(f"| {m} | {'/'.join(map(str, sorted(steps)))} | {min(dt):.3f} | {min(pt):.3f} | "
              f"{min(dt) / min(pt):.2f} | {median(dt):.3f} | {median(pt):.3f} | {median(dt) / median(pt):.2f} | "
              f"{accs(d)} | {accs(p)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="train the PyTorch twin of a Fashion-MNIST example")
    t.add_argument("--model", required=True, choices=["mlp", "cnn"])
    t.add_argument("--steps", type=int, default=0, help="stop after N steps in all (0: whole epochs)")
    t.add_argument("--epochs", type=int, default=1)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--run", type=int, default=1, help="run number to record")
    t.add_argument("--out", help="append the JSON line to this file (default: stdout)")
    d = sub.add_parser("deepex", help="one JSON line from a DeepEx metrics log")
    d.add_argument("log")
    d.add_argument("--model", required=True)
    d.add_argument("--run", type=int, default=1)
    d.add_argument("--out")
    tb = sub.add_parser("table", help="print the tables of a results file")
    tb.add_argument("file")
    a = ap.parse_args()
    {"train": cmd_train, "deepex": cmd_deepex, "table": cmd_table}[a.cmd](a)


if __name__ == "__main__":
    main()
