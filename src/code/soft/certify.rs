//! A sufficient condition for a codeword to be the maximum-likelihood word, so that an exact ML
//! decoder can skip its search when a fast decoder's word passes it (Taipale and Pursley, 1991).
//!
//! Let `z` be the hard decision, `c` a codeword, `D = {i : c_i != z_i}` with `|D| = j`, and
//! `cost(c) = sum_{i in D} |llr_i|` (ML minimises it). For any other codeword `c'`,
//! `D Δ D' = {i : c_i != c'_i}` has at least `d` elements, so `D' \ D` has at least `d - j`,
//! all outside `D`: `cost(c') >= ` the sum of the `d - j` smallest `|llr_i|` outside `D`. When
//! `cost(c)` is at most that sum, no codeword is more likely than `c`.

/// The largest minimum distance the test looks at (larger `d` only use the first `MAX_D`
/// terms, which keeps the bound valid: it only gets weaker).
const MAX_D: usize = 8;

/// True when the codeword `cw` (bit `i` = codeword bit `i`, `llr.len() <= 128`) of a code of
/// minimum distance `d` is provably a maximum-likelihood word for `llr`.
pub(crate) fn is_ml(llr: &[f32], cw: u128, d: usize) -> bool {
    // Summed in f64 and compared with a margin below: rounding must not certify a word that
    // is not ML.
    let mut cost = 0f64;
    let mut j = 0usize;
    for (i, &l) in llr.iter().enumerate() {
        if ((cw >> i) & 1 == 1) != (l < 0.0) {
            cost += f64::from(l.abs());
            j += 1;
        }
    }
    let need = d.min(MAX_D).saturating_sub(j);
    if need == 0 {
        return false;
    }
    // The `need` smallest reliabilities outside D, by insertion into a short sorted list.
    let mut small = [f32::INFINITY; MAX_D];
    for (i, &l) in llr.iter().enumerate() {
        if ((cw >> i) & 1 == 1) != (l < 0.0) {
            continue;
        }
        let a = l.abs();
        if a >= small[need - 1] {
            continue;
        }
        let mut t = need - 1;
        while t > 0 && small[t - 1] > a {
            small[t] = small[t - 1];
            t -= 1;
        }
        small[t] = a;
    }
    let bound: f64 = small[..need].iter().map(|&x| f64::from(x)).sum();
    cost <= bound * (1.0 - 1e-6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;
    use crate::code::soft::correlation;
    use crate::code::soft::reference::exhaustive_ml;
    use crate::gf2::BitVec;
    use crate::sim::Channel;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn mask(w: &BitVec) -> u128 {
        w.ones_iter().fold(0u128, |m, i| m | 1 << i)
    }

    #[test]
    fn certified_words_are_exhaustive_ml_and_the_test_can_fail() {
        // Random codewords through AWGN, and each word of the codebook tried as the candidate:
        // every certified word is as likely as the exhaustive maximum; some are not certified.
        for spec in ["hamming:7", "secded:16", "alien:3x5", "product:4x4"] {
            let code = from_spec_str(spec).unwrap();
            let (n, k) = (code.n(), code.k());
            let mut rng = ChaCha8Rng::seed_from_u64(11);
            let (mut yes, mut no) = (0, 0);
            for esn0 in [0.0, 3.0, 6.0] {
                for _ in 0..60 {
                    let mut agree = Vec::new();
                    Channel::Awgn { esn0_db: esn0 }
                        .sampler()
                        .sample_agreement(&mut rng, 1, n, &mut agree);
                    let best = exhaustive_ml(code.as_ref(), &agree);
                    let top = correlation(&agree, &best);
                    for _ in 0..8 {
                        let msg: Vec<bool> = (0..k).map(|_| rng.r#gen()).collect();
                        let cand = code.encode(&BitVec::from_bools(&msg));
                        for c in [cand, best.clone()] {
                            if is_ml(&agree, mask(&c), code.d()) {
                                yes += 1;
                                let m = correlation(&agree, &c);
                                assert!(m >= top - 1e-4 * top.abs().max(1.0), "{spec}");
                            } else {
                                no += 1;
                            }
                        }
                    }
                }
            }
            assert!(yes > 0 && no > 0, "{spec}: {yes} certified, {no} not");
        }
    }
}
