#!/usr/bin/env bash
# Measurement only (not part of CI): times M4RI's mzd_echelonize on splitmix64-filled matrices.
# usage: scripts/m4ri/run.sh [SIZES...]   (default: 1024 2048 4096 8192; RUNS=7 SEED=1 by env)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! [ -f /usr/include/m4ri/m4ri.h ]; then
  echo "installing libm4ri-dev" >&2
  apt-get update -qq && apt-get install -y -qq libm4ri-dev >/dev/null
fi
out="${TMPDIR:-/tmp}/tilecode-m4ri-bench"
cc -O2 -march=native -o "$out" "$here/bench.c" -lm4ri -lm
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1024 2048 4096 8192)
for n in "${sizes[@]}"; do
  "$out" "$n" "${RUNS:-7}" "${SEED:-1}"
done
