#!/usr/bin/python3
"""DeepEx against PyTorch from the same start (torch-parity.test).

  torch_parity.py mlp|cnn|cnn3d EXE DIR
  torch_parity.py bnstats EXE DIR

bnstats: the CNN with its convolution's bias set to 1000, one training step
on both sides: the batch norm's running mean and variance after it (0.9 of
the initial ones plus 0.1 of the batch's) agree within 1e-5 relative. The
conv output then sits near 1000 per channel with a spread of about 1, where
E[x^2] - E[x]^2 in float32 without a shift would lose the variance (about
1e6 * 6e-8, several percent of it).

1. Writes a dataset (3200 training samples, 4 classes; 256 test samples) to
   DIR and builds the PyTorch twin of Inputs/parity-{mlp,cnn}.dx with
   torch's own initialisation (seed 0); saves its state_dict and converts it
   with tools/weights/dx_weights.py from-torch.
2. Trains both for 100 steps of 32 samples in file order (DeepEx:
   --init-from, --no-shuffle, --log-steps; PyTorch: SGD momentum 0.9,
   lr 0.05), and compares every step's loss (relative 1e-4) and the final
   weights (max |a - b| / max |b| per tensor, 1e-3), read back from
   DeepEx's --save-weights.
3. The other direction: DeepEx's trained weights, converted with
   dx_weights.py to-torch --like, loaded into the PyTorch module in eval
   mode, give the test logits DeepEx's --export wrote (1e-5).
Prints one line per check; exits 1 if any fails.
"""
import json
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
CONVERT = os.path.join(HERE, "..", "..", "tools", "weights", "dx_weights.py")
STEPS, BATCH, LR, MOMENTUM = 100, 32, 0.05, 0.9

torch.set_num_threads(1)


def twin(kind):
    torch.manual_seed(0)
    if kind == "mlp":
        return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 4))
    if kind == "cnn3d":  # Inputs/parity-cnn3d.dx: the 3-D operators on volumes
        return nn.Sequential(nn.Conv3d(2, 6, 3, padding=1), nn.BatchNorm3d(6), nn.LeakyReLU(0.3), nn.MaxPool3d(2),
                             nn.ConvTranspose3d(6, 4, 2, stride=2), nn.Tanh(), nn.AvgPool3d((1, 2, 2)),
                             nn.Conv3d(4, 4, (3, 1, 3), stride=(2, 1, 2)), nn.Flatten(), nn.Linear(4 * 2 * 4 * 1, 4))
    return nn.Sequential(nn.Conv2d(1, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(6 * 4 * 4, 4))


def data(kind, d):
    rng = np.random.default_rng(3)
    shape = {"mlp": (16,), "cnn": (1, 8, 8), "cnn3d": (2, 6, 8, 8)}[kind]
    n = STEPS * BATCH + 256
    x = rng.standard_normal((n,) + shape).astype(np.float32)
    w = rng.standard_normal((int(np.prod(shape)), 4))
    y = (x.reshape(n, -1) @ w + 0.5 * rng.standard_normal((n, 4))).argmax(1).astype(np.int64)
    prefix = "x" if kind == "mlp" else "img"
    np.save(os.path.join(d, f"{prefix}_train.npy"), x[:STEPS * BATCH])
    np.save(os.path.join(d, "y_train.npy"), y[:STEPS * BATCH])
    np.save(os.path.join(d, f"{prefix}_test.npy"), x[STEPS * BATCH:])
    np.save(os.path.join(d, "y_test.npy"), y[STEPS * BATCH:])
    return x, y


def rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-12))


def bnstats(exe, d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((BATCH + 32, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 4, BATCH + 32).astype(np.int64)
    np.save(os.path.join(d, "img_train.npy"), x[:BATCH])
    np.save(os.path.join(d, "y_train.npy"), y[:BATCH])
    np.save(os.path.join(d, "img_test.npy"), x[BATCH:])
    np.save(os.path.join(d, "y_test.npy"), y[BATCH:])
    model = twin("cnn")
    with torch.no_grad():
        model[0].bias.fill_(1000.0)
    torch.save(model.state_dict(), os.path.join(d, "init.pt"))
    subprocess.run([sys.executable, CONVERT, "from-torch", os.path.join(d, "init.pt"), os.path.join(d, "init"),
                    "--model", exe], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([exe, "--data-dir", d, "--init-from", os.path.join(d, "init"), "--no-shuffle", "--max-steps", "1",
                    "--save-weights", os.path.join(d, "trained"), "--checkpoint-every", "0"], check=True,
                   stdout=subprocess.DEVNULL)
    model.train()
    with torch.no_grad():
        model(torch.from_numpy(x[:BATCH]))
    back = os.path.join(d, "trained.pt")
    subprocess.run([sys.executable, CONVERT, "to-torch", os.path.join(d, "trained"), back, "--like",
                    os.path.join(d, "init.pt")], check=True, stdout=subprocess.DEVNULL)
    dx_state, ok = torch.load(back), True
    for name in ("1.running_mean", "1.running_var"):
        r = rel(dx_state[name].numpy(), model.state_dict()[name].numpy())
        print(f"bnstats: {name} after one step, conv outputs near 1000: relative difference {r:.1e} (limit 1e-5): "
              + ("ok" if r < 1e-5 else "FAIL"))
        ok &= r < 1e-5
    sys.exit(0 if ok else 1)


def main():
    kind, exe, d = sys.argv[1:4]
    if kind == "bnstats":
        return bnstats(exe, d)
    os.makedirs(d, exist_ok=True)
    x, y = data(kind, d)
    model = twin(kind)
    torch.save(model.state_dict(), os.path.join(d, "init.pt"))
    subprocess.run([sys.executable, CONVERT, "from-torch", os.path.join(d, "init.pt"), os.path.join(d, "init"),
                    "--model", exe], check=True, stdout=subprocess.DEVNULL)
    log = os.path.join(d, "log.jsonl")
    subprocess.run([exe, "--data-dir", d, "--init-from", os.path.join(d, "init"), "--no-shuffle", "--log-steps",
                    "--log", log, "--save-weights", os.path.join(d, "trained"), "--export", os.path.join(d, "out"),
                    "--checkpoint-every", "0"], check=True, stdout=subprocess.DEVNULL)
    dx_losses = [e["loss"] for e in map(json.loads, open(log)) if e["event"] == "step"]

    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    model.train()
    losses = []
    for s in range(STEPS):
        xb, yb = torch.from_numpy(x[s * BATCH:(s + 1) * BATCH]), torch.from_numpy(y[s * BATCH:(s + 1) * BATCH])
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    ok = True
    worst = max(abs(a - b) / abs(b) for a, b in zip(dx_losses, losses)) if len(dx_losses) == STEPS else float("inf")
    print(f"{kind}: {len(dx_losses)} DeepEx steps, {STEPS} PyTorch steps; first loss {dx_losses[0]:.6f} / {losses[0]:.6f}, "
          f"last {dx_losses[-1]:.6f} / {losses[-1]:.6f}; largest relative difference {worst:.1e} (limit 1e-4): "
          + ("ok" if worst < 1e-4 else "FAIL"))
    ok &= worst < 1e-4

    back = os.path.join(d, "trained.pt")
    subprocess.run([sys.executable, CONVERT, "to-torch", os.path.join(d, "trained"), back, "--like",
                    os.path.join(d, "init.pt")], check=True, stdout=subprocess.DEVNULL)
    dx_state = torch.load(back)
    worst_w, worst_name = 0.0, ""
    for name, t in model.state_dict().items():
        if name.endswith("num_batches_tracked"):
            continue
        r = rel(dx_state[name].numpy(), t.numpy())
        if r > worst_w:
            worst_w, worst_name = r, name
    print(f"{kind}: final weights, largest relative difference {worst_w:.1e} ({worst_name}) (limit 1e-3): "
          + ("ok" if worst_w < 1e-3 else "FAIL"))
    ok &= worst_w < 1e-3

    model.load_state_dict(dx_state)
    model.eval()
    with torch.no_grad():
        logits = model(torch.from_numpy(x[STEPS * BATCH:])).numpy()
    exported = np.load(os.path.join(d, "out", "test_logits.npy"))
    r = rel(exported, logits)
    print(f"{kind}: DeepEx's weights in PyTorch give its exported test logits: relative difference {r:.1e} "
          "(limit 1e-5): " + ("ok" if r < 1e-5 else "FAIL"))
    ok &= r < 1e-5
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
