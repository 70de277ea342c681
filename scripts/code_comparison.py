#!/usr/bin/env python3
"""Tables of docs/benchmarks.md `## Code comparison`: alien codes beside SECDED codes of the
same lengths, exact and simulated FER, and codec throughput.

Runs (tilecode built with `cargo build --release`):

    tilecode simulate CODES... --p 1e-2,1e-3,1e-4,1e-5,1e-6 --exact --max-seconds S --json
    tilecode bench CODES... --size MiB --no-cli --json

saves the JSON under docs/plots/ and prints the Markdown tables.

    python3 scripts/code_comparison.py --max-seconds 3 --bench-size 32
    python3 scripts/code_comparison.py --reuse     # tables from the saved JSON only
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAIRS = [("alien:3x3", "secded:9"), ("alien:5x5", "secded:25"), ("alien:7x7", "secded:49"),
         ("alien:9x9", "secded:81"), ("alien:15x17", "secded:255"),
         ("alien:31x33", "secded:1023")]
PS = ["1e-2", "1e-3", "1e-4", "1e-5", "1e-6"]


def run(args):
    print("$ " + " ".join(args), file=sys.stderr)
    out = subprocess.run(args, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def sci(x):
    return "0" if x == 0 else f"{x:.2e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tilecode", default=str(ROOT / "target/release/tilecode"))
    ap.add_argument("--max-seconds", default="3")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--bench-size", default="32")
    ap.add_argument("--reuse", action="store_true", help="format the saved JSON, run nothing")
    args = ap.parse_args()
    codes = [c for pair in PAIRS for c in pair]
    sim_cmd = [args.tilecode, "simulate", *codes, "--p", ",".join(PS), "--exact",
               "--max-seconds", args.max_seconds, "--max-frames", "0", "--threads",
               args.threads, "--json"]
    bench_cmd = [args.tilecode, "bench", *codes, "--size", args.bench_size, "--no-cli",
                 "--json"]
    saved_sim = ROOT / "docs/plots/comparison.json"
    saved_bench = ROOT / "docs/plots/comparison_bench.json"
    if args.reuse:
        sim = json.loads(saved_sim.read_text())
        bench = json.loads(saved_bench.read_text())
    else:
        sim = run(sim_cmd)
        saved_sim.write_text(json.dumps(sim, indent=1) + "\n")
        bench = run(bench_cmd)
        saved_bench.write_text(json.dumps(bench, indent=1) + "\n")

    res = {(r["code"], r["p"]): r for r in sim["results"]}
    thr = {r["code"]: r for r in bench["results"]}
    print("Command: `" + " ".join(["tilecode"] + sim_cmd[1:]) + "`\n")
    print("| code | n | k | rate | d | covering radius | codec encode GB/s (x memcpy) | "
          "codec decode at BER 1e-4 GB/s (x memcpy) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c in codes:
        r = res[(c, 1e-3)]
        b = thr.get(c)
        enc = (f"{b['encode_bytes_per_sec'] / 1e9:.2f} ({b['encode_ratio']:.2f})" if b else "-")
        dec = (f"{b['decode_noisy_bytes_per_sec'] / 1e9:.2f} ({b['decode_noisy_ratio']:.2f})"
               if b else "-")
        print(f"| {c} | {r['n']} | {r['k']} | {r['k'] / r['n']:.3f} | {r['d']} | "
              f"{r['covering_radius']} | {enc} | {dec} |")
    print("\nBench command: `" + " ".join(["tilecode"] + bench_cmd[1:]) + "`\n")
    print("FER, exact / simulated [95% interval] (frames):\n")
    print("| code | " + " | ".join(f"p = {p}" for p in PS) + " |")
    print("| --- |" + " --- |" * len(PS))
    for c in codes:
        cells = []
        for p in PS:
            r = res[(c, float(p))]
            lo, hi = r["fer_ci"]
            cells.append(f"{sci(r['exact']['fer'])} / {sci(r['fer'])} "
                         f"[{sci(lo)}, {sci(hi)}] ({r['frames']:.2e})")
        print(f"| {c} | " + " | ".join(cells) + " |")
    print("\nMiscorrection (undetected error) rate, exact / simulated:\n")
    print("| code | " + " | ".join(f"p = {p}" for p in PS) + " |")
    print("| --- |" + " --- |" * len(PS))
    for c in codes:
        cells = []
        for p in PS:
            r = res[(c, float(p))]
            cells.append(f"{sci(r['exact']['miscorrection_rate'])} / "
                         f"{sci(r['miscorrection_rate'])}")
        print(f"| {c} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
