//! The threaded codec gives the same bytes and the same reports for every thread count:
//! streams from the one-shot encoder and the `Encoder` adapter, and decodes (output, report,
//! error) from the one-shot decoder and the `Decoder` adapter, clean and under every kind of
//! damage of `tests/common`, with and without recovery, through the library and the CLI.

mod common;

use assert_cmd::Command;
use common::{DAMAGE_KINDS, damage, payload};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{BufRead, Read, Write};
use tilecode::stream::{self, DecodeOptions, Decoder, Encoder, Options, Report};

const THREADS: [usize; 4] = [1, 2, 3, 4];

/// Options for seed `seed`: a code, a chunk size small enough for many chunks (or the
/// default), a recovery percentage (none, default, large).
fn options(seed: u64) -> Options {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let spec = ["alien:9x9", "secded:72", "alien:4x5", "hamming:31"][rng.gen_range(0..4)];
    let depth = [64, 64, 128, 512][rng.gen_range(0..4)];
    let mut o = Options::new(spec.parse().unwrap(), depth);
    if rng.gen_bool(0.7) {
        o.chunk_size = rng.gen_range(1000..20_000);
    }
    o.recovery = [0.0, stream::DEFAULT_RECOVERY, 10.0][rng.gen_range(0..3)];
    o.stream_id = Some(seed);
    o
}

fn payload_for(seed: u64, o: &Options) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xDA7A);
    let chunks = rng.gen_range(0..40);
    let len = chunks * o.chunk_size + rng.gen_range(0..o.chunk_size);
    payload(len, seed)
}

/// Encodes through the `Encoder` adapter in writes of random sizes.
fn encode_by_writes(data: &[u8], o: &Options, seed: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut enc = Encoder::new(Vec::new(), o).unwrap();
    let mut at = 0;
    while at < data.len() {
        let n = rng
            .gen_range(1..=(4 * o.chunk_size + 100))
            .min(data.len() - at);
        enc.write_all(&data[at..at + n]).unwrap();
        at += n;
    }
    enc.finish().unwrap()
}

#[test]
fn streams_are_the_same_for_every_thread_count() {
    for seed in 0..32u64 {
        let mut o = options(seed);
        if seed % 4 == 3 {
            // Format version 1: no frames, no recovery.
            (o.version, o.recovery) = (1, 0.0);
        }
        let data = payload_for(seed, &o);
        let one = stream::encode(&data, &o).unwrap();
        for threads in THREADS {
            let o = o.clone().with_threads(threads);
            let s = stream::encode(&data, &o).unwrap();
            assert!(s == one, "seed {seed}, {threads} threads: {o:?}");
            let w = encode_by_writes(&data, &o, seed);
            assert!(w == one, "seed {seed}, {threads} threads, Encoder: {o:?}");
        }
    }
}

/// What a decode gives: the output and the report, or the error's message and the report
/// (the one-shot decoder returns the verified bytes before an error in `out`).
type Outcome = (Vec<u8>, Result<Report, String>);

fn decode_lib(s: &[u8], lenient: bool, check: bool, threads: usize) -> Outcome {
    let o = DecodeOptions {
        lenient,
        check_recovery: check,
        threads,
    };
    let mut out = Vec::new();
    let r = stream::decode_with(s, &o, &mut out);
    (out, r.map(|(r, _)| r).map_err(|e| e.to_string()))
}

/// Decodes through the `Decoder` adapter, reading through `fill_buf` in pieces of random
/// sizes from a reader that returns random short reads.
fn decode_adapter(s: &[u8], lenient: bool, threads: usize, seed: u64) -> Outcome {
    struct Short<'a>(&'a [u8], ChaCha8Rng);
    impl Read for Short<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self
                .1
                .gen_range(1..=200_000)
                .min(buf.len())
                .min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let r = Short(s, ChaCha8Rng::seed_from_u64(seed + 1));
    let mut dec = match Decoder::new(r) {
        Ok(d) => d.keep_damaged(lenient).threads(threads),
        Err(e) => return (Vec::new(), Err(e.to_string())),
    };
    let mut out = Vec::new();
    loop {
        match dec.fill_buf() {
            Ok([]) => return (out, Ok(dec.report().clone())),
            Ok(b) => {
                let n = rng.gen_range(1..=b.len());
                out.extend_from_slice(&b[..n]);
                dec.consume(n);
            }
            Err(e) => {
                let msg = format!("{e} / {:?}", dec.report());
                return (out, Err(msg));
            }
        }
    }
}

#[test]
fn decodes_are_the_same_for_every_thread_count_under_damage() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for seed in 0..24u64 {
        let o = options(seed);
        let data = payload_for(seed, &o);
        let enc = stream::encode(&data, &o).unwrap().to_vec();
        for round in 0..=DAMAGE_KINDS {
            let mut d = enc.clone();
            let what = if round == DAMAGE_KINDS || d.len() < 4 * 4096 {
                "no damage"
            } else {
                damage(&mut d, round, &mut rng)
            };
            for (lenient, check) in [(true, false), (false, false), (true, true)] {
                let one = decode_lib(&d, lenient, check, 1);
                if what == "no damage" {
                    assert_eq!(one.0, data, "seed {seed}: clean decode");
                }
                for threads in &THREADS[1..] {
                    let got = decode_lib(&d, lenient, check, *threads);
                    assert!(
                        got == one,
                        "seed {seed}, {what}, lenient {lenient}, check {check}, {threads} threads: {:?} against {:?}",
                        got.1,
                        one.1
                    );
                }
            }
            for lenient in [true, false] {
                let one = decode_adapter(&d, lenient, 1, seed);
                for threads in [2, 4] {
                    let got = decode_adapter(&d, lenient, threads, seed);
                    assert!(
                        got == one,
                        "seed {seed}, {what}, Decoder, lenient {lenient}, {threads} threads: {:?} against {:?}",
                        got.1,
                        one.1
                    );
                }
            }
        }
    }
}

#[test]
fn decoding_ahead_stops_at_damage_and_resumes_after_it() {
    // Many small chunks; damage in the middle of a run the threads decode ahead.
    let o = Options {
        chunk_size: 4000,
        stream_id: Some(5),
        ..Options::new("alien:9x9".parse().unwrap(), 64)
    };
    let data = payload(4000 * 300 + 17, 5);
    let enc = stream::encode(&data, &o).unwrap().to_vec();
    let magic = b"\x89TCF\r\n\x1a\n";
    let frames: Vec<usize> = (0..enc.len() - 8)
        .filter(|&i| &enc[i..i + 8] == magic)
        .collect();
    for (at, what) in [
        (frames[37] + 10, "a data frame header"),
        (frames[38] + 500, "a chunk body"),
        (
            frames[102] + 3,
            "the chunk after a stripe's recovery frames",
        ),
    ] {
        for cut in [false, true] {
            let mut d = enc.clone();
            if cut {
                d.drain(at..at + 100);
            } else {
                d[at..at + 100].fill(0);
            }
            let one = decode_lib(&d, true, false, 1);
            let (out, rep) = (&one.0, one.1.as_ref().unwrap());
            assert_eq!(out, &data, "{what}, cut {cut}: {rep:?}");
            for threads in [2, 3, 8] {
                assert!(
                    decode_lib(&d, true, false, threads) == one,
                    "{what} {cut} {threads}"
                );
            }
        }
    }
}

#[test]
fn the_adapter_hands_out_a_batch_at_a_time_on_several_threads() {
    // Bounded memory: the `Decoder` holds a batch of chunks decoded ahead, not the stream.
    // Without recovery every chunk is a stripe of its own, and decoding ahead once ran on
    // from one batch into the next until the stream ended (a 256 MiB file decoded with two
    // threads held all of it: 275 MB resident).
    for recovery in [0.0, stream::DEFAULT_RECOVERY] {
        let o = Options {
            chunk_size: 4000,
            stream_id: Some(6),
            recovery,
            ..Options::new("alien:9x9".parse().unwrap(), 64)
        };
        let data = payload(4000 * 500 + 9, 6);
        let enc = stream::encode(&data, &o).unwrap().to_vec();
        for threads in [1, 2, 4] {
            let mut dec = Decoder::new(&enc[..]).unwrap().threads(threads);
            let (mut out, mut most) = (Vec::new(), 0);
            loop {
                let b = dec.fill_buf().unwrap();
                if b.is_empty() {
                    break;
                }
                most = most.max(b.len());
                out.extend_from_slice(b);
                let n = b.len();
                dec.consume(n);
            }
            assert!(out == data, "{recovery} % recovery, {threads} threads");
            // A batch on several threads is 8 small chunks a thread; a stripe's data
            // chunks come out together.
            let stripe = stream::stripe::Plan::for_percent(recovery, 4000)
                .unwrap()
                .map_or(1, |p| p.stripe);
            let bound = 4000 * (8 * threads).max(stripe);
            assert!(
                most <= bound,
                "{recovery} % recovery, {threads} threads: {most} bytes at once (at most {bound})"
            );
        }
    }
}

fn tilecode() -> Command {
    Command::cargo_bin("tilecode").unwrap()
}

#[test]
fn the_cli_encoder_reading_on_its_own_threads_gives_the_librarys_stream() {
    // On several threads the CLI's encoder reads its input in buffers of 104 chunks of
    // 10 000 bytes, the next one while the current one is encoded: inputs of no, one and
    // several buffers, ending inside a buffer and exactly at one's end, from a pipe and
    // from a file.
    let buffer = 104 * 10_000;
    let dir = tempfile::tempdir().unwrap();
    for (i, len) in [
        0,
        5,
        buffer,
        2 * buffer,
        2 * buffer + 1,
        3 * buffer - 1,
        5 * buffer + buffer / 2,
    ]
    .into_iter()
    .enumerate()
    {
        let data = payload(len, 30 + i as u64);
        let file = dir.path().join(format!("in{i}"));
        std::fs::write(&file, &data).unwrap();
        for threads in ["1", "2", "3"] {
            for from_file in [false, true] {
                let mut cmd = tilecode();
                cmd.args(["encode", "--quiet", "--chunk-size", "10000", "-T", threads]);
                if from_file {
                    cmd.arg(&file).args(["-o", "-"]);
                } else {
                    cmd.write_stdin(data.clone());
                }
                let out = cmd.assert().success().get_output().stdout.clone();
                let what = format!("{len} bytes, {threads} threads, from a file: {from_file}");
                if from_file {
                    // The stream records the file's name and times: decoded, it is the file.
                    let (dec, rep) = stream::decode(&out).unwrap();
                    assert!(dec[..] == data[..] && rep.checksum_ok, "{what}");
                    continue;
                }
                let o = Options {
                    stream_id: Some(stream::read_header(&out).unwrap().stream_id),
                    chunk_size: 10_000,
                    ..Options::default()
                };
                assert!(stream::encode(&data, &o).unwrap() == out, "{what}");
            }
        }
    }
}

#[test]
fn the_cli_gives_the_same_stream_and_report_for_every_thread_count() {
    let data = payload(3_000_000, 21);
    for recovery in ["0", "2"] {
        let mut first: Option<Vec<u8>> = None;
        for threads in ["1", "2", "3", "0"] {
            let out = tilecode()
                .args([
                    "encode",
                    "--quiet",
                    "--recovery",
                    recovery,
                    "--threads",
                    threads,
                ])
                .write_stdin(data.clone())
                .assert()
                .success()
                .get_output()
                .stdout
                .clone();
            // The stream id is random: the same stream from the library, with that id.
            let id = stream::read_header(&out).unwrap().stream_id;
            let o = Options {
                stream_id: Some(id),
                ..Options::default().with_recovery(recovery.parse().unwrap())
            };
            assert!(
                stream::encode(&data, &o).unwrap() == out,
                "{threads} threads"
            );
            first.get_or_insert(out);
        }
        let enc = first.unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(22);
        for round in 0..=DAMAGE_KINDS {
            let mut d = enc.clone();
            let what = match round {
                DAMAGE_KINDS => "no damage",
                k => damage(&mut d, k, &mut rng),
            };
            let run = |cmd: &str, threads: &str| {
                let mut args = vec![cmd, "--json", "--threads", threads];
                if cmd == "decode" {
                    args.push("--keep-damaged");
                }
                if cmd == "verify" {
                    args.push("-");
                }
                let o = tilecode()
                    .args(&args)
                    .write_stdin(d.clone())
                    .output()
                    .unwrap();
                (o.status.code(), o.stdout, o.stderr)
            };
            for cmd in ["decode", "verify"] {
                let one = run(cmd, "1");
                for threads in ["2", "4", "0"] {
                    let got = run(cmd, threads);
                    assert!(
                        got == one,
                        "{what}, {cmd}, recovery {recovery}, {threads} threads: {} against {}",
                        String::from_utf8_lossy(&got.2),
                        String::from_utf8_lossy(&one.2)
                    );
                }
            }
        }
    }
}
