#!/usr/bin/env bash
# The AWGN study of docs/benchmarks.md: FER against Eb/N0 for alien:9x9, secded:81 and secded:72
# with hard, Chase-II (p = 4), iterative (alien) and ML (secded) decoding, and the ML figures of
# hamming:7 and secded:16 beside their union bounds. Writes JSON and PNG plots to docs/plots/
# (one thread each, so that the figures can be reproduced on a loaded machine). About 15 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
T=target/release/tilecode
out=docs/plots
common=(--channel awgn --threads 1 --exact --min-frame-errors 100 --json)
$T simulate hamming:7 secded:16 --ebn0 0:7:1 --decoder ml "${common[@]}" --max-frames 2000000 \
    --plot $out/awgn_ml_union.png > $out/awgn_ml_union.json
$T simulate alien:9x9 --ebn0 3:10:1 --decoder hard "${common[@]}" --max-frames 20000000 \
    > $out/awgn_alien_hard.json
$T simulate secded:81 secded:72 --ebn0 3:10:1 --decoder hard "${common[@]}" --max-frames 20000000 \
    > $out/awgn_secded_hard.json
$T simulate alien:9x9 --ebn0 3:8:1 --decoder hard,chase,iterative "${common[@]}" --max-frames 1000000 \
    --plot $out/awgn_alien.png > $out/awgn_alien.json
$T simulate secded:81 secded:72 --ebn0 3:8:1 --decoder hard,chase,ml "${common[@]}" --max-frames 1000000 \
    --plot $out/awgn_secded.png > $out/awgn_secded.json
python3 scripts/coding_gain.py $out/awgn_alien_hard.json $out/awgn_secded_hard.json \
    $out/awgn_alien.json $out/awgn_secded.json
