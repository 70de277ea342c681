#!/usr/bin/env bash
# The throughput matrix of issue 14 (docs/benchmarks.md, "The matrix"): every code below at
# D = 64, 512, 4096, 32768 and 65536, one thread, no recovery chunks, ratios to memcpy in the
# same run (medians of 3), 128 MiB a run as issue 14 measured (at 16 MiB part of memcpy's
# buffers stays in L3), written to docs/bench/matrix.{json,md} and docs/plots/bench_matrix.png.
#
#   scripts/bench_matrix.sh          a sample of the matrix (82 codes, about 6 minutes here)
#   scripts/bench_matrix.sh --full   every alien:MxN (odd x odd and even x odd, 3 <= M, N <= 64),
#                                    secded:N and hamming:N (16 <= N <= 1024): about 3,900
#                                    codes, some 5 hours at the sample's pace
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=./target/release/tilecode
full=${1:-}
codes=()
if [ "$full" = "--full" ]; then
    for m in $(seq 3 64); do
        for n in $(seq 3 2 63); do
            codes+=("alien:${m}x${n}")
        done
    done
    for n in $(seq 16 1024); do codes+=("secded:$n" "hamming:$n"); done
else
    for m in 3 4 5 8 9 16 17 32 33 63 64; do
        for n in 3 5 9 17 33 63; do
            codes+=("alien:${m}x${n}")
        done
    done
    for n in 16 22 39 72 137 266 523 1024; do codes+=("secded:$n" "hamming:$n"); done
fi
mkdir -p docs/bench docs/plots
out=docs/bench/matrix
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One code per run, so that a long matrix shows progress and a failure names its code.
i=0
for c in "${codes[@]}"; do
    i=$((i + 1))
    echo "[$i/${#codes[@]}] $c" >&2
    $bin bench "$c" --interleave 64,512,4096,32768,65536 --threads 1 --recovery 0 \
        --no-cli --size 128 --repetitions 3 --json > "$tmp/$i.json"
done
python3 - "$tmp" "$out.json" <<'PY'
import json, sys, glob, os
d, out = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(d, "*.json")), key=lambda f: int(os.path.basename(f)[:-5]))
results = [r for f in files for r in json.load(open(f))["results"]]
# The noisy decode's full report is kept out of the matrix (its summary keys stay).
for r in results:
    r.pop("noisy_report", None)
json.dump({"results": results}, open(out, "w"), indent=1)
PY
$bin bench --from "$out.json" --markdown --plot docs/plots/bench_matrix.png > "$out.md"
echo "wrote $out.json, $out.md, docs/plots/bench_matrix.png" >&2
