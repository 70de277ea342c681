//! GF(2) linear algebra: tilecode's Four Russians kernels against the `bitgauss` crate.
//!
//! Matrices are n x n, filled from SplitMix64 with seed 1 (`BitMatrix::random`), the same
//! matrices that `scripts/m4ri/run.sh` hands to M4RI's `mzd_echelonize`; the RREF's rank and
//! checksum are printed once per size so the two runs can be checked to agree.
//!
//! `cargo bench --bench gf2` runs everything; `cargo bench --bench gf2 -- rref/` only the
//! row reductions.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;
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
criterion_main!(benches);
