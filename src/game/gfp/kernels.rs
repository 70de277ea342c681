//! The row kernels of the packed elimination: Barrett reduction modulo a prime `p < 256` and
//! the byte and 16-bit loops over rows, each compiled plainly and with AVX2
//! ([`crate::cpu::avx2_twins!`]), the copy chosen once.

use crate::cpu::{self, Avx2};

/// Reduction of 16-bit values modulo a prime `p < 256`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Modulus {
    p: u16,
    /// `floor(2^16 / p)`.
    m: u16,
    /// `floor(2^8 / p)`.
    m8: u16,
}

impl Modulus {
    pub(super) fn new(p: u8) -> Modulus {
        assert!(p >= 2, "modulus {p}");
        Modulus {
            p: p as u16,
            m: (65536 / p as u32) as u16,
            m8: 256 / p as u16,
        }
    }

    /// `x mod p` for a byte, the same way.
    #[inline(always)]
    pub(super) fn reduce8(self, x: u8) -> u8 {
        let x = x as u16;
        let q = (x * self.m8) >> 8;
        let r = x - q * self.p;
        (if r >= self.p { r - self.p } else { r }) as u8
    }

    /// `x mod p`: the Barrett quotient is `floor(x / p)` or one less.
    #[inline(always)]
    pub(super) fn reduce(self, x: u16) -> u8 {
        let q = ((x as u32 * self.m as u32) >> 16) as u16;
        let r = x - q * self.p;
        (if r >= self.p { r - self.p } else { r }) as u8
    }
}

/// `d += g * s (mod p)` elementwise, entries below `p`.
#[inline(always)]
fn axpy_body(d: &mut [u8], s: &[u8], g: u8, md: Modulus) {
    for (x, &y) in d.iter_mut().zip(s) {
        *x = md.reduce(*x as u16 + g as u16 * y as u16);
    }
}

/// `acc += g * s` in 16-bit lanes (no reduction).
#[inline(always)]
fn madd16_body(acc: &mut [u16], s: &[u8], g: u8) {
    for (x, &y) in acc.iter_mut().zip(s) {
        *x += g as u16 * y as u16;
    }
}

/// `d = acc mod p`.
#[inline(always)]
fn store16_body(d: &mut [u8], acc: &[u16], md: Modulus) {
    for (x, &v) in d.iter_mut().zip(acc) {
        *x = md.reduce(v);
    }
}

/// `d += s` bytewise (wrapping; the caller keeps the sums below 256).
#[inline(always)]
fn add8_body(d: &mut [u8], s: &[u8]) {
    for (x, &y) in d.iter_mut().zip(s) {
        *x = x.wrapping_add(y);
    }
}

/// `d += s0 + s1 + s2 + s3` bytewise (wrapping), loading and storing `d` once.
#[inline(always)]
fn add8x4_body(d: &mut [u8], s: [&[u8]; 4]) {
    let n = d.len();
    let [a, b, c, e] = s.map(|x| &x[..n]);
    for j in 0..n {
        d[j] = d[j]
            .wrapping_add(a[j])
            .wrapping_add(b[j])
            .wrapping_add(c[j])
            .wrapping_add(e[j]);
    }
}

/// `d = d mod p` bytewise.
#[inline(always)]
fn reduce8_body(d: &mut [u8], md: Modulus) {
    for x in d.iter_mut() {
        *x = md.reduce8(*x);
    }
}

/// `sum d_j s_j (mod p)`.
#[inline(always)]
fn dot_body(d: &[u8], s: &[u8], p: u8) -> u8 {
    // Each product is below 2^16, so 2^15 of them fit in a u32.
    let mut acc = 0u64;
    for (a, b) in d.chunks(1 << 15).zip(s.chunks(1 << 15)) {
        let part: u32 = a.iter().zip(b).map(|(&x, &y)| x as u32 * y as u32).sum();
        acc += part as u64;
    }
    (acc % p as u64) as u8
}

cpu::avx2_twins! {
    fn axpy_k(d: &mut [u8], s: &[u8], g: u8, md: Modulus) = axpy_body;
    fn madd16_k(acc: &mut [u16], s: &[u8], g: u8) = madd16_body;
    fn store16_k(d: &mut [u8], acc: &[u16], md: Modulus) = store16_body;
    fn add8_k(d: &mut [u8], s: &[u8]) = add8_body;
    fn add8x4_k(d: &mut [u8], s: [&[u8]; 4]) = add8x4_body;
    fn reduce8_k(d: &mut [u8], md: Modulus) = reduce8_body;
    fn dot_k(d: &[u8], s: &[u8], p: u8) -> u8 = dot_body;
}

/// The row kernels, with the instruction set chosen once.
#[derive(Clone, Copy, Debug)]
pub(super) struct Kernels {
    md: Modulus,
    avx2: Option<Avx2>,
}

impl Kernels {
    pub(super) fn new(p: u8) -> Kernels {
        Kernels {
            md: Modulus::new(p),
            avx2: Avx2::detect(),
        }
    }

    pub(super) fn p(self) -> u8 {
        self.md.p as u8
    }

    /// `d += g * s (mod p)`.
    pub(super) fn axpy(self, d: &mut [u8], s: &[u8], g: u8) {
        axpy_k(self.avx2, d, s, g, self.md)
    }

    /// `acc += g * s` in 16-bit lanes.
    pub(super) fn madd16(self, acc: &mut [u16], s: &[u8], g: u8) {
        madd16_k(self.avx2, acc, s, g)
    }

    /// `d = acc mod p`.
    pub(super) fn store16(self, d: &mut [u8], acc: &[u16]) {
        store16_k(self.avx2, d, acc, self.md)
    }

    /// `d += s` bytewise, unreduced.
    pub(super) fn add8(self, d: &mut [u8], s: &[u8]) {
        add8_k(self.avx2, d, s)
    }

    /// `d += s0 + s1 + s2 + s3` bytewise, unreduced.
    pub(super) fn add8x4(self, d: &mut [u8], s: [&[u8]; 4]) {
        add8x4_k(self.avx2, d, s)
    }

    /// `d = d mod p` bytewise.
    pub(super) fn reduce8(self, d: &mut [u8]) {
        reduce8_k(self.avx2, d, self.md)
    }

    /// `acc = acc mod p` in place.
    pub(super) fn reduce16(self, acc: &mut [u16]) {
        for x in acc.iter_mut() {
            *x = self.md.reduce(*x) as u16;
        }
    }

    /// `d . s (mod p)`.
    pub(super) fn dot(self, d: &[u8], s: &[u8]) -> u8 {
        dot_k(self.avx2, d, s, self.p())
    }
}
