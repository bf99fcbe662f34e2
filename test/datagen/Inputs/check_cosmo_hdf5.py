"""check_cosmo_hdf5.py DIR: compares DIR/cosmo.h5 of dx-datagen cosmo --hdf5
with the NPY arrays beside it: per split, /volumes, /targets and /params
equal the NPY files element for element, with their dtypes and shapes; the
volumes are chunked one volume per chunk, the targets and params by up to
64 samples, all gzip-compressed (used by test/datagen/cosmo-hdf5.test)."""
import os
import sys

import h5py
import numpy as np

d = sys.argv[1]
with h5py.File(os.path.join(d, "cosmo.h5"), "r") as f:
    print("groups", " ".join(sorted(f.keys())))
    for split in ("train", "test"):
        print(split, " ".join(sorted(f[split].keys())))
        for what in ("volumes", "targets", "params"):
            h = f[f"/{split}/{what}"]
            a = np.load(os.path.join(d, f"{split}_{what}.npy"))
            n = a.shape[0]
            # Chunks: a volume each; up to 64 samples of targets and params.
            want = (1,) + a.shape[1:] if what == "volumes" else (min(n, 64),) + a.shape[1:]
            if n == 0:
                want = None  # an empty split is stored contiguous
            same = h.dtype == a.dtype and h.shape == a.shape and np.array_equal(h[...], a)
            gzip = h.compression == "gzip" if n else h.compression is None
            print(f"  /{split}/{what} {h.dtype} {list(h.shape)} chunks {list(h.chunks) if h.chunks else None} "
                  f"{h.compression} equal {same} chunks-ok {h.chunks == want} gzip-ok {gzip}")
