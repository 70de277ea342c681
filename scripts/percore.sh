#!/usr/bin/env bash
# Per-core throughput of a `tilecode simulate --json` run: its info_bits_per_second (wall clock,
# averaged over the points) and K * FRAMES over the CPU time (user + system) of the process.
# Usage: scripts/percore.sh K FRAMES tilecode simulate ... --max-frames FRAMES --threads 1 --json
set -euo pipefail
k=$1
frames=$2
shift 2
json="${TMPDIR:-/tmp}/percore.$$.json"
cpu=$( { /usr/bin/time -f "TIME %U %S" "$@" > "$json"; } 2>&1 | awk '/^TIME/ {print $2 + $3}')
python3 - "$json" "$k" "$frames" "$cpu" <<'PY'
import json, sys
path, k, frames, cpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
res = json.load(open(path))["results"]
wall = sum(r["info_bits_per_second"] for r in res) / len(res) / 1e6
print(f"wall {wall:.1f} Mbit/s  cpu {k * frames / cpu / 1e6:.1f} Mbit/s  (cpu {cpu:.2f} s)")
PY
rm -f "$json"
