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
