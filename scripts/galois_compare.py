#!/usr/bin/env python3
"""Decoding speed of the Python `galois` library on BCH(127, 120), a Hamming code, against
tilecode's hamming:127 on the same machine.

galois: encodes a batch of random messages, flips one random bit in every codeword (so every
word needs a correction), and times `galois.BCH(127, 120).decode` on the whole batch after a
warm-up call (numba compiles on first use), checking that every message comes back.

tilecode: `tilecode simulate hamming:127 --p 0.0078125 --threads 1` (p = 1/127: about one
error per word) for a fixed number of frames. That is strictly more work per word than galois
does: random messages, bit-sliced encoding, the channel, decoding and counting.

Both sides are timed in wall-clock and in CPU seconds (the machine is shared, so CPU time is
the steadier figure); the ratio is words per second, tilecode over galois. Prints one JSON
object.

    pip install galois
    python3 scripts/galois_compare.py --words 20000 --tilecode target/release/tilecode
"""

import argparse
import json
import resource
import subprocess
import time

import galois
import numpy as np


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=20_000, help="codewords in the galois batch")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repetitions", type=int, default=3, help="timed runs; the best is kept")
    ap.add_argument("--tilecode", default="target/release/tilecode")
    ap.add_argument("--tilecode-frames", type=int, default=50_000_000)
    args = ap.parse_args()

    bch = galois.BCH(127, 120)
    assert (bch.n, bch.k, bch.d) == (127, 120, 3), "BCH(127, 120) is the [127, 120, 3] Hamming code"
    rng = np.random.default_rng(args.seed)
    gf = galois.GF(2)
    messages = gf(rng.integers(0, 2, size=(args.words, bch.k), dtype=np.uint8))
    codewords = bch.encode(messages)
    received = np.array(codewords, dtype=np.uint8)
    flips = rng.integers(0, bch.n, size=args.words)
    received[np.arange(args.words), flips] ^= 1
    received = gf(received)

    bch.decode(received[:100])  # warm-up: numba compilation
    wall, cpu = float("inf"), float("inf")
    for _ in range(args.repetitions):
        t, c = time.perf_counter(), time.process_time()
        decoded = bch.decode(received)
        wall = min(wall, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    if not np.array_equal(np.asarray(decoded), np.asarray(messages)):
        raise SystemExit("galois did not correct every single error")
    ours_cmd = [args.tilecode, "simulate", "hamming:127", "--p", "0.0078125", "--threads", "1",
                "--min-frame-errors", "0", "--max-frames", str(args.tilecode_frames), "--json"]
    c0 = child_cpu()
    out = subprocess.run(ours_cmd, check=True, capture_output=True, text=True).stdout
    ours_cpu = child_cpu() - c0
    r = json.loads(out)["results"][0]
    ours_wall = r["seconds"]
    frames = r["frames"]
    g_wall, g_cpu = args.words / wall, args.words / cpu
    t_wall, t_cpu = frames / ours_wall, frames / ours_cpu
    print(json.dumps({
        "galois": {
            "library": "galois " + galois.__version__, "code": "BCH(127,120)",
            "words": args.words, "errors_per_word": 1, "wall_seconds": wall,
            "cpu_seconds": cpu, "words_per_second_wall": g_wall, "words_per_second_cpu": g_cpu,
        },
        "tilecode": {
            "command": " ".join(["tilecode"] + ours_cmd[1:]), "code": "hamming:127",
            "frames": frames, "channel_bit_errors": r["channel_bit_errors"],
            "wall_seconds": ours_wall, "cpu_seconds": ours_cpu,
            "words_per_second_wall": t_wall, "words_per_second_cpu": t_cpu,
            "info_bits_per_second_wall": r["info_bits_per_second"],
        },
        "ratio_wall": t_wall / g_wall,
        "ratio_cpu": t_cpu / g_cpu,
    }, indent=1))


if __name__ == "__main__":
    main()
