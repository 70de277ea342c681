#!/usr/bin/env bash
# docs/plots/fer.svg (+ .png): alien:9x9 against secded:81 on the binary symmetric channel,
# exact rates as lines, simulated rates with 95% intervals. Needs rsvg-convert
# (Debian: apt-get install librsvg2-bin) for the PNG.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
./target/release/tilecode simulate alien:9x9 secded:81 \
  --p 3e-4,1e-3,3e-3,1e-2,3e-2,1e-1 --exact --min-frame-errors 400 --seed 1 \
  --plot docs/plots/fer.svg --json > docs/plots/fer.json
rsvg-convert docs/plots/fer.svg -o docs/plots/fer.png
echo "wrote docs/plots/fer.svg, docs/plots/fer.png, docs/plots/fer.json"
