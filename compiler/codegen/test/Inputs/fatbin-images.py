#!/usr/bin/env python3
"""Lists the images of every CUDA fatbin in a file (a fatbin, an object or an
executable that embeds one), in the spirit of `cuobjdump --list-elf
--list-ptx`, which the CUDA 13 toolkit here does not ship.

Prints one line per fatbin, "fatbin: N images", then one line per image,
"  elf sm_90" or "  ptx sm_80". Exits 1 when the file holds no fatbin.

The fatbin layout (as fatbinary writes it): a 16-byte header (magic
0xBA55ED50, version 1, header size 16, size of the entries), then the
entries, each a header (kind 1 = PTX, 2 = ELF at offset 0, header size at
4, padded payload size at 8, sm at 28) and its payload."""
import struct
import sys

MAGIC = struct.pack("<I", 0xBA55ED50)
KINDS = {1: "ptx", 2: "elf"}


def images(data, start):
    magic, version, header, size = struct.unpack_from("<IHHQ", data, start)
    if version != 1 or header != 16 or start + header + size > len(data):
        return None
    found, off, end = [], start + header, start + header + size
    while off < end:
        kind, _, entry_header, padded = struct.unpack_from("<HHIQ", data, off)
        if kind not in KINDS or entry_header < 32 or off + entry_header + padded > end:
            return None
        (sm,) = struct.unpack_from("<I", data, off + 28)
        found.append(f"{KINDS[kind]} sm_{sm}")
        off += entry_header + padded
    return found


def main():
    data = open(sys.argv[1], "rb").read()
    count, pos = 0, data.find(MAGIC)
    while pos >= 0:
        found = images(data, pos)
        if found:
            count += 1
            print(f"fatbin: {len(found)} images")
            for image in found:
                print("  " + image)
        pos = data.find(MAGIC, pos + 1)
    if count == 0:
        print(f"{sys.argv[1]}: no fatbin", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
