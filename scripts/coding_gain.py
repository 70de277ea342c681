#!/usr/bin/env python3
"""Coding gain at FER 1e-4 from `tilecode simulate --channel awgn --json` files.

For each code and decoder: the Eb/N0 where the simulated FER crosses 1e-4 (log-linear
interpolation between the two points around it), and the gain over uncoded BPSK sending the
same k bits per frame, whose FER is 1 - (1 - Q(sqrt(2 Eb/N0)))^k.
"""
import json
import math
import sys

TARGET = 1e-4


def q(x):
    return 0.5 * math.erfc(x / math.sqrt(2))


def uncoded_db(k):
    # FER(k) = TARGET  <=>  per-bit error rate = 1 - (1 - TARGET)^(1/k); bisection on Eb/N0.
    ber = -math.expm1(math.log1p(-TARGET) / k)
    lo, hi = 0.0, 20.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if q(math.sqrt(2 * 10 ** (mid / 10))) > ber:
            lo = mid
        else:
            hi = mid
    return lo


def crossing(points):
    pts = sorted((p["ebn0_db"], p["fer"]) for p in points)
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if y0 >= TARGET > y1 > 0:
            t = (math.log(y0) - math.log(TARGET)) / (math.log(y0) - math.log(y1))
            return x0 + t * (x1 - x0)
    return None


curves = {}
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        curves.setdefault((r["code"], r["decoder"], r["k"]), []).append(r)
print(f"{'code':<10} {'decoder':<13} {'Eb/N0 at FER 1e-4':>18} {'uncoded':>8} {'gain':>6}")
for (code, decoder, k), pts in curves.items():
    x = crossing(pts)
    u = uncoded_db(k)
    if x is None:
        print(f"{code:<10} {decoder:<13} {'not reached':>18} {u:8.2f}      -")
    else:
        print(f"{code:<10} {decoder:<13} {x:15.2f} dB {u:8.2f} {u - x:6.2f}")
