#!/usr/bin/python3
"""Writes a small regression dataset and a small segmentation dataset as NPY
files into DIR, deterministically, for regression.test and segmentation.test.

  make_targets_data.py regression DIR   x_{train,test}.npy [N, 8] float32,
        y_train.npy [N, 2] float32, y_test.npy [N, 2] float64 (converted by the
        loader), plus y_bad.npy [N, 3] (the wrong per-sample shape) and
        y_nan.npy (a NaN target).
  make_targets_data.py hdf5 DIR  the regression set again as HDF5: the train
        split in two files train_0.h5 and train_1.h5 (/inputs chunked and
        gzip-compressed, /targets float64), test.h5 (/inputs float64 with the
        shuffle filter and gzip, /targets); and bad files: strings.h5
        (/inputs of strings), wide.h5 (/inputs of 9 features), notes.txt
        renamed truncated.h5 (not HDF5) and cut.h5 (test.h5 cut short).
  make_targets_data.py segmentation DIR  img_{train,test}.npy [N, 1, 8, 8]
        float32 and mask_{train,test}.npy [N, 8, 8] uint8: a bright square
        (class 1) and a dark ring around it (class 2) on noise (class 0).
"""
import os
import sys

import numpy as np


def regression(d):
    rng = np.random.default_rng(7)

    def make(n):
        x = rng.standard_normal((n, 8)).astype(np.float32)
        y = np.stack([np.sin(x[:, 0]) + 0.5 * x[:, 1] * x[:, 2], np.tanh(x[:, 3] - x[:, 4]) + 0.1 * x[:, 5]], 1)
        return x, y

    x, y = make(4096)
    np.save(os.path.join(d, "x_train.npy"), x)
    np.save(os.path.join(d, "y_train.npy"), y.astype(np.float32))
    x, y = make(1000)
    np.save(os.path.join(d, "x_test.npy"), x)
    np.save(os.path.join(d, "y_test.npy"), y.astype(np.float64))
    np.save(os.path.join(d, "y_bad.npy"), np.zeros((4096, 3), np.float32))
    bad = make(4096)[1].astype(np.float32)
    bad[17, 1] = np.nan
    np.save(os.path.join(d, "y_nan.npy"), bad)


def hdf5(d):
    import h5py

    regression(d)
    x, y = np.load(os.path.join(d, "x_train.npy")), np.load(os.path.join(d, "y_train.npy"))
    for i in range(2):
        with h5py.File(os.path.join(d, f"train_{i}.h5"), "w") as f:
            f.create_dataset("/inputs", data=x[2048 * i:2048 * (i + 1)], chunks=(64, 8), compression="gzip")
            f.create_dataset("/targets", data=y[2048 * i:2048 * (i + 1)].astype(np.float64))
    with h5py.File(os.path.join(d, "test.h5"), "w") as f:
        f.create_dataset("/inputs", data=np.load(os.path.join(d, "x_test.npy")).astype(np.float64), chunks=(100, 8),
                         compression="gzip", shuffle=True)
        f.create_dataset("/targets", data=np.load(os.path.join(d, "y_test.npy")))
    with h5py.File(os.path.join(d, "strings.h5"), "w") as f:
        f.create_dataset("/inputs", data=np.array([b"a", b"b"] * 2048))
        f.create_dataset("/targets", data=y)
    with h5py.File(os.path.join(d, "wide.h5"), "w") as f:
        f.create_dataset("/inputs", data=np.zeros((16, 9), np.float32))
        f.create_dataset("/targets", data=np.zeros((16, 2), np.float32))
    with open(os.path.join(d, "truncated.h5"), "w") as f:
        f.write("not an HDF5 file\n")
    with open(os.path.join(d, "test.h5"), "rb") as f:
        whole = f.read()
    with open(os.path.join(d, "cut.h5"), "wb") as f:
        f.write(whole[:len(whole) // 2])


def segmentation(d):
    rng = np.random.default_rng(11)

    def make(n):
        img = 1.2 * rng.standard_normal((n, 1, 8, 8)).astype(np.float32)
        mask = np.zeros((n, 8, 8), np.uint8)
        for i in range(n):
            r, c, s = rng.integers(1, 4), rng.integers(1, 4), rng.integers(2, 4)
            mask[i, r - 1:r + s + 1, c - 1:c + s + 1] = 2
            mask[i, r:r + s, c:c + s] = 1
        img[:, 0] += np.where(mask == 1, 1.0, np.where(mask == 2, -1.0, 0.0)).astype(np.float32)
        return img, mask

    for split, n in (("train", 2048), ("test", 512)):
        img, mask = make(n)
        np.save(os.path.join(d, f"img_{split}.npy"), img)
        np.save(os.path.join(d, f"mask_{split}.npy"), mask)


if __name__ == "__main__":
    {"regression": regression, "hdf5": hdf5, "segmentation": segmentation}[sys.argv[1]](sys.argv[2])
