//! Regressions found by the CLI tests, the must-show checks and fuzzing, kept as named tests.

use assert_cmd::Command;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::io::Read;
use tilecode::code::Spec;
use tilecode::stream::{self, Decoder, Options};

fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; len];
    ChaCha20Rng::seed_from_u64(seed).fill_bytes(&mut v);
    v
}

/// Lengths whose last chunk is short of a full chunk's payload but needs every group of one:
/// the decoder must take the chunk's length from its tail, not assume a full chunk.
fn last_chunk_fills_all_groups(spec: &str, depth: usize, chunk: usize) -> Vec<usize> {
    let code = tilecode::code::build(&spec.parse::<Spec>().unwrap());
    let group_data = code.k() * depth / 8;
    // Every length from one group short of the chunk to the chunk, at a few points.
    vec![
        chunk - 1,
        chunk - group_data / 2,
        chunk - group_data + 1,
        2 * chunk - 1,
    ]
}

fn opts(spec: &str, depth: usize, chunk: Option<usize>) -> Options {
    let mut o = Options::new(spec.parse().unwrap(), depth);
    if let Some(c) = chunk {
        o.chunk_size = c;
    }
    o
}

/// Found by `tests/cli_stream.rs` (1 MiB roundtrips) and `scripts/stream_checks.sh`
/// (secded:72, D = 4096, 100 MiB): a stream whose last chunk fills as many groups as a full
/// chunk decoded as a full chunk (`bytes_out` = chunk size, checksum mismatch, exit 2).
#[test]
fn short_last_chunk_in_full_chunk_groups_roundtrips() {
    for (spec, depth, chunk) in [
        ("alien:9x9", 64, None),
        ("secded:72", 4096, None),
        ("hamming:31", 512, Some(5000)),
        ("repetition:3", 64, Some(100)),
    ] {
        let o = opts(spec, depth, chunk);
        for len in last_chunk_fills_all_groups(spec, depth, o.chunk_size) {
            let data = random_bytes(len, len as u64);
            let enc = stream::encode(&data, &o).unwrap();
            let (out, rep) = stream::decode(&enc)
                .unwrap_or_else(|e| panic!("{spec} D={depth} len={len}: one-shot: {e}"));
            assert!(
                out.as_ref() == &data[..],
                "{spec} D={depth} len={len}: one-shot output"
            );
            assert_eq!(rep.bytes_out, len as u64);
            let mut d = Decoder::new(&enc[..]).unwrap();
            let mut v = Vec::new();
            d.read_to_end(&mut v)
                .unwrap_or_else(|e| panic!("{spec} D={depth} len={len}: Decoder: {e}"));
            assert!(v == data, "{spec} D={depth} len={len}: Decoder output");
        }
    }
}

/// The same through the command line: `encode | decode` of exactly 1 MiB with the defaults.
#[test]
fn one_mebibyte_through_the_cli() {
    let data = random_bytes(1 << 20, 1);
    let enc = Command::cargo_bin("tilecode")
        .unwrap()
        .args(["encode", "-q"])
        .write_stdin(data.clone())
        .assert()
        .success();
    let dec = Command::cargo_bin("tilecode")
        .unwrap()
        .args(["decode", "-q"])
        .write_stdin(enc.get_output().stdout.clone())
        .assert()
        .code(0);
    assert!(dec.get_output().stdout == data);
}

/// Found by the `roundtrip_damage` fuzz target (artifact
/// `crash-6c8c247b7145a8408db1ccdbd7a8a95cd272bb0e`): two bytes of data, alien:9x9, D = 512,
/// chunks of 2536 bytes. The only chunk is short but needs the one group a full chunk has, and
/// was decoded as a full chunk: "its tail does not name chunk 0 of 2536 bytes".
#[test]
fn fuzz_two_bytes_in_a_one_group_chunk() {
    let o = Options {
        chunk_size: 2536,
        ..Options::new("alien:9x9".parse().unwrap(), 512)
    };
    let data = [255u8, 255];
    let enc = stream::encode(&data, &o).unwrap();
    let (out, rep) = stream::decode(&enc).expect("a clean stream decodes");
    assert_eq!(out.as_ref(), &data[..]);
    assert_eq!(rep.bytes_out, 2);
    assert!(rep.checksum_ok);
}

/// Found by the `roundtrip_damage` fuzz target (artifact
/// `crash-b2314b32e9e558e4171d27c8d7d8732f50e711c5`): one byte of data, repetition:5, D = 64,
/// chunks of 2147 bytes, no recovery, and a burst of at most `D` bits.
#[test]
fn fuzz_one_byte_repetition_burst() {
    let o = Options {
        chunk_size: 2147,
        recovery: 0.0,
        stream_id: Some(59146),
        ..Options::new("repetition:5".parse().unwrap(), 64)
    };
    let data = [255u8];
    let enc = stream::encode(&data, &o).unwrap().to_vec();
    let bits = enc.len() as u64 * 8;
    let len = 1 + 4_146_593_790u64 % 64;
    let start = 4_294_174_719u64 % (bits - len + 1);
    let mut bad = enc.clone();
    for b in start..start + len {
        bad[(b / 8) as usize] ^= 1 << (b % 8);
    }
    eprintln!(
        "stream {} bytes, burst of {len} bits at bit {start} (byte {})",
        enc.len(),
        start / 8
    );
    let (out, rep) = stream::decode(&bad).expect("a burst of at most D bits is repaired");
    assert_eq!(out.as_ref(), &data[..]);
    assert!(rep.checksum_ok);
}
