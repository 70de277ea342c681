//! GF(2) linear algebra: tilecode's Four Russians kernels against the `bitgauss` crate.
//!
//! Matrices are n x n, filled from SplitMix64 with seed 1 (`BitMatrix::random`), the same
//! matrices that `scripts/m4ri/run.sh` hands to M4RI's `mzd_echelonize`; the RREF's rank and
//! checksum are printed once per size so the two runs can be checked to agree.
//!
//! `cargo bench --bench gf2` runs everything; `cargo bench --bench gf2 -- rref/` only the
//! row reductions. With `GF2_MEDIANS=SIZES` (e.g. `GF2_MEDIANS=4096,8192`) it instead prints, per
//! size, the median wall and thread-CPU seconds of `rref_in_place` and of bitgauss's `gauss(true)`
//! in the same format as `scripts/m4ri/bench.c`, so that `scripts/m4ri/compare.sh` can run both
//! back to back.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group};
use std::time::{Duration, Instant};
use tilecode::gf2::{BitMatrix, SplitMix64};

const SIZES: [usize; 4] = [1024, 2048, 4096, 8192];

fn matrix(n: usize) -> BitMatrix {
    BitMatrix::random(n, n, &mut SplitMix64::new(1))
}

fn to_bitgauss(m: &BitMatrix) -> bitgauss::BitMatrix {
    bitgauss::BitMatrix::build(m.rows(), m.cols(), |i, j| m.get(i, j))
}

/// FNV-1a over the packed words, as `scripts/m4ri/bench.c` computes it.
fn checksum(m: &BitMatrix) -> u64 {
    m.data().iter().fold(0xcbf2_9ce4_8422_2325, |h, &w| {
        (h ^ w).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn same_entries(ours: &BitMatrix, theirs: &bitgauss::BitMatrix) -> bool {
    (0..ours.rows()).all(|i| (0..ours.cols()).all(|j| ours.get(i, j) == theirs.bit(i, j)))
}

fn rref(c: &mut Criterion) {
    let mut group = c.benchmark_group("rref");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        let a = matrix(n);
        let b = to_bitgauss(&a);
        let mut r = a.clone();
        let rank = r.rref_in_place().len();
        eprintln!(
            "tilecode rref n={n} rank={rank} checksum={:016x}",
            checksum(&r)
        );
        let mut rb = b.clone();
        rb.gauss(true);
        assert!(same_entries(&r, &rb), "bitgauss computes the same RREF");
        group.throughput(Throughput::Bytes((n * n / 8) as u64));
        group.bench_with_input(BenchmarkId::new("tilecode", n), &a, |bench, a| {
            bench.iter_batched(
                || a.clone(),
                |mut m| m.rref_in_place(),
                BatchSize::LargeInput,
            )
        });
        group.bench_with_input(BenchmarkId::new("bitgauss", n), &b, |bench, b| {
            bench.iter_batched(|| b.clone(), |mut m| m.gauss(true), BatchSize::LargeInput)
        });
    }
    group.finish();
}

fn rank(c: &mut Criterion) {
    let mut group = c.benchmark_group("rank");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        let a = matrix(n);
        let b = to_bitgauss(&a);
        assert_eq!(a.rank(), b.rank());
        group.throughput(Throughput::Bytes((n * n / 8) as u64));
        group.bench_with_input(BenchmarkId::new("tilecode", n), &a, |bench, a| {
            bench.iter(|| a.rank())
        });
        group.bench_with_input(BenchmarkId::new("bitgauss", n), &b, |bench, b| {
            bench.iter(|| b.rank())
        });
    }
    group.finish();
}

fn echelon(c: &mut Criterion) {
    // RREF plus the transform T with T A = R, for repeated solving.
    let mut group = c.benchmark_group("echelon");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        let a = matrix(n);
        group.throughput(Throughput::Bytes((n * n / 8) as u64));
        group.bench_with_input(BenchmarkId::new("tilecode", n), &a, |bench, a| {
            bench.iter(|| a.echelon())
        });
    }
    group.finish();
}

fn product(c: &mut Criterion) {
    let mut group = c.benchmark_group("mul");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        let a = matrix(n);
        let b = BitMatrix::random(n, n, &mut SplitMix64::new(2));
        let (ga, gb) = (to_bitgauss(&a), to_bitgauss(&b));
        assert!(
            same_entries(&a.mul(&b), &(&ga * &gb)),
            "bitgauss computes the same product"
        );
        group.throughput(Throughput::Bytes((n * n / 8) as u64));
        group.bench_with_input(BenchmarkId::new("tilecode", n), &(a, b), |bench, (a, b)| {
            bench.iter(|| a.mul(b))
        });
        group.bench_with_input(
            BenchmarkId::new("bitgauss", n),
            &(ga, gb),
            |bench, (a, b)| bench.iter(|| a * b),
        );
    }
    group.finish();
}

fn transpose(c: &mut Criterion) {
    let mut group = c.benchmark_group("transpose");
    for n in SIZES {
        let a = matrix(n);
        let b = to_bitgauss(&a);
        group.throughput(Throughput::Bytes((n * n / 8) as u64));
        group.bench_with_input(BenchmarkId::new("tilecode", n), &a, |bench, a| {
            bench.iter(|| a.transpose())
        });
        group.bench_with_input(BenchmarkId::new("bitgauss", n), &b, |bench, b| {
            bench.iter(|| b.transposed())
        });
    }
    group.finish();
}

criterion_group!(benches, rref, rank, echelon, product, transpose);

/// Thread CPU time in seconds, where the platform tells it: on a shared, loaded machine it is
/// steadier than wall time, and it is what `scripts/m4ri/bench.c` reports next to wall time.
#[cfg(target_os = "linux")]
fn cpu_seconds() -> Option<f64> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut t = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (rc == 0).then_some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
}

#[cfg(not(target_os = "linux"))]
fn cpu_seconds() -> Option<f64> {
    None
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `run` on fresh copies of `input`; returns (median wall, min wall, median CPU) seconds.
fn time_runs<T: Clone>(input: &T, runs: usize, mut run: impl FnMut(T)) -> (f64, f64, f64) {
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let m = input.clone();
        let (t0, c0) = (Instant::now(), cpu_seconds());
        run(m);
        wall.push(t0.elapsed().as_secs_f64());
        cpu.push(cpu_seconds().zip(c0).map_or(f64::NAN, |(c1, c0)| c1 - c0));
    }
    let min = wall.iter().copied().fold(f64::INFINITY, f64::min);
    (median(wall), min, median(cpu))
}

/// The `GF2_MEDIANS` mode: one line per implementation and size.
fn medians(sizes: &str) {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    for n in sizes
        .split(',')
        .filter_map(|s| s.trim().parse::<usize>().ok())
    {
        let a = matrix(n);
        let mut rank = 0;
        let mut sum = 0;
        let (med, min, cpu) = time_runs(&a, runs, |mut m| {
            rank = m.rref_in_place().len();
            sum = checksum(&m);
        });
        println!(
            "tilecode rref_in_place n={n} runs={runs} seed=1 rank={rank} checksum={sum:016x} \
             median_s={med:.4} min_s={min:.4} median_cpu_s={cpu:.4}"
        );
        if std::env::var_os("NO_BITGAUSS").is_none() {
            let b = to_bitgauss(&a);
            let bruns = runs.min(3);
            let (med, min, cpu) = time_runs(&b, bruns, |mut m| m.gauss(true));
            println!(
                "bitgauss gauss(true) n={n} runs={bruns} seed=1 rank={} \
                 median_s={med:.4} min_s={min:.4} median_cpu_s={cpu:.4}",
                b.rank()
            );
        }
    }
}

fn main() {
    if let Ok(sizes) = std::env::var("GF2_MEDIANS") {
        medians(&sizes);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
