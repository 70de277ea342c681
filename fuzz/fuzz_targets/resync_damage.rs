//! Damage no code corrects: spans cut, inserted, duplicated or overwritten anywhere, over
//! streams with and without recovery chunks. Decoding must never panic, and whatever it
//! returns keeps the promise of the report: exact when not damaged, and exact outside
//! `damaged_ranges` when damaged (`Report::unreported_difference`). The read path agrees.

#![no_main]

#[path = "common.rs"]
mod common;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::io::Read;
use tilecode::stream::{self, Decoder};

#[derive(Arbitrary, Debug)]
enum Edit {
    /// Remove `len` bytes at `at` (both scaled into the stream).
    Cut { at: u32, len: u16 },
    /// Insert these bytes at `at`.
    Insert { at: u32, bytes: Vec<u8> },
    /// Copy `len` bytes from `from` to `to`.
    Duplicate { from: u32, len: u16, to: u32 },
    /// Overwrite `len` bytes at `at` with one value (a zeroed or 0xFF sector).
    Fill { at: u32, len: u16, value: u8 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    code: u8,
    depth: u8,
    chunk: u16,
    data: Vec<u8>,
    edits: Vec<Edit>,
}

fuzz_target!(|input: Input| {
    let opts = common::options(common::ALL, input.code, input.depth, input.chunk);
    let mut s = stream::encode(&input.data, &opts)
        .expect("valid options encode")
        .to_vec();
    for e in input.edits.iter().take(4) {
        let n = s.len().max(1);
        match e {
            Edit::Cut { at, len } => {
                let a = *at as usize % n;
                let b = (a + *len as usize).min(s.len());
                s.drain(a.min(s.len())..b);
            }
            Edit::Insert { at, bytes } => {
                let a = (*at as usize % n).min(s.len());
                s.splice(a..a, bytes.iter().copied().take(8192));
            }
            Edit::Duplicate { from, len, to } => {
                let a = *from as usize % n;
                let b = (a + *len as usize).min(s.len());
                let span = s[a.min(s.len())..b].to_vec();
                let t = (*to as usize % n).min(s.len());
                s.splice(t..t, span);
            }
            Edit::Fill { at, len, value } => {
                let a = (*at as usize % n).min(s.len());
                let b = (a + *len as usize).min(s.len());
                s[a..b].fill(*value);
            }
        }
    }
    let one_shot = stream::decode_lenient(&s);
    if let Ok((out, report)) = &one_shot {
        assert_eq!(
            report.unreported_difference(&input.data, out),
            None,
            "the damage map missed a wrong byte: {report:?}"
        );
    }
    // The read path gives the same bytes and the same report.
    if let Ok(d) = Decoder::new(&s[..]) {
        let mut d = d.keep_damaged(true);
        let mut v = Vec::new();
        let r = d.read_to_end(&mut v);
        if let (Ok(_), Ok((out, report))) = (&r, &one_shot) {
            assert_eq!(&v[..], &out[..]);
            assert_eq!(d.report(), report);
        }
    }
});
