//! Shortest solutions and light chasing.
//!
//! `cargo bench --bench shortest`; the figures go into docs/benchmarks.md.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Duration;
use tilecode::game::alien;
use tilecode::game::chase::{Chaser, chase_solve, effect};
use tilecode::game::shortest::{
    Limits, alien_shortest, shortest_by_kernel, shortest_by_kernel_with,
};
use tilecode::game::{Board, Game};
use tilecode::gf2::BitVec;

fn random_bits(rng: &mut ChaCha8Rng, len: usize) -> BitVec {
    BitVec::from_bools(&(0..len).map(|_| rng.r#gen::<bool>()).collect::<Vec<_>>())
}

/// A uniformly random solvable board: the effect of random presses.
fn solvable(game: &Game, rng: &mut ChaCha8Rng) -> Board {
    effect(game, &random_bits(rng, game.num_moves())).unwrap()
}

/// Plus-pattern Lights Out: chase, solve the top-row system, chase again, and verify.
fn chase(c: &mut Criterion) {
    let mut g = c.benchmark_group("chase");
    g.sample_size(10).warm_up_time(Duration::from_millis(500));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for n in [1000usize, 4096] {
        let game: Game = format!("lights-out:{n}x{n}").parse().unwrap();
        let board = solvable(&game, &mut rng);
        g.throughput(Throughput::Elements((n * n) as u64));
        if n > 1000 {
            g.measurement_time(Duration::from_secs(60));
        }
        g.bench_with_input(
            BenchmarkId::new("lights-out-solve-verify", format!("{n}x{n}")),
            &board,
            |b, board| {
                b.iter(|| {
                    let p = chase_solve(&game, board).unwrap().expect("solvable");
                    assert_eq!(&effect(&game, &p).unwrap(), board);
                    black_box(p)
                })
            },
        );
    }
    // Reuse: the chaser is built once, each board costs two packed chases and a back
    // substitution.
    let game: Game = "lights-out:1000x1000".parse().unwrap();
    let chaser = Chaser::new(&game).unwrap();
    let board = solvable(&game, &mut rng);
    g.measurement_time(Duration::from_secs(5));
    g.bench_function("lights-out-reused-chaser/1000x1000", |b| {
        b.iter(|| black_box(chaser.solve(&board).unwrap()))
    });
    let game: Game = "squares:500x500".parse().unwrap();
    let board = solvable(&game, &mut rng);
    g.bench_function("squares-solve/500x500", |b| {
        b.iter(|| black_box(chase_solve(&game, &board).unwrap()))
    });
    g.finish();
}

fn alien_boards(m: usize, n: usize, rng: &mut ChaCha8Rng) -> Board {
    alien::psi(&Board::from_bits(m, n, random_bits(rng, m * n)).unwrap())
}

/// Alien Tiles shortest solutions: odd-by-odd (row enumeration) and even-by-odd (O(mn)).
fn alien(c: &mut Criterion) {
    let mut g = c.benchmark_group("alien-shortest");
    g.sample_size(10).warm_up_time(Duration::from_millis(500));
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for (m, n) in [
        (25usize, 25usize),
        (1000, 1001),
        (1001, 1000),
        (1000, 1000),
        (21, 1001),
    ] {
        let board = alien_boards(m, n, &mut rng);
        g.throughput(Throughput::Elements((m * n) as u64));
        g.bench_with_input(
            BenchmarkId::from_parameter(format!("{m}x{n}")),
            &board,
            |b, board| b.iter(|| black_box(alien_shortest(board).unwrap())),
        );
    }
    g.finish();
}

/// Exact searches over a kernel: the Gray-code walk alone (`probe: false`) and the default
/// strategy (a branch-and-bound probe first), on random kernels, 19x19 Lights Out (nullity 16)
/// and a 21x21 Alien Tiles game through its generic kernel (nullity 40, branch and bound).
fn kernel_search(c: &mut Criterion) {
    let mut g = c.benchmark_group("kernel-search");
    g.sample_size(10).warm_up_time(Duration::from_millis(500));
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let walk = Limits {
        probe: false,
        ..Limits::default()
    };
    let mut cases: Vec<(String, BitVec, Vec<BitVec>)> = Vec::new();
    for (d, len) in [(20usize, 400usize), (24, 100)] {
        let kernel: Vec<BitVec> = (0..d).map(|_| random_bits(&mut rng, len)).collect();
        let x = random_bits(&mut rng, len);
        cases.push((format!("random-nullity{d}-len{len}"), x, kernel));
    }
    for spec in ["lights-out:19x19", "alien:21x21"] {
        let game: Game = spec.parse().unwrap();
        let ech = game.move_matrix().echelon();
        let board = solvable(&game, &mut rng);
        let x = ech.solve(board.bits()).unwrap();
        cases.push((spec.replace(':', "-"), x, ech.kernel()));
    }
    for (name, x, kernel) in &cases {
        if kernel.len() <= 32 {
            g.bench_function(BenchmarkId::new("gray-walk", name), |b| {
                b.iter(|| black_box(shortest_by_kernel_with(x, kernel, &walk, None).unwrap()))
            });
        }
        g.bench_function(BenchmarkId::new("default", name), |b| {
            b.iter(|| black_box(shortest_by_kernel(x, kernel, None).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, chase, alien, kernel_search);
criterion_main!(benches);
