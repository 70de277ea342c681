#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds each, one after the other, in-process on one core.
# A target that finds a crash stops early (its input is saved under artifacts/TARGET/); the
# others still run, and the script exits non-zero at the end.
# Usage: fuzz/run.sh SECONDS [TARGET...]
set -uo pipefail
cd "$(dirname "$0")"
secs="${1:?usage: fuzz/run.sh SECONDS [TARGET...]}"
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(decode_arbitrary roundtrip_damage decode_split resync_damage)
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz || exit 1
fi
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal || exit 1
fi
failed=()
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    echo "== $t for $secs s"
    if ! cargo +nightly fuzz run "$t" "corpus/$t" -- -max_total_time="$secs" -print_final_stats=1; then
        failed+=("$t")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "== crashes found by: ${failed[*]} (see fuzz/artifacts/)"
    exit 1
fi
echo "== no crashes"
