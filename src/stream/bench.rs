//! Throughput of the codec against memcpy of the same buffer, measured in the same run: what
//! `tilecode bench` reports and `benches/stream.rs` measures with criterion.

use super::{DecodeOptions, Options, Report, decode_with, encode_into};
use crate::code::Spec;
use crate::error::{Error, Result};
use crate::noise::Geometric;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::time::{Duration, Instant};

/// Repetitions [`bench_throughput`] takes the median of.
pub const DEFAULT_REPETITIONS: usize = 5;

/// Measured throughputs; every rate is in original (payload) bytes per second.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ThroughputReport {
    /// The code.
    pub spec: String,
    /// Interleave depth.
    pub interleave: usize,
    /// Payload bytes per run.
    pub bytes: usize,
    /// Encoded bytes per run.
    pub encoded_bytes: usize,
    /// Bit error rate of the noisy decode.
    pub ber: f64,
    /// Bits flipped in the encoded stream for the noisy decode.
    pub flipped_bits: u64,
    /// Runs per measurement (the median is reported).
    pub repetitions: usize,
    /// Threads that encode and decode ([`Options::threads`], `0` resolved to the number of
    /// cores); memcpy always runs on one thread.
    pub threads: usize,
    /// memcpy of the payload on one thread, bytes per second.
    pub memcpy_bytes_per_sec: f64,
    /// Encoding, bytes per second.
    pub encode_bytes_per_sec: f64,
    /// Decoding a clean stream, bytes per second.
    pub decode_clean_bytes_per_sec: f64,
    /// Decoding the noisy stream (leniently), bytes per second.
    pub decode_noisy_bytes_per_sec: f64,
    /// Encode throughput over memcpy's, the median of the per-run ratios (each run times
    /// memcpy and the codec back to back, so that load on a shared machine cancels out).
    pub encode_vs_memcpy: f64,
    /// Clean decode throughput over memcpy's, as for `encode_vs_memcpy`.
    pub decode_clean_vs_memcpy: f64,
    /// Noisy decode throughput over memcpy's, as for `encode_vs_memcpy`.
    pub decode_noisy_vs_memcpy: f64,
    /// The noisy decode's report.
    pub noisy_report: Report,
    /// Whether the noisy decode restored the payload exactly.
    pub noisy_exact: bool,
}

impl ThroughputReport {
    /// Encode throughput as a fraction of memcpy (median of the per-run ratios).
    pub fn encode_ratio(&self) -> f64 {
        self.encode_vs_memcpy
    }

    /// Clean decode throughput as a fraction of memcpy (median of the per-run ratios).
    pub fn decode_clean_ratio(&self) -> f64 {
        self.decode_clean_vs_memcpy
    }

    /// Noisy decode throughput as a fraction of memcpy (median of the per-run ratios).
    pub fn decode_noisy_ratio(&self) -> f64 {
        self.decode_noisy_vs_memcpy
    }
}

/// `bytes` of seeded pseudo-random payload.
pub fn random_payload(bytes: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; bytes];
    ChaCha20Rng::seed_from_u64(seed).fill_bytes(&mut v);
    v
}

/// Flips each bit of `buf` independently with probability `ber` (a binary symmetric
/// channel), seeded; returns the number of bits flipped. Bits are numbered least significant
/// first within each byte. The gaps between flips come from [`crate::noise::Geometric`], the
/// sampler of the simulator and `tilecode corrupt`, so the cost is proportional to the flips,
/// not the bits.
pub fn apply_ber(buf: &mut [u8], ber: f64, seed: u64) -> u64 {
    if ber.is_nan() || ber <= 0.0 {
        return 0;
    }
    let bits = buf.len() as u64 * 8;
    if ber >= 1.0 {
        buf.iter_mut().for_each(|b| *b = !*b);
        return bits;
    }
    let mut flips = 0;
    Geometric::new(ber).for_each_success(&mut ChaCha20Rng::seed_from_u64(seed), bits, |pos| {
        buf[(pos / 8) as usize] ^= 1 << (pos % 8);
        flips += 1;
    });
    flips
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

/// The median of `a[i] / b[i]` (durations: memcpy's over the codec's is its throughput over
/// memcpy's).
fn median_ratio(a: &[Duration], b: &[Duration]) -> f64 {
    let mut r: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.as_secs_f64() / y.as_secs_f64().max(1e-12))
        .collect();
    r.sort_by(f64::total_cmp);
    r[r.len() / 2]
}

fn rate(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64().max(1e-9)
}

/// Measures memcpy, encode, clean decode and noisy decode of `bytes` seeded random bytes with
/// `spec` at interleave depth `interleave`, the noisy stream flipped at bit error rate `ber`;
/// the median of [`DEFAULT_REPETITIONS`] runs each. Buffers are allocated once and reused, so
/// every measurement (memcpy included) runs on memory already touched.
pub fn bench_throughput(
    spec: &Spec,
    interleave: usize,
    bytes: usize,
    ber: f64,
    seed: u64,
) -> Result<ThroughputReport> {
    let opts = Options::new(*spec, interleave);
    bench_throughput_reps(&opts, bytes, ber, seed, DEFAULT_REPETITIONS)
}

/// [`bench_throughput`] with chosen options (recovery and threads included: encode and both
/// decodes run on `opts.threads` threads, memcpy on one) and number of repetitions (at
/// least 1).
pub fn bench_throughput_reps(
    opts: &Options,
    bytes: usize,
    ber: f64,
    seed: u64,
    repetitions: usize,
) -> Result<ThroughputReport> {
    if !(0.0..=1.0).contains(&ber) {
        return Err(Error::Limit {
            what: format!("bit error rate {ber}"),
            reason: "expected a probability between 0 and 1".into(),
        });
    }
    let reps = repetitions.max(1);
    let (spec, interleave) = (&opts.code, opts.interleave);
    let opts = &Options {
        stream_id: Some(seed),
        ..opts.clone()
    };
    opts.validate()?;
    let threads = super::parallel::resolve(opts.threads);
    let decode = |enc: &[u8], lenient: bool, out: &mut Vec<u8>| {
        let o = DecodeOptions {
            lenient,
            threads,
            ..DecodeOptions::default()
        };
        decode_with(enc, &o, out).map(|(r, _)| r)
    };
    let data = random_payload(bytes, seed);
    let mut copy = vec![0u8; bytes];
    let mut enc = Vec::new();
    let mut dec = Vec::new();
    // Warm-up: touches every buffer once.
    copy.copy_from_slice(&data);
    encode_into(&data, opts, &mut enc)?;
    let mut noisy = enc.clone();
    let flipped_bits = apply_ber(&mut noisy, ber, seed ^ 0x5EED_B17F_11B5);
    decode(&enc, false, &mut dec)?;
    if dec != data {
        return Err(Error::Corrupt {
            reason: "clean decode differs from the input".into(),
        });
    }
    let (mut t_copy, mut t_enc, mut t_clean, mut t_noisy) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut noisy_report = Report::default();
    for _ in 0..reps {
        let t = Instant::now();
        copy.copy_from_slice(std::hint::black_box(&data));
        t_copy.push(t.elapsed());
        std::hint::black_box(&copy);
        let t = Instant::now();
        encode_into(std::hint::black_box(&data), opts, &mut enc)?;
        t_enc.push(t.elapsed());
        let t = Instant::now();
        decode(std::hint::black_box(&enc), false, &mut dec)?;
        t_clean.push(t.elapsed());
        let t = Instant::now();
        noisy_report = decode(std::hint::black_box(&noisy), true, &mut dec)?;
        t_noisy.push(t.elapsed());
    }
    let noisy_exact = dec == data;
    let (encode_vs_memcpy, decode_clean_vs_memcpy, decode_noisy_vs_memcpy) = (
        median_ratio(&t_copy, &t_enc),
        median_ratio(&t_copy, &t_clean),
        median_ratio(&t_copy, &t_noisy),
    );
    Ok(ThroughputReport {
        spec: spec.to_string(),
        interleave,
        bytes,
        encoded_bytes: enc.len(),
        ber,
        flipped_bits,
        repetitions: reps,
        threads,
        memcpy_bytes_per_sec: rate(bytes, median(t_copy)),
        encode_bytes_per_sec: rate(bytes, median(t_enc)),
        decode_clean_bytes_per_sec: rate(bytes, median(t_clean)),
        decode_noisy_bytes_per_sec: rate(bytes, median(t_noisy)),
        encode_vs_memcpy,
        decode_clean_vs_memcpy,
        decode_noisy_vs_memcpy,
        noisy_report,
        noisy_exact,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ber_flips_about_the_expected_number() {
        let mut buf = vec![0u8; 1 << 16];
        let flips = apply_ber(&mut buf, 1e-2, 7);
        let ones: u64 = buf.iter().map(|b| b.count_ones() as u64).sum();
        assert_eq!(ones, flips);
        let expected = (1u64 << 19) as f64 * 1e-2;
        assert!(
            (flips as f64 - expected).abs() < 5.0 * expected.sqrt(),
            "{flips}"
        );
        assert_eq!(apply_ber(&mut buf, 0.0, 7), 0);
    }

    #[test]
    fn small_bench_runs_and_decodes() {
        let opts = Options::new("secded:72".parse().unwrap(), 64).with_recovery(0.0);
        let r = bench_throughput_reps(&opts, 1 << 16, 1e-5, 1, 1).unwrap();
        assert_eq!(r.bytes, 1 << 16);
        assert!(r.encode_bytes_per_sec > 0.0 && r.memcpy_bytes_per_sec > 0.0);
        assert_eq!(
            r.noisy_report.corrected_bits, r.flipped_bits,
            "flips at this rate land in distinct codewords"
        );
        assert!(r.noisy_exact);
    }
}

#[cfg(test)]
mod measure {
    use super::*;

    /// The figures of `docs/benchmarks.md`, from the library:
    /// `cargo test --release --lib stream::bench::measure -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn throughput_256_mib() {
        for spec in ["alien:9x9", "secded:72"] {
            let r = bench_throughput_reps(
                &Options::new(spec.parse().unwrap(), 64),
                256 << 20,
                1e-4,
                1,
                7,
            )
            .unwrap();
            println!(
                "{spec}: memcpy {:.2} GB/s; encode {:.2}x, decode clean {:.2}x, decode at BER 1e-4 {:.2}x ({} flips, exact {})",
                r.memcpy_bytes_per_sec / 1e9,
                r.encode_ratio(),
                r.decode_clean_ratio(),
                r.decode_noisy_ratio(),
                r.flipped_bits,
                r.noisy_exact
            );
        }
    }
}
