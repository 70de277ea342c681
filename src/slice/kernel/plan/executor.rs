//! The executor of a [`Plan`]: its data rows added into the accumulators a strip of the
//! rows at a time, then its program and its parity (or syndrome) rows; or, banded, a band
//! of rows into accumulators of whole rows ([`super::bands`]). One portable source,
//! compiled as it is, for AVX2 and for AVX-512 ([`plan_block`]).

use super::{Build, LANE, NONE, Plan, Run, WIDE_LANE, Xor};

impl Plan {
    /// A call of the executor in the build `build`: [`Plan::parity`] (`received` empty) or
    /// [`Plan::syndrome`] (`received`: the received parity rows and `any`) over strips of
    /// the rows ([`Stage::Whole`]), or a banded call over accumulators of whole rows of
    /// `rb` bytes.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn execute(
        &self,
        build: Build,
        rows: [&[u8]; 2],
        rb: usize,
        out: &mut [u8],
        received: (&[u8], &mut [u64]),
        acc: &mut Vec<u64>,
        stage: Stage,
    ) {
        if let Stage::Whole = stage {
            self.check(rows, rb, out);
        }
        let w = self.strip(rb, build.lane());
        let len = match stage {
            Stage::Whole => w,
            Stage::Feed(_) | Stage::Out => rb,
        };
        let call = Call {
            rows,
            rb,
            w,
            out,
            received,
            acc: aligned(acc, self.accs * len / 8),
            stage,
        };
        plan_block(build, self, call);
    }

    /// The portable source of [`Plan::parity`], [`Plan::syndrome`] and the banded calls
    /// ([`Plan::feed`], [`Plan::parity_of_fed`], [`Plan::syndrome_of_fed`]), inlined into
    /// its three builds.
    #[inline(always)]
    fn parity_body<const L: usize>(&self, call: Call<'_>) {
        let Call {
            rows,
            rb,
            w,
            out,
            received: (received, any),
            acc,
            stage,
        } = call;
        // (The strip loop inside each stage: one loop with the stage matched in it made the
        // whole-row kernel slower in an alternated run, alien:9x9 and secded:72 at `D =
        // 32768` 1.00-1.04 -> 0.87-0.91x memcpy.)
        let strips = (0..rb).step_by(w).map(|at| (at, w.min(rb - at)));
        match stage {
            Stage::Whole => {
                let stride = w / 8;
                for (at, len) in strips {
                    self.feed_strip::<L>(&self.runs, rows, 0, rb, at, len, acc, stride);
                    self.out_strip(rb, at, len, acc, stride, out, (received, &mut *any));
                }
            }
            Stage::Feed(first) => {
                let k = first + (rows[0].len() + rows[1].len()) / rb;
                let [runs, empty] = self.runs_within(first..k);
                for (at, len) in strips {
                    let acc = &mut acc[at / 8..];
                    self.feed_strip::<L>(runs, rows, first, rb, at, len, acc, rb / 8);
                    self.feed_strip::<L>(empty, rows, first, rb, at, len, acc, rb / 8);
                }
            }
            Stage::Out => {
                for (at, len) in strips {
                    let acc = &mut acc[at / 8..];
                    self.out_strip(rb, at, len, acc, rb / 8, out, (received, &mut *any));
                }
            }
        }
    }

    /// Adds bytes `at..at + len` of each row of `runs` to the accumulators: the rows are
    /// `rows[0]` then `rows[1]` (whole rows of `rb` bytes, the first numbered `base`), and
    /// accumulator `a` holds those bytes' words from word `a * stride` of `acc`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn feed_strip<const L: usize>(
        &self,
        runs: &[Run],
        rows: [&[u8]; 2],
        base: usize,
        rb: usize,
        at: usize,
        len: usize,
        acc: &mut [u64],
        stride: usize,
    ) {
        let split = base + rows[0].len() / rb;
        // A run's rows as at most two stretches of consecutive rows, one in each part.
        let stretches = |run: &Run| {
            let (a, b) = (run.first, run.first + run.len);
            let (m, n) = (a.min(split), b.min(split));
            let (c, d) = (a.max(split) - split, b.max(split) - split);
            [
                (&rows[0][(m - base) * rb..(n - base) * rb], m..n),
                (&rows[1][c * rb..d * rb], split + c..split + d),
            ]
        };
        let words = len / 8;
        // Whole lanes, then (in the AVX-512 build) one of 16 words, then four words and
        // single words at the end of a row.
        let main = words / L * L;
        let half = main + (words - main) / LANE * LANE;
        let fours = half + (words - half) / 4 * 4;
        for run in runs {
            let parts = stretches(run);
            self.run_words::<L>(run, &parts, rb, at, 0..main, stride, acc);
            self.run_words::<LANE>(run, &parts, rb, at, main..half, stride, acc);
            self.run_words::<4>(run, &parts, rb, at, half..fours, stride, acc);
            self.run_words::<1>(run, &parts, rb, at, fours..words, stride, acc);
        }
    }

    /// Runs the program over bytes `at..at + len` of the accumulators (as
    /// [`Plan::feed_strip`] holds them) and writes those bytes of the parity rows `out`, or
    /// with `received` (the received parity rows) of the syndrome rows, adding them into
    /// `any` as [`Plan::syndrome`] does.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn out_strip(
        &self,
        rb: usize,
        at: usize,
        len: usize,
        acc: &mut [u64],
        stride: usize,
        out: &mut [u8],
        (received, any): (&[u8], &mut [u64]),
    ) {
        let words = len / 8;
        for &Xor { dst, src, copy } in &self.program {
            let (d, s) = pair(acc, dst as usize * stride, src as usize * stride, words);
            if copy {
                d.copy_from_slice(s);
            } else {
                for (d, s) in d.iter_mut().zip(s.iter()) {
                    *d ^= *s;
                }
            }
        }
        for (q, &o) in self.outs.iter().enumerate() {
            let dst = out[q * rb + at..][..len].as_chunks_mut::<8>().0;
            let src = &acc[o as usize * stride..][..words];
            if received.is_empty() {
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = s.to_ne_bytes();
                }
            } else {
                let e = received[q * rb + at..][..len].as_chunks::<8>().0;
                let any = &mut any[at / 8..][..words];
                for (((d, s), e), a) in dst.iter_mut().zip(src).zip(e).zip(any) {
                    let v = s ^ u64::from_ne_bytes(*e);
                    *d = v.to_ne_bytes();
                    *a |= v;
                }
            }
        }
    }

    /// The words `span` (from byte `at` of each row) of a run's rows (`parts`: stretches of
    /// consecutive rows of `rb` bytes, with their numbers), `L` at a time: the shared
    /// accumulator's `L` words held while each row's are added to them and to the row's
    /// other accumulator. Accumulator `a` starts at word `a * stride` of `acc`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn run_words<const L: usize>(
        &self,
        run: &Run,
        parts: &[(&[u8], std::ops::Range<usize>); 2],
        rb: usize,
        at: usize,
        span: std::ops::Range<usize>,
        stride: usize,
        acc: &mut [u64],
    ) {
        let shared = usize::from(run.shared) * stride;
        for wi in span.step_by(L) {
            let mut s = [0u64; L];
            if !run.fresh {
                s.copy_from_slice(&acc[shared + wi..][..L]);
            }
            for (rows, ps) in parts.iter().filter(|(rows, _)| !rows.is_empty()) {
                match run.consecutive {
                    Some((base, fresh)) => {
                        // (`ps` starts at or after the run's first row: the part is not empty.)
                        let a = (usize::from(base) + ps.start - run.first) * stride + wi;
                        let at = at + 8 * wi;
                        if fresh {
                            consecutive_rows::<L, true>(rows, rb, at, &mut s, acc, a, stride);
                        } else {
                            consecutive_rows::<L, false>(rows, rb, at, &mut s, acc, a, stride);
                        }
                    }
                    None => {
                        let others = &self.others[ps.clone()];
                        for (r, o) in rows.chunks_exact(rb).zip(others) {
                            let x = load_words::<L>(r, at + 8 * wi);
                            for (s, x) in s.iter_mut().zip(&x) {
                                *s ^= *x;
                            }
                            if o.acc != NONE {
                                let d = &mut acc[o.acc as usize * stride + wi..][..L];
                                add_or_copy(d, &x, o.fresh);
                            }
                        }
                    }
                }
            }
            if run.shared != NONE {
                acc[shared + wi..][..L].copy_from_slice(&s);
            }
            for t in &self.sinks[run.sinks.clone()] {
                let d = &mut acc[t.acc as usize * stride + wi..][..L];
                add_or_copy(d, &s, t.fresh);
            }
        }
    }
}

/// `len` words of `acc` from a multiple of 64 bytes (`acc` grown as needed), so that no
/// 64-byte load or store of an accumulator straddles two cache lines. With the strips where
/// the allocator put them (16 bytes past a multiple of 64 for large vectors), the executor
/// ran 1.2-1.5x slower from cache (alien:9x9's rows of 4 KiB 52 -> 65 GB/s, secded:137's
/// 49 -> 74), and the deep codec 0-8 % slower (docs/benchmarks.md, "Accumulators on whole
/// cache lines").
pub(super) fn aligned(acc: &mut Vec<u64>, len: usize) -> &mut [u64] {
    acc.resize(len + 7, 0);
    let at = acc.as_ptr().align_offset(64);
    &mut acc[at..at + len]
}

/// The `L` words from byte `at` of row `r`.
#[inline(always)]
fn load_words<const L: usize>(r: &[u8], at: usize) -> [u64; L] {
    let bytes = r[at..][..8 * L].as_chunks::<8>().0;
    std::array::from_fn(|i| u64::from_ne_bytes(bytes[i]))
}

/// `d = x` when `copy`, else `d ^= x`.
#[inline(always)]
fn add_or_copy(d: &mut [u64], x: &[u64], copy: bool) {
    if copy {
        d.copy_from_slice(x);
    } else {
        for (d, x) in d.iter_mut().zip(x) {
            *d ^= *x;
        }
    }
}

/// The `L` words from byte `at` of each of `rows` (whole rows of `rb` bytes) added to `s`
/// and to the rows' others, consecutive accumulators of `stride` words whose words for the
/// first row start at word `a` of `acc`: copied into them when `FRESH`, else added.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn consecutive_rows<const L: usize, const FRESH: bool>(
    rows: &[u8],
    rb: usize,
    at: usize,
    s: &mut [u64; L],
    acc: &mut [u64],
    mut a: usize,
    stride: usize,
) {
    for r in rows.chunks_exact(rb) {
        let x = load_words::<L>(r, at);
        for (s, x) in s.iter_mut().zip(&x) {
            *s ^= *x;
        }
        add_or_copy(&mut acc[a..][..L], &x, FRESH);
        a += stride;
    }
}

/// The `len` words at `a` and at `b` of `acc` (`a != b`, the two ranges apart).
#[inline(always)]
fn pair(acc: &mut [u64], a: usize, b: usize, len: usize) -> (&mut [u64], &mut [u64]) {
    assert_ne!(a, b, "two accumulators");
    if a < b {
        let (lo, hi) = acc.split_at_mut(b);
        (&mut lo[a..][..len], &mut hi[..len])
    } else {
        let (lo, hi) = acc.split_at_mut(a);
        (&mut hi[..len], &mut lo[b..][..len])
    }
}

/// One call of the executor ([`Plan::parity_body`]): data rows of `rb` bytes (two parts),
/// the strip width `w`, the parity (or syndrome) rows `out`, the received parity rows and
/// the OR of the syndrome's words (empty for the parity), the accumulator strips (or whole
/// rows, banded), and what the call does.
struct Call<'a> {
    rows: [&'a [u8]; 2],
    rb: usize,
    w: usize,
    out: &'a mut [u8],
    received: (&'a [u8], &'a mut [u64]),
    acc: &'a mut [u64],
    stage: Stage,
}

/// What a call of the executor does.
#[derive(Clone, Copy)]
pub(super) enum Stage {
    /// Every data row into accumulator strips, then the parity (syndrome) rows, a strip at
    /// a time.
    Whole,
    /// The rows of a band (the first numbered as given) into whole-row accumulators.
    Feed(usize),
    /// The parity (syndrome) rows from whole-row accumulators, every band fed.
    Out,
}

/// A call of the executor in the build `build`: the portable source
/// ([`Plan::parity_body`]) compiled as it is, for AVX2 with lanes of 128 bytes, or for
/// AVX-512 with lanes of 512 bytes.
fn plan_block(build: Build, plan: &Plan, call: Call<'_>) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        fn avx2(plan: &Plan, call: Call<'_>) {
            plan.parity_body::<LANE>(call)
        }
        #[target_feature(enable = "avx512f")]
        fn avx512(plan: &Plan, call: Call<'_>) {
            plan.parity_body::<WIDE_LANE>(call)
        }
        match build {
            // SAFETY: the `Avx2` evidence shows that the CPU has AVX2.
            Build::Avx2(_) => return unsafe { avx2(plan, call) },
            // SAFETY: the `Avx512` evidence shows that the CPU has AVX-512 F.
            Build::Avx512(_) => return unsafe { avx512(plan, call) },
            Build::Portable => {}
        }
    }
    plan.parity_body::<LANE>(call)
}
