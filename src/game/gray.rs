//! The reflected mixed-radix Gray code: every tuple `(c_0, ..., c_{k-1})` with
//! `0 <= c_i < radix_i` once, each step moving one coordinate up or down by one.
//!
//! Walking a group `Z/o_0 + ... + Z/o_{k-1}` this way costs one generator addition (or
//! subtraction) per element, which is what makes an exhaustive kernel search cheap.

/// Walks the Gray code from the all-zero tuple, calling `step(i, up)` after coordinate `i`
/// moved by `+1` (`up`) or `-1`. `step` returns `false` to stop early. Returns the number of
/// steps taken (`prod radix_i - 1` for a whole walk).
pub(crate) fn walk(radices: &[u64], mut step: impl FnMut(usize, bool) -> bool) -> u64 {
    let mut digit = vec![0u64; radices.len()];
    let mut up = vec![true; radices.len()];
    let mut steps = 0;
    loop {
        // The lowest coordinate that can still move in its direction moves; the ones below it
        // turn round (a coordinate of radix 1 never moves).
        let mut i = 0;
        while i < radices.len() {
            let can = if up[i] {
                digit[i] + 1 < radices[i]
            } else {
                digit[i] > 0
            };
            if can {
                break;
            }
            up[i] = !up[i];
            i += 1;
        }
        if i == radices.len() {
            return steps;
        }
        if up[i] {
            digit[i] += 1;
        } else {
            digit[i] -= 1;
        }
        steps += 1;
        if !step(i, up[i]) {
            return steps;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn visits_every_tuple_once_by_unit_steps() {
        for radices in [vec![], vec![1], vec![2, 3, 1, 4], vec![5, 2], vec![2; 6]] {
            let mut digits = vec![0i64; radices.len()];
            let mut seen = HashSet::from([digits.clone()]);
            let steps = walk(&radices, |i, up| {
                digits[i] += if up { 1 } else { -1 };
                assert!((0..radices[i] as i64).contains(&digits[i]));
                assert!(seen.insert(digits.clone()), "{digits:?} twice");
                true
            });
            let total: u64 = radices.iter().product();
            assert_eq!(steps + 1, total);
            assert_eq!(seen.len() as u64, total);
        }
    }

    #[test]
    fn stops_when_asked() {
        let mut n = 0;
        assert_eq!(
            walk(&[3, 3], |_, _| {
                n += 1;
                n < 4
            }),
            4
        );
    }
}
