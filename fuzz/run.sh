#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds each, one after the other, on one core.
# Usage: fuzz/run.sh SECONDS [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:?usage: fuzz/run.sh SECONDS [TARGET...]}"
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(decode_arbitrary roundtrip_damage decode_split)
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz
fi
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    echo "== $t for $secs s"
    cargo +nightly fuzz run "$t" "corpus/$t" -- -max_total_time="$secs" -print_final_stats=1
done
