#!/usr/bin/env bash
# The browser tests of `tilecode serve`: installs what they need (Debian's chromium, the
# npm packages of package-lock.json), builds the binary and runs them in headless Chromium.
# Screenshots land in docs/playground-*.png. Run from anywhere; CI runs it after cargo test.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
npm ci --no-audit --no-fund --loglevel=error
(cd ../.. && cargo build --release --quiet)
node --test playground.test.mjs
