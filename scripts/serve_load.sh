#!/usr/bin/env bash
# A bounded local load test of `tilecode serve`: wrk (Debian's package) with 200 connections
# for 10 s against 127.0.0.1 only, on /api/solve (7x7 Lights Out, shortest) and on the page.
# Usage: scripts/serve_load.sh [path/to/tilecode]   (default target/release/tilecode)
set -euo pipefail
bin=${1:-target/release/tilecode}
out=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$out"' EXIT
"$bin" serve --port 0 >"$out/url" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q http "$out/url" && break; sleep 0.1; done
url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$out/url")
cat >"$out/solve.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"game":"lights-out:7x7","board":"1011001\\n0110100\\n1100011\\n0011010\\n1010101\\n0101110\\n1100101","shortest":true}'
LUA
echo "== POST ${url}api/solve"
wrk -t2 -c200 -d10s --latency -s "$out/solve.lua" "${url}api/solve"
echo "== GET ${url}"
wrk -t2 -c200 -d10s --latency "$url"
