"""Writes x.npy (f32 [n, 4]), y.npy (i64 [n]) and the test pair xt/yt into a
folder: three Gaussian blobs. --features and --bad-label make broken sets."""
import argparse, os, random, struct

def npy(path, descr, shape, values, fmt):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--n", type=int, default=256)
p.add_argument("--features", type=int, default=4)
p.add_argument("--bad-label", action="store_true")
a = p.parse_args()
os.makedirs(a.dir, exist_ok=True)
rng = random.Random(1)
for name, n in (("", a.n), ("t", a.n // 4)):
    xs, ys = [], []
    for i in range(n):
        c = i % 3
        ys.append(5 if a.bad_label and i == 3 else c)
        xs += [rng.gauss(2.0 * c if k == c % a.features else 0.0, 0.5) for k in range(a.features)]
    npy(os.path.join(a.dir, "x%s.npy" % name), "<f4", (n, a.features), xs, "f")
    npy(os.path.join(a.dir, "y%s.npy" % name), "<i8", (n,), ys, "q")
