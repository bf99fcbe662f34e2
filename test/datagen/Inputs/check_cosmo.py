"""Checks a dx-datagen cosmo output directory: shapes, dtypes, the targets'
range and mapping to the parameters, the mean count per channel and the
sidecar (used by test/datagen/cosmo-*.test)."""
import argparse
import json
import os
import sys

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--train", type=int, required=True)
p.add_argument("--test", type=int, required=True)
p.add_argument("--size", type=int, required=True)
p.add_argument("--channels", type=int, required=True)
p.add_argument("--mean-count", type=float, required=True)
a = p.parse_args()


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


fiducial = np.array([0.3, 0.8, 0.96, 0.7])
for split, n in (("train", a.train), ("test", a.test)):
    x = np.load(os.path.join(a.dir, split + "_volumes.npy"))
    t = np.load(os.path.join(a.dir, split + "_targets.npy"))
    q = np.load(os.path.join(a.dir, split + "_params.npy"))
    if x.dtype != np.int16 or x.shape != (n, a.channels, a.size, a.size, a.size):
        fail(f"{split}_volumes: {x.dtype} {x.shape}")
    if t.dtype != np.float32 or t.shape != (n, 4) or q.dtype != np.float32 or q.shape != (n, 4):
        fail(f"{split}_targets/params: {t.dtype} {t.shape} {q.dtype} {q.shape}")
    if x.min() < 0:
        fail(f"{split}_volumes has negative counts")
    if np.abs(t).max() > 1:
        fail(f"{split}_targets outside [-1, 1]")
    if np.abs(fiducial * (1 + 0.1 * t) - q).max() > 1e-5:
        fail(f"{split}_targets do not map to {split}_params")
    means = x.reshape(n, a.channels, -1).mean(axis=(0, 2)) / a.mean_count
    if np.abs(means - 1).max() > 0.02:
        fail(f"{split} mean counts / mean-count: {means}")
    stds = x.reshape(n, a.channels, -1).std(axis=2).mean(axis=0)
    order = "falling" if np.all(np.diff(stds) < 0) else "not falling"
    print(f"{split}: {n} volumes {a.channels}x{a.size}^3 int16, targets [{n}, 4] float32 in [-1, 1], "
          f"mean count ok, spread {order} with z")

doc = json.load(open(os.path.join(a.dir, "cosmo.json")))
if doc["version"] != "dx-datagen 0.1" or doc["generator"] != "dx-datagen cosmo":
    fail("generator/version")
for key in ("grid_cells_per_side", "box_Mpc_h", "redshifts", "growth_factor_at_fiducial_Omega_m",
            "mean_count_per_cell", "transfer_function", "fiducial", "ranges", "clipped_cells"):
    if key not in doc["parameters"]:
        fail("sidecar lacks parameters." + key)
if doc["files"]["train_volumes"]["shape"] != [a.train, a.channels, a.size, a.size, a.size]:
    fail("sidecar shape")
print("sidecar: " + " ".join(doc["target_names"]) + " seed " + str(doc["seed"]) + " z " +
      ",".join(str(z) for z in doc["parameters"]["redshifts"]))
