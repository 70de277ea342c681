#!/usr/bin/env bash
# The memory-traffic skeleton of encoding (skeleton.c) at several amounts of stand-in compute.
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp -d)
for w in ${WORKS:-0 40 80 160}; do
  gcc -O2 -mavx2 -DWORK="$w" skeleton.c -o "$out/skeleton"
  "$out/skeleton"
done
rm -rf "$out"
