//! The recovery coder against memcpy of the same bytes, in the same run:
//! `StripeEncoder::add_many` with 4 chunks of 196 560 bytes a call, stripes of 100 chunks,
//! `R` = 2, 3 and 12 recovery shards (12: the shape of 5 % recovery, `K` = 240).
//!
//! * `stream`: 64 MiB of random chunks, 4 at a time, every stripe finished (as the encoder
//!   runs), against a memcpy of the 64 MiB;
//! * `hot`: the same 4 chunks again and again (they stay in cache, as a chunk the encoder
//!   has just coded does), against a memcpy of those 4 chunks.
//!
//! `cargo bench --bench stripe`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use tilecode::stream::bench::random_payload;
use tilecode::stream::stripe::{Plan, StripeEncoder};

const CHUNK: usize = 196_560;
const BATCH: usize = 4;

fn stripe(c: &mut Criterion) {
    let chunks = (64 << 20) / CHUNK / BATCH * BATCH;
    let bytes = chunks * CHUNK;
    let data = random_payload(bytes, 1);
    let mut copy = vec![0u8; bytes];
    let hot = BATCH * CHUNK;
    for recovery in [2, 3, 12] {
        let plan = Plan {
            stripe: 100,
            recovery,
        };
        let mut enc = StripeEncoder::new(plan, CHUNK).unwrap();
        let mut g = c.benchmark_group(format!("stripe/K100_R{recovery}"));
        g.sample_size(20)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        g.throughput(Throughput::Bytes(bytes as u64));
        g.bench_function(BenchmarkId::new("memcpy", "stream"), |b| {
            b.iter(|| copy.copy_from_slice(black_box(&data)))
        });
        g.bench_function(BenchmarkId::new("add_many", "stream"), |b| {
            b.iter(|| {
                for group in data.chunks(BATCH * CHUNK) {
                    let payloads: Vec<&[u8]> = group.chunks(CHUNK).collect();
                    let room = plan.stripe - enc.added();
                    let (now, next) = payloads.split_at(payloads.len().min(room));
                    enc.add_many(black_box(now)).unwrap();
                    if enc.full() {
                        enc.finish(|_, s| {
                            black_box(s);
                            Ok(())
                        })
                        .unwrap();
                    }
                    if !next.is_empty() {
                        enc.add_many(black_box(next)).unwrap();
                    }
                }
            })
        });
        g.throughput(Throughput::Bytes(hot as u64));
        g.bench_function(BenchmarkId::new("memcpy", "hot"), |b| {
            b.iter(|| copy[..hot].copy_from_slice(black_box(&data[..hot])))
        });
        g.bench_function(BenchmarkId::new("add_many", "hot"), |b| {
            let payloads: Vec<&[u8]> = data[..hot].chunks(CHUNK).collect();
            b.iter(|| {
                if plan.stripe - enc.added() < BATCH {
                    enc.finish(|_, s| {
                        black_box(s);
                        Ok(())
                    })
                    .unwrap();
                }
                enc.add_many(black_box(&payloads)).unwrap();
            })
        });
        g.finish();
    }
}

criterion_group!(benches, stripe);
criterion_main!(benches);
