#!/usr/bin/env python3
"""Writes a small ImageNet-style folder for the image-folder tests.

make_image_folder.py DIR [--corrupt]

DIR/train/{blue,green,red}/*.png (and DIR/val/...): images of assorted sizes
whose colour says their class, with noise; a few are grey. PNGs are written
here with zlib alone (no PIL, no numpy). --corrupt adds DIR/train/red/broken.png,
which is not a PNG inside.
"""
import argparse
import os
import random
import struct
import zlib


def write_png(path, rows, channels):
    """rows: H lists of W * channels byte values; channels 1 (grey) or 3 (RGB)."""
    h, w = len(rows), len(rows[0]) // channels
    raw = b"".join(b"\x00" + bytes(r) for r in rows)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2 if channels == 3 else 0, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw)))
        f.write(chunk(b"IEND", b""))


def clip(v):
    return max(0, min(255, int(v)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--corrupt", action="store_true")
    args = ap.parse_args()
    rng = random.Random(0)
    colours = {"red": (200, 40, 40), "green": (40, 180, 60), "blue": (40, 60, 200)}
    for split, count in (("train", 16), ("val", 4)):
        for name, rgb in colours.items():
            d = os.path.join(args.dir, split, name)
            os.makedirs(d, exist_ok=True)
            for i in range(count):
                h, w = rng.randint(24, 63), rng.randint(24, 63)
                grey = i % 5 == 4  # replicated into three channels by the runtime
                rows = []
                for _ in range(h):
                    px = [[clip(c + rng.gauss(0, 25)) for c in rgb] for _ in range(w)]
                    rows.append([sum(p) // 3 for p in px] if grey else [v for p in px for v in p])
                write_png(os.path.join(d, f"{i:03d}.png"), rows, 1 if grey else 3)
            with open(os.path.join(d, "labels.txt"), "w") as f:  # not an image: ignored
                f.write(name + "\n")
    if args.corrupt:
        with open(os.path.join(args.dir, "train", "red", "broken.png"), "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)


if __name__ == "__main__":
    main()
