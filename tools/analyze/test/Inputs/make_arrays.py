"""Inputs of dx-analyze's lit tests, written as NPY files like a trained
executable's --export (float32).

  make_arrays.py clusters DIR PREFIX --n N --dims D --separation S [--seed K] [--middle M]
      DIR/PREFIX_mu.npy [2N+M, D]: N frames around +S/2 on z1 with Q 0.9, N around
      -S/2 with Q 0.1 (unit-variance noise in every dimension), M with Q 0.5;
      DIR/PREFIX_q.npy [2N+M].
  make_arrays.py contacts DIR
      hand-made 22x22 maps and logits with known counts (see contacts.test).
"""
import argparse
import os

import numpy as np


def clusters(args):
    rng = np.random.default_rng(args.seed)
    n, d, m = args.n, args.dims, args.middle
    centre = np.zeros(d)
    centre[0] = args.separation / 2
    mu = np.concatenate([centre + rng.standard_normal((n, d)) * args.sigma,
                         -centre + rng.standard_normal((n, d)) * args.sigma,
                         rng.standard_normal((m, d)) * args.sigma])
    q = np.concatenate([np.full(n, 0.9), np.full(n, 0.1), np.full(m, 0.5)])
    np.save(os.path.join(args.dir, args.prefix + "_mu.npy"), mu.astype(np.float32))
    np.save(os.path.join(args.dir, args.prefix + "_q.npy"), q.astype(np.float32))


def contacts(args):
    maps = np.zeros((2, 1, 22, 22), np.float32)
    logits = np.full((2, 1, 22, 22), -5.0, np.float32)
    truth = [(0, 1), (1, 0), (2, 7), (7, 2), (10, 20), (20, 10),
             (3, 3),             # diagonal: never counted
             (21, 5), (5, 21)]   # padding row/column: counted only with --residues 22
    for i, j in truth:
        maps[0, 0, i, j] = 1
    # TP (0,1) (1,0) (2,7) (10,20) (20,10); FN (7,2); FP (4,5) (3,12);
    # (15,16) at logit 0.3: FP at threshold 0.5, not at 0.6 (logit 0.405).
    for i, j in [(0, 1), (1, 0), (2, 7), (10, 20), (20, 10), (4, 5), (3, 12), (21, 0)]:
        logits[0, 0, i, j] = 5.0
    logits[0, 0, 15, 16] = 0.3
    logits[1, 0, 0, 0] = 5.0  # diagonal of an empty frame
    np.save(os.path.join(args.dir, "maps.npy"), maps)
    np.save(os.path.join(args.dir, "logits.npy"), logits)
    np.save(os.path.join(args.dir, "logits3.npy"), np.concatenate([logits, logits[:1]]))
    bad = logits.copy()
    bad[1, 0, 4, 6] = np.nan
    np.save(os.path.join(args.dir, "logits_nan.npy"), bad)
    half = maps.copy()
    half[1, 0, 2, 2] = 0.5
    np.save(os.path.join(args.dir, "maps_half.npy"), half)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="what", required=True)
    c = sub.add_parser("clusters")
    c.add_argument("dir")
    c.add_argument("prefix")
    c.add_argument("--n", type=int, default=100)
    c.add_argument("--dims", type=int, default=3)
    c.add_argument("--separation", type=float, default=10.0)
    c.add_argument("--sigma", type=float, default=1.0)
    c.add_argument("--middle", type=int, default=0)
    c.add_argument("--seed", type=int, default=0)
    k = sub.add_parser("contacts")
    k.add_argument("dir")
    args = p.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    {"clusters": clusters, "contacts": contacts}[args.what](args)


if __name__ == "__main__":
    main()
