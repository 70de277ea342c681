#!/usr/bin/env python3
"""Builds of tilecode side by side: `tilecode bench --json` of each binary in turn, ROUNDS
times (so that every build sees the machine's same phases), then for each code and depth
the median over the rounds of each ratio to memcpy: encode, clean decode, decode at BER
1e-4, one `|`-separated column group per binary.

Usage: scripts/bench_ab.py ROUNDS 'CODE ...' DEPTHS 'EXTRA BENCH ARGS' BINARY...
Example:
  scripts/bench_ab.py 3 'alien:9x9 secded:72' 64,512,4096 \
      '--threads 2 --recovery 0 --size 64 --repetitions 3' old/tilecode new/tilecode
"""
import json
import statistics
import subprocess
import sys


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    rounds, codes, depths = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3]
    extra, bins = sys.argv[4].split(), sys.argv[5:]
    res = {}
    for _ in range(rounds):
        for b in bins:
            cmd = [b, "bench", *codes, "--interleave", depths, "--no-cli", "--json", *extra]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            for x in json.loads(out)["results"]:
                cell = res.setdefault((x["spec"], x["interleave"]), {})
                cell.setdefault(b, []).append(
                    (x["encode_vs_memcpy"], x["decode_clean_vs_memcpy"], x["decode_noisy_vs_memcpy"])
                )
    print("code         D      | " + " | ".join(f"{b}: encode clean noisy" for b in bins))
    for key in sorted(res):
        line = f"{key[0]:12} {key[1]:6}"
        for b in bins:
            v = res[key][b]
            m = [statistics.median(x[i] for x in v) for i in range(3)]
            line += f" | {m[0]:.2f} {m[1]:.2f} {m[2]:.2f}"
        print(line)


if __name__ == "__main__":
    main()
