#!/usr/bin/env python3
"""Commands against `cat FILE > /dev/null`, alternated: for each round and each command,
`cat FILE` is timed and then the command; each command's figure is the median over the
rounds of the per-pair ratio cat time / command time (so 1.0 is as fast as cat).

Usage: scripts/cli_vs_cat.py FILE ROUNDS 'LABEL:COMMAND ...' ...
  `{}` in a command stands for FILE; its output goes to /dev/null.
Example:
  scripts/cli_vs_cat.py big.bin 9 \\
      'default:target/release/tilecode encode {} -o /dev/null -q' \\
      'one thread:target/release/tilecode encode {} -o /dev/null -q -T 1'
"""
import shlex
import statistics
import subprocess
import sys
import time


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    path, rounds = sys.argv[1], int(sys.argv[2])
    commands = [arg.split(":", 1) for arg in sys.argv[3:]]
    ratios = {label: [] for label, _ in commands}
    cats = []
    for _ in range(rounds):
        for label, command in commands:
            cat = timed(["cat", path])
            cats.append(cat)
            ratios[label].append(cat / timed(shlex.split(command.replace("{}", path))))
    print(f"cat {path}: median {statistics.median(cats) * 1000:.1f} ms")
    for label, _ in commands:
        r = sorted(ratios[label])
        print(f"{label}: {statistics.median(r):.2f}x cat (min {r[0]:.2f}, max {r[-1]:.2f})")


if __name__ == "__main__":
    main()
