//! The slow, obviously correct per-codeword reference for the bit-sliced kernels: every lane
//! is gathered into a message, encoded or decoded with [`BlockCode`], and scattered back.
//! The fast paths are tested against these functions.

use crate::code::{BlockCode, Status};
use crate::gf2::BitVec;

/// Codeword position of each row: message positions in message order, then the others in
/// increasing order.
pub fn row_positions(code: &dyn BlockCode) -> Vec<usize> {
    let msg = code.message_positions();
    let mut rows = msg.to_vec();
    rows.extend((0..code.n()).filter(|p| !msg.contains(p)));
    rows
}

fn bit(bytes: &[u8], row: usize, row_bytes: usize, lane: usize) -> bool {
    bytes[row * row_bytes + lane / 8] >> (lane % 8) & 1 == 1
}

fn set_bit(bytes: &mut [u8], row: usize, row_bytes: usize, lane: usize, b: bool) {
    let m = 1u8 << (lane % 8);
    let x = &mut bytes[row * row_bytes + lane / 8];
    *x = (*x & !m) | if b { m } else { 0 };
}

/// Encodes one group: `data` is `k` rows of `interleave / 8` bytes; returns `n` rows.
pub fn encode_group(code: &dyn BlockCode, interleave: usize, data: &[u8]) -> Vec<u8> {
    let (n, k, rb) = (code.n(), code.k(), interleave / 8);
    assert_eq!(data.len(), k * rb, "a group's payload is k rows");
    let rows = row_positions(code);
    let mut out = vec![0u8; n * rb];
    for lane in 0..interleave {
        let msg = BitVec::from_bools(&(0..k).map(|i| bit(data, i, rb, lane)).collect::<Vec<_>>());
        let cw = code.encode(&msg);
        for (row, &p) in rows.iter().enumerate() {
            set_bit(&mut out, row, rb, lane, cw.get(p));
        }
    }
    out
}

/// The result of decoding one group with the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupDecoded {
    /// The payload (`k` rows), corrected where the decoder could.
    pub data: Vec<u8>,
    /// Bits flipped back.
    pub corrected_bits: u64,
    /// Lanes the decoder could not correct.
    pub uncorrectable: Vec<usize>,
}

/// Decodes one group (`n` rows) lane by lane with [`BlockCode::decode`].
pub fn decode_group(code: &dyn BlockCode, interleave: usize, enc: &[u8]) -> GroupDecoded {
    let (n, k, rb) = (code.n(), code.k(), interleave / 8);
    assert_eq!(enc.len(), n * rb, "a group is n rows");
    let rows = row_positions(code);
    let mut data = enc[..k * rb].to_vec();
    let mut corrected_bits = 0;
    let mut uncorrectable = Vec::new();
    for lane in 0..interleave {
        let mut word = BitVec::zeros(n);
        for (row, &p) in rows.iter().enumerate() {
            word.set(p, bit(enc, row, rb, lane));
        }
        let d = code.decode(&word);
        match d.status {
            Status::Detected => uncorrectable.push(lane),
            _ => {
                corrected_bits += d.errors.len() as u64;
                for (row, &p) in rows.iter().take(k).enumerate() {
                    set_bit(&mut data, row, rb, lane, d.codeword.get(p));
                }
            }
        }
    }
    GroupDecoded {
        data,
        corrected_bits,
        uncorrectable,
    }
}
