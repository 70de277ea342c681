//! The decoder's result does not depend on how its input arrives, how its output is read or
//! how many threads decode: whole, byte by byte, in random pieces, and in random pieces on
//! two and three threads give the same bytes, the same error and the same report.

#![no_main]

#[path = "common.rs"]
mod common;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::io::Read;
use tilecode::stream::{self, Decoder, Report};

#[derive(Arbitrary, Debug)]
struct Input {
    /// Decode these bytes as they are instead of a damaged real stream.
    raw: bool,
    keep_damaged: bool,
    code: u8,
    depth: u8,
    chunk: u16,
    data: Vec<u8>,
    /// More payload for a real stream ([`common::payload`]).
    grow: u16,
    /// XORed into the encoded stream at `at` (scaled).
    noise: Vec<u8>,
    at: u32,
    /// Sizes of the input pieces and of the output reads.
    pieces: Vec<u8>,
    reads: Vec<u8>,
}

type Outcome = (Vec<u8>, Option<String>, Option<Report>);

fn run<R: Read>(r: R, keep: bool, reads: &[u8]) -> Outcome {
    run_on(r, keep, reads, 1)
}

fn run_on<R: Read>(r: R, keep: bool, reads: &[u8], threads: usize) -> Outcome {
    let d = match Decoder::new(r) {
        Ok(d) => d,
        Err(e) => return (Vec::new(), Some(format!("{:?}: {e}", e.kind())), None),
    };
    let mut d = d.keep_damaged(keep).threads(threads);
    let mut out = Vec::new();
    let mut buf = vec![0u8; 256];
    let mut i = 0;
    let err = loop {
        let want = if reads.is_empty() {
            1 << 20
        } else {
            (reads[i % reads.len()] as usize).max(1)
        };
        i += 1;
        if buf.len() < want {
            buf.resize(want, 0);
        }
        match d.read(&mut buf[..want]) {
            Ok(0) => break None,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => break Some(format!("{:?}: {e}", e.kind())),
        }
    };
    (out, err, Some(d.report().clone()))
}

fuzz_target!(|input: Input| {
    let stream_bytes = if input.raw {
        input.data.clone()
    } else {
        let opts = common::options(common::ALL, input.code, input.depth, input.chunk);
        let data = common::payload(&input.data, input.grow, opts.chunk_size);
        let mut v = stream::encode(&data, &opts)
            .expect("valid options encode")
            .to_vec();
        if !v.is_empty() {
            let start = input.at as usize % v.len();
            for (i, x) in input.noise.iter().enumerate() {
                if let Some(b) = v.get_mut(start + i) {
                    *b ^= x;
                }
            }
        }
        v
    };
    let s = &stream_bytes[..];
    let whole = run(s, input.keep_damaged, &[]);
    let bytewise = run(common::Pieces::new(s, &[1]), input.keep_damaged, &[1]);
    let pieces = run(
        common::Pieces::new(s, &input.pieces),
        input.keep_damaged,
        &input.reads,
    );
    assert_eq!(whole, bytewise, "whole vs byte by byte");
    assert_eq!(whole, pieces, "whole vs pieces");
    for threads in [2, 3] {
        let threaded = run_on(
            common::Pieces::new(s, &input.pieces),
            input.keep_damaged,
            &input.reads,
            threads,
        );
        assert_eq!(whole, threaded, "one thread vs {threads}");
    }
    if input.keep_damaged {
        // The one-shot lenient decoder agrees with the adapter.
        match (stream::decode_lenient(s), &whole) {
            (Ok((out, rep)), (o, None, Some(r))) => {
                assert_eq!(&out[..], &o[..]);
                assert_eq!(&rep, r);
            }
            (Err(_), (_, Some(_), _)) => {}
            (a, b) => panic!(
                "one-shot {:?} vs adapter {:?}",
                a.map(|x| x.1),
                (&b.1, &b.2)
            ),
        }
    }
});
