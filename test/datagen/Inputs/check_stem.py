"""Checks a dx-datagen stem output directory: shapes, dtypes, labels,
normalisation and the sidecar (used by test/datagen/stem-*.test)."""
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
p.add_argument("--classes", type=int, required=True)
a = p.parse_args()


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


for split, n in (("train", a.train), ("test", a.test)):
    x = np.load(os.path.join(a.dir, split + "_images.npy"))
    y = np.load(os.path.join(a.dir, split + "_labels.npy"))
    if x.dtype != np.float32 or x.shape != (n, 1, a.size, a.size):
        fail(f"{split}_images: {x.dtype} {x.shape}")
    if y.dtype != np.int64 or y.shape != (n,):
        fail(f"{split}_labels: {y.dtype} {y.shape}")
    if y.min() < 0 or y.max() >= a.classes:
        fail(f"{split}_labels out of range")
    counts = np.bincount(y, minlength=a.classes)
    if counts.max() - counts.min() > 1:
        fail(f"{split} labels not balanced: {counts}")
    if not np.all(np.isfinite(x)):
        fail(f"{split}_images has non-finite values")
    # Each image normalised to mean 0, std 1.
    m = x.reshape(n, -1).mean(axis=1)
    s = x.reshape(n, -1).std(axis=1)
    if np.abs(m).max() > 1e-4 or np.abs(s - 1).max() > 1e-3:
        fail(f"{split} images not normalised")
    print(f"{split}: {n} images {a.size}x{a.size} float32, labels int64, per class {counts.min()}..{counts.max()}")

doc = json.load(open(os.path.join(a.dir, "stem.json")))
if doc["version"] != "dx-datagen 0.1":
    fail("version " + doc["version"])
if len(doc["class_names"]) != a.classes or doc["num_classes"] != a.classes:
    fail("class names")
for key in ("size_px", "pixel_size_A", "probe_fwhm_A", "dose_electrons_per_pixel", "read_noise_electrons",
            "vacancy_rate", "distortion_A", "elements", "lattice_margins"):
    if key not in doc["parameters"]:
        fail("sidecar lacks parameters." + key)
if doc["files"]["train_images"]["shape"] != [a.train, 1, a.size, a.size]:
    fail("sidecar shape")
print("sidecar: " + doc["task"] + " " + " ".join(doc["class_names"]) + " seed " + str(doc["seed"]))
