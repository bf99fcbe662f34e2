#!/usr/bin/env python3
"""PyTorch eager on the GPU, the twin of a DeepEx --target=cuda throughput run
(test/gpu/run.sh, steps 4 and 7).

  torch_throughput.py --model mlp|cnn --batch B --steps N [--seed S] [--precision fp32|bf16]

The network, initialisation, optimizer (SGD, Nesterov momentum 0.9, weight
decay 5e-4) and schedule are bench/torch_fashion.py's, which mirrors
examples/fashion-mnist/{mlp,cnn}.dx. The data is what DeepEx's --synthetic
makes: N * B random samples in host memory (we time steps, not learning).
A step does what a DeepEx step does: copy the batch from host memory to the
GPU, forward, backward, the learning rate, the update, and the loss back to
the host (DeepEx reads it every step). fp32 without TF32 on both sides
(DeepEx: DXRT_CUDA_TF32 unset); cudnn.benchmark picks each convolution's
algorithm once, as DeepEx's plan cache does.

--precision bf16 is the twin of a `dxc compile --precision bf16` build: the
forward and the loss run under torch.autocast("cuda", dtype=torch.bfloat16)
(matrix products and convolutions on bf16 inputs, fp32 accumulation; the
loss in fp32, as autocast does for cross_entropy), the backward outside it
as PyTorch recommends; the weights, gradients and optimizer state stay fp32
(master weights). No GradScaler: bf16 has fp32's exponent range, so
gradients do not underflow as fp16's do. What autocast leaves in fp32 still
runs without TF32, as DeepEx's fp32 parts do.

One epoch of N steps is run twice; the second is timed (the first pays for
cuDNN's algorithm search, the caching allocator's growth and lazy module
loading, as DeepEx's first epoch pays for its own). Prints one JSON line:
{"model", "batch", "steps", "precision", "samples_per_s", "step_ms",
"final_loss", "torch", "gpu"}.
"""
import argparse
import contextlib
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from torch_fashion import BASE_LR, MOMENTUM, WEIGHT_DECAY, build, learning_rate  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True, choices=["mlp", "cnn"])
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                   help="bf16: forward and loss under torch.autocast('cuda', dtype=torch.bfloat16)")
    a = p.parse_args()
    import torch
    if not torch.cuda.is_available():
        sys.exit("torch_throughput.py: PyTorch sees no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(a.seed)
    dev = torch.device("cuda")
    net = build(torch, a.model).to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=BASE_LR, momentum=MOMENTUM, nesterov=True, weight_decay=WEIGHT_DECAY)
    F = torch.nn.functional

    def autocast():
        if a.precision == "bf16":
            return torch.autocast("cuda", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    n = a.steps * a.batch
    x = torch.randn(n, 1, 28, 28)
    y = torch.randint(0, 10, (n,))
    epochs = 2
    loss_value = float("nan")
    timed = 0.0
    for epoch in range(1, epochs + 1):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for k in range(a.steps):
            lo = k * a.batch
            xb = x[lo:lo + a.batch].to(dev)
            yb = y[lo:lo + a.batch].to(dev)
            lr = learning_rate((epoch - 1) * a.steps + k + 1, a.steps, epochs)
            for g in opt.param_groups:
                g["lr"] = lr
            with autocast():
                out = net(xb)
                loss = F.cross_entropy(out, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss_value = loss.item()
        torch.cuda.synchronize()
        timed = time.perf_counter() - t0
    print(json.dumps({"model": a.model, "batch": a.batch, "steps": a.steps, "precision": a.precision,
                      "samples_per_s": n / timed,
                      "step_ms": 1e3 * timed / a.steps, "final_loss": loss_value, "torch": torch.__version__,
                      "gpu": torch.cuda.get_device_name(0)}))


if __name__ == "__main__":
    main()
