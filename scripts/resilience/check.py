#!/usr/bin/env python3
"""The resilient codec's promises, checked with the command line on real files.

Every run damages an encoded file, decodes it with `tilecode decode --keep-damaged --json` and
checks the outcome against the original:

* exit 0 only with exact output;
* exit 2 only with the original length (when known) and every byte outside `damaged_ranges`
  exact;
* exit 3 only for a stream cut short or unreadable;

and counts which damage the default settings repair. Damage: zeroed and 0xFF-filled sectors
of 512 B and 4 KiB at random places, random bit flips (1e-5 .. 1e-2), random byte overwrites,
insertions and deletions of 1, 7, 100 and 4096 bytes at the start, the middle and just before
the end, garbage of 1 MiB with --recovery 5 (repair required where 1 MiB spans at most the 12
chunks a stripe rebuilds: not with the small chunks of deep interleaving), and zzuf (an
independent fuzzer) when installed.

Usage: scripts/resilience/check.py [--size MiB] [--runs N] [--interleave D] [--tilecode PATH]
                                   [--codes SPEC,SPEC,...] [--json OUT]

`--interleave D` encodes every stream at depth D (default: the codec's default depth).
`--codes` names the codes of the per-code damage (default alien:9x9, secded:72, alien:4x5);
the garbage and zzuf checks always use alien:9x9. Other codes move the random positions of
the later checks: a run with `--codes alien:63x63,alien:16x17,alien:9x63` found the
end-of-stream bug that tests/stream_damage.rs now replays.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

CODES = ["alien:9x9", "secded:72", "alien:4x5"]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, **kw)


class Checker:
    def __init__(self, exe, tmp, interleave=None):
        self.exe, self.tmp = exe, tmp
        self.depth = ["--interleave", str(interleave)] if interleave else []
        self.tally = {}
        self.failures = []

    def encode(self, data, code, recovery):
        src = os.path.join(self.tmp, "orig.bin")
        with open(src, "wb") as f:
            f.write(data)
        out = os.path.join(self.tmp, f"orig.{code.replace(':', '_')}.{recovery}.tc")
        r = run([self.exe, "encode", src, "-o", out, "--code", code,
                 "--recovery", str(recovery), "--force", "-q", *self.depth])
        assert r.returncode == 0, r.stderr
        with open(out, "rb") as f:
            return f.read()

    def decode(self, damaged):
        p = os.path.join(self.tmp, "hit.tc")
        with open(p, "wb") as f:
            f.write(damaged)
        out = os.path.join(self.tmp, "out.bin")
        if os.path.exists(out):
            os.remove(out)
        r = run([self.exe, "decode", p, "-o", out, "--keep-damaged", "--json", "--force"])
        lines = [l for l in r.stderr.decode(errors="replace").splitlines() if l.startswith("{")]
        report = json.loads(lines[-1]) if lines else {}
        data = open(out, "rb").read() if os.path.exists(out) else b""
        return r.returncode, data, report

    def check(self, what, data, damaged, must_repair=False):
        code, out, rep = self.decode(damaged)
        ok = True
        why = ""
        if code == 0:
            ok = out == data
            why = "exit 0 with wrong output"
        elif code == 2:
            if not rep.get("length_unknown") and len(out) != len(data):
                ok, why = False, f"exit 2 with length {len(out)} != {len(data)}"
            else:
                at = 0
                ranges = sorted(tuple(r) for r in rep.get("damaged_ranges", []))
                n = min(len(out), len(data))
                for a, b in ranges + [(n, n)]:
                    a = min(a, n)
                    if out[at:a] != data[at:a]:
                        ok, why = False, "exit 2 with a wrong byte outside damaged_ranges"
                        break
                    at = max(at, b)
        elif code == 3:
            ok = "truncated" in rep.get("error", "") or rep.get("status") == "unreadable"
            why = f"exit 3: {rep.get('error')}"
        else:
            ok, why = False, f"exit {code}: {rep.get('error')}"
        if must_repair and code != 0:
            ok, why = False, f"not repaired (exit {code})"
        key = what.split(" @")[0]
        t = self.tally.setdefault(key, {"runs": 0, "exit0": 0, "exit2": 0, "exit3": 0, "broken": 0})
        t["runs"] += 1
        t[f"exit{code}" if code in (0, 2, 3) else "broken"] += 1
        if not ok:
            t["broken"] += 1
            self.failures.append(f"{what}: {why}")
        return code


def sectors(rng, d, size, count, fill):
    d = bytearray(d)
    for _ in range(count):
        a = rng.randrange(0, len(d) - size)
        d[a:a + size] = bytes([fill]) * size if fill is not None else os.urandom(size)
    return bytes(d)


def flips(rng, d, ber):
    d = bytearray(d)
    for _ in range(int(len(d) * 8 * ber)):
        b = rng.randrange(len(d) * 8)
        d[b // 8] ^= 1 << (b % 8)
    return bytes(d)


def overwrites(rng, d, count):
    d = bytearray(d)
    for _ in range(count):
        d[rng.randrange(len(d))] = rng.randrange(256)
    return bytes(d)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=16)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--interleave", type=int)
    ap.add_argument("--tilecode", default="target/release/tilecode")
    ap.add_argument("--json")
    ap.add_argument("--codes", default=",".join(CODES),
                    help="comma-separated specs to damage (default: %(default)s)")
    a = ap.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        c = Checker(os.path.abspath(a.tilecode), tmp, a.interleave)
        data = os.urandom(a.size << 20)
        for code in a.codes.split(","):
            enc = c.encode(data, code, 2)
            for _ in range(a.runs):
                for size in (512, 4096):
                    for fill in (0, 0xFF):
                        c.check(f"{code} 20 sectors of {size} B of {fill:#x}", data,
                                sectors(rng, enc, size, 20, fill))
                at = rng.randrange(0, len(enc) // 4096) * 4096
                for fill in (0, 0xFF):
                    c.check(f"{code} one lost 4 KiB sector @{at}", data,
                            sectors(random.Random(at), enc, 4096, 1, fill), must_repair=True)
                ber = rng.choice([1e-5, 1e-4, 1e-3, 1e-2])
                c.check(f"{code} bit flips at {ber:g}", data, flips(rng, enc, ber))
                c.check(f"{code} 300 byte overwrites", data, overwrites(rng, enc, 300))
            for n in (1, 7, 100, 4096):
                for where, at in (("start", 0), ("middle", len(enc) // 2),
                                  ("before the end", len(enc) - 192 - n)):
                    c.check(f"{code} delete {n} at the {where}", data,
                            enc[:at] + enc[at + n:], must_repair=True)
                    c.check(f"{code} insert {n} at the {where}", data,
                            enc[:at] + os.urandom(n) + enc[at:], must_repair=True)
        # Without recovery: a cut costs the chunks it touches, and the report says where.
        enc0 = c.encode(data, "alien:9x9", 0)
        for n in (1, 7, 100, 4096):
            at = len(enc0) // 2
            code, out, rep = c.decode(enc0[:at] + enc0[at + n:])
            lost = sum(b - a for a, b in rep.get("damaged_ranges", []))
            c.check(f"recovery 0: delete {n} in the middle", data, enc0[:at] + enc0[at + n:])
            c.tally[f"recovery 0: delete {n} in the middle"]["lost_bytes"] = lost
            c.tally[f"recovery 0: delete {n} in the middle"]["skipped_bytes"] = rep.get("skipped_bytes")
        # 32 MiB with --recovery 5: a megabyte of garbage anywhere. 5 % rebuilds 12 chunks a
        # stripe, so repair is promised when 1 MiB spans at most 12 encoded chunks: the
        # default chunks (191 KiB at D = 64) do; the chunks of deep interleaving (about
        # 64 KiB) do not, and there only an honest report is promised.
        big = os.urandom(32 << 20)
        enc5 = c.encode(big, "alien:9x9", 5)
        p5 = os.path.join(c.tmp, "enc5.tc")
        with open(p5, "wb") as f:
            f.write(enc5)
        info = json.loads(run([c.exe, "verify", p5, "--json"]).stdout)
        enc_chunk = info["chunk_size"] * len(enc5) / len(big)
        promised = -(-(1 << 20) // int(enc_chunk)) + 1 <= 12
        what = "recovery 5, 32 MiB: 1 MiB of garbage" + (
            "" if promised else f" (chunks of {info['chunk_size']} bytes: repair not promised)")
        for _ in range(max(3, a.runs // 2)):
            at = rng.randrange(0, len(enc5) - (1 << 20))
            g = enc5[:at] + os.urandom(1 << 20) + enc5[at + (1 << 20):]
            c.check(what, big, g, must_repair=promised)
        # zzuf, an independent damage tool: byte flips at a ratio, seeded.
        if shutil.which("zzuf"):
            enc = c.encode(data, "alien:9x9", 2)
            for seed in range(a.runs):
                for ratio in ("0.00001", "0.0001", "0.001"):
                    r = run(["zzuf", "-r", ratio, "-s", str(seed)], input=enc)
                    c.check(f"zzuf -r {ratio}", data, r.stdout)
        else:
            print("zzuf not found: its checks were skipped (apt-get install zzuf)",
                  file=sys.stderr)
        print(json.dumps(c.tally, indent=1))
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"tally": c.tally, "failures": c.failures}, f, indent=1)
        if c.failures:
            print(f"{len(c.failures)} BROKEN PROMISES:", *c.failures[:30], sep="\n  ")
            sys.exit(1)
        print("every promise held")


if __name__ == "__main__":
    main()
