//! Exact code analysis checked against brute force: weight distributions (every family, by
//! enumerating all codewords), covering radii (breadth-first search over all words), and BSC
//! error rates (every error pattern through the real decoder; exact rational arithmetic).

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};
use quickcheck::quickcheck;
use std::collections::VecDeque;
use tilecode::code::analysis::{
    BscProfile, alien_dual, bsc_error_rates, covering_radius, macwilliams, syndrome_bfs,
    weight_distribution,
};
use tilecode::code::{BlockCode, Status, from_spec_str};
use tilecode::gf2::BitVec;

/// Every small code of every family, with `k <= max_k` and `n <= max_n`.
fn small_specs(max_k: usize, max_n: usize) -> Vec<String> {
    let mut specs = Vec::new();
    for m in 1..=8 {
        for n in 1..=8 {
            specs.push(format!("alien:{m}x{n}"));
        }
    }
    for n in 3..=40 {
        specs.push(format!("hamming:{n}"));
    }
    for n in 4..=40 {
        specs.push(format!("secded:{n}"));
    }
    for n in 2..=40 {
        specs.push(format!("parity:{n}"));
    }
    for n in 1..=40 {
        specs.push(format!("repetition:{n}"));
    }
    specs
        .into_iter()
        .filter(|s| {
            let c = from_spec_str(s).unwrap();
            c.k() <= max_k && c.n() <= max_n
        })
        .collect()
}

fn message(k: usize, i: usize) -> BitVec {
    BitVec::unit(k, i)
}

/// Visits all codewords, by a Gray-code walk over sums of the encoded unit messages.
fn for_each_codeword(code: &dyn BlockCode, mut f: impl FnMut(&BitVec)) {
    let k = code.k();
    let basis: Vec<BitVec> = (0..k).map(|i| code.encode(&message(k, i))).collect();
    let mut cw = BitVec::zeros(code.n());
    f(&cw);
    for step in 1..(1usize << k) {
        cw.xor_assign(&basis[step.trailing_zeros() as usize]);
        f(&cw);
    }
}

fn brute_weights(code: &dyn BlockCode) -> Vec<BigUint> {
    let mut a = vec![0u64; code.n() + 1];
    for_each_codeword(code, |cw| a[cw.weight()] += 1);
    a.into_iter().map(BigUint::from).collect()
}

fn to_index(v: &BitVec) -> usize {
    v.ones_iter().fold(0, |acc, i| acc | 1 << i)
}

/// The largest distance from any word to the code, by a breadth-first search over all `2^n`
/// words starting from every codeword at once.
fn brute_covering_radius(code: &dyn BlockCode) -> usize {
    let n = code.n();
    let mut dist = vec![u8::MAX; 1 << n];
    let mut queue = VecDeque::new();
    for_each_codeword(code, |cw| {
        let i = to_index(cw);
        dist[i] = 0;
        queue.push_back(i);
    });
    let mut radius = 0;
    while let Some(x) = queue.pop_front() {
        radius = radius.max(dist[x] as usize);
        for b in 0..n {
            let y = x ^ (1 << b);
            if dist[y] == u8::MAX {
                dist[y] = dist[x] + 1;
                queue.push_back(y);
            }
        }
    }
    radius
}

#[test]
fn weight_distributions_match_enumeration_for_every_family() {
    let specs = small_specs(20, 64);
    assert!(specs.len() > 140, "{}", specs.len());
    for s in &specs {
        let code = from_spec_str(s).unwrap();
        let wd = weight_distribution(code.as_ref()).unwrap();
        assert_eq!(wd, brute_weights(code.as_ref()), "{s}");
        let d = (1..=code.n()).find(|&j| !wd[j].is_zero()).unwrap();
        assert_eq!(d, code.d(), "{s}: minimum distance");
    }
}

#[test]
fn macwilliams_of_thin_alien_duals_is_the_repetition_code() {
    // weight_distribution answers k = 1 codes directly; the dual route must agree.
    for len in 1..=30 {
        for (m, n) in [(1, len), (len, 1)] {
            let a = macwilliams(&alien_dual(m, n));
            let mut want = vec![BigUint::zero(); len + 1];
            want[0] += 1u32;
            want[len] += 1u32;
            assert_eq!(a, want, "alien:{m}x{n}");
        }
    }
}

#[test]
fn larger_weight_distributions_sum_to_2_to_the_k() {
    for s in [
        "alien:9x9",
        "alien:15x17",
        "alien:16x9",
        "alien:9x16",
        "alien:31x31",
        "alien:8x8",
        "secded:72",
        "secded:137",
        "hamming:255",
        "hamming:1000",
        "parity:100",
        "repetition:100",
    ] {
        let code = from_spec_str(s).unwrap();
        let wd = weight_distribution(code.as_ref()).unwrap();
        assert_eq!(wd.len(), code.n() + 1);
        assert_eq!(
            wd.iter().sum::<BigUint>(),
            BigUint::one() << code.k(),
            "{s}"
        );
        let d = (1..=code.n()).find(|&j| !wd[j].is_zero()).unwrap();
        assert_eq!(d, code.d(), "{s}");
    }
}

#[test]
fn known_distributions() {
    let get = |s: &str| {
        weight_distribution(from_spec_str(s).unwrap().as_ref())
            .unwrap()
            .iter()
            .map(|a| a.to_u64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(get("hamming:7"), [1, 0, 0, 7, 7, 0, 0, 1]);
    assert_eq!(get("secded:8"), [1, 0, 0, 0, 14, 0, 0, 0, 1]);
    assert_eq!(get("alien:3x3"), [1, 0, 0, 6, 9, 9, 6, 0, 0, 1]);
    // the simplex code is the dual of hamming:15: 15 words of weight 8
    let h15 = get("hamming:15");
    assert_eq!((h15[3], h15[4]), (35, 105));
}

#[test]
fn limits_are_errors() {
    for s in [
        "alien:129x129",
        "alien:200x200",
        "parity:20000",
        "hamming:16777216",
    ] {
        let code = from_spec_str(s).unwrap();
        let e = weight_distribution(code.as_ref()).unwrap_err();
        assert!(e.to_string().contains("out of reach"), "{s}: {e}");
    }
}

#[test]
fn covering_radii_match_brute_force() {
    for s in small_specs(16, 16) {
        let code = from_spec_str(&s).unwrap();
        assert_eq!(
            covering_radius(code.as_ref()).unwrap(),
            brute_covering_radius(code.as_ref()),
            "{s}"
        );
    }
}

#[test]
fn alien_covering_radii_match_a_syndrome_search() {
    // The paper's syndrome (r~, c~) of a single lit cell is a parity-check column.
    for m in 2..=11usize {
        for n in 2..=11usize {
            let code = from_spec_str(&format!("alien:{m}x{n}")).unwrap();
            let bits = match (m % 2, n % 2) {
                (0, 0) => continue,
                (0, _) => m - 1,
                (_, 0) => n - 1,
                _ => m + n - 2,
            };
            let column = |i: usize, j: usize| -> u64 {
                let rows = if i == 0 {
                    (1u64 << (m - 1)) - 1
                } else {
                    1 << (i - 1)
                };
                let cols = if j == 0 {
                    (1u64 << (n - 1)) - 1
                } else {
                    1 << (j - 1)
                };
                match (m % 2, n % 2) {
                    (0, _) => rows,
                    (_, 0) => cols,
                    _ => rows | cols << (m - 1),
                }
            };
            let radius =
                syndrome_bfs(bits, || (0..m * n).map(move |p| column(p / n, p % n))).unwrap();
            assert_eq!(covering_radius(code.as_ref()).unwrap(), radius, "{m}x{n}");
        }
    }
}

/// Counts per error weight of (correct, detected, miscorrected) decodings, over all `2^n` error
/// patterns added to a non-zero codeword and run through the code's own decoder.
fn brute_profile(code: &dyn BlockCode) -> [Vec<BigUint>; 3] {
    let n = code.n();
    let sent = code.encode(&BitVec::ones(code.k()));
    let mut counts = [vec![0u64; n + 1], vec![0u64; n + 1], vec![0u64; n + 1]];
    for e in 0..1usize << n {
        let mut word = sent.clone();
        for b in 0..n {
            if e >> b & 1 == 1 {
                word.flip(b);
            }
        }
        let d = code.decode(&word);
        let slot = match d.status {
            Status::Detected => 1,
            _ if d.codeword == sent => 0,
            _ => 2,
        };
        counts[slot][e.count_ones() as usize] += 1;
    }
    counts.map(|v| v.into_iter().map(BigUint::from).collect())
}

#[test]
fn bsc_profiles_match_every_error_pattern() {
    for s in small_specs(16, 14) {
        let code = from_spec_str(&s).unwrap();
        let wd = weight_distribution(code.as_ref()).unwrap();
        let prof = BscProfile::new(code.as_ref(), &wd);
        let [c, d, m] = brute_profile(code.as_ref());
        assert_eq!(prof.correct(), &c[..], "{s}: correct");
        assert_eq!(prof.detected(), &d[..], "{s}: detected");
        assert_eq!(prof.miscorrected(), &m[..], "{s}: miscorrected");
    }
}

/// `num / den` as the nearest f64 (to far better than f64 precision).
fn ratio(num: &BigUint, den: &BigUint) -> f64 {
    if num.is_zero() {
        return 0.0;
    }
    let shift = (den.bits() as i64 - num.bits() as i64 + 100).max(0) as u32;
    let q: BigUint = (num << shift) / den;
    let top = q.bits().saturating_sub(64);
    let mant = (&q >> top).to_u64().unwrap() as f64;
    mant * 2f64.powi(top as i32 - shift as i32)
}

fn binom(n: usize, k: usize) -> BigUint {
    if k > n {
        return BigUint::zero();
    }
    (0..k).fold(BigUint::one(), |acc, i| acc * (n - i) / (i + 1))
}

/// The brief's formulas with p = 1/q exactly: P(miscorrect) summed over codeword weights j and
/// the errors within t of them, P(fail) = P(weight > t) - P(miscorrect).
fn exact_rates(code: &dyn BlockCode, q: u64) -> (f64, f64) {
    let n = code.n();
    let t = code.t();
    let wd = weight_distribution(code).unwrap();
    let den = BigUint::from(q).pow(n as u32);
    let qm1 = BigUint::from(q - 1);
    let term = |ones: usize| qm1.pow((n - ones) as u32); // p^ones (1-p)^(n-ones) * q^n
    let mut mis = BigUint::zero();
    for (j, aj) in wd.iter().enumerate().skip(1) {
        if aj.is_zero() {
            continue;
        }
        for s in 0..=t {
            for a in 0..=s.min(j) {
                if s - a > n - j {
                    continue;
                }
                mis += aj * binom(j, a) * binom(n - j, s - a) * term(j + s - 2 * a);
            }
        }
    }
    let heavy: BigUint = (t + 1..=n).map(|i| binom(n, i) * term(i)).sum();
    let fail = heavy - &mis;
    (ratio(&mis, &den), ratio(&fail, &den))
}

#[test]
fn bsc_rates_match_exact_rational_arithmetic() {
    for s in [
        "alien:9x9",
        "secded:81",
        "alien:3x3",
        "hamming:31",
        "repetition:9",
    ] {
        let code = from_spec_str(s).unwrap();
        let wd = weight_distribution(code.as_ref()).unwrap();
        for q in [100u64, 1000, 10_000, 100_000] {
            let p = 1.0 / q as f64;
            let r = bsc_error_rates(code.as_ref(), &wd, p);
            let (mis, fail) = exact_rates(code.as_ref(), q);
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-13 * b.abs();
            assert!(
                close(r.miscorrected, mis),
                "{s} p={p}: {} vs {mis}",
                r.miscorrected
            );
            assert!(
                close(r.detected, fail),
                "{s} p={p}: {} vs {fail}",
                r.detected
            );
            assert!(close(r.fer, mis + fail), "{s} p={p}");
        }
    }
}

quickcheck! {
    fn alien_distributions_are_consistent(m: u8, n: u8) -> bool {
        let (m, n) = (usize::from(m % 12) + 1, usize::from(n % 12) + 1);
        let code = from_spec_str(&format!("alien:{m}x{n}")).unwrap();
        let wd = weight_distribution(code.as_ref()).unwrap();
        let d = (1..=code.n()).find(|&j| !wd[j].is_zero()).unwrap_or(0);
        wd[0] == BigUint::one()
            && wd.iter().sum::<BigUint>() == BigUint::one() << code.k()
            && d == code.d()
    }

    fn hamming_family_distributions_are_consistent(n: u16, extended: bool) -> bool {
        let spec = if extended {
            format!("secded:{}", n % 500 + 4)
        } else {
            format!("hamming:{}", n % 500 + 3)
        };
        let code = from_spec_str(&spec).unwrap();
        let wd = weight_distribution(code.as_ref()).unwrap();
        let d = (1..=code.n()).find(|&j| !wd[j].is_zero()).unwrap();
        wd.iter().sum::<BigUint>() == BigUint::one() << code.k() && d == code.d()
    }

    fn bsc_outcomes_sum_to_one(m: u8, n: u8, p: f64) -> bool {
        let (m, n) = (usize::from(m % 9) + 1, usize::from(n % 9) + 1);
        let p = if p.is_finite() { p.abs().fract() } else { 0.25 };
        let code = from_spec_str(&format!("alien:{m}x{n}")).unwrap();
        let wd = weight_distribution(code.as_ref()).unwrap();
        let r = bsc_error_rates(code.as_ref(), &wd, p);
        (r.correct + r.detected + r.miscorrected - 1.0).abs() < 1e-12
            && (r.fer - (r.detected + r.miscorrected)).abs() <= 1e-15 * r.fer.max(1e-300)
    }
}
