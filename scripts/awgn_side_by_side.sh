#!/usr/bin/env bash
# The side-by-side study of docs/benchmarks.md: alien:9x9 and product:9x9 (the single-parity-check
# product code, one dimension smaller), then secded:81 and secded:72, on AWGN with hard, Chase-II
# (p = 4), iterative (min-sum; the line codes only) and ML decoding, one thread each; then the
# coding gains at FER 1e-4 (scripts/coding_gain.py). The two simulations are independent and can
# run at the same time (about 15 minutes each on a loaded 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
T=target/release/tilecode
out=docs/plots
common=(--channel awgn --ebn0 3:10:1 --threads 1 --exact --min-frame-errors 100 --max-frames 4000000 --json)
$T simulate alien:9x9 product:9x9 --decoder hard,chase,iterative,ml "${common[@]}" \
    --plot $out/awgn_side_lines.png > $out/awgn_side_lines.json &
$T simulate secded:81 secded:72 --decoder hard,chase,ml "${common[@]}" \
    --plot $out/awgn_side_secded.png > $out/awgn_side_secded.json &
wait
python3 scripts/coding_gain.py $out/awgn_side_lines.json $out/awgn_side_secded.json
