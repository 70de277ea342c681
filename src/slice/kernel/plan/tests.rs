//! The plans against the lane-block kernels, and compiled plans against their literal meaning.

use super::*;
use crate::code::{self, Spec};
use crate::slice::kernel::V;
use rand::{RngCore, SeedableRng};

/// Every build of the executor this CPU runs: portable, AVX2, AVX-512.
fn builds() -> Vec<Build> {
    let mut builds = vec![Build::Portable];
    builds.extend(Avx2::detect().map(Build::Avx2));
    builds.extend(crate::cpu::Avx512::detect().map(Build::Avx512));
    builds
}

/// Codes of every family, of many sizes.
fn specs() -> Vec<Spec> {
    let mut specs: Vec<Spec> = Vec::new();
    for m in 1..=9 {
        for n in 1..=9 {
            specs.push(Spec::Alien { rows: m, cols: n });
        }
    }
    specs.extend(
        [(17, 33), (33, 17), (16, 63), (63, 5), (64, 64)]
            .map(|(m, n)| Spec::Alien { rows: m, cols: n }),
    );
    specs.extend((4..=140).step_by(3).map(Spec::Secded));
    specs.extend((3..=140).step_by(3).map(Spec::Hamming));
    specs.extend([Spec::Secded(1024), Spec::Hamming(1024), Spec::Secded(72)]);
    specs.extend((2..=6).map(Spec::Repetition));
    specs.extend((2..=9).map(Spec::Parity));
    specs.extend([(3, 3), (4, 5), (8, 8)].map(|(m, n)| Spec::Product { rows: m, cols: n }));
    specs
}

/// The parity rows as sets of data rows (for codes of at most 64 data rows) are the
/// lane-block kernel's: a data row of ones alone gives ones in exactly the parity rows whose
/// set holds it.
#[test]
fn parity_sets_match_the_lane_block_kernels() {
    let mut checked = 0;
    for spec in specs() {
        let code = code::build(&spec);
        let kernel = Kernel::for_code(code.as_ref());
        let (k, r) = (code.k(), code.n() - code.k());
        let plan = Plan::for_kernel(&kernel, k);
        let Some(sets) = plan.parity_sets() else {
            assert!(k > 64, "{spec}: sets up to 64 data rows");
            continue;
        };
        assert_eq!(sets.len(), r, "{spec}");
        let mut par = vec![V::<1>::zero(); r];
        let mut scratch = vec![V::<1>::zero(); kernel.scratch_len()];
        for i in 0..k {
            let mut rows = vec![0u8; 8 * k];
            rows[8 * i..8 * i + 8].fill(0xFF);
            kernel.parity::<1>(None, &rows, &mut par, &mut scratch);
            for (q, v) in par.iter().enumerate() {
                let want = if sets[q] >> i & 1 == 1 { u64::MAX } else { 0 };
                assert_eq!(v.0[0], want, "{spec}: data row {i}, parity row {q}");
            }
        }
        checked += 1;
    }
    assert!(checked > 100, "most codes have sets");
}

/// Every family and many widths: the plan's parity rows equal the lane-block kernel's,
/// block by block, on random rows of 8 to 520 bytes split anywhere between the two
/// parts, in every build.
#[test]
fn plans_match_the_lane_block_kernels() {
    let specs = specs();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    let mut acc = Vec::new();
    for spec in specs {
        let code = code::build(&spec);
        let kernel = Kernel::for_code(code.as_ref());
        let (k, r) = (code.k(), code.n() - code.k());
        let plan = Plan::for_kernel(&kernel, k);
        assert_eq!((plan.data_rows(), plan.parity_rows()), (k, r), "{spec}");
        for rb in [8, 64, 72, 392, 520] {
            let mut data = vec![0u8; k * rb];
            rng.fill_bytes(&mut data);
            // The lane-block kernel, one word (lane block of B = 1) at a time.
            let mut want = vec![0u8; r * rb];
            let mut par = vec![V::<1>::zero(); r];
            let mut scratch = vec![V::<1>::zero(); kernel.scratch_len()];
            for off in (0..rb).step_by(8) {
                let rows: Vec<u8> = data
                    .chunks_exact(rb)
                    .flat_map(|row| row[off..off + 8].to_vec())
                    .collect();
                kernel.parity::<1>(None, &rows, &mut par, &mut scratch);
                for (q, v) in par.iter().enumerate() {
                    v.store(&mut want[q * rb + off..]);
                }
            }
            let split = (rng.next_u32() as usize % (k + 1)) * rb;
            for build in builds() {
                let mut got = vec![0xA5u8; r * rb];
                let rows = [&data[..split], &data[split..]];
                plan.execute(
                    build,
                    rows,
                    rb,
                    &mut got,
                    (&[], &mut []),
                    &mut acc,
                    Stage::Whole,
                );
                assert_eq!(got, want, "{spec} rb {rb} split {split} {build:?}");
            }
        }
    }
}

/// What a plan means, run literally: every accumulator from zero, each data row added
/// to its feeds, then the program in order, then the parity rows copied out.
fn literal(plan: &Plan, data: &[u8], rb: usize) -> Vec<u8> {
    let mut acc = vec![vec![0u8; rb]; plan.accs];
    let add = |d: &mut Vec<u8>, s: &[u8]| d.iter_mut().zip(s).for_each(|(d, s)| *d ^= s);
    for (p, f) in plan.feeds.iter().enumerate() {
        for &a in f.iter().filter(|&&a| a != NONE) {
            add(&mut acc[a as usize], &data[p * rb..][..rb]);
        }
    }
    for x in &plan.program {
        let src = acc[x.src as usize].clone();
        add(&mut acc[x.dst as usize], &src);
    }
    plan.outs
        .iter()
        .flat_map(|&o| acc[o as usize].clone())
        .collect()
}

/// Random plans (feeds that share an accumulator with the next row or not, programs
/// that read and write in any order, parity rows of any accumulator or of none that is
/// written): the compiled plan on random rows equals the plan run literally, for rows
/// of every remainder of the lane, on accumulators left dirty by the last call.
#[test]
fn compiled_plans_mean_what_they_say() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let mut pick = |n: u32| rng.next_u32() % n;
    let mut acc = Vec::new();
    for case in 0..3000 {
        let mut b = Builder::new();
        let accs = 1 + pick(10) as u16;
        b.accs(accs as usize);
        let any = |x: u32| if x < u32::from(accs) { x as u16 } else { NONE };
        let rows = pick(12) as usize;
        let mut last = NONE;
        for _ in 0..rows {
            let a = if pick(3) > 0 && last != NONE {
                last
            } else {
                any(pick(accs as u32 + 2))
            };
            let mut c = any(pick(accs as u32 + 3));
            if c == a {
                c = NONE;
            }
            last = a;
            b.feed(a, c);
        }
        for _ in 0..pick(12) {
            let (dst, src) = (pick(accs as u32) as u16, pick(accs as u32) as u16);
            if dst != src {
                b.xor(dst, src);
            }
        }
        b.plan.outs = (0..pick(6)).map(|_| pick(accs as u32) as u16).collect();
        let spec = b.plan.clone();
        b.plan.compile();
        let plan = b.plan;
        for rb in [8, 40, 128, 200, 328, 392, 520] {
            let mut data = vec![0u8; rows * rb];
            rng_fill(&mut data, case as u64 * 7 + rb as u64);
            let want = literal(&spec, &data, rb);
            for build in builds() {
                let mut got = vec![0xA5u8; want.len()];
                let split = rows / 2 * rb;
                plan.execute(
                    build,
                    [&data[..split], &data[split..]],
                    rb,
                    &mut got,
                    (&[], &mut []),
                    &mut acc,
                    Stage::Whole,
                );
                assert_eq!(got, want, "case {case} rb {rb} {build:?}: {spec:?}");
                // The syndrome: the parity plus rows received, and the OR of its words.
                let mut received = vec![0u8; want.len()];
                rng_fill(&mut received, case as u64 * 11 + rb as u64);
                let syn: Vec<u8> = want.iter().zip(&received).map(|(a, b)| a ^ b).collect();
                let mut any_want = vec![0u64; rb / 8];
                for row in syn.chunks_exact(rb) {
                    for (a, w) in any_want.iter_mut().zip(row.as_chunks::<8>().0) {
                        *a |= u64::from_ne_bytes(*w);
                    }
                }
                let mut any = vec![0u64; rb / 8];
                plan.execute(
                    build,
                    [&data[..split], &data[split..]],
                    rb,
                    &mut got,
                    (&received, &mut any),
                    &mut acc,
                    Stage::Whole,
                );
                assert_eq!(
                    got, syn,
                    "syndrome, case {case} rb {rb} {build:?}: {spec:?}"
                );
                assert_eq!(any, any_want, "any, case {case} rb {rb} {build:?}");
                for budget in [1, 2 * rb, 5 * rb, usize::MAX] {
                    let (par, _) = banded(&plan, build, &data, rb, budget, &[]);
                    assert_eq!(par, want, "banded {budget}, case {case} rb {rb} {build:?}");
                    let (s, a) = banded(&plan, build, &data, rb, budget, &received);
                    assert_eq!((s, a), (syn.clone(), any_want.clone()), "banded syndrome");
                }
            }
        }
    }
}

/// The parity rows of `data` (rows of `rb` bytes), or with `received` the syndrome rows and
/// the OR of their words, through the plan fed a band at a time ([`Plan::bands`] of
/// `budget` bytes), each band's rows in two parts split in their middle.
fn banded(
    plan: &Plan,
    build: Build,
    data: &[u8],
    rb: usize,
    budget: usize,
    received: &[u8],
) -> (Vec<u8>, Vec<u64>) {
    let bands = plan.bands(rb, budget);
    let k = plan.data_rows();
    assert_eq!(bands.first().map_or(0, |b| b.start), 0, "from row 0");
    assert_eq!(bands.last().map_or(0, |b| b.end), k, "to the last row");
    assert!(
        bands.windows(2).all(|w| w[0].end == w[1].start),
        "consecutive"
    );
    // (Stale accumulators: the first writes of each are copies.)
    let mut acc = vec![0x5A5A_5A5A_5A5A_5A5A; plan.accs * rb / 8 + 7];
    for b in bands {
        let mid = (b.start + b.end) / 2;
        let parts = [&data[b.start * rb..mid * rb], &data[mid * rb..b.end * rb]];
        let stage = Stage::Feed(b.start);
        plan.execute(build, parts, rb, &mut [], (&[], &mut []), &mut acc, stage);
    }
    let mut out = vec![0xA5u8; plan.parity_rows() * rb];
    let mut any = vec![0u64; rb / 8];
    let received = (received, &mut any[..]);
    plan.execute(
        build,
        [&[], &[]],
        rb,
        &mut out,
        received,
        &mut acc,
        Stage::Out,
    );
    (out, any)
}

/// Every family's plan fed in bands gives [`Plan::parity`]'s rows and [`Plan::syndrome`]'s.
#[test]
fn banded_plans_match_whole_ones() {
    let mut acc = Vec::new();
    for (c, spec) in specs().into_iter().enumerate() {
        let code = code::build(&spec);
        let plan = Plan::for_kernel(&Kernel::for_code(code.as_ref()), code.k());
        for rb in [8, 64, 520] {
            let mut data = vec![0u8; plan.data_rows() * rb];
            rng_fill(&mut data, c as u64 * 3 + rb as u64);
            let mut received = vec![0u8; plan.parity_rows() * rb];
            rng_fill(&mut received, c as u64 * 5 + rb as u64);
            for build in builds() {
                let mut want = vec![0u8; received.len()];
                plan.execute(
                    build,
                    [&data, &[]],
                    rb,
                    &mut want,
                    (&[], &mut []),
                    &mut acc,
                    Stage::Whole,
                );
                let mut syn = vec![0u8; received.len()];
                let mut any = vec![0u64; rb / 8];
                let call = (&received[..], &mut any[..]);
                plan.execute(
                    build,
                    [&data, &[]],
                    rb,
                    &mut syn,
                    call,
                    &mut acc,
                    Stage::Whole,
                );
                for budget in [1, 3 * rb, 64 * rb] {
                    let got = banded(&plan, build, &data, rb, budget, &[]);
                    assert_eq!(got.0, want, "{spec} rb {rb} budget {budget} {build:?}");
                    let got = banded(&plan, build, &data, rb, budget, &received);
                    assert_eq!(got, (syn.clone(), any.clone()), "{spec} rb {rb} {build:?}");
                }
            }
        }
    }
}

fn rng_fill(buf: &mut [u8], seed: u64) {
    rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(buf);
}

/// Strips keep the accumulators within the budget, are whole lines, and cover a row.
#[test]
fn strips_fit_the_budget() {
    for spec in [Spec::Alien { rows: 9, cols: 9 }, Spec::Secded(1024)] {
        let code = code::build(&spec);
        let plan = Plan::for_kernel(&Kernel::for_code(code.as_ref()), code.k());
        for rb in [8, 64, 512, 4096, 8192] {
            for lane in [128, 256] {
                let w = plan.strip(rb, lane);
                assert!(w <= rb && w > 0, "{spec} {rb} {w}");
                assert!(w == rb || w.is_multiple_of(lane), "{spec} {rb} {w}");
                assert!(w * plan.accs <= STRIP_BUDGET.max(lane * plan.accs));
            }
        }
    }
}

/// The whole-row kernel with its rows in cache, against a copy of the same rows in cache:
/// GB/s of data rows, best of 7 runs of 64 MiB each (docs/benchmarks.md, "Where the
/// low-rate codes' time goes: the whole-row kernel in cache").
/// `cargo test --release --lib whole_row_kernel_in_cache -- --ignored --nocapture`
#[test]
#[ignore = "a measurement, not a check"]
fn whole_row_kernel_in_cache() {
    let avx2 = crate::cpu::Avx2::detect();
    for rb in [512, 4096] {
        for spec in [
            "alien:3x3",
            "alien:5x5",
            "alien:9x9",
            "alien:17x17",
            "alien:33x33",
            "alien:4x9",
            "secded:16",
            "secded:39",
            "secded:72",
            "hamming:137",
            "hamming:1024",
        ] {
            let spec: Spec = spec.parse().unwrap();
            let code = code::build(&spec);
            let kernel = Kernel::for_code(code.as_ref());
            let k = code.k();
            let plan = Plan::for_kernel(&kernel, k);
            let data: Vec<u8> = (0..k * rb)
                .map(|i| ((i * 2_654_435_761) >> 7) as u8)
                .collect();
            let mut out = vec![0u8; plan.parity_rows() * rb];
            let mut copy = vec![0u8; k * rb];
            let mut acc = Vec::new();
            let times = (64 << 20) / data.len();
            let best = |f: &mut dyn FnMut()| {
                (0..7)
                    .map(|_| {
                        let t = std::time::Instant::now();
                        for _ in 0..times {
                            f();
                        }
                        (times * data.len()) as f64 / 1e9 / t.elapsed().as_secs_f64()
                    })
                    .fold(0.0, f64::max)
            };
            let kernel_gbs = best(&mut || {
                plan.parity(avx2, [&data, &[]], rb, &mut out, &mut acc);
                std::hint::black_box(&out);
            });
            let copy_gbs = best(&mut || {
                copy.copy_from_slice(std::hint::black_box(&data));
                std::hint::black_box(&copy);
            });
            println!(
                "{spec:>13} rows of {rb:>4} bytes, k = {k:>4}: kernel {kernel_gbs:5.1} GB/s, copy {copy_gbs:5.1} GB/s ({:.2}x)",
                kernel_gbs / copy_gbs
            );
        }
    }
}

/// The accumulators start on a cache line, however the vector was allocated and grown, and
/// are as long as asked.
#[test]
fn accumulators_start_on_a_cache_line() {
    for (have, len) in [(0, 1), (3, 64), (1000, 24), (5, 3072), (70_000, 65_536)] {
        let mut acc = vec![1u64; have];
        let lines = aligned(&mut acc, len);
        assert_eq!(lines.len(), len);
        assert!((lines.as_ptr() as usize).is_multiple_of(64), "{have} {len}");
    }
}
