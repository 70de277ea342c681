//! Combining CRC-32C values of consecutive pieces: the whole-stream checksum is built from the
//! chunk CRCs without reading the data twice.
//!
//! `crc(A ++ B) = Z(crc(A)) ^ crc(B)`, where `Z` is the linear operator that appends `|B|` zero
//! bytes to a CRC register. Every full chunk has the same length, so its operator is built
//! once per stream (a 32 x 32 matrix over GF(2), by repeated squaring) and applied in 32 steps.

/// The CRC-32C polynomial, reflected.
const POLY: u32 = 0x82F6_3B78;

/// A 32 x 32 matrix over GF(2), stored as columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mat([u32; 32]);

impl Mat {
    fn times(&self, mut v: u32) -> u32 {
        let mut acc = 0;
        while v != 0 {
            acc ^= self.0[v.trailing_zeros() as usize];
            v &= v - 1;
        }
        acc
    }

    /// `self * other`.
    fn mul(&self, other: &Mat) -> Mat {
        let mut m = [0u32; 32];
        for (c, col) in m.iter_mut().zip(other.0.iter()) {
            *c = self.times(*col);
        }
        Mat(m)
    }

    fn identity() -> Mat {
        let mut m = [0u32; 32];
        for (i, c) in m.iter_mut().enumerate() {
            *c = 1 << i;
        }
        Mat(m)
    }
}

/// The operator appending a fixed number of zero bytes to a CRC-32C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shift(Mat, usize);

impl Shift {
    /// The operator for `len` zero bytes.
    pub fn new(len: usize) -> Shift {
        // One zero bit: shift right, folding the polynomial in when the low bit falls out.
        let mut bit = [0u32; 32];
        bit[0] = POLY;
        for (i, c) in bit.iter_mut().enumerate().skip(1) {
            *c = 1 << (i - 1);
        }
        let bit = Mat(bit);
        let two = bit.mul(&bit);
        let four = two.mul(&two);
        let mut base = four.mul(&four);
        let mut acc = Mat::identity();
        let bytes = len;
        let mut len = len;
        while len != 0 {
            if len & 1 == 1 {
                acc = base.mul(&acc);
            }
            len >>= 1;
            if len != 0 {
                base = base.mul(&base);
            }
        }
        Shift(acc, bytes)
    }

    /// The number of zero bytes this operator appends.
    pub fn bytes(&self) -> usize {
        self.1
    }

    /// `crc(A ++ B)` from `crc(A)` and `crc(B)`, `B` having this operator's length.
    pub fn combine(&self, crc_a: u32, crc_b: u32) -> u32 {
        self.0.times(crc_a) ^ crc_b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_concatenation() {
        let data: Vec<u8> = (0..5000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for split in [0, 1, 7, 8, 63, 1000, 4999, 5000] {
            let (a, b) = data.split_at(split);
            let s = Shift::new(b.len());
            assert_eq!(
                s.combine(crc32c::crc32c(a), crc32c::crc32c(b)),
                crc32c::crc32c(&data),
                "split {split}"
            );
            assert_eq!(
                s.combine(crc32c::crc32c(a), crc32c::crc32c(b)),
                crc32c::crc32c_combine(crc32c::crc32c(a), crc32c::crc32c(b), b.len())
            );
        }
    }
}
