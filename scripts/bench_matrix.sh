#!/usr/bin/env bash
# The throughput matrix of issue 14 (docs/benchmarks.md, "The matrix"): every code below at
# D = 64, 512, 4096, 32768 and 65536, one thread, no recovery chunks, ratios to memcpy in the
# same run (medians of 3 repetitions), 128 MiB a run as issue 14 measured (at 16 MiB part of
# memcpy's buffers stays in L3); RUNS runs of the whole list, one process per code and run, and
# each cell the median of its runs' ratios, each run's kept beside it (two processes of one
# binary, one after the other, measured 0.05-0.1x memcpy apart); written to
# docs/bench/matrix.{json,md} and docs/plots/bench_matrix.png, or with MATRIX=NAME to
# docs/bench/NAME.{json,md} and docs/plots/bench_NAME.png (another machine's matrix).
#
#   scripts/bench_matrix.sh [--full] [RUNS]
#     (no flag)  a sample of the matrix: 82 codes, about 7 minutes a run here
#     --full     every alien:MxN (odd x odd and even x odd, 3 <= M, N <= 64), secded:N and
#                hamming:N (16 <= N <= 1024): about 3,900 codes, some 5 hours a run
#     RUNS       runs of the list (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=./target/release/tilecode
full=
if [ "${1:-}" = "--full" ]; then
    full=--full
    shift
fi
runs=${1:-3}
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
name=${MATRIX:-matrix}
out=docs/bench/$name
plot=docs/plots/bench_$name.png
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One process per code, so that a long matrix shows progress and a failure names its code;
# the runs one after the other, so that each cell's runs meet the machine at different times.
for r in $(seq 1 "$runs"); do
    i=0
    for c in "${codes[@]}"; do
        i=$((i + 1))
        echo "[run $r/$runs, $i/${#codes[@]}] $c" >&2
        $bin bench "$c" --interleave 64,512,4096,32768,65536 --threads 1 --recovery 0 \
            --no-cli --size 128 --repetitions 3 --json > "$tmp/$r-$i.json"
    done
done
python3 - "$tmp" "$out.json" "$runs" <<'PY'
import json, sys, glob, os, statistics
d, out, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
key = lambda f: [int(x) for x in os.path.basename(f)[:-5].split("-")]
files = sorted(glob.glob(os.path.join(d, "*.json")), key=lambda f: key(f)[::-1])
cells = {}
for f in files:
    for r in json.load(open(f))["results"]:
        # The noisy decode's full report is kept out of the matrix (its summary keys stay).
        r.pop("noisy_report", None)
        cells.setdefault((r["spec"], r["interleave"]), []).append(r)
results = []
for rs in cells.values():
    # Each measured figure the median of the runs'; the rest as the first run gave it.
    m = dict(rs[0])
    for k in rs[0]:
        if k.endswith(("_ratio", "_vs_memcpy", "_bytes_per_sec")):
            m[k] = statistics.median(r[k] for r in rs)
            if k.endswith("_ratio"):
                m[k + "_runs"] = [r[k] for r in rs]
    m["noisy_exact"] = all(r["noisy_exact"] for r in rs)
    f = m["floor"]
    m["meets_floor"] = (
        m["encode_ratio"] >= f["encode"]
        and m["decode_clean_ratio"] >= f["decode_clean"]
        and (f["decode_noisy"] is None or m["decode_noisy_ratio"] >= f["decode_noisy"])
    )
    m["runs"] = len(rs)
    results.append(m)
json.dump({"runs": runs, "results": results}, open(out, "w"), indent=1)
PY
$bin bench --from "$out.json" --markdown --plot "$plot" > "$out.md"
echo "wrote $out.json, $out.md, $plot" >&2
