"""Inputs of dx-analyze atoms' lit tests (atoms.test, atoms-errors.test):
true columns as dx-datagen stem --masks writes them and predicted maps with
known answers, 2 images of 32x32 pixels, 3 classes (0 background, species
1 and 2), 0.25 Å per pixel.

  make_atoms.py DIR
    DIR/columns.csv   image 0: (5,5) 1, (15,5) 1, (25,6) 2, (10,20) 1;
                      image 1: (8,8) 2, (20,20) 1, and (-1,12) 1 centred
                      outside the field (optional)
    DIR/exact.npy     logits [2, 3, 32, 32]: a disk of radius 2 pixels of
                      each column's class around every true column
    DIR/maps.npy      the same as int64 class maps [2, 32, 32]
    DIR/missing.npy   (10,20) left out
    DIR/shifted.npy   (15,5) drawn at (18,5) (0.75 Å off), (20,20) at (21,20) (0.25 Å)
    DIR/species.npy   (25,6) drawn as species 1
    DIR/noise.npy     exact plus a 1-pixel class-2 speck and a 2-pixel class-1 one
"""
import os
import sys

import numpy as np

PS = 0.25
COLUMNS = [(0, 5, 5, 1), (0, 15, 5, 1), (0, 25, 6, 2), (0, 10, 20, 1),
           (1, 8, 8, 2), (1, 20, 20, 1), (1, -1, 12, 1)]


def paint(cols, size=32):
    m = np.zeros((2, size, size), np.int64)
    yy, xx = np.mgrid[0:size, 0:size]
    for img, x, y, s in cols:
        m[img][(xx - x) ** 2 + (yy - y) ** 2 <= 4] = s
    return m


def logits(m):
    out = np.full((m.shape[0], 3) + m.shape[1:], -2.0, np.float32)
    for c in range(3):
        out[:, c][m == c] = 3.0
    return out


def main(d):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "columns.csv"), "w") as f:
        f.write("image,x_px,y_px,x_A,y_A,species,z\n")
        for img, x, y, s in COLUMNS:
            f.write(f"{img},{x:.4f},{y:.4f},{(x + 0.5) * PS:.4f},{(y + 0.5) * PS:.4f},{s},{6 if s == 1 else 14}\n")
    exact = paint(COLUMNS)
    np.save(os.path.join(d, "exact.npy"), logits(exact))
    np.save(os.path.join(d, "maps.npy"), exact)
    np.save(os.path.join(d, "missing.npy"), logits(paint([c for c in COLUMNS if c != (0, 10, 20, 1)])))
    moved = {(0, 15, 5, 1): (0, 18, 5, 1), (1, 20, 20, 1): (1, 21, 20, 1)}
    np.save(os.path.join(d, "shifted.npy"), logits(paint([moved.get(c, c) for c in COLUMNS])))
    np.save(os.path.join(d, "species.npy"),
            logits(paint([(0, 25, 6, 1) if c == (0, 25, 6, 2) else c for c in COLUMNS])))
    noise = exact.copy()
    noise[0, 30, 30] = 2
    noise[1, 0, 30:32] = 1
    np.save(os.path.join(d, "noise.npy"), logits(noise))


if __name__ == "__main__":
    main(sys.argv[1])
