//! Any bytes into the decoder, raw and behind a valid magic and header: no panic, and no
//! allocation beyond what the (capped) header allows.

#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use std::io::Read;
use tilecode::stream::{self, Decoder};

fn decode_all(bytes: &[u8]) {
    let _ = stream::decode(bytes);
    let lenient = stream::decode_lenient(bytes);
    if let Ok((out, report)) = &lenient {
        assert_eq!(out.len() as u64, report.bytes_out);
        assert!(report.damaged_ranges.windows(2).all(|w| w[0].1 < w[1].0));
        assert!(
            report
                .damaged_ranges
                .iter()
                .all(|&(a, b)| a < b && b <= report.bytes_out)
        );
    }
    for keep in [false, true] {
        if let Ok(d) = Decoder::new(bytes) {
            let mut d = d.keep_damaged(keep);
            let mut sink = Vec::new();
            let r = d.read_to_end(&mut sink);
            if keep {
                // The adapter and the one-shot function agree.
                match (&r, &lenient) {
                    (Ok(_), Ok((out, report))) => {
                        assert_eq!(&sink[..], &out[..]);
                        assert_eq!(d.report(), report);
                    }
                    (Err(_), Err(_)) => {}
                    (a, b) => panic!("read path {a:?} vs one-shot {:?}", b.as_ref().map(|x| &x.1)),
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    decode_all(data);
    if data.len() < 3 {
        return;
    }
    // The same bytes behind the header of a real stream, so the fuzzer reaches the chunks.
    let opts = common::options(common::ALL, data[0], data[1], data[2] as u16 * 7);
    let empty = stream::encode(&[], &opts).expect("valid options encode");
    let header = &empty[..empty.len() / 2];
    let mut v = Vec::with_capacity(header.len() + data.len());
    v.extend_from_slice(header);
    v.extend_from_slice(&data[3..]);
    decode_all(&v);
});
