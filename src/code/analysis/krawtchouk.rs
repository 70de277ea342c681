//! The hot loop of the MacWilliams transform: `sum_w B_w K_j(w)` for `j = 0..=n/2`, on
//! fixed-width two's-complement limb arrays instead of heap-allocated big integers.
//!
//! For each dual weight `w` the Krawtchouk values come from the recurrence
//! `(j + 1) K_{j+1} = (n - 2w) K_j - (n - j + 1) K_{j-1}`, in buffers only as wide as
//! `|K_j| <= C(n, j)` needs at step `j` (the width grows with `j`). The sums are split by the
//! parity of `w`, because `K_{n-j}(w) = (-1)^w K_j(w)` then gives the upper half of the
//! distribution for free. `naive_sums` (tests) is the slow big-integer reference.

use num_bigint::{BigInt, BigUint, Sign};
use rayon::prelude::*;

/// Sign-extends a two's-complement number held in `x[..from]` to `x[..to]`.
fn extend(x: &mut [u64], from: usize, to: usize) {
    let fill = if from > 0 && (x[from - 1] >> 63) == 1 {
        u64::MAX
    } else {
        0
    };
    x[from..to].iter_mut().for_each(|l| *l = fill);
}

fn is_negative(x: &[u64]) -> bool {
    x.last().is_some_and(|&l| l >> 63 == 1)
}

fn negate(x: &mut [u64]) {
    let mut carry = true;
    for l in x.iter_mut() {
        let (v, c) = (!*l).overflowing_add(u64::from(carry));
        *l = v;
        carry = c;
    }
}

/// `dst = a * x - b * y (mod 2^(64 len))`, `a` signed, `b` unsigned.
fn combine(dst: &mut [u64], x: &[u64], a: i64, y: &[u64], b: u64) {
    let ua = u128::from(a.unsigned_abs());
    let b = u128::from(b);
    let (mut cx, mut cy) = (0u128, 0u128);
    let mut carry = false;
    if a >= 0 {
        for i in 0..dst.len() {
            let px = u128::from(x[i]) * ua + cx;
            cx = px >> 64;
            let py = u128::from(y[i]) * b + cy;
            cy = py >> 64;
            let (v, b1) = (px as u64).overflowing_sub(py as u64);
            let (v, b2) = v.overflowing_sub(u64::from(carry));
            dst[i] = v;
            carry = b1 || b2;
        }
    } else {
        // a x - b y = -(|a| x + b y)
        for i in 0..dst.len() {
            let px = u128::from(x[i]) * ua + cx;
            cx = px >> 64;
            let py = u128::from(y[i]) * b + cy;
            cy = py >> 64;
            let (v, c1) = (px as u64).overflowing_add(py as u64);
            let (v, c2) = v.overflowing_add(u64::from(carry));
            dst[i] = v;
            carry = c1 || c2;
        }
        negate(dst);
    }
}

/// Divides a two's-complement number by `d`, which divides it exactly: an arithmetic shift by
/// the twos in `d`, then Hensel division by the odd part (`q_i = (x_i - c) * d^-1 mod 2^64`,
/// the carry `c` being the high half of `q_i d`), which needs one multiplication per limb and
/// no hardware division.
fn div_exact(x: &mut [u64], d: u64) {
    let tz = d.trailing_zeros();
    if tz > 0 {
        let fill = if is_negative(x) { u64::MAX } else { 0 };
        for i in 0..x.len() {
            let hi = if i + 1 < x.len() { x[i + 1] } else { fill };
            x[i] = (x[i] >> tz) | (hi << (64 - tz));
        }
    }
    let odd = d >> tz;
    if odd == 1 {
        return;
    }
    // Newton iteration for odd^-1 mod 2^64: each step doubles the correct low bits
    // (odd * odd = 1 mod 8 gives three to start with).
    let mut inv = odd;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(odd.wrapping_mul(inv)));
    }
    let mut c = 0u64;
    for l in x.iter_mut() {
        let (t, borrow) = l.overflowing_sub(c);
        let q = t.wrapping_mul(inv);
        *l = q;
        c = ((u128::from(q) * u128::from(odd)) >> 64) as u64 + u64::from(borrow);
    }
}

/// `acc += mag * b` (or `-=` when `SUB`), mod `2^(64 acc.len())`: the product is formed one
/// output limb at a time (column by column, in a three-word accumulator) and added to `acc` in
/// a single pass.
fn mul_add<const SUB: bool>(acc: &mut [u64], mag: &[u64], b: &[u64]) {
    let (lm, lb) = (mag.len(), b.len());
    if lm == 0 || lb == 0 {
        return;
    }
    let (mut lo, mut mid, mut hi) = (0u64, 0u64, 0u64);
    let mut carry = false;
    let end = (lm + lb).min(acc.len());
    for (i, slot) in acc[..end].iter_mut().enumerate() {
        let k_lo = i.saturating_sub(lm - 1);
        let k_hi = i.min(lb - 1);
        for k in k_lo..=k_hi {
            let p = u128::from(mag[i - k]) * u128::from(b[k]);
            let (v, c) = lo.overflowing_add(p as u64);
            lo = v;
            let (v, c1) = mid.overflowing_add((p >> 64) as u64);
            let (v, c2) = v.overflowing_add(u64::from(c));
            mid = v;
            hi += u64::from(c1) + u64::from(c2);
        }
        let (v, c1) = if SUB {
            slot.overflowing_sub(lo)
        } else {
            slot.overflowing_add(lo)
        };
        let (v, c2) = if SUB {
            v.overflowing_sub(u64::from(carry))
        } else {
            v.overflowing_add(u64::from(carry))
        };
        *slot = v;
        carry = c1 || c2;
        (lo, mid, hi) = (mid, hi, 0);
    }
    if carry {
        for slot in acc[end..].iter_mut() {
            let (v, c) = if SUB {
                slot.overflowing_sub(1)
            } else {
                slot.overflowing_add(1)
            };
            *slot = v;
            if !c {
                break;
            }
        }
    }
}

fn add_into(acc: &mut [u64], other: &[u64]) {
    let mut carry = false;
    for (a, &b) in acc.iter_mut().zip(other) {
        let (v, c1) = a.overflowing_add(b);
        let (v, c2) = v.overflowing_add(u64::from(carry));
        *a = v;
        carry = c1 || c2;
    }
}

fn to_bigint(x: &[u64]) -> BigInt {
    if is_negative(x) {
        let mut m = x.to_vec();
        negate(&mut m);
        BigInt::from_biguint(Sign::Minus, BigUint::from_slice(&to_u32(&m)))
    } else {
        BigInt::from_biguint(Sign::Plus, BigUint::from_slice(&to_u32(x)))
    }
}

fn to_u32(x: &[u64]) -> Vec<u32> {
    x.iter()
        .flat_map(|&l| [l as u32, (l >> 32) as u32])
        .collect()
}

/// Limbs for a signed number of magnitude below `2^bits`.
fn limbs_for(bits: f64) -> usize {
    (bits.max(0.0) as usize + 2).div_ceil(64)
}

/// Per `j`: limbs for `K_j` (and the recurrence's intermediate `(j + 1) K_{j+1}`), and for the
/// accumulated sums (up to `2^extra` times larger).
fn widths(n: usize, extra: usize) -> (Vec<usize>, Vec<usize>) {
    let half = n / 2;
    let log_n = (n.max(2) as f64).log2();
    let mut log_c = 0.0f64; // log2 C(n, j)
    let mut k = Vec::with_capacity(half + 1);
    let mut acc = Vec::with_capacity(half + 1);
    for j in 0..=half {
        k.push(limbs_for(log_c + log_n + 2.0));
        acc.push(limbs_for(log_c + extra as f64 + 2.0));
        log_c += ((n - j) as f64).log2() - ((j + 1) as f64).log2();
    }
    (k, acc)
}

/// `(even, odd)`: for `j = 0..=n/2`, the sums of `B_w K_j(w)` over the entries `(w, B_w)` with
/// even and odd `w`.
pub(crate) fn sums(n: usize, entries: &[(usize, BigUint)]) -> (Vec<BigInt>, Vec<BigInt>) {
    let half = n / 2;
    let extra = entries
        .iter()
        .map(|(_, b)| b.bits() as usize)
        .max()
        .unwrap_or(0)
        + (usize::BITS - entries.len().leading_zeros()) as usize;
    let (kw, aw) = widths(n, extra);
    let new_acc = || -> [Vec<Vec<u64>>; 2] {
        let one = || aw.iter().map(|&l| vec![0u64; l]).collect::<Vec<_>>();
        [one(), one()]
    };
    let threads = rayon::current_num_threads().max(1);
    let chunk = entries.len().div_ceil(threads).max(1);
    let [even, odd] = entries
        .par_chunks(chunk)
        .map(|part| {
            let mut acc = new_acc();
            let width = kw[half];
            let (mut prev, mut cur, mut next) =
                (vec![0u64; width], vec![0u64; width], vec![0u64; width]);
            let mut mag = vec![0u64; width];
            for (w, bw) in part {
                let b = bw.to_u64_digits();
                let acc = &mut acc[w % 2];
                let c1 = n as i64 - 2 * *w as i64;
                // K_0 = 1, K_1 = n - 2w.
                prev.fill(0);
                prev[0] = 1;
                mul_add::<false>(&mut acc[0], &prev[..1], &b);
                if half == 0 {
                    continue;
                }
                cur.fill(0);
                cur[0] = c1.unsigned_abs();
                if c1 < 0 {
                    negate(&mut cur[..kw[1]]);
                }
                let mut len_prev = 1;
                let mut len_cur = kw[1];
                add_term(&mut acc[1], &cur[..len_cur], &b, &mut mag);
                for j in 1..half {
                    let len = kw[j + 1];
                    extend(&mut prev, len_prev, len);
                    extend(&mut cur, len_cur, len);
                    combine(
                        &mut next[..len],
                        &cur[..len],
                        c1,
                        &prev[..len],
                        (n - j + 1) as u64,
                    );
                    div_exact(&mut next[..len], (j + 1) as u64);
                    add_term(&mut acc[j + 1], &next[..len], &b, &mut mag);
                    std::mem::swap(&mut prev, &mut cur);
                    std::mem::swap(&mut cur, &mut next);
                    len_prev = len_cur;
                    len_cur = len;
                }
            }
            acc
        })
        .reduce(new_acc, |mut a, b| {
            for p in 0..2 {
                for (x, y) in a[p].iter_mut().zip(&b[p]) {
                    add_into(x, y);
                }
            }
            a
        });
    (
        even.iter().map(|x| to_bigint(x)).collect(),
        odd.iter().map(|x| to_bigint(x)).collect(),
    )
}

/// `acc += B * K` for a two's-complement `K`.
fn add_term(acc: &mut [u64], k: &[u64], b: &[u64], scratch: &mut [u64]) {
    if is_negative(k) {
        let m = &mut scratch[..k.len()];
        m.copy_from_slice(k);
        negate(m);
        mul_add::<true>(acc, m, b);
    } else {
        mul_add::<false>(acc, k, b);
    }
}

#[cfg(test)]
pub(crate) fn naive_sums(n: usize, entries: &[(usize, BigUint)]) -> (Vec<BigInt>, Vec<BigInt>) {
    use num_traits::{One, Zero};
    let half = n / 2;
    let mut even = vec![BigInt::zero(); half + 1];
    let mut odd = vec![BigInt::zero(); half + 1];
    for (w, bw) in entries {
        let acc = if w % 2 == 0 { &mut even } else { &mut odd };
        let bw = BigInt::from(bw.clone());
        let c1 = n as i64 - 2 * *w as i64;
        let mut prev = BigInt::one();
        acc[0] += &bw;
        if half == 0 {
            continue;
        }
        let mut cur = BigInt::from(c1);
        acc[1] += &bw * &cur;
        for j in 1..half {
            let next = (&cur * c1 - &prev * (n - j + 1) as u64) / (j + 1) as u64;
            acc[j + 1] += &bw * &next;
            prev = std::mem::replace(&mut cur, next);
        }
    }
    (even, odd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_division_of_signed_numbers() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..2000 {
            let q: i128 = rng.gen_range(-(1i128 << 100)..(1i128 << 100));
            let d: u64 = rng.gen_range(1..100_000);
            let x = q * i128::from(d);
            let mut limbs = [x as u64, (x >> 64) as u64];
            div_exact(&mut limbs, d);
            assert_eq!(
                (limbs[0] as u128 | (u128::from(limbs[1]) << 64)) as i128,
                q,
                "{x} / {d}"
            );
        }
    }
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn fast_sums_match_naive() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for n in (0..40).chain([63, 64, 65, 130, 257, 700]) {
            for _ in 0..3 {
                let count = rng.gen_range(1..6);
                let mut entries: Vec<(usize, BigUint)> = (0..count)
                    .map(|_| {
                        let w = rng.gen_range(0..=n);
                        let limbs: Vec<u32> =
                            (0..rng.gen_range(1..6)).map(|_| rng.r#gen()).collect();
                        (w, BigUint::from_slice(&limbs))
                    })
                    .collect();
                entries.sort_by_key(|e| e.0);
                entries.dedup_by_key(|e| e.0);
                assert_eq!(
                    sums(n, &entries),
                    naive_sums(n, &entries),
                    "n={n} {entries:?}"
                );
            }
        }
    }
}
