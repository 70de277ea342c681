#!/usr/bin/env python3
"""What tilecode and par2 each survive, and how fast, on the same file in the same run.

par2 (Debian's par2cmdline) protects a file with separate recovery files; tilecode protects
it inside its stream. Each damage is applied where the tool keeps the data: the original file
for par2 (its .par2 files stay whole), the .tc file for tilecode. A run counts as repaired
when the tool says so (par2 repair exit 0; tilecode decode exit 0) and the bytes are exact.

Usage: scripts/resilience/par2_compare.py [--size MiB] [--trials N] [--tilecode PATH]
Prints a markdown table (docs/benchmarks.md keeps the latest one).
"""

import argparse
import glob
import os
import random
import subprocess
import tempfile
import time


def timed(cmd, **kw):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, **kw)
    return r, time.perf_counter() - t


def damage(kind, d, rng):
    d = bytearray(d)
    n = len(d)
    if kind == "one zeroed 4 KiB sector":
        a = rng.randrange(n // 4096) * 4096
        d[a:a + 4096] = bytes(4096)
    elif kind == "20 zeroed 4 KiB sectors":
        for _ in range(20):
            a = rng.randrange(n // 4096) * 4096
            d[a:a + 4096] = bytes(4096)
    elif kind == "1 MiB of garbage":
        a = rng.randrange(n - (1 << 20))
        d[a:a + (1 << 20)] = os.urandom(1 << 20)
    elif kind == "one byte inserted":
        a = rng.randrange(n)
        d[a:a] = os.urandom(1)
    elif kind == "4 KiB deleted":
        a = rng.randrange(n - 4096)
        del d[a:a + 4096]
    elif kind == "bit flips at 1e-5":
        for _ in range(int(n * 8e-5)):
            b = rng.randrange(n * 8)
            d[b // 8] ^= 1 << (b % 8)
    return bytes(d)


KINDS = ["one zeroed 4 KiB sector", "20 zeroed 4 KiB sectors", "1 MiB of garbage",
         "one byte inserted", "4 KiB deleted", "bit flips at 1e-5"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--tilecode", default="target/release/tilecode")
    a = ap.parse_args()
    exe = os.path.abspath(a.tilecode)
    data = os.urandom(a.size << 20)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "data.bin")
        with open(src, "wb") as f:
            f.write(data)
        # cat, for the speed baseline measured in the same run.
        _, t_cat = timed(["sh", "-c", f"cat {src} > {tmp}/cat.out"])
        tools = []
        for r in (2, 5, 10):
            out = os.path.join(tmp, f"data.{r}.tc")
            res, t = timed([exe, "encode", src, "-o", out, "--recovery", str(r), "-q"])
            assert res.returncode == 0, res.stderr
            size = os.path.getsize(out) - len(data)
            tools.append((f"tilecode --recovery {r}" + (" (default)" if r == 2 else ""),
                          "tc", r, out, t, size))
        for r in (5, 10):
            d = os.path.join(tmp, f"par{r}")
            os.mkdir(d)
            f = os.path.join(d, "data.bin")
            with open(f, "wb") as g:
                g.write(data)
            res, t = timed(["par2", "create", f"-r{r}", "-q", "-q", f + ".par2", f])
            assert res.returncode == 0, res.stderr
            size = sum(os.path.getsize(p) for p in glob.glob(f + "*.par2"))
            tools.append((f"par2 create -r{r}", "par2", r, f, t, size))
        results = {}
        for name, kind, r, path, t, size in tools:
            for dk in KINDS:
                ok = 0
                t_fix = []
                for trial in range(a.trials):
                    rng = random.Random(hash((dk, trial)) & 0xFFFFFFFF)
                    if kind == "tc":
                        enc = open(path, "rb").read()
                        hit = os.path.join(tmp, "hit.tc")
                        with open(hit, "wb") as g:
                            g.write(damage(dk, enc, rng))
                        out = os.path.join(tmp, "restored")
                        if os.path.exists(out):
                            os.remove(out)
                        res, tt = timed([exe, "decode", hit, "-o", out, "-q"])
                        good = res.returncode == 0 and open(out, "rb").read() == data
                    else:
                        with open(path, "wb") as g:
                            g.write(damage(dk, data, rng))
                        res, tt = timed(["par2", "repair", "-q", "-q", path + ".par2"])
                        good = res.returncode == 0 and open(path, "rb").read() == data
                        for p in glob.glob(path + ".*"):
                            if not p.endswith(".par2"):
                                os.remove(p)
                        with open(path, "wb") as g:
                            g.write(data)
                    ok += good
                    t_fix.append(tt)
                results[(name, dk)] = (ok, sorted(t_fix)[len(t_fix) // 2])
            rows.append((name, t, size))
        mib = len(data) / (1 << 20)
        print(f"{a.size} MiB of random data, {a.trials} trials per damage; cat took "
              f"{t_cat * 1000:.0f} ms.\n")
        print("| tool | protect (s) | MB/s | vs cat | extra bytes | " +
              " | ".join(KINDS) + " |")
        print("|---|---|---|---|---|" + "---|" * len(KINDS))
        for name, t, size in rows:
            cells = []
            for dk in KINDS:
                ok, tt = results[(name, dk)]
                cells.append(f"{ok}/{a.trials} ({tt:.2f} s)")
            print(f"| {name} | {t:.2f} | {mib / t:.0f} | {t_cat / t:.2f}x | "
                  f"{size / len(data) * 100:.1f} % | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
