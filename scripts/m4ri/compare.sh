#!/usr/bin/env bash
# Measurement only (not part of CI): tilecode's rref_in_place, bitgauss's gauss(true) and M4RI's
# mzd_echelonize on the same splitmix64 matrices, run back to back, ROUNDS times each.
# usage: scripts/m4ri/compare.sh [SIZES...]   (default 1024 2048 4096 8192; RUNS=7 ROUNDS=3)
# Set NO_BITGAUSS=1 to skip bitgauss (it takes seconds per run at 8192).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1024 2048 4096 8192)
RUNS="${RUNS:-7}" "$here/run.sh" 64 >/dev/null # installs M4RI if needed and compiles the harness
(cd "$root" && cargo bench --bench gf2 --no-run >/dev/null 2>&1)
# The gf2 bench's own artifact (the tilecode binary may be listed after it).
bench="$(cd "$root" && cargo bench --bench gf2 --no-run --message-format=json 2>/dev/null |
  grep '"name":"gf2"' | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)"
m4ri="${TMPDIR:-/tmp}/tilecode-m4ri-bench"
for round in $(seq "${ROUNDS:-3}"); do
  echo "# round $round"
  for n in "${sizes[@]}"; do
    GF2_MEDIANS="$n" RUNS="${RUNS:-7}" "$bench"
    "$m4ri" "$n" "${RUNS:-7}" 1
  done
done
