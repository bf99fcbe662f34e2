#!/usr/bin/python3
"""make_inputs.py KIND N DIR: N random samples for examples-lib.test, as the
executable's --predict reads them (DIR/x.npy) and as the library takes them
(DIR/x.f32: the same raw float32 values; both apply the dataset block's
normalisation themselves).
  fashion: [N, 1, 28, 28] grey levels 0-255 (std.data's fashion_mnist scales
           by 1/255 and standardises)
  peptide: [N, 1, 22, 22] contact maps of 0 and 1 (cvae.dx: no normalisation)"""
import sys

import numpy as np

kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(5)
if kind == "fashion":
    x = rng.integers(0, 256, size=(n, 1, 28, 28)).astype(np.float32)
elif kind == "peptide":
    x = (rng.random(size=(n, 1, 22, 22)) < 0.3).astype(np.float32)
else:
    sys.exit(f"make_inputs.py: unknown kind {kind}")
np.save(f"{out}/x.npy", x)
x.tofile(f"{out}/x.f32")
