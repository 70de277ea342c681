#!/usr/bin/env python3
"""Decoding speed of the Python `galois` library on BCH(127, 120), a Hamming code.

Encodes a batch of random messages, flips one random bit in every codeword (so every word
needs a correction), and times `galois.BCH(127, 120).decode` on the whole batch after a
warm-up call (numba compiles on first use). Checks that every message comes back, and prints
one JSON object: codewords and information bits decoded per second.

    pip install galois
    python3 scripts/galois_compare.py --words 200000 --seed 1
"""

import argparse
import json
import time

import galois
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=200_000, help="codewords in the batch")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repetitions", type=int, default=3, help="timed runs; the best is kept")
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

    bch.decode(received[:1000])  # warm-up: numba compilation
    best = float("inf")
    for _ in range(args.repetitions):
        t = time.perf_counter()
        decoded = bch.decode(received)
        best = min(best, time.perf_counter() - t)
    if not np.array_equal(np.asarray(decoded), np.asarray(messages)):
        raise SystemExit("galois did not correct every single error")
    print(json.dumps({
        "library": "galois " + galois.__version__,
        "code": "BCH(127,120)",
        "words": args.words,
        "errors_per_word": 1,
        "seconds": best,
        "words_per_second": args.words / best,
        "info_bits_per_second": args.words * bch.k / best,
    }))


if __name__ == "__main__":
    main()
