"""Checks an image-folder tree written by dx-datagen stem --folder: the
class folders, the PNG count, and each PNG's size and channels (read from
the IHDR chunk, so no imaging library is needed)."""
import argparse
import os
import struct
import sys

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--train", type=int, required=True)
p.add_argument("--val", type=int, required=True)
p.add_argument("--size", type=int, required=True)
p.add_argument("--channels", type=int, required=True)
a = p.parse_args()

channels_of = {0: 1, 2: 3}  # PNG colour types: grey, RGB
classes = None
for split, n in (("train", a.train), ("val", a.val)):
    root = os.path.join(a.dir, split)
    names = sorted(os.listdir(root))
    files = []
    for c in names:
        files += [os.path.join(root, c, f) for f in os.listdir(os.path.join(root, c))]
    if len(files) != n:
        print(f"FAIL: {split} has {len(files)} PNGs, expected {n}")
        sys.exit(1)
    for f in files:
        with open(f, "rb") as fh:
            head = fh.read(33)
        if head[:8] != b"\x89PNG\r\n\x1a\n":
            print("FAIL: not a PNG: " + f)
            sys.exit(1)
        w, h, depth, colour = struct.unpack(">IIBB", head[16:26])
        if (w, h, depth, channels_of.get(colour)) != (a.size, a.size, 8, a.channels):
            print(f"FAIL: {f}: {w}x{h} depth {depth} colour type {colour}")
            sys.exit(1)
    print(f"{split}: {n} PNGs in {len(names)} classes, {a.size}x{a.size}, {a.channels} channel(s)")
    classes = names
import json
print(" ".join(json.load(open(os.path.join(a.dir, "stem.json")))["class_names"]))
