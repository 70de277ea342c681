//! SplitMix64, the generator the GF(2) benchmarks and the M4RI comparison harness
//! (`scripts/m4ri/bench.c`) both fill their matrices from.
//!
//! SplitMix64 is not linear over GF(2) (it multiplies), so matrices filled from it behave like
//! uniformly random ones; an F2-linear generator (xorshift, a plain LFSR) would not be a fair
//! source of test matrices for an eliminator.

use rand::{RngCore, SeedableRng};

/// The SplitMix64 generator (Steele, Lea and Flood), as in Java's `SplittableRandom`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose first output is the mix of `seed + 0x9E3779B97F4A7C15`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }
}

impl RngCore for SplitMix64 {
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            let w = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl SeedableRng for SplitMix64 {
    type Seed = [u8; 8];

    fn from_seed(seed: [u8; 8]) -> Self {
        SplitMix64::new(u64::from_le_bytes(seed))
    }

    fn seed_from_u64(seed: u64) -> Self {
        SplitMix64::new(seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_outputs() {
        // Published test vector: SplitMix64 seeded with 1234567.
        let mut g = SplitMix64::new(1_234_567);
        let want = [
            6_457_827_717_110_365_317u64,
            3_203_168_211_198_807_973,
            9_817_491_932_198_370_423,
            4_593_380_528_125_082_431,
            16_408_922_859_458_223_821,
        ];
        for w in want {
            assert_eq!(g.next_u64(), w);
        }
    }

    #[test]
    fn seeding_paths_agree() {
        let mut a = SplitMix64::seed_from_u64(99);
        let mut b = SplitMix64::from_seed(99u64.to_le_bytes());
        let mut bytes = [0u8; 12];
        b.fill_bytes(&mut bytes);
        let w0 = a.next_u64().to_le_bytes();
        let w1 = a.next_u64().to_le_bytes();
        assert_eq!(&bytes[..8], &w0);
        assert_eq!(&bytes[8..], &w1[..4]);
    }
}
