//! Helpers shared by the stream tests: seeded payloads and the kinds of damage the codec's
//! promises are tested under (`tests/stream_damage.rs`, `tests/stream_threads.rs`).

#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `len` seeded random bytes.
pub fn payload(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| rng.r#gen()).collect()
}

/// Kinds of damage [`damage`] does.
pub const DAMAGE_KINDS: usize = 8;

/// Damages `d` (at least 1000 bytes) in one of [`DAMAGE_KINDS`] ways (`kind` taken modulo
/// that), the sizes scaled to the stream's length, and says what it did.
pub fn damage(d: &mut Vec<u8>, kind: usize, rng: &mut ChaCha8Rng) -> &'static str {
    let n = d.len();
    match kind % DAMAGE_KINDS {
        0 => {
            for _ in 0..20 {
                let len = 512.min(n / 8);
                let at = rng.gen_range(0..n - len);
                d[at..at + len].fill(if rng.r#gen() { 0 } else { 0xFF });
            }
            "20 sectors of 512 B"
        }
        1 => {
            for _ in 0..20 {
                let at = rng.gen_range(0..n / 4096) * 4096;
                d[at..at + 4096].fill(0);
            }
            "20 sectors of 4 KiB"
        }
        2 => {
            let ber = [1e-5, 1e-4, 1e-3, 1e-2][rng.gen_range(0..4)];
            for _ in 0..((n * 8) as f64 * ber) as usize {
                let bit = rng.gen_range(0..n * 8);
                d[bit / 8] ^= 1 << (bit % 8);
            }
            "bit flips"
        }
        3 => {
            for _ in 0..300 {
                let at = rng.gen_range(0..n);
                d[at] = rng.r#gen();
            }
            "byte overwrites"
        }
        4 => {
            let len = rng.gen_range(1..20_000.min(n / 2));
            let at = rng.gen_range(0..n - len);
            let span = d[at..at + len].to_vec();
            let to = rng.gen_range(0..n);
            d.splice(to..to, span);
            "a duplicated span"
        }
        5 => {
            let len = rng.gen_range(1..100_000.min(n / 2));
            let at = rng.gen_range(0..n - len);
            d.drain(at..at + len);
            "a cut of up to 100 kB"
        }
        6 => {
            let len = rng.gen_range(1..=4096.min(n / 4));
            let at = rng.gen_range(0..n);
            let junk: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
            d.splice(at..at, junk);
            "an insertion of up to 4 KiB"
        }
        _ => {
            let at = rng.gen_range(0..n);
            d.truncate(at);
            "the end cut off"
        }
    }
}
