#!/usr/bin/env bash
# Runner for scripts/galois_compare.py: installs galois if needed, builds tilecode, compares.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import galois" 2>/dev/null || pip install galois
cargo build --release --quiet
python3 scripts/galois_compare.py --tilecode target/release/tilecode "$@"
