//! `tilecode demo`: encode a built-in sample, damage it the way a bad channel would (random
//! flips, one burst as long as the interleaving depth and a zeroed 4 KiB sector), decode it and show the report.

use super::corrupt::{Channel, corrupt_in_place};
use super::{encode, report};
use anyhow::Context;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};
use std::process::ExitCode;
use std::time::Instant;
use tilecode::stream;

/// Words the sample text is made of.
const WORDS: &[&str] = &[
    "alien",
    "tiles",
    "parity",
    "row",
    "column",
    "syndrome",
    "codeword",
    "burst",
    "flip",
    "channel",
    "interleave",
    "checksum",
    "chunk",
    "stream",
    "board",
    "light",
    "toggle",
    "press",
    "error",
    "correct",
    "detect",
    "message",
    "bit",
    "word",
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
];

/// Arguments of `tilecode demo`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The code.
    #[arg(long, default_value = "alien:9x9", value_name = "SPEC")]
    code: String,
    /// Interleaving depth D; the burst is D bits long.
    #[arg(long, value_name = "D")]
    interleave: Option<usize>,
    /// Bit error rate of the random flips.
    #[arg(long, default_value_t = 5e-6, value_name = "P")]
    ber: f64,
    /// Size of the sample in bytes.
    #[arg(long, default_value_t = 512 * 1024, value_name = "BYTES")]
    size: usize,
    /// Seed of the channel.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The results as one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// The size of the lost sector the demo zeroes.
const SECTOR: usize = 4096;

/// A deterministic text sample of exactly `size` bytes: numbered lines of words.
pub fn sample(size: usize) -> Vec<u8> {
    let mut rng = ChaCha20Rng::seed_from_u64(0x7111_ec0d);
    let mut out = Vec::with_capacity(size + 128);
    let mut line = 1u64;
    while out.len() < size {
        out.extend_from_slice(format!("{line:06} ").as_bytes());
        let words = rng.gen_range(6..14);
        for i in 0..words {
            if i > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(WORDS[rng.gen_range(0..WORDS.len())].as_bytes());
        }
        out.extend_from_slice(b".\n");
        line += 1;
    }
    out.truncate(size);
    out
}

fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// Runs `tilecode demo`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let opts = encode::options(&args.code, args.interleave, None)?;
    for w in tilecode::code::build(&opts.code).warnings() {
        eprintln!("tilecode: warning: {w}");
    }
    let data = sample(args.size);
    // As `tilecode encode FILE` does for a file of known size.
    let opts = opts.for_input_len(data.len() as u64);

    let t = Instant::now();
    let encoded = stream::encode(&data, &opts).context("encoding the sample")?;
    let encode_time = t.elapsed();

    let mut damaged = encoded.to_vec();
    let flips = corrupt_in_place(&mut damaged, &Channel::Ber(args.ber), args.seed)?;
    let bits = damaged.len() as u64 * 8;
    let burst_len = (opts.interleave as u64).min(bits);
    let burst_at =
        ChaCha20Rng::seed_from_u64(args.seed ^ 0xb0b5_7000).gen_range(0..=bits - burst_len);
    let burst = Channel::Burst {
        len: burst_len,
        offset: Some(burst_at),
    };
    corrupt_in_place(&mut damaged, &burst, 0)?;
    // And a lost sector: 4 KiB of zeros, as a failing disk returns them.
    let sectors = damaged.len() / SECTOR;
    let sector_at =
        ChaCha20Rng::seed_from_u64(args.seed ^ 0x5ec7_0a11).gen_range(0..sectors.max(1)) * SECTOR;
    let sector_end = (sector_at + SECTOR).min(damaged.len());
    damaged[sector_at..sector_end].fill(0);

    let t = Instant::now();
    let (decoded, rep) = stream::decode_lenient(&damaged).context("decoding the damaged stream")?;
    let decode_time = t.elapsed();
    let exact = decoded.as_ref() == data.as_slice();
    let ok = exact && report::exit_code(&rep) == 0;

    if args.json {
        let mut v = report::to_json(&rep, None);
        let o = v.as_object_mut().expect("an object");
        o.insert("code".into(), serde_json::json!(opts.code.to_string()));
        o.insert("interleave".into(), serde_json::json!(opts.interleave));
        o.insert("sample_bytes".into(), serde_json::json!(data.len()));
        o.insert("encoded_bytes".into(), serde_json::json!(encoded.len()));
        o.insert("seed".into(), serde_json::json!(args.seed));
        o.insert("ber".into(), serde_json::json!(args.ber));
        o.insert("random_flips".into(), serde_json::json!(flips));
        o.insert("burst_bits".into(), serde_json::json!(burst_len));
        o.insert("burst_offset".into(), serde_json::json!(burst_at));
        o.insert("zeroed_sector_offset".into(), serde_json::json!(sector_at));
        o.insert("restored".into(), serde_json::json!(exact));
        println!("{v}");
    } else {
        let code = tilecode::code::build(&opts.code);
        println!(
            "sample     {} bytes of text, sha256 {}",
            data.len(),
            sha256_hex(&data)
        );
        println!(
            "encoded    {} bytes with {} (n = {}, k = {}), interleave {}: {:.1}% overhead, {:.1} ms",
            encoded.len(),
            opts.code,
            code.n(),
            code.k(),
            opts.interleave,
            100.0 * (encoded.len() as f64 / data.len().max(1) as f64 - 1.0),
            encode_time.as_secs_f64() * 1e3
        );
        println!(
            "channel    {flips} random bit flips (ber {}, seed {}) + a burst of {burst_len} bits at bit {burst_at}\n           + a zeroed {SECTOR}-byte sector at byte {sector_at}",
            args.ber, args.seed
        );
        println!("decoded    in {:.1} ms", decode_time.as_secs_f64() * 1e3);
        println!("{}", report::human("report", &rep, None));
        println!(
            "restored   {}",
            if exact {
                format!("exactly (sha256 {})", sha256_hex(&decoded))
            } else {
                format!(
                    "NOT exactly: {} of {} bytes differ",
                    decoded.iter().zip(&data).filter(|(a, b)| a != b).count()
                        + data.len().abs_diff(decoded.len()),
                    data.len()
                )
            }
        );
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::common::EXIT_DAMAGED)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_is_deterministic_text_of_the_asked_size() {
        let a = sample(10_000);
        assert_eq!(a.len(), 10_000);
        assert_eq!(a, sample(10_000));
        assert!(a.iter().all(|&b| b == b'\n' || (32..127).contains(&b)));
        assert!(a.starts_with(b"000001 "));
        assert_eq!(sample(0).len(), 0);
    }
}
