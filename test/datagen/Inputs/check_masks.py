"""Checks the class masks and true columns of dx-datagen stem --masks
(used by test/datagen/stem-masks.test): shapes and dtypes, the CSV, and
with --exact (no scan distortion) that a pixel is labelled exactly when a
column lies within the radius of its centre, with that column's species."""
import argparse
import csv
import json
import os
import sys

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--exact", action="store_true")
a = p.parse_args()
meta = json.load(open(os.path.join(a.dir, "stem.json")))
m = meta["masks"]
ps = meta["parameters"]["pixel_size_A"]
radius = m["radius_A"]
species_z = {s["label"]: s["z"] for s in m["species"]}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


for split in ("train", "test"):
    masks = np.load(os.path.join(a.dir, split + "_masks.npy"))
    images = np.load(os.path.join(a.dir, split + "_images.npy"))
    n, _, h, w = images.shape
    if masks.dtype != np.int64 or masks.shape != (n, h, w):
        fail(f"{split}_masks: {masks.dtype} {masks.shape}")
    if masks.min() < 0 or masks.max() >= m["classes"]:
        fail(f"{split}_masks: labels outside 0..{m['classes'] - 1}")
    rows = list(csv.DictReader(open(os.path.join(a.dir, split + "_columns.csv"))))
    if len(rows) != meta["files"][split + "_columns"]["rows"]:
        fail(f"{split}_columns.csv: {len(rows)} rows, sidecar says otherwise")
    cols = {}
    for r in rows:
        x, y = float(r["x_px"]), float(r["y_px"])
        if abs(float(r["x_A"]) - (x + 0.5) * ps) > 1e-3 or abs(float(r["y_A"]) - (y + 0.5) * ps) > 1e-3:
            fail(f"{split}_columns.csv: pixel and Å coordinates disagree: {r}")
        if species_z[int(r["species"])] != int(r["z"]):
            fail(f"{split}_columns.csv: species {r['species']} is not Z {r['z']}")
        cols.setdefault(int(r["image"]), []).append((float(r["x_A"]), float(r["y_A"]), int(r["species"])))
    labelled = 0
    yy, xx = np.mgrid[0:h, 0:w]
    cx, cy = (xx + 0.5) * ps, (yy + 0.5) * ps
    for i in range(n):
        c = cols.get(i, [])
        best = np.full((h, w), np.inf)
        want = np.zeros((h, w), np.int64)
        for x, y, s in c:
            d = np.hypot(cx - x, cy - y)
            if a.exact and not ((d <= radius + 1e-3) & (masks[i] == s)).any():
                fail(f"{split} image {i}: column at ({x}, {y}) has no pixel of its species")
            closer = d < best
            best[closer] = d[closer]
            want[closer] = s
        want[best > radius] = 0
        if a.exact:
            sure = np.abs(best - radius) > 1e-3  # pixels not on the rim (CSV rounding)
            if (want[sure] != masks[i][sure]).any():
                q = np.argwhere((want != masks[i]) & sure)[0]
                fail(f"{split} image {i}: pixel {tuple(q)} is {masks[i][tuple(q)]}, expected {want[tuple(q)]}")
        elif (masks[i] > 0).any() and not c:
            fail(f"{split} image {i}: labelled pixels but no columns")
        labelled += int((masks[i] > 0).sum())
    frac = labelled / masks.size
    counts = np.bincount(masks.ravel(), minlength=m["classes"])
    print(f"{split}: masks {n}x{h}x{w} int64, {len(rows)} columns, labelled fraction "
          f"{'ok' if 0.04 < frac < 0.2 else 'BAD %.3f' % frac}, classes present {int((counts > 0).sum())}")
print("species:", " ".join(f"{k}={v}" for k, v in sorted(species_z.items())), "radius", radius)
