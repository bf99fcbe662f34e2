#!/usr/bin/python3
"""average_ranks.py SRC DIFFERENT AVERAGED: from SRC, a checkpoint of two ranks
(step directory), writes two copies whose rank files are rewritten (new
CRC-32): in DIFFERENT rank 1's parameters and buffers are three times rank
0's, so the ranks' models differ; in AVERAGED both ranks hold their float32
average (p + 3p) * 0.5. A loader that averages the ranks reads the same model
from both; one that reads rank 0 alone does not. The rank-file format is
runtime/train/Checkpoint.h's: "DXCKPT01", u64 header length, JSON header,
then params, buffers, optimizer state (each u64 count + float32), CRC-32."""
import shutil
import struct
import sys
import zlib

import numpy as np


def read(path):
    b = open(path, "rb").read()
    assert b[:8] == b"DXCKPT01", path
    (hl,) = struct.unpack_from("<Q", b, 8)
    pos = 16 + hl
    head, arenas = b[:pos], []
    for _ in range(3):
        (n,) = struct.unpack_from("<Q", b, pos)
        arenas.append(np.frombuffer(b, np.float32, n, pos + 8).copy())
        pos += 8 + 4 * n
    assert pos + 4 == len(b), path
    return head, arenas


def write(path, head, arenas):
    body = head + b"".join(struct.pack("<Q", a.size) + a.astype(np.float32).tobytes() for a in arenas)
    open(path, "wb").write(body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF))


src, different, averaged = sys.argv[1:4]
head0, (p0, b0, s0) = read(f"{src}/rank-0000.ckpt")
head1, (_, _, s1) = read(f"{src}/rank-0001.ckpt")
p1, b1 = (p0 * np.float32(3)).astype(np.float32), (b0 * np.float32(3)).astype(np.float32)
pa, ba = ((p0 + p1) * np.float32(0.5)).astype(np.float32), ((b0 + b1) * np.float32(0.5)).astype(np.float32)
for out, r0, r1 in ((different, (p0, b0), (p1, b1)), (averaged, (pa, ba), (pa, ba))):
    shutil.copytree(src, out)
    write(f"{out}/rank-0000.ckpt", head0, [*r0, s0])
    write(f"{out}/rank-0001.ckpt", head1, [*r1, s1])
print(f"rank 1 differs from rank 0 in {int(np.sum(p1 != p0))} of {p0.size} parameters")
