//! The reflected mixed-radix Gray code: every tuple `(c_0, ..., c_{k-1})` with
//! `0 <= c_i < radix_i` once, each step moving one coordinate up or down by one.
//!
//! Walking a group `Z/o_0 + ... + Z/o_{k-1}` this way costs one generator addition (or
//! subtraction) per element, which is what makes an exhaustive kernel search cheap. Every
//! exhaustive search of the game module walks through [`run`], the one stepping loop: the
//! binary walks of the two-state kernels and of Alien Tiles' row patterns ([`walk_bits`]) and
//! the q-state kernel walk ([`walk`]).

use super::shortest::Progress;

/// Steps between progress reports (and between the checks of the outer loop).
const REPORT: u64 = 1 << 18;

/// Which coordinate moves at each step.
trait Order {
    /// The coordinate that moves at step `t` (`1 <= t < total`) and whether it moves up.
    fn next(&mut self, t: u64) -> (usize, bool);
}

/// All radices 2: coordinate `i` moves at the steps `t` with `i` trailing zeros, up when
/// bit `i + 1` of `t` is clear (the binary reflected Gray code `t ^ (t >> 1)`).
struct Binary;

impl Order for Binary {
    #[inline(always)]
    fn next(&mut self, t: u64) -> (usize, bool) {
        let i = t.trailing_zeros() as usize;
        (i, (t >> (i + 1)) & 1 == 0)
    }
}

/// Any radices: the lowest coordinate that can still move in its direction moves, and the
/// ones below it turn round (a coordinate of radix 1 never moves).
struct Mixed<'a> {
    radices: &'a [u64],
    digit: Vec<u64>,
    up: Vec<bool>,
}

impl Order for Mixed<'_> {
    #[inline]
    fn next(&mut self, _t: u64) -> (usize, bool) {
        let mut i = 0;
        loop {
            let can = if self.up[i] {
                self.digit[i] + 1 < self.radices[i]
            } else {
                self.digit[i] > 0
            };
            if can {
                break;
            }
            self.up[i] = !self.up[i];
            i += 1;
        }
        if self.up[i] {
            self.digit[i] += 1;
        } else {
            self.digit[i] -= 1;
        }
        (i, self.up[i])
    }
}

/// What a walk does at each step.
pub(crate) trait Visit {
    /// Coordinate `i` moved up (`up`) or down at step `t`; returns `true` to stop the walk.
    fn visit(&mut self, i: usize, up: bool, t: u64) -> bool;
}

impl<F: FnMut(usize, bool, u64) -> bool> Visit for F {
    #[inline(always)]
    fn visit(&mut self, i: usize, up: bool, t: u64) -> bool {
        self(i, up, t)
    }
}

/// The stepping loop: steps `1..total` in the order of `order`, calling
/// `visitor.visit(i, up, t)` after coordinate `i` moved at step `t`. `progress` hears
/// `(0, total)` first and then `(t, total)` every [`REPORT`] steps and at the end of a whole
/// walk. Returns the number of steps taken.
#[inline(always)]
fn run<O: Order, V: Visit + ?Sized>(
    mut order: O,
    total: u64,
    progress: Progress<'_>,
    visitor: &mut V,
) -> u64 {
    if let Some(p) = progress {
        p(0, total);
    }
    let mut t = 1u64;
    while t < total {
        let end = (t | (REPORT - 1)).saturating_add(1).min(total);
        while t < end {
            let (i, up) = order.next(t);
            if visitor.visit(i, up, t) {
                return t;
            }
            t += 1;
        }
        if let Some(p) = progress {
            p(t, total);
        }
    }
    total.saturating_sub(1)
}

/// Walks all `2^bits` bit tuples (`bits <= 63`) from zero in binary reflected Gray order,
/// calling `visitor.visit(i, up, t)` after bit `i` turned on (`up`) or off at step `t`; after
/// step `t` the tuple is `t ^ (t >> 1)`. Returns the number of steps taken (`2^bits - 1` for a
/// whole walk). A closure `(i, up, t) -> stop` is a visitor.
///
/// Inlined so that the caller's target features (popcnt, AVX2) reach the loop; a hot visitor
/// is best a type with an `#[inline(always)]` [`Visit::visit`], which is sure to be inlined
/// too.
#[inline(always)]
pub(crate) fn walk_bits<V: Visit + ?Sized>(
    bits: usize,
    progress: Progress<'_>,
    visitor: &mut V,
) -> u64 {
    assert!(bits <= 63, "a binary walk of {bits} bits");
    run(Binary, 1u64 << bits, progress, visitor)
}

/// Walks every tuple `0 <= c_i < radices[i]` from the all-zero one, calling `step(i, up)`
/// after coordinate `i` moved by `+1` (`up`) or `-1`. `step` returns `false` to stop early.
/// `progress` hears `(done, total)` now and then. Returns the number of steps taken
/// (`prod radix_i - 1` for a whole walk).
///
/// # Panics
/// If the product of the radices exceeds `u64::MAX`.
pub(crate) fn walk(
    radices: &[u64],
    progress: Progress<'_>,
    mut step: impl FnMut(usize, bool) -> bool,
) -> u64 {
    let total = radices
        .iter()
        .try_fold(1u64, |acc, &r| acc.checked_mul(r))
        .expect("a walk of at most u64::MAX tuples");
    let order = Mixed {
        radices,
        digit: vec![0; radices.len()],
        up: vec![true; radices.len()],
    };
    run(order, total, progress, &mut |i: usize, up: bool, _: u64| {
        !step(i, up)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::collections::HashSet;

    #[test]
    fn visits_every_tuple_once_by_unit_steps() {
        for radices in [vec![], vec![1], vec![2, 3, 1, 4], vec![5, 2], vec![2; 6]] {
            let mut digits = vec![0i64; radices.len()];
            let mut seen = HashSet::from([digits.clone()]);
            let steps = walk(&radices, None, |i, up| {
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
            walk(&[3, 3], None, |_, _| {
                n += 1;
                n < 4
            }),
            4
        );
        assert_eq!(walk_bits(5, None, &mut |_, _, t: u64| t == 7), 7);
    }

    #[test]
    fn binary_walk_is_the_reflected_gray_code_and_the_mixed_walk_of_radix_two() {
        for bits in [0, 1, 2, 5, 10] {
            let mut code = 0u64;
            let mut moves = Vec::new();
            let steps = walk_bits(bits, None, &mut |i: usize, up: bool, t: u64| {
                assert_eq!((code >> i) & 1 == 0, up, "bit {i} at step {t}");
                code ^= 1 << i;
                assert_eq!(code, t ^ (t >> 1));
                moves.push((i, up));
                false
            });
            assert_eq!(steps, (1u64 << bits) - 1);
            let mut mixed = Vec::new();
            walk(&vec![2; bits], None, |i, up| {
                mixed.push((i, up));
                true
            });
            assert_eq!(moves, mixed);
        }
    }

    #[test]
    fn progress_is_reported_to_the_end() {
        let last = Cell::new((u64::MAX, 0));
        let report = |done: u64, total: u64| {
            assert!(last.get().0 == u64::MAX || done > last.get().0);
            last.set((done, total));
        };
        walk_bits(20, Some(&report), &mut |_, _, _: u64| false);
        assert_eq!(last.get(), (1 << 20, 1 << 20));
        last.set((u64::MAX, 0));
        walk(&[3, 5], Some(&report), |_, _| true);
        assert_eq!(last.get(), (15, 15));
    }
}
