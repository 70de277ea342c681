//! Random data, code and depth; damage within the code's reach (at most one flip per codeword,
//! or one burst of at most D bits): decoding returns the original, strict and lenient.

#![no_main]

#[path = "common.rs"]
mod common;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::io::Read;
use tilecode::stream::{self, Decoder};

#[derive(Arbitrary, Debug)]
enum Damage {
    None,
    /// Flips at these positions (scaled into the stream and spread apart).
    Flips(Vec<u32>),
    /// One burst: offset (scaled) and length (at most D).
    Burst(u32, u32),
}

#[derive(Arbitrary, Debug)]
struct Input {
    code: u8,
    depth: u8,
    chunk: u16,
    data: Vec<u8>,
    /// More payload ([`common::payload`]).
    grow: u16,
    damage: Damage,
}

fuzz_target!(|input: Input| {
    let opts = common::options(common::CORRECTING, input.code, input.depth, input.chunk);
    let data = common::payload(&input.data, input.grow, opts.chunk_size);
    let encoded = stream::encode(&data, &opts).expect("valid options encode");
    let mut damaged = encoded.to_vec();
    let bits = damaged.len() as u64 * 8;
    let flip = |v: &mut Vec<u8>, b: u64| v[(b / 8) as usize] ^= 1 << (b % 8);
    match &input.damage {
        Damage::None => {}
        Damage::Flips(picks) => {
            // Two flips at least one group and one header region apart never share a
            // codeword or a bit of the header copies.
            let n = tilecode::code::build(&opts.code).n() as u64;
            let group_bits = n * opts.interleave as u64;
            let empty = stream::encode(&[], &opts).unwrap();
            let region_bits = empty.len() as u64 / 2 * 8;
            let spacing = group_bits.max(region_bits) + 1;
            // Only even slots of `spacing` bits: flips in two of them are > spacing apart.
            let pairs = bits / (2 * spacing);
            let mut used = std::collections::BTreeSet::new();
            for &p in picks {
                if pairs == 0 {
                    break;
                }
                let j = p as u64 % pairs;
                if used.insert(j) {
                    flip(&mut damaged, 2 * j * spacing + (p as u64 / pairs) % spacing);
                }
            }
        }
        Damage::Burst(off, len) => {
            let len = 1 + *len as u64 % opts.interleave as u64;
            if len <= bits {
                let start = *off as u64 % (bits - len + 1);
                for b in start..start + len {
                    flip(&mut damaged, b);
                }
            }
        }
    }

    let (out, report) = stream::decode(&damaged).expect("damage within reach is repaired");
    assert_eq!(&out[..], &data[..]);
    assert!(report.checksum_ok);
    assert_eq!(report.uncorrectable_codewords, 0);
    assert!(report.damaged_ranges.is_empty());
    let flipped: u32 = damaged
        .iter()
        .zip(encoded.iter())
        .map(|(a, b)| (a ^ b).count_ones())
        .sum();
    if flipped == 0 {
        assert_eq!(report.corrected_bits, 0);
    }

    let mut d = Decoder::new(&damaged[..]).expect("header repaired");
    let mut v = Vec::new();
    d.read_to_end(&mut v).expect("strict read path repairs");
    assert_eq!(v, data);
    assert_eq!(d.report(), &report);
});
