//! Arithmetic in GF(2^8), the field of the recovery chunks' Reed–Solomon code.
//!
//! The field is GF(2)\[x\] / (x^8 + x^4 + x^3 + x + 1) (the AES polynomial, `0x11B`), the one
//! the `GF2P8MULB` instruction multiplies in, so that the x86 GFNI paths need no change of
//! basis. A byte `b7..b0` is the polynomial `b7 x^7 + ... + b0`; addition is XOR.
//!
//! Scalar arithmetic goes through exp/log tables with the generator 3 (`x + 1`, a primitive
//! element for this polynomial; 2 is not). Slices go through [`mul_acc_many`], which adds
//! `R` linear combinations of `J` source slices into `R` destination slices in one pass over
//! memory, 64-byte strip by strip (the AVX2 path block by block): each source strip and
//! each destination strip is read from memory once per call, whatever `R` and `J`. It has
//! four paths, chosen once per process ([`Kernel::detect`]): AVX-512BW with GFNI, AVX2 with
//! GFNI, AVX2 alone (split-nibble tables and `VPSHUFB`, for CPUs without GFNI such as AMD
//! Zen 3), and a portable one with a 256-byte product table per coefficient. [`mul_slow`]
//! (shift and add) is the reference every path is tested against.

#[cfg(target_arch = "x86_64")]
mod nibbles;
#[cfg(target_arch = "x86_64")]
mod x86;

use std::sync::OnceLock;

/// The field's reduction polynomial x^8 + x^4 + x^3 + x + 1.
pub const POLY: u16 = 0x11B;
/// The generator of the multiplicative group the exp/log tables use (the polynomial x + 1).
pub const GENERATOR: u8 = 3;
/// Bytes the slice kernels handle at a time.
pub const STRIP: usize = 64;

/// `exp[i] = 3^i` for `i < 510` (twice round the group, so that a sum of two logs needs no
/// reduction); `log[a]` for `a != 0` (`log[0]` is unused).
struct Tables {
    exp: [u8; 512],
    log: [u8; 256],
}

const fn tables() -> Tables {
    let mut exp = [0u8; 512];
    let mut log = [0u8; 256];
    let mut x: u16 = 1;
    let mut i = 0;
    while i < 255 {
        exp[i] = x as u8;
        exp[i + 255] = x as u8;
        log[x as usize] = i as u8;
        // x *= 3, that is x * (x + 1) = (x << 1) ^ x, reduced.
        x ^= x << 1;
        if x & 0x100 != 0 {
            x ^= POLY;
        }
        i += 1;
    }
    exp[510] = exp[0];
    exp[511] = exp[1];
    Tables { exp, log }
}

static TABLES: Tables = tables();

/// The product `a b`, by shift and add: the obviously correct reference.
pub fn mul_slow(a: u8, b: u8) -> u8 {
    let (mut a, mut b, mut p) = (a as u16, b, 0u16);
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a <<= 1;
        if a & 0x100 != 0 {
            a ^= POLY;
        }
        b >>= 1;
    }
    p as u8
}

/// The product `a b`.
#[inline]
pub fn mul(a: u8, b: u8) -> u8 {
    if a == 0 || b == 0 {
        return 0;
    }
    let t = &TABLES;
    t.exp[t.log[a as usize] as usize + t.log[b as usize] as usize]
}

/// The inverse `1 / a`.
///
/// # Panics
/// When `a` is zero, which has no inverse.
#[inline]
pub fn inv(a: u8) -> u8 {
    assert!(a != 0, "zero has no inverse in GF(2^8)");
    let t = &TABLES;
    t.exp[255 - t.log[a as usize] as usize]
}

/// The quotient `a / b`.
///
/// # Panics
/// When `b` is zero.
#[inline]
pub fn div(a: u8, b: u8) -> u8 {
    mul(a, inv(b))
}

/// `dst ^= c src` over `src`'s bytes (`src.len() <= dst.len()`; the rest of `dst` is left
/// as it is, as if `src` were zero-padded).
///
/// # Panics
/// When `src` is longer than `dst`.
pub fn mul_acc(dst: &mut [u8], src: &[u8], c: u8) {
    mul_acc_many(&mut [dst], &[src], &[c]);
}

/// `dsts[s] ^= Σ_j coefs[s J + j] srcs[j]` for every `s`, with `J = srcs.len()`: the
/// coefficients are a row-major `dsts.len()` by `J` table. A source shorter than the
/// destinations counts as zero-padded (only its own bytes are read). One pass over memory:
/// each 64-byte strip of each source and each destination is loaded from memory once.
/// A coefficient 1 is a plain XOR and a coefficient 0 costs nothing.
///
/// # Panics
/// When `coefs.len() != dsts.len() * srcs.len()`, when the destinations differ in length,
/// or when a source is longer than the destinations.
pub fn mul_acc_many(dsts: &mut [&mut [u8]], srcs: &[&[u8]], coefs: &[u8]) {
    mul_acc_many_with(Kernel::detect(), dsts, srcs, coefs);
}

/// The code paths of the slice kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// AVX-512BW and GFNI: one `VGF2P8MULB` per 64 bytes and coefficient.
    Avx512Gfni,
    /// AVX2 and GFNI: two 32-byte `VGF2P8MULB` per 64 bytes and coefficient.
    Avx2Gfni,
    /// AVX2 without GFNI: two 16-entry product tables per coefficient (low and high
    /// nibble), looked up 32 bytes at a time with `VPSHUFB`.
    Avx2,
    /// Any CPU: a 256-byte product table per coefficient, a byte at a time.
    Portable,
}

impl Kernel {
    /// Every path, fastest first.
    pub const ALL: [Kernel; 4] = [
        Kernel::Avx512Gfni,
        Kernel::Avx2Gfni,
        Kernel::Avx2,
        Kernel::Portable,
    ];

    /// The fastest path this CPU runs (detected on the first call, then cached).
    pub fn detect() -> Kernel {
        static BEST: OnceLock<Kernel> = OnceLock::new();
        *BEST.get_or_init(|| {
            Kernel::ALL
                .into_iter()
                .find(|k| k.available())
                .unwrap_or(Kernel::Portable)
        })
    }

    /// Whether this CPU runs the path ([`crate::cpu::features`]).
    pub fn available(self) -> bool {
        let f = crate::cpu::features();
        match self {
            Kernel::Portable => true,
            Kernel::Avx512Gfni => f.avx512f && f.avx512bw && f.gfni,
            Kernel::Avx2Gfni => f.avx2 && f.gfni,
            Kernel::Avx2 => f.avx2,
        }
    }

    /// Runs whole strips: every slice has the same length, a multiple of [`STRIP`].
    fn strips(self, dsts: &mut [&mut [u8]], srcs: &[&[u8]], coefs: &[u8]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Gfni => x86::call(self, x86::avx512_run, dsts, srcs, coefs),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2Gfni => x86::call(self, x86::avx2_run, dsts, srcs, coefs),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => x86::call(self, nibbles::run, dsts, srcs, coefs),
            _ => portable(dsts, srcs, coefs),
        }
    }
}

/// [`mul_acc_many`] on a given path.
///
/// # Panics
/// As [`mul_acc_many`]; and when this CPU does not run `kernel` ([`Kernel::available`]).
pub fn mul_acc_many_with(kernel: Kernel, dsts: &mut [&mut [u8]], srcs: &[&[u8]], coefs: &[u8]) {
    assert!(kernel.available(), "{kernel:?} does not run on this CPU");
    assert_eq!(
        coefs.len(),
        dsts.len() * srcs.len(),
        "a coefficient per destination and source"
    );
    let Some(len) = dsts.first().map(|d| d.len()) else {
        return;
    };
    assert!(
        dsts.iter().all(|d| d.len() == len),
        "destinations of one length"
    );
    assert!(
        srcs.iter().all(|s| s.len() <= len),
        "a source longer than the destinations"
    );
    // Segments [start, end) over which the same sources (`active`) have bytes: whole
    // strips go to the kernel together; a last part strip is padded in a 64-byte buffer.
    let mut start = 0;
    let mut active: Vec<usize> = (0..srcs.len()).collect();
    let mut cs = Vec::with_capacity(coefs.len());
    loop {
        active.retain(|&j| srcs[j].len() > start);
        let Some(end) = active.iter().map(|&j| srcs[j].len()).min() else {
            return;
        };
        cs.clear();
        for s in 0..dsts.len() {
            cs.extend(active.iter().map(|&j| coefs[s * srcs.len() + j]));
        }
        let whole = start + (end - start) / STRIP * STRIP;
        if whole > start {
            let mut d: Vec<&mut [u8]> = dsts.iter_mut().map(|d| &mut d[start..whole]).collect();
            let s: Vec<&[u8]> = active.iter().map(|&j| &srcs[j][start..whole]).collect();
            kernel.strips(&mut d, &s, &cs);
        }
        if whole == end {
            start = end;
            continue;
        }
        // A part strip [whole, whole + 64): copy it out zero-padded, run it, copy back.
        let room = (len - whole).min(STRIP);
        let mut dbuf = vec![[0u8; STRIP]; dsts.len()];
        let mut sbuf = vec![[0u8; STRIP]; active.len()];
        for (b, d) in dbuf.iter_mut().zip(dsts.iter()) {
            b[..room].copy_from_slice(&d[whole..whole + room]);
        }
        for (b, &j) in sbuf.iter_mut().zip(&active) {
            let n = (srcs[j].len() - whole).min(STRIP);
            b[..n].copy_from_slice(&srcs[j][whole..whole + n]);
        }
        {
            let mut d: Vec<&mut [u8]> = dbuf.iter_mut().map(|b| &mut b[..]).collect();
            let s: Vec<&[u8]> = sbuf.iter().map(|b| &b[..]).collect();
            kernel.strips(&mut d, &s, &cs);
        }
        for (b, d) in dbuf.iter().zip(dsts.iter_mut()) {
            d[whole..whole + room].copy_from_slice(&b[..room]);
        }
        start = whole + STRIP;
    }
}

/// The portable path: a product table per coefficient, strip by strip.
fn portable(dsts: &mut [&mut [u8]], srcs: &[&[u8]], coefs: &[u8]) {
    let n = srcs.len();
    let rows: Vec<[u8; 256]> = coefs
        .iter()
        .map(|&c| std::array::from_fn(|x| mul(c, x as u8)))
        .collect();
    let len = dsts.first().map_or(0, |d| d.len());
    for o in (0..len).step_by(STRIP) {
        for (s, d) in dsts.iter_mut().enumerate() {
            let d = &mut d[o..o + STRIP];
            for (j, src) in srcs.iter().enumerate() {
                let src = &src[o..o + STRIP];
                match coefs[s * n + j] {
                    0 => {}
                    1 => d.iter_mut().zip(src).for_each(|(d, x)| *d ^= x),
                    _ => {
                        let row = &rows[s * n + j];
                        d.iter_mut()
                            .zip(src)
                            .for_each(|(d, &x)| *d ^= row[x as usize]);
                    }
                }
            }
        }
    }
}

/// Inverts a square matrix (row-major, `n` by `n`) by Gauss–Jordan elimination; `None` when
/// it is singular.
pub fn invert(m: &[u8], n: usize) -> Option<Vec<u8>> {
    assert_eq!(m.len(), n * n, "an n by n matrix");
    let mut a = m.to_vec();
    let mut b = vec![0u8; n * n];
    for i in 0..n {
        b[i * n + i] = 1;
    }
    for col in 0..n {
        let pivot = (col..n).find(|&r| a[r * n + col] != 0)?;
        if pivot != col {
            for k in 0..n {
                a.swap(pivot * n + k, col * n + k);
                b.swap(pivot * n + k, col * n + k);
            }
        }
        let f = inv(a[col * n + col]);
        for k in 0..n {
            a[col * n + k] = mul(a[col * n + k], f);
            b[col * n + k] = mul(b[col * n + k], f);
        }
        for r in 0..n {
            let f = a[r * n + col];
            if r == col || f == 0 {
                continue;
            }
            for k in 0..n {
                a[r * n + k] ^= mul(f, a[col * n + k]);
                b[r * n + k] ^= mul(f, b[col * n + k]);
            }
        }
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn tables_agree_with_shift_and_add() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(mul(a, b), mul_slow(a, b), "{a} * {b}");
            }
            if a != 0 {
                assert_eq!(mul_slow(a, inv(a)), 1, "1 / {a}");
                assert_eq!(div(mul_slow(a, 77), a), 77);
            }
        }
    }

    #[test]
    fn three_generates_the_group() {
        let mut seen = [false; 256];
        let mut x = 1u8;
        for _ in 0..255 {
            assert!(!seen[x as usize], "3 has order below 255");
            seen[x as usize] = true;
            x = mul_slow(x, GENERATOR);
        }
        assert_eq!(x, 1);
        assert!(!seen[0]);
        // FIPS-197's examples.
        assert_eq!(mul(0x57, 0x83), 0xC1);
        assert_eq!(mul(0x53, 0xCA), 0x01);
        // 2 is not a generator for this polynomial (its order is 51).
        let mut y = 2u8;
        let mut order = 1;
        while y != 1 {
            y = mul_slow(y, 2);
            order += 1;
        }
        assert_eq!(order, 51);
    }

    /// `dsts[s] ^= Σ c srcs[j]` a byte at a time with the shift-and-add product.
    fn reference(dsts: &mut [Vec<u8>], srcs: &[Vec<u8>], coefs: &[u8]) {
        for (s, d) in dsts.iter_mut().enumerate() {
            for (j, src) in srcs.iter().enumerate() {
                let c = coefs[s * srcs.len() + j];
                for (d, &x) in d.iter_mut().zip(src) {
                    *d ^= mul_slow(c, x);
                }
            }
        }
    }

    fn random_case(rng: &mut ChaCha20Rng) -> (Vec<Vec<u8>>, Vec<Vec<u8>>, Vec<u8>) {
        let r = rng.gen_range(1..=9);
        let j = rng.gen_range(0..=11);
        let len = match rng.gen_range(0..5) {
            0 => rng.gen_range(0..=3),
            1 => rng.gen_range(1..=5) * STRIP,
            // Past the AVX2 path's blocks of 2 KiB.
            2 => rng.gen_range(2000..=7000),
            _ => rng.gen_range(1..=700),
        };
        let dsts = (0..r)
            .map(|_| (0..len).map(|_| rng.r#gen()).collect())
            .collect();
        let srcs = (0..j)
            .map(|_| {
                let n = match rng.gen_range(0..3) {
                    0 => len,
                    _ => rng.gen_range(0..=len),
                };
                (0..n).map(|_| rng.r#gen()).collect()
            })
            .collect();
        // Half the cases as the recovery coder has them: the first row all ones.
        let first_ones = rng.gen_bool(0.5);
        let coefs = (0..r * j)
            .map(|i| match rng.gen_range(0..5) {
                _ if first_ones && i < j => 1,
                0 => 0,
                1 => 1,
                _ => rng.r#gen(),
            })
            .collect();
        (dsts, srcs, coefs)
    }

    #[test]
    fn every_path_matches_the_reference() {
        let mut ran = 0;
        for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
            ran += 1;
            let mut rng = ChaCha20Rng::seed_from_u64(13);
            for case in 0..600 {
                let (dsts, srcs, coefs) = random_case(&mut rng);
                let mut want = dsts.clone();
                reference(&mut want, &srcs, &coefs);
                let mut got = dsts.clone();
                {
                    let mut d: Vec<&mut [u8]> = got.iter_mut().map(|d| &mut d[..]).collect();
                    let s: Vec<&[u8]> = srcs.iter().map(|s| &s[..]).collect();
                    mul_acc_many_with(kernel, &mut d, &s, &coefs);
                }
                assert_eq!(
                    got,
                    want,
                    "{kernel:?}, case {case}: {} x {} of {:?}",
                    dsts.len(),
                    srcs.len(),
                    srcs.iter().map(Vec::len).collect::<Vec<_>>()
                );
            }
        }
        assert!(ran >= 1);
    }

    #[test]
    fn mul_acc_leaves_the_rest_alone() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        for len in [1usize, 63, 64, 65, 200, 1000] {
            for c in [0u8, 1, 2, 0x53, 0xCA, 0xFF] {
                let dst: Vec<u8> = (0..len + 37).map(|_| rng.r#gen()).collect();
                let src: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
                let mut got = dst.clone();
                mul_acc(&mut got, &src, c);
                let want: Vec<u8> = dst
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| d ^ src.get(i).map_or(0, |&x| mul_slow(c, x)))
                    .collect();
                assert_eq!(got, want, "len {len}, c {c}");
            }
        }
    }

    #[test]
    fn inversion_inverts() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        for n in 1..=12 {
            for _ in 0..20 {
                let m: Vec<u8> = (0..n * n).map(|_| rng.r#gen()).collect();
                let Some(b) = invert(&m, n) else {
                    // Singular: some row is a combination of the others; check by rank.
                    continue;
                };
                for i in 0..n {
                    for k in 0..n {
                        let p = (0..n).fold(0, |acc, t| acc ^ mul_slow(m[i * n + t], b[t * n + k]));
                        assert_eq!(p, u8::from(i == k), "n {n}");
                    }
                }
            }
        }
        assert_eq!(invert(&[1, 2, 2, 4], 2), None);
        assert_eq!(invert(&[0, 1, 1, 0], 2), Some(vec![0, 1, 1, 0]));
    }
}
