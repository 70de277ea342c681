//! The generic game solver: one reduction of the move space, then per-board solving, on
//! mid-size boards (lights-out up to 64x64, whose move matrix is 4096 x 4096).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use tilecode::game::qstate::{QSolver, random_solvable_q};
use tilecode::game::{Game, Pattern, Solve, Solver, random_solvable};

fn reduce(c: &mut Criterion) {
    let mut g = c.benchmark_group("game/reduce");
    g.sample_size(10);
    for n in [16usize, 32, 64] {
        let game = Game::new(Pattern::LightsOut, n, n);
        g.throughput(Throughput::Elements((n * n) as u64));
        g.bench_with_input(BenchmarkId::new("lights-out", n), &game, |b, game| {
            b.iter(|| Solver::new(black_box(game)).unwrap())
        });
    }
    let game = Game::new(Pattern::GaleBerlekamp, 64, 64);
    g.bench_with_input(BenchmarkId::new("gale-berlekamp", 64), &game, |b, game| {
        b.iter(|| Solver::new(black_box(game)).unwrap())
    });
    g.finish();
}

fn solve(c: &mut Criterion) {
    let mut g = c.benchmark_group("game/solve");
    for n in [16usize, 32, 64] {
        let game = Game::new(Pattern::LightsOut, n, n);
        let solver = Solver::new(&game).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let board = random_solvable(&game, &mut rng);
        g.throughput(Throughput::Elements((n * n) as u64));
        g.bench_with_input(BenchmarkId::new("lights-out", n), &board, |b, board| {
            b.iter(|| solver.solve(black_box(board)).unwrap())
        });
    }
    g.finish();
}

fn q_state(c: &mut Criterion) {
    let mut g = c.benchmark_group("game/q-state");
    g.sample_size(10);
    for (n, q) in [(8usize, 4u32), (16, 4), (16, 6)] {
        let game = Game::new(Pattern::LightsOut, n, n).with_states(q);
        g.bench_with_input(
            BenchmarkId::new(format!("lights-out/reduce/q{q}"), n),
            &game,
            |b, game| b.iter(|| QSolver::new(black_box(game)).unwrap()),
        );
        let solver = QSolver::new(&game).unwrap();
        let board = random_solvable_q(&game, &mut ChaCha20Rng::seed_from_u64(2));
        g.bench_with_input(
            BenchmarkId::new(format!("lights-out/solve/q{q}"), n),
            &board,
            |b, board| b.iter(|| solver.solve(black_box(board)).unwrap()),
        );
    }
    g.finish();
}

fn random(c: &mut Criterion) {
    let mut g = c.benchmark_group("game/random");
    for (spec, cells) in [
        ("lights-out:1024x1024", 1 << 20),
        ("alien:1024x1024", 1 << 20),
    ] {
        let game: Game = spec.parse().unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        g.throughput(Throughput::Elements(cells));
        g.bench_function(spec, |b| b.iter(|| random_solvable(&game, &mut rng)));
    }
    g.finish();
}

criterion_group!(benches, reduce, solve, q_state, random);
criterion_main!(benches);
