#!/usr/bin/python3
"""The PyTorch side of bench/infer_vs_pytorch.sh.

  infer_torch.py init MODEL STATE.pt           the twin's state_dict (seed 1, eval mode)
  infer_torch.py time MODEL STATE.pt X.f32 N OUT.f32 SCALE MEAN STD

time: one thread, torch.inference_mode(), the twin in eval mode on the samples
normalised as the dataset block says ((x * scale - mean) / std, outside the
timing). Prints one JSON line like infer_timer.c's (median one-sample latency
over 500 calls after 50 warm-up calls; best of 5 rounds of 8 calls of 256
samples) and writes the first 256 samples' first output to OUT.f32.
"""
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_fashion  # noqa: E402

torch.set_num_threads(1)


def main():
    cmd, model, state = sys.argv[1:4]
    net = torch_fashion.build(torch, model)
    if cmd == "init":
        torch.manual_seed(1)
        net = torch_fashion.build(torch, model)
        torch.save(net.state_dict(), state)
        return
    net.load_state_dict(torch.load(state))
    net.eval()
    xf, n, out = sys.argv[4], int(sys.argv[5]), sys.argv[6]
    scale, mean, std = map(float, sys.argv[7:10])
    x = torch.from_numpy(np.fromfile(xf, dtype=np.float32).reshape(n, 1, 28, 28))
    x = ((x * scale - mean) * (1.0 / std)).contiguous()
    lat = []
    with torch.inference_mode():
        for i in range(550):
            t0 = time.perf_counter()
            net(x[i % n:i % n + 1])
            if i >= 50:
                lat.append(time.perf_counter() - t0)
        best = 1e30
        for r in range(6):
            t0 = time.perf_counter()
            for _ in range(8):
                y = net(x[:256])
            t = (time.perf_counter() - t0) / 8
            if r > 0:
                best = min(best, t)
    y.numpy().astype(np.float32).tofile(out)
    lat.sort()
    print(json.dumps({"side": "pytorch", "latency_us": round(lat[250] * 1e6, 2), "throughput": round(256 / best, 1)}))


if __name__ == "__main__":
    main()
