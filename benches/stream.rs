//! Streaming codec throughput against memcpy of the same buffer, in the same run:
//! 256 MiB of random bytes, interleave 64, for alien:9x9 and secded:72, with a memcpy of the
//! same buffer and a CRC-32C of it (the checksum every chunk carries) as baselines.
//!
//! `cargo bench --bench stream` (set `TILECODE_BENCH_MIB` for another size).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use tilecode::stream::bench::{apply_ber, random_payload};
use tilecode::stream::{Options, decode_into, encode_into};

fn stream(c: &mut Criterion) {
    let mib: usize = std::env::var("TILECODE_BENCH_MIB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let bytes = mib << 20;
    let data = random_payload(bytes, 1);
    let mut copy = vec![0u8; bytes];
    let mut dec = Vec::with_capacity(bytes);
    for spec in ["alien:9x9", "secded:72"] {
        let opts = Options::new(spec.parse().unwrap(), 64);
        let mut enc = Vec::new();
        encode_into(&data, &opts, &mut enc).unwrap();
        let mut noisy = enc.clone();
        apply_ber(&mut noisy, 1e-4, 2);
        let mut g = c.benchmark_group(format!("stream/{spec}/D64"));
        g.sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4))
            .throughput(Throughput::Bytes(bytes as u64));
        g.bench_function(BenchmarkId::new("memcpy", mib), |b| {
            b.iter(|| copy.copy_from_slice(black_box(&data)))
        });
        // The CRC-32C every chunk must carry, alone: a floor under encode and decode.
        g.bench_function(BenchmarkId::new("crc32c", mib), |b| {
            b.iter(|| crc32c::crc32c(black_box(&data)))
        });
        g.bench_function(BenchmarkId::new("encode", mib), |b| {
            b.iter(|| encode_into(black_box(&data), &opts, &mut enc).unwrap())
        });
        g.bench_function(BenchmarkId::new("decode_clean", mib), |b| {
            b.iter(|| decode_into(black_box(&enc), false, &mut dec).unwrap())
        });
        g.bench_function(BenchmarkId::new("decode_ber_1e-4", mib), |b| {
            b.iter(|| decode_into(black_box(&noisy), true, &mut dec).unwrap())
        });
        g.finish();
    }
}

criterion_group!(benches, stream);
criterion_main!(benches);
