#!/bin/sh
# Assembles every kernel module of a `dxc --emit=ptx` file with ptxas for
# ARCH: the output holds one PTX module per kernel (each after a
# "// ---- kernel module" line), and ptxas takes one module per file.
# Prints "ptxas: N modules" when all assemble; exits 1 at the first failure.
set -e
ptx=$1 arch=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
awk -v d="$dir" '/^\/\/ ---- kernel module/ { k++ } k { print > (d "/" k ".ptx") }' "$ptx"
n=0
for f in "$dir"/*.ptx; do
  /usr/local/cuda/bin/ptxas -arch="$arch" "$f" -o "$f.cubin" || { echo "ptxas failed on $f"; exit 1; }
  n=$((n + 1))
done
echo "ptxas: $n modules"
