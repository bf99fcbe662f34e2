#!/usr/bin/python3
"""compare.py EXPORTED.npy PREDICTED.f32 NAME: the library's raw float32
outputs against --export's NPY of the same samples and weights. Prints
whether they are equal bit for bit, else the largest relative difference
(max |a - b| / max |b|); exit 1 beyond 1e-5."""
import sys

import numpy as np

want = np.load(sys.argv[1])
got = np.fromfile(sys.argv[2], dtype=np.float32)
name = sys.argv[3]
if got.size != want.size:
    sys.exit(f"{name}: {got.size} floats, --export has {want.size}")
got = got.reshape(want.shape)
if np.array_equal(got.view(np.uint32), want.view(np.uint32)):
    print(f"{name}: {want.shape[0]} samples equal to --export bit for bit")
    sys.exit(0)
rel = float(np.max(np.abs(got.astype(np.float64) - want)) / max(float(np.max(np.abs(want))), 1e-30))
print(f"{name}: {want.shape[0]} samples, largest relative difference to --export {rel:.1e} (limit 1e-5)")
sys.exit(0 if rel < 1e-5 else 1)
