//! Bit-sliced decoders of the codes whose checks are line parities of a board: the odd-by-odd
//! Alien Tiles code and the single-parity-check product code. Every step is word-wide across
//! the 64 lanes, with no per-lane work: the syndrome words, "exactly one" and "all" masks over
//! them, and the correction as the AND of a row indicator and a column indicator.
//!
//! A single error at `(y, x)` makes row `y` and column `x` odd. The product code sees that
//! directly. The alien code sees the differences `R_i + R_0` (`i >= 1`) and `C_j + C_0`
//! (`j >= 1`): for `y >= 1` its row part is the unit vector at `y`, for `y = 0` all ones, and
//! the same for columns; every other non-zero syndrome is detected (as the paper's locator
//! does for `m, n >= 3`; tested lane by lane against it).

/// Lanes in which exactly one word is set, and lanes in which all are.
#[inline]
fn exactly_one_and_all(words: &[u64]) -> (u64, u64) {
    let (mut one, mut two, mut all) = (0u64, 0u64, !0u64);
    for &w in words {
        two |= one & w;
        one |= w;
        all &= w;
    }
    (one & !two, all)
}

/// Row and column parity words of a board slice (`m, n <= 64`).
#[inline]
fn parities(words: &[u64], m: usize, n: usize, r: &mut [u64; 64], c: &mut [u64; 64]) {
    for (i, row) in words.chunks_exact(n).take(m).enumerate() {
        let mut acc = 0;
        for (cj, &w) in c.iter_mut().zip(row) {
            acc ^= w;
            *cj ^= w;
        }
        r[i] = acc;
    }
}

/// Flips cell `(y, x)` in the lanes of `rows[y] & cols[x]`.
#[inline]
fn correct(words: &mut [u64], n: usize, rows: &[u64], cols: &[u64]) {
    for (y, &ry) in rows.iter().enumerate() {
        if ry == 0 {
            continue;
        }
        for (x, &cx) in cols.iter().enumerate() {
            words[y * n + x] ^= ry & cx;
        }
    }
}

/// Decodes 64 codewords of `product:MxN` (`2 <= m, n <= 64`) in place; returns the detected
/// lanes.
pub(crate) fn decode_product(words: &mut [u64], m: usize, n: usize) -> u64 {
    let (mut r, mut c) = ([0u64; 64], [0u64; 64]);
    parities(words, m, n, &mut r, &mut c);
    let (r, c) = (&r[..m], &c[..n]);
    let (r1, _) = exactly_one_and_all(r);
    let (c1, _) = exactly_one_and_all(c);
    let fix = r1 & c1;
    let nz = r.iter().chain(c).fold(0, |a, &w| a | w);
    if fix != 0 {
        let rows: Vec<u64> = r.iter().map(|&w| w & fix).collect();
        correct(words, n, &rows, c);
    }
    nz & !fix
}

/// Decodes 64 codewords of an odd-by-odd `alien:MxN` (`3 <= m, n <= 64`) in place; returns
/// the detected lanes.
pub(crate) fn decode_alien_odd_odd(words: &mut [u64], m: usize, n: usize) -> u64 {
    let (mut r, mut c) = ([0u64; 64], [0u64; 64]);
    parities(words, m, n, &mut r, &mut c);
    let (r0, c0) = (r[0], c[0]);
    for x in &mut r[1..m] {
        *x ^= r0;
    }
    for x in &mut c[1..n] {
        *x ^= c0;
    }
    let (rt, ct) = (&r[1..m], &c[1..n]);
    let nz = rt.iter().chain(ct).fold(0, |a, &w| a | w);
    if nz == 0 {
        return 0;
    }
    let (mut rows, mut cols) = ([0u64; 64], [0u64; 64]);
    let fix = alien_locate(rt, ct, &mut rows[..m], &mut cols[..n]);
    if fix != 0 {
        correct(words, n, &rows[..m], &cols[..n]);
    }
    nz & !fix
}

/// The alien single-error locator on the syndrome words `rt` (`R_i + R_0`, `i >= 1`) and `ct`
/// (`C_j + C_0`, `j >= 1`): fills the row indicators `rows[y]` (`m` words) and column
/// indicators `cols[x]` (`n` words) of the lanes corrected at `(y, x)`, and returns those lanes.
fn alien_locate(rt: &[u64], ct: &[u64], rows: &mut [u64], cols: &mut [u64]) -> u64 {
    let (r1, rall) = exactly_one_and_all(rt);
    let (c1, call) = exactly_one_and_all(ct);
    let fix = (r1 | rall) & (c1 | call);
    rows[0] = rall & fix;
    for (y, &w) in rt.iter().enumerate() {
        rows[y + 1] = w & r1 & fix;
    }
    cols[0] = call;
    for (x, &w) in ct.iter().enumerate() {
        cols[x + 1] = w & c1;
    }
    fix
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::alien::{Located, locate_single_error};
    use crate::gf2::BitVec;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn bits(v: u64, len: usize) -> BitVec {
        BitVec::from_bools(&(0..len).map(|i| (v >> i) & 1 == 1).collect::<Vec<_>>())
    }

    #[test]
    fn alien_locator_matches_the_papers_lane_by_lane() {
        // Every syndrome of small boards, single-error and random syndromes of larger ones:
        // the same lanes corrected, at the same cell, as the paper's locator.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for (m, n) in [
            (3, 3),
            (3, 5),
            (5, 3),
            (5, 5),
            (5, 7),
            (9, 9),
            (15, 17),
            (63, 3),
        ] {
            let (fm, fn_) = ((1u64 << (m - 1)) - 1, (1u64 << (n - 1)) - 1);
            let syn: Vec<(u64, u64)> = if m + n - 2 <= 14 {
                (0..1u64 << (m + n - 2))
                    .map(|s| (s & fm, s >> (m - 1)))
                    .collect()
            } else {
                let unit = |k: usize, full: u64| if k == 0 { full } else { 1 << (k - 1) };
                (0..4096)
                    .map(|t| match t % 3 {
                        0 => (rng.r#gen::<u64>() & fm, rng.r#gen::<u64>() & fn_),
                        _ => (
                            unit(rng.gen_range(0..m), fm),
                            unit(rng.gen_range(0..n), fn_),
                        ),
                    })
                    .collect()
            };
            for chunk in syn.chunks(64) {
                let lane_words = |len: usize, f: &dyn Fn(&(u64, u64)) -> u64| -> Vec<u64> {
                    (0..len)
                        .map(|i| {
                            chunk
                                .iter()
                                .enumerate()
                                .fold(0u64, |a, (l, s)| a | (((f(s) >> i) & 1) << l))
                        })
                        .collect()
                };
                let rt = lane_words(m - 1, &|s| s.0);
                let ct = lane_words(n - 1, &|s| s.1);
                let (mut rows, mut cols) = (vec![0u64; m], vec![0u64; n]);
                let fix = alien_locate(&rt, &ct, &mut rows, &mut cols);
                for (l, &(r, c)) in chunk.iter().enumerate() {
                    let want = locate_single_error(m, n, &bits(r, m - 1), &bits(c, n - 1));
                    let cells: Vec<(usize, usize)> = (0..m)
                        .flat_map(|y| (0..n).map(move |x| (y, x)))
                        .filter(|&(y, x)| ((rows[y] & cols[x]) >> l) & 1 == 1)
                        .collect();
                    let fixed = (fix >> l) & 1 == 1;
                    match want {
                        Located::Single(y, x) => {
                            assert!(fixed, "{m}x{n} {r:b} {c:b}");
                            assert_eq!(cells, vec![(y, x)], "{m}x{n} {r:b} {c:b}");
                        }
                        _ => assert!(!fixed && cells.is_empty(), "{m}x{n} {r:b} {c:b}"),
                    }
                }
            }
        }
    }
}
