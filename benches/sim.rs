//! Simulator speed: bit-sliced batches of 64 frames (information bits per second), the sliced
//! kernels' decoding alone, and the per-codeword reference path for contrast.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tilecode::code::from_spec_str;
use tilecode::sim::{Channel, Engine, Scratch, Simulator, SlicedCode};

fn batches(c: &mut Criterion) {
    let mut g = c.benchmark_group("sim_batch");
    for spec in [
        "alien:9x9",
        "secded:72",
        "hamming:127",
        "alien:31x33",
        "secded:1023",
    ] {
        let code = from_spec_str(spec).unwrap();
        let k = code.k() as u64;
        let sim = Simulator::new(
            code.as_ref(),
            Channel::Bsc { p: 1e-3 },
            1,
            1,
            Engine::Sliced,
        )
        .unwrap();
        // Information bits of one batch of 64 frames.
        g.throughput(Throughput::Elements(64 * k));
        let mut scratch = Scratch::default();
        let mut i = 0u64;
        g.bench_with_input(BenchmarkId::new("bsc_1e-3", spec), &sim, |b, sim| {
            b.iter(|| {
                i += 1;
                black_box(sim.batch(&mut scratch, i, !0))
            })
        });
    }
    g.finish();
}

fn decode_only(c: &mut Criterion) {
    let mut g = c.benchmark_group("sliced_decode");
    for spec in ["alien:9x9", "secded:72", "hamming:127"] {
        let code = from_spec_str(spec).unwrap();
        let kernel = SlicedCode::new(code.as_ref());
        let n = code.n();
        // 64 codewords with one error in every 8th lane, re-damaged each iteration.
        let mut clean = vec![0u64; n];
        for (i, w) in clean[..code.k()].iter_mut().enumerate() {
            *w = 0x9E37_79B9_7F4A_7C15u64.rotate_left(i as u32);
        }
        kernel.encode(&mut clean);
        let mut damaged = clean.clone();
        for lane in (0..64).step_by(8) {
            damaged[(lane * 7) % n] ^= 1 << lane;
        }
        g.throughput(Throughput::Elements(64));
        let mut w = damaged.clone();
        g.bench_function(BenchmarkId::new("64_words", spec), |b| {
            b.iter(|| {
                w.copy_from_slice(&damaged);
                black_box(kernel.decode(black_box(&mut w)))
            })
        });
    }
    g.finish();
}

fn reference(c: &mut Criterion) {
    let mut g = c.benchmark_group("reference_batch");
    let code = from_spec_str("alien:9x9").unwrap();
    let sim = Simulator::new(
        code.as_ref(),
        Channel::Bsc { p: 1e-3 },
        1,
        1,
        Engine::Reference,
    )
    .unwrap();
    g.throughput(Throughput::Elements(64 * code.k() as u64));
    let mut scratch = Scratch::default();
    let mut i = 0u64;
    g.bench_function("alien:9x9", |b| {
        b.iter(|| {
            i += 1;
            black_box(sim.batch(&mut scratch, i, !0))
        })
    });
    g.finish();
}

criterion_group!(benches, batches, decode_only, reference);
criterion_main!(benches);
