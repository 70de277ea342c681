#!/usr/bin/env bash
# The streaming codec's big must-show checks, run by hand in release mode (they take minutes
# and several GiB of scratch space, so they are not part of `cargo test`):
#   1. 100 MiB random file: encode + decode roundtrip for every family and D = 64, 512, 4096;
#   2. 1 MiB of garbage inside a 100 MiB stream: exit 2, damaged ranges near the garbage, the
#      rest intact with --keep-damaged, no output without it;
#   3. decoding a 1 GiB stream stays under 64 MiB resident memory (/usr/bin/time -v), with
#      and without recovery, on every core and on one thread;
#   4. CLI throughput: `tilecode encode` of a cached 256 MiB file to /dev/null against `cat`
#      (hyperfine medians when hyperfine is installed, else the median of 5 `time` runs).
# Usage: scripts/stream_checks.sh [all|roundtrip|garbage|memory|throughput]...
# Scratch goes to $SCRATCH (default: a fresh directory under ${TMPDIR:-/tmp}).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
TC="$PWD/target/release/tilecode"
SCRATCH="${SCRATCH:-$(mktemp -d "${TMPDIR:-/tmp}/tilecode-checks.XXXXXX")}"
trap 'rm -rf "$SCRATCH"' EXIT
FAMILIES="alien:9x9 alien:4x5 alien:5x4 alien:3x3 secded:72 hamming:31 repetition:3 parity:9"
DEPTHS="64 512 4096"
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
now() { date +%s.%N; }
mib_s() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", b / 1048576 / s }'; }

roundtrip() {
    echo "## 1. 100 MiB roundtrip, every family and depth"
    head -c $((100 << 20)) /dev/urandom > "$SCRATCH/in"
    local want
    want=$(sha256sum < "$SCRATCH/in")
    printf '%-14s %6s %12s %10s %10s %s\n' code D encoded_MiB enc_MiB/s dec_MiB/s result
    for code in $FAMILIES; do
        for d in $DEPTHS; do
            rm -f "$SCRATCH/in.tc" "$SCRATCH/out"
            local t0 t1 t2 size rc=0
            t0=$(now)
            "$TC" encode "$SCRATCH/in" -o "$SCRATCH/in.tc" --code "$code" --interleave "$d" -q 2>/dev/null
            t1=$(now)
            "$TC" decode "$SCRATCH/in.tc" -o "$SCRATCH/out" -q || rc=$?
            t2=$(now)
            size=$(stat -c %s "$SCRATCH/in.tc")
            local res=ok
            if [ "$rc" != 0 ] || [ "$(sha256sum < "$SCRATCH/out")" != "$want" ]; then
                res="FAILED (exit $rc)"
                fail "roundtrip $code D=$d"
            fi
            printf '%-14s %6s %12.1f %10s %10s %s\n' "$code" "$d" \
                "$(awk -v s="$size" 'BEGIN { print s / 1048576 }')" \
                "$(mib_s $((100 << 20)) "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")" \
                "$(mib_s $((100 << 20)) "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')")" \
                "$res"
        done
    done
    rm -f "$SCRATCH/in" "$SCRATCH/in.tc" "$SCRATCH/out"
}

garbage() {
    echo "## 2. 1 MiB of garbage inside a 100 MiB stream (alien:9x9, D = 64, default chunks)"
    head -c $((100 << 20)) /dev/urandom > "$SCRATCH/g"
    "$TC" encode "$SCRATCH/g" -o "$SCRATCH/g.tc" -q
    local at=$((50 << 20))
    head -c $((1 << 20)) /dev/urandom | dd of="$SCRATCH/g.tc" bs=1M seek=50 conv=notrunc status=none
    echo "garbage: encoded bytes [$at, $((at + (1 << 20))))"
    local rc=0
    "$TC" decode "$SCRATCH/g.tc" -o "$SCRATCH/g.out" --json 2> "$SCRATCH/g.json" || rc=$?
    echo "decode exit $rc; report: $(grep '^{' "$SCRATCH/g.json" | tail -n 1)"
    [ "$rc" = 2 ] || fail "garbage: expected exit 2, got $rc"
    [ ! -e "$SCRATCH/g.out" ] || fail "garbage: output written without --keep-damaged"
    rc=0
    "$TC" decode "$SCRATCH/g.tc" -o "$SCRATCH/g.out" --keep-damaged -q || rc=$?
    [ "$rc" = 2 ] || fail "garbage --keep-damaged: expected exit 2, got $rc"
    # Bytes outside the reported ranges must equal the original.
    python3 - "$SCRATCH/g" "$SCRATCH/g.out" "$SCRATCH/g.json" <<'PY' || fail "garbage: intact check"
import json, sys
orig = open(sys.argv[1], 'rb').read()
out = open(sys.argv[2], 'rb').read()
rep = json.loads([l for l in open(sys.argv[3]) if l.startswith("{")][-1])
ranges = rep["damaged_ranges"]
assert len(out) == len(orig), (len(out), len(orig))
pos = 0
for a, b in ranges:
    assert out[pos:a] == orig[pos:a], f"bytes {pos}..{a} differ"
    pos = b
assert out[pos:] == orig[pos:]
width = sum(b - a for a, b in ranges)
print(f"damaged ranges {ranges}: {width} bytes ({width / 2**20:.2f} MiB) for 1 MiB of garbage; "
      f"everything outside them intact; {rep['uncorrectable_codewords']} uncorrectable codewords")
PY
    rm -f "$SCRATCH/g" "$SCRATCH/g.tc" "$SCRATCH/g.out" "$SCRATCH/g.json"
}

memory() {
    echo "## 3. decoding a 1 GiB stream: peak resident memory"
    local rss rec t
    # With and without recovery (without it every chunk is a stripe of its own), on every
    # core (one of them the reader's), on two decoding threads and on one.
    for rec in 2 0; do
        rm -f "$SCRATCH/big.tc"
        head -c $((1 << 30)) /dev/zero | "$TC" encode --recovery "$rec" -o "$SCRATCH/big.tc" -q
        echo "stream, --recovery $rec: $(stat -c %s "$SCRATCH/big.tc") bytes"
        for t in 0 2 1; do
            /usr/bin/time -v "$TC" decode "$SCRATCH/big.tc" -o /dev/null -q --threads "$t" \
                2> "$SCRATCH/time.txt" || fail "memory: decode failed"
            rss=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$SCRATCH/time.txt")
            echo "tilecode decode big.tc -o /dev/null --threads $t: max RSS ${rss} KiB ($((rss / 1024)) MiB), wall $(awk -F': ' '/Elapsed/ { print $2 }' "$SCRATCH/time.txt")"
            [ "$rss" -lt $((64 * 1024)) ] || fail "memory: max RSS ${rss} KiB >= 64 MiB (--recovery $rec, --threads $t)"
            /usr/bin/time -v "$TC" verify "$SCRATCH/big.tc" -q --threads "$t" 2> "$SCRATCH/time.txt" \
                || fail "memory: verify failed"
            rss=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$SCRATCH/time.txt")
            echo "tilecode verify big.tc --threads $t: max RSS ${rss} KiB ($((rss / 1024)) MiB)"
            [ "$rss" -lt $((64 * 1024)) ] || fail "memory: verify max RSS ${rss} KiB >= 64 MiB (--recovery $rec, --threads $t)"
        done
    done
    rm -f "$SCRATCH/big.tc" "$SCRATCH/time.txt"
}

median_time() { # command...; prints the median wall time of 5 runs in seconds
    local ts=() i
    for i in 1 2 3 4 5; do
        local t0 t1
        t0=$(now); "$@" > /dev/null; t1=$(now)
        ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
    done
    printf '%s\n' "${ts[@]}" | sort -g | sed -n 3p
}

throughput() {
    echo "## 4. CLI throughput: 256 MiB cached file to /dev/null"
    head -c $((256 << 20)) /dev/urandom > "$SCRATCH/t"
    cat "$SCRATCH/t" > /dev/null
    "$TC" encode "$SCRATCH/t" -o "$SCRATCH/t.tc" -q
    local c e d
    if command -v hyperfine > /dev/null; then
        hyperfine -N --warmup 2 --runs 10 --export-json "$SCRATCH/h.json" \
            "cat $SCRATCH/t" \
            "$TC encode $SCRATCH/t -o /dev/null -q" \
            "$TC encode $SCRATCH/t -o /dev/null -q --interleave 4096" \
            "$TC decode $SCRATCH/t.tc -o /dev/null -q" \
            --output=null > /dev/null 2>&1
        read -r c e e4 d < <(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(*[x['median'] for x in r])" "$SCRATCH/h.json")
        echo "(hyperfine -N --warmup 2 --runs 10, medians)"
    else
        c=$(median_time cat "$SCRATCH/t")
        e=$(median_time "$TC" encode "$SCRATCH/t" -o /dev/null -q)
        e4=$(median_time "$TC" encode "$SCRATCH/t" -o /dev/null -q --interleave 4096)
        d=$(median_time "$TC" decode "$SCRATCH/t.tc" -o /dev/null -q)
        echo "(median of 5 runs)"
    fi
    printf 'cat FILE                           %.3f s  %5s MiB/s\n' "$c" "$(mib_s $((256 << 20)) "$c")"
    printf 'tilecode encode (alien:9x9, D=64)   %.3f s  %5s MiB/s\n' "$e" "$(mib_s $((256 << 20)) "$e")"
    printf 'tilecode encode (D=4096)           %.3f s  %5s MiB/s\n' "$e4" "$(mib_s $((256 << 20)) "$e4")"
    printf 'tilecode decode (D=64)             %.3f s  %5s MiB/s of output\n' "$d" "$(mib_s $((256 << 20)) "$d")"
    local ratio
    ratio=$(awk -v c="$c" -v e="$e" 'BEGIN { printf "%.2f", c / e }')
    echo "encode / cat throughput ratio: $ratio (target >= 0.5)"
    awk -v r="$ratio" 'BEGIN { exit !(r >= 0.5) }' || fail "throughput ratio $ratio < 0.5"
    rm -f "$SCRATCH/t" "$SCRATCH/t.tc" "$SCRATCH/h.json"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(all)
for s in "${steps[@]}"; do
    case "$s" in
        all) roundtrip; garbage; memory; throughput ;;
        roundtrip|garbage|memory|throughput) "$s" ;;
        *) echo "unknown check $s"; exit 1 ;;
    esac
done
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) FAILED"
    exit 1
fi
echo "all checks passed"
