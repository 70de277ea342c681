#!/usr/bin/env bash
# The side-by-side study of docs/benchmarks.md: alien:9x9 against the single-parity-check product
# code product:9x9 (one dimension smaller), secded:81 and secded:72 on AWGN, one thread each:
#   1. hard decisions for all four, 3 to 10 dB (they reach FER 1e-4 near 9 dB);
#   2. alien:9x9 and product:9x9 with Chase-II (p = 4), iterative (min-sum) and ML, 3 to 8 dB;
#   3. secded:81 and secded:72 with Chase-II and ML, 3 to 8 dB (no iterative decoder: their
#      checks are not line checks);
# then the coding gains at FER 1e-4 (scripts/coding_gain.py). Steps 2 and 3 run side by side.
# The plots of steps 2 and 3 draw the exact hard-decision FER (BSC formulas at the equivalent
# p) and the union bound on ML as lines beside the simulated points.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
T=target/release/tilecode
out=docs/plots
common=(--channel awgn --threads 1 --exact --min-frame-errors 100 --json)
$T simulate alien:9x9 product:9x9 --decoder chase,iterative,ml --ebn0 3:8:1 "${common[@]}" \
    --max-frames 1000000 --plot $out/awgn_side_lines.png > $out/awgn_side_lines.json &
$T simulate secded:81 secded:72 --decoder chase,ml --ebn0 3:8:1 "${common[@]}" \
    --max-frames 1000000 --plot $out/awgn_side_secded.png > $out/awgn_side_secded.json &
$T simulate alien:9x9 product:9x9 secded:81 secded:72 --decoder hard --ebn0 3:10:1 "${common[@]}" \
    --max-frames 20000000 > $out/awgn_side_hard.json
wait
python3 scripts/coding_gain.py $out/awgn_side_hard.json $out/awgn_side_lines.json \
    $out/awgn_side_secded.json
