//! The syndrome trellis restricted to its live states, for exact ML decoding of codes whose
//! parity checks are local (Alien Tiles and product codes: row and column checks).
//!
//! In the syndrome trellis of [`super::ml`] the state after position `i` is the partial
//! syndrome of bits `0..=i`. A check whose support has not started yet is always 0 there, and a
//! check whose support is complete must be 0 for the path to end in the zero syndrome; only the
//! *active* checks (support on both sides of `i`) are free. So the live states after `i` are the
//! `2^a_i` values of the active checks, and the Viterbi search runs over those alone: exactly the
//! same paths, minus the dead ones. How few checks are active depends on the basis of the
//! check space: the checks are first brought to minimal-span form (no two share a first
//! position, no two share a last one; McEliece 1996), which makes every `a_i` as small as any
//! basis allows. `alien:9x9` and `product:9x9` then have at most 2^10 live states instead of
//! 2^16 and 2^17.

/// A minimal-span syndrome trellis of a code of length at most 128.
#[derive(Debug)]
pub(crate) struct SpanTrellis {
    depths: Vec<Depth>,
    /// Largest number of live states at any depth.
    widest: usize,
}

/// One position of the trellis: its live states (the active checks' values after it) and,
/// for each, the index of the state before it when the bit is 0 and when it is 1.
#[derive(Debug)]
struct Depth {
    stay: Vec<u32>,
    flip: Vec<u32>,
}

/// No such predecessor.
const NONE: u32 = u32::MAX;

/// The most live states summed over all depths (the predecessor tables take 8 bytes each).
pub(crate) const MAX_SPAN_STATES: usize = 1 << 22;

/// First and last positions of a check.
fn span(row: u128) -> (u32, u32) {
    (row.trailing_zeros(), 127 - row.leading_zeros())
}

/// Brings independent checks to minimal-span form: while two share a first (last) position,
/// the one that ends later (starts earlier) is replaced by their sum, which shortens it.
fn minimal_span(rows: &mut [u128]) {
    loop {
        let mut changed = false;
        for a in 0..rows.len() {
            for b in 0..rows.len() {
                if a == b {
                    continue;
                }
                let ((sa, ea), (sb, eb)) = (span(rows[a]), span(rows[b]));
                if (sa == sb && ea <= eb) || (ea == eb && sa > sb) {
                    rows[b] ^= rows[a];
                    changed = true;
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// The positions of the set bits of `mask` (check indices), lowest first.
fn members(mask: u64) -> Vec<u32> {
    (0..64).filter(|q| (mask >> q) & 1 == 1).collect()
}

/// State `t` (bit `j` = check `act[j]`) as a check mask.
fn expand(t: usize, act: &[u32]) -> u64 {
    act.iter()
        .enumerate()
        .fold(0, |s, (j, &q)| s | (((t >> j) & 1) as u64) << q)
}

/// A check mask as a state of `act`, or [`NONE`] when it has a check outside `act`.
fn compress(s: u64, act: &[u32], mask: u64) -> u32 {
    if s & !mask != 0 {
        return NONE;
    }
    act.iter()
        .enumerate()
        .fold(0, |t, (j, &q)| t | (((s >> q) & 1) as u32) << j)
}

impl SpanTrellis {
    /// The trellis of the independent checks `rows` (bit `i` = position `i`) over `n <= 128`
    /// positions, or `None` when it has more than [`MAX_SPAN_STATES`] states in all or more than
    /// 64 checks.
    pub(crate) fn new(mut rows: Vec<u128>, n: usize) -> Option<Self> {
        if rows.len() > 64 || n > 128 || rows.contains(&0) {
            return None;
        }
        minimal_span(&mut rows);
        let spans: Vec<(u32, u32)> = rows.iter().map(|&r| span(r)).collect();
        let active = |i: usize| -> u64 {
            spans
                .iter()
                .enumerate()
                .filter(|&(_, &(s, e))| (s as usize) <= i && i < e as usize)
                .fold(0, |m, (q, _)| m | 1 << q)
        };
        let total: usize = (0..n).map(|i| 1usize << active(i).count_ones()).sum();
        if total > MAX_SPAN_STATES {
            return None;
        }
        let mut depths = Vec::with_capacity(n);
        let (mut before, mut before_act) = (0u64, Vec::new());
        let mut widest = 1;
        for i in 0..n {
            let h = rows
                .iter()
                .enumerate()
                .fold(0u64, |m, (q, &r)| m | (((r >> i) & 1) as u64) << q);
            let after = active(i);
            let act = members(after);
            let states = 1usize << act.len();
            widest = widest.max(states);
            let (mut stay, mut flip) = (Vec::with_capacity(states), Vec::with_capacity(states));
            for t in 0..states {
                let s = expand(t, &act);
                stay.push(compress(s, &before_act, before));
                flip.push(compress(s ^ h, &before_act, before));
            }
            depths.push(Depth { stay, flip });
            before = after;
            before_act = act;
        }
        Some(SpanTrellis { depths, widest })
    }

    /// Most live states at one depth.
    pub(crate) fn widest(&self) -> usize {
        self.widest
    }

    /// The cheapest codeword for `llr` (minimising the sum of `llr_i` over its ones), as a
    /// bit mask.
    pub(crate) fn decode(&self, llr: &[f32]) -> u128 {
        let w = self.widest;
        let mut cost = vec![f32::INFINITY; w];
        let mut next = vec![f32::INFINITY; w];
        cost[0] = 0.0;
        let words = w.div_ceil(64);
        let mut choice = vec![0u64; self.depths.len() * words];
        for (i, (d, &l)) in self.depths.iter().zip(llr).enumerate() {
            let row = &mut choice[i * words..(i + 1) * words];
            for (t, (&a, &b)) in d.stay.iter().zip(&d.flip).enumerate() {
                let stay = if a == NONE {
                    f32::INFINITY
                } else {
                    cost[a as usize]
                };
                let flip = if b == NONE {
                    f32::INFINITY
                } else {
                    cost[b as usize] + l
                };
                let take = flip < stay;
                next[t] = if take { flip } else { stay };
                row[t / 64] |= u64::from(take) << (t % 64);
            }
            std::mem::swap(&mut cost, &mut next);
        }
        // The last depth has no active check: one state, the zero syndrome.
        let mut cw = 0u128;
        let mut t = 0usize;
        for (i, d) in self.depths.iter().enumerate().rev() {
            if (choice[i * words + t / 64] >> (t % 64)) & 1 == 1 {
                cw |= 1 << i;
                t = d.flip[t] as usize;
            } else {
                t = d.stay[t] as usize;
            }
        }
        debug_assert_eq!(t, 0, "the traceback ends in the empty syndrome");
        cw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_span_keeps_the_space_and_makes_spans_distinct() {
        let mut rows: Vec<u128> = vec![0b1111_0000, 0b1010_1010, 0b0110_0110, 0b1111_1111];
        let before = rows.clone();
        minimal_span(&mut rows);
        let starts: Vec<u32> = rows.iter().map(|&r| span(r).0).collect();
        let ends: Vec<u32> = rows.iter().map(|&r| span(r).1).collect();
        let distinct = |v: &[u32]| (1..v.len()).all(|i| !v[..i].contains(&v[i]));
        assert!(distinct(&starts) && distinct(&ends), "{rows:?}");
        // Same span: every old row is a sum of new rows and vice versa (ranks agree).
        let rank = |v: &[u128]| {
            let mut v = v.to_vec();
            let mut r = 0;
            for bit in 0..128 {
                if let Some(p) = (r..v.len()).find(|&j| (v[j] >> bit) & 1 == 1) {
                    v.swap(r, p);
                    for j in 0..v.len() {
                        if j != r && (v[j] >> bit) & 1 == 1 {
                            v[j] ^= v[r];
                        }
                    }
                    r += 1;
                }
            }
            r
        };
        let both: Vec<u128> = before.iter().chain(&rows).copied().collect();
        assert_eq!(rank(&before), rank(&both));
        assert_eq!(rank(&rows), rank(&both));
    }
}
