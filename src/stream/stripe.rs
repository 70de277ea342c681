//! Recovery chunks (format v2): Reed–Solomon erasure coding across a stripe of data chunks,
//! par2-style. A stripe is `K` consecutive data chunks followed by `R` recovery chunks; any
//! `K` of the `K + R` rebuild the rest.
//!
//! # The code
//!
//! A systematic Cauchy Reed–Solomon code over GF(2^8) with the AES polynomial
//! x^8 + x^4 + x^3 + x + 1 ([`gf256`]). Data shard `i` (`0 <= i < K`) sits at
//! the field element `x_i = i`, recovery shard `s` (`0 <= s < R`) at `y_s = K + s`; these
//! `K + R <= 256` elements are distinct. With `C[s][i] = 1 / (x_i + y_s)` (addition is XOR),
//! the coefficients are the columns of `C` scaled so that row 0 is all ones:
//!
//! ```text
//! C'[s][i] = C[s][i] / C[0][i] = (x_i + y_0) / (x_i + y_s) = (i ^ K) / (i ^ (K + s))
//! ```
//!
//! and recovery shard `s` is `p_s = Σ_i C'[s][i] d_i`, byte by byte, where `d_i` is data chunk
//! `i`'s payload zero-padded to the shard size ([`shard_bytes`], the chunk size). Recovery
//! shard 0 is thus the XOR of the data. A short stripe (`K' < K` data chunks) has no terms
//! for the virtual chunks `K' .. K - 1` (they are zero), and emits only the first
//! `R' = recovery_for(K')` recovery shards.
//!
//! **Any `K` of the `K + R` shards rebuild the rest** (the code is MDS). The generator is
//! `[I; C']`. Take any `K` of its rows: `K - e` identity rows (the data shards that survive)
//! and `e` rows of `C'` (recovery shards `S`). Expanding the determinant along the identity
//! rows leaves the `e` by `e` minor of `C'` with rows `S` and the columns `M` of the `e`
//! missing data shards. That minor is the minor of `C` on `S`, `M` with each column `i`
//! multiplied by the non-zero `1 / C[0][i]`, so it is non-zero exactly when the minor of `C`
//! is. A square submatrix of a Cauchy matrix is a Cauchy matrix (of the chosen `x`s and
//! `y`s), and a Cauchy matrix with distinct `x`s, distinct `y`s and no `x_i = y_s` has the
//! non-zero determinant `Π_{i<j} (x_j + x_i)(y_j + y_i) / Π_{i,s} (x_i + y_s)`. So every
//! such minor is invertible, and the missing shards are the unique solution of
//! `C'[S][M] d_M = p_S + Σ_{i ∉ M} C'[S][i] d_i`. Since any `e` recovery rows serve, any
//! subset of the recovery shards (the first `R'` of a short stripe, or whichever verified)
//! is usable, and the virtual zero chunks of a short stripe are simply known data.

use super::gf256;
use super::parallel::{self, Workers};
use crate::error::{Error, Result};
use std::ops::Range;

/// Data chunks per stripe at recovery percentages up to [`SMALL_STRIPE_MAX_PERCENT`]: the
/// default 2 % then gives `R = 2`, the cheap case (recovery shard 0 is an XOR).
pub const SMALL_STRIPE: usize = 100;
/// The most data chunks a stripe has above [`SMALL_STRIPE_MAX_PERCENT`] (fewer when `K + R`
/// would exceed [`MAX_STRIPE_SHARDS`]): long enough that 5 % repairs a megabyte of
/// consecutive damage.
pub const LARGE_STRIPE: usize = 240;
/// The largest percentage that uses [`SMALL_STRIPE`].
pub const SMALL_STRIPE_MAX_PERCENT: f64 = 3.0;
/// The most chunks (data and recovery) a stripe may have: the code's field has 256
/// elements, one per shard.
pub const MAX_STRIPE_SHARDS: usize = 256;
/// The most payload a stripe may hold (a decoder keeps one stripe in memory): larger chunks
/// need a lower recovery percentage or none.
pub const MAX_STRIPE_BYTES: usize = 256 << 20;
/// The byte ranges of the shards that [`StripeEncoder::add_many_on`] gives each thread
/// start at multiples of this (whole 64-byte strips of the multiply kernels, whole pages).
const RANGE_ALIGN: usize = 4096;
/// Recovery chunks a stripe has at least, so that damage at the boundary of two chunks (a
/// lost sector, a cut) is repaired.
pub const MIN_RECOVERY: usize = 2;

/// How many recovery chunks protect how many data chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Data chunks in a full stripe (`K`).
    pub stripe: usize,
    /// Recovery chunks of a full stripe (`R`).
    pub recovery: usize,
}

impl Plan {
    /// The plan for a recovery percentage `p` (`None` for 0) and chunks of `chunk_size`
    /// bytes. `K` = [`SMALL_STRIPE`] (100) for `p <= 3`; above, the largest `K <=`
    /// [`LARGE_STRIPE`] (240) with `K + max(2, ceil(K p / 100)) <=` [`MAX_STRIPE_SHARDS`]
    /// (256); in both cases at most [`MAX_STRIPE_BYTES`]` / chunk_size` (deep interleaving
    /// makes large chunks) and at least 1. Then `R = max(2, ceil(K p / 100))`. So 2 % gives
    /// `K = 100, R = 2`; 5 % gives `240, 12`; 10 % gives `232, 24`; 100 % gives `128, 128`.
    pub fn for_percent(percent: f64, chunk_size: usize) -> Result<Option<Plan>> {
        if !(0.0..=100.0).contains(&percent) || percent.is_nan() {
            return Err(Error::Limit {
                what: format!("recovery {percent}%"),
                reason: "expected a percentage from 0 to 100".into(),
            });
        }
        if percent == 0.0 {
            return Ok(None);
        }
        let recovery = |k: usize| ((k as f64 * percent / 100.0).ceil() as usize).max(MIN_RECOVERY);
        let stripe = if percent <= SMALL_STRIPE_MAX_PERCENT {
            SMALL_STRIPE
        } else {
            (1..=LARGE_STRIPE)
                .rev()
                .find(|&k| k + recovery(k) <= MAX_STRIPE_SHARDS)
                .unwrap_or(1)
        }
        .min(MAX_STRIPE_BYTES / chunk_size.max(1))
        .max(1);
        Ok(Some(Plan {
            stripe,
            recovery: recovery(stripe),
        }))
    }

    /// The plan a header or frame states, if it is within the caps for chunks of
    /// `chunk_size` bytes ([`MAX_STRIPE_SHARDS`], [`MAX_STRIPE_BYTES`]).
    pub fn checked(stripe: usize, recovery: usize, chunk_size: usize) -> Option<Plan> {
        let fits = stripe > 0
            && recovery > 0
            && stripe + recovery <= MAX_STRIPE_SHARDS
            && stripe.saturating_mul(chunk_size) <= MAX_STRIPE_BYTES;
        fits.then_some(Plan { stripe, recovery })
    }

    /// Recovery chunks of a stripe of `data` chunks (`data <= stripe`): the full stripe's
    /// share, rounded up, at least [`MIN_RECOVERY`] and at most `R`.
    pub fn recovery_for(&self, data: usize) -> usize {
        (data * self.recovery)
            .div_ceil(self.stripe)
            .max(MIN_RECOVERY)
            .min(self.recovery)
    }

    /// The coefficient `C'[s][i]` of data shard `i` in recovery shard `s` (see the module
    /// documentation): `(i ^ K) / (i ^ (K + s))`.
    pub fn coefficient(&self, s: usize, i: usize) -> u8 {
        debug_assert!(i < self.stripe && s < self.recovery);
        let k = self.stripe;
        gf256::div((i ^ k) as u8, (i ^ (k + s)) as u8)
    }

    /// Refuses a plan the code cannot have (`K + R > 256`, or zero of either).
    fn check(&self) -> Result<()> {
        if self.stripe == 0 || self.recovery == 0 || self.stripe + self.recovery > 256 {
            return Err(Error::Limit {
                what: format!(
                    "a stripe of {} data and {} recovery chunks",
                    self.stripe, self.recovery
                ),
                reason: format!(
                    "expected 1 or more of each and at most {MAX_STRIPE_SHARDS} in all"
                ),
            });
        }
        Ok(())
    }
}

/// Bytes of a shard for chunks of `chunk_size` payload bytes: the chunk size (a shorter
/// chunk's payload counts as zero-padded to it).
pub fn shard_bytes(chunk_size: usize) -> usize {
    chunk_size
}

/// Gathers a stripe's data chunks and makes its recovery shards: each chunk is multiplied
/// into the `R` accumulators as it comes (no copy of the chunk is kept).
pub struct StripeEncoder {
    plan: Plan,
    chunk_size: usize,
    /// `C'`, row-major `R` by `K`.
    coefs: Vec<u8>,
    /// The `R` recovery shards of the current stripe so far.
    acc: Vec<Vec<u8>>,
    /// Sets of `R` accumulators that threads fill in parallel ([`StripeEncoder::partials`]),
    /// added into `acc` when the stripe ends; empty until a caller asks for them.
    partial: Vec<Vec<Vec<u8>>>,
    /// Whether the sets hold anything not yet added into `acc`.
    dirty: bool,
    added: usize,
    /// Coefficients of the chunks of one [`StripeEncoder::add_many`] call.
    batch: Vec<u8>,
}

impl std::fmt::Debug for StripeEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StripeEncoder")
            .field("plan", &self.plan)
            .field("chunk_size", &self.chunk_size)
            .field("added", &self.added)
            .finish()
    }
}

impl StripeEncoder {
    /// An encoder for stripes of this plan and chunk size.
    pub fn new(plan: Plan, chunk_size: usize) -> Result<StripeEncoder> {
        plan.check()?;
        let coefs = (0..plan.recovery)
            .flat_map(|s| (0..plan.stripe).map(move |i| plan.coefficient(s, i)))
            .collect();
        Ok(StripeEncoder {
            plan,
            chunk_size,
            coefs,
            acc: vec![vec![0u8; shard_bytes(chunk_size)]; plan.recovery],
            partial: Vec::new(),
            dirty: false,
            added: 0,
            batch: Vec::new(),
        })
    }

    /// Data chunks added to the current stripe.
    pub fn added(&self) -> usize {
        self.added
    }

    /// Whether the current stripe is full.
    pub fn full(&self) -> bool {
        self.added == self.plan.stripe
    }

    /// Adds the next data chunk's payload (at most the chunk size).
    pub fn add(&mut self, payload: &[u8]) -> Result<()> {
        self.add_many(&[payload])
    }

    /// Adds the next data chunks of the current stripe (at most as many as it has room for,
    /// each at most the chunk size) in one pass over the recovery shards.
    pub fn add_many(&mut self, payloads: &[&[u8]]) -> Result<()> {
        self.add_many_on(payloads, &Workers::default())
    }

    /// [`StripeEncoder::add_many`] on several threads: the shards are cut into byte ranges
    /// ([`Workers::parts`] of them), and each job multiplies the same range of every payload
    /// into its range. Every byte of a shard depends on the same byte of the payloads only,
    /// so the shards are the same for any number of threads.
    pub fn add_many_on(&mut self, payloads: &[&[u8]], workers: &Workers) -> Result<()> {
        let room = self.plan.stripe - self.added;
        if payloads.len() > room {
            return Err(Error::Limit {
                what: format!("{} more chunks in a stripe", payloads.len()),
                reason: format!("expected at most {room}"),
            });
        }
        if let Some(p) = payloads.iter().find(|p| p.len() > self.chunk_size) {
            return Err(Error::Limit {
                what: format!("a chunk of {} bytes", p.len()),
                reason: format!("expected at most the chunk size, {}", self.chunk_size),
            });
        }
        let (k, n, first) = (self.plan.stripe, payloads.len(), self.added);
        self.batch.clear();
        self.batch.extend(window(&self.coefs, k, first, n));
        let shard = shard_bytes(self.chunk_size);
        let parts = parallel::ranges(shard, workers.parts(), RANGE_ALIGN);
        // Each shard cut at the same places: part `q` of every shard goes to job `q`.
        let mut dsts: Vec<Vec<&mut [u8]>> = parts.iter().map(|_| Vec::new()).collect();
        for acc in self.acc.iter_mut() {
            deal(acc, &parts, &mut dsts);
        }
        let coefs = &self.batch;
        let jobs: Vec<_> = dsts
            .into_iter()
            .zip(&parts)
            .map(|(mut d, r)| {
                let srcs: Vec<&[u8]> = payloads
                    .iter()
                    .map(|p| &p[r.start.min(p.len())..r.end.min(p.len())])
                    .collect();
                move || gf256::mul_acc_many(&mut d, &srcs, coefs)
            })
            .collect();
        workers.run(jobs);
        self.added += n;
        Ok(())
    }

    /// Whether `sets` sets of partial accumulators ([`StripeEncoder::partials`]) fit
    /// [`PARTIAL_BYTES`].
    pub fn partials_fit(&self, sets: usize) -> bool {
        sets * self.acc.len() * shard_bytes(self.chunk_size) <= PARTIAL_BYTES
    }

    /// Takes the next `n` data chunks of the stripe into `sets` sets of accumulators (the
    /// encoder: one per thread), which are filled in parallel as the chunks are encoded
    /// ([`Partial::add`], each chunk into one set, any set): a chunk is multiplied into
    /// them while it is still in its core's cache, and no second pass over the batch is
    /// needed. The sets are added into the recovery shards when the stripe ends; addition
    /// is XOR, so the shards are the same whichever set took which chunk.
    pub fn partials(&mut self, n: usize, sets: usize) -> Result<Vec<Partial<'_>>> {
        let room = self.plan.stripe - self.added;
        if n > room {
            return Err(Error::Limit {
                what: format!("{n} more chunks in a stripe"),
                reason: format!("expected at most {room}"),
            });
        }
        let shard = shard_bytes(self.chunk_size);
        while self.partial.len() < sets {
            self.partial
                .push(vec![vec![0u8; shard]; self.plan.recovery]);
        }
        let (k, first, limit) = (self.plan.stripe, self.added, self.chunk_size);
        self.added += n;
        self.dirty = true;
        let coefs = &self.coefs;
        Ok(self.partial[..sets]
            .iter_mut()
            .map(|acc| Partial {
                acc,
                coefs,
                k,
                first,
                limit,
            })
            .collect())
    }

    /// Adds the sets of partial accumulators ([`StripeEncoder::partials`]) into the recovery
    /// shards and clears them, in [`Workers::parts`] byte ranges on `workers` (every byte of
    /// a shard depends on the same byte of the sets only). [`StripeEncoder::finish`] does it
    /// on one thread when the caller has not: at the stripe's end the other threads would
    /// otherwise wait for it (about 4 MiB of memory traffic a stripe at the default 2 %).
    pub fn gather_on(&mut self, workers: &Workers) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let parts = parallel::ranges(shard_bytes(self.chunk_size), workers.parts(), RANGE_ALIGN);
        let r = self.plan.recovery;
        let ones = vec![1u8; self.partial.len()];
        let ones = &ones;
        // Part `q` of every shard and of every set's shards goes to job `q`.
        let mut accs: Vec<Vec<&mut [u8]>> = parts.iter().map(|_| Vec::new()).collect();
        let mut sets: Vec<Vec<&mut [u8]>> = parts.iter().map(|_| Vec::new()).collect();
        for acc in self.acc.iter_mut() {
            deal(acc, &parts, &mut accs);
        }
        for shard in self.partial.iter_mut().flatten() {
            deal(shard, &parts, &mut sets);
        }
        let work: Vec<_> = accs
            .into_iter()
            .zip(sets)
            .map(|(mut acc, mut sets)| {
                move || {
                    for (s, a) in acc.iter_mut().enumerate() {
                        // The sets' pieces of shard `s`: set-major, `R` pieces a set.
                        let srcs: Vec<&[u8]> =
                            sets.iter().skip(s).step_by(r).map(|p| &p[..]).collect();
                        gf256::mul_acc_many(&mut [&mut a[..]], &srcs, ones);
                    }
                    sets.iter_mut().for_each(|p| p.fill(0));
                }
            })
            .collect();
        workers.run(work);
    }

    /// Ends the stripe: hands the first `R'` recovery shards to `emit` (with their numbers),
    /// then starts a new stripe. Returns `R'` (zero for an empty stripe).
    pub fn finish(&mut self, mut emit: impl FnMut(usize, &[u8]) -> Result<()>) -> Result<usize> {
        self.finish_on(&Workers::default(), |shards| {
            for (i, shard) in shards.iter().enumerate() {
                emit(i, shard)?;
            }
            Ok(())
        })
    }

    /// [`StripeEncoder::finish`] with the partial sets gathered on `workers`
    /// ([`StripeEncoder::gather_on`]) and the `R'` recovery shards handed to `emit` all at
    /// once (shard `j` at `shards[j]`), so that the caller can encode them in parallel too.
    /// Returns `R'`; `emit` is not called for an empty stripe.
    pub fn finish_on(
        &mut self,
        workers: &Workers,
        emit: impl FnOnce(&[&[u8]]) -> Result<()>,
    ) -> Result<usize> {
        if self.added == 0 {
            return Ok(0);
        }
        self.gather_on(workers);
        let count = self.plan.recovery_for(self.added);
        let shards: Vec<&[u8]> = self.acc.iter().take(count).map(|a| &a[..]).collect();
        emit(&shards)?;
        for a in &mut self.acc {
            a.fill(0);
        }
        self.added = 0;
        Ok(count)
    }
}

/// The coefficients of data chunks `i .. i + n` in every recovery shard, row-major `R` by
/// `n`: a window of `coefs`, the table `C'` row-major `R` by `k`.
fn window(coefs: &[u8], k: usize, i: usize, n: usize) -> impl Iterator<Item = u8> + '_ {
    coefs
        .chunks(k)
        .flat_map(move |row| row[i..i + n].iter().copied())
}

/// Cuts `buf` at the boundaries of `parts` (consecutive ranges from 0 that cover it) and
/// hands piece `q` to `jobs[q]`.
fn deal<'a>(buf: &'a mut [u8], parts: &[Range<usize>], jobs: &mut [Vec<&'a mut [u8]>]) {
    let mut rest = buf;
    for (job, r) in jobs.iter_mut().zip(parts) {
        let (mine, after) = std::mem::take(&mut rest).split_at_mut(r.len());
        job.push(mine);
        rest = after;
    }
}

/// The most bytes the partial accumulators of [`StripeEncoder::partials`] may take
/// (`sets * R * shard`, a set per thread): 2 threads at the default 2 % take 2 sets of 2
/// shards of 191 KiB; where they would take more (many threads, many recovery chunks) the
/// encoder adds each batch in a pass of its own ([`StripeEncoder::add_many_on`]).
pub const PARTIAL_BYTES: usize = 8 << 20;

/// One set of accumulators (a thread's) for a batch of a stripe's data chunks
/// ([`StripeEncoder::partials`]).
pub struct Partial<'a> {
    acc: &'a mut [Vec<u8>],
    coefs: &'a [u8],
    k: usize,
    /// The stripe position of the batch's first chunk.
    first: usize,
    /// The chunk size (the longest payload).
    limit: usize,
}

impl Partial<'_> {
    /// Multiplies consecutive chunks of the batch, from chunk `j` (stripe position
    /// `first + j`), `payloads`, into this set, in one pass over it.
    ///
    /// # Panics
    /// When a payload is longer than a chunk.
    pub fn add(&mut self, j: usize, payloads: &[&[u8]]) {
        assert!(
            payloads.iter().all(|p| p.len() <= self.limit),
            "payloads of at most a chunk"
        );
        let coefs: Vec<u8> = window(self.coefs, self.k, self.first + j, payloads.len()).collect();
        let mut dsts: Vec<&mut [u8]> = self.acc.iter_mut().map(|a| &mut a[..]).collect();
        gf256::mul_acc_many(&mut dsts, payloads, &coefs);
    }
}

/// Rebuilt data chunks: (chunk number within the stripe, full shard).
pub type Rebuilt = Vec<(usize, Vec<u8>)>;

/// Rebuilds the missing data chunks of a stripe of `data` chunks (`K'`) from the chunks that
/// verified and the recovery shards that verified (`(number, shard)`, each of
/// [`shard_bytes`] bytes). `have(i)` gives data chunk `i`'s payload (`None` when it is
/// missing); returns the rebuilt payloads (full shards) by chunk number, or `None` when
/// fewer than `K'` chunks survive.
///
/// With `e` missing chunks `M`, it takes `e` recovery shards `S`, makes the syndromes
/// `p_s + Σ_{i ∉ M} C'[s][i] d_i` (one batched pass), inverts the `e` by `e` matrix
/// `C'[S][M]` and multiplies the syndromes by it (a second batched pass).
pub fn rebuild<'a>(
    plan: Plan,
    chunk_size: usize,
    data: usize,
    have: impl Fn(usize) -> Option<&'a [u8]>,
    recovery: &[(usize, &[u8])],
) -> Result<Option<Rebuilt>> {
    plan.check()?;
    if data > plan.stripe {
        return Err(Error::Limit {
            what: format!("a stripe of {data} data chunks"),
            reason: format!("expected at most {}", plan.stripe),
        });
    }
    let shard = shard_bytes(chunk_size);
    let missing: Vec<usize> = (0..data).filter(|&i| have(i).is_none()).collect();
    if missing.is_empty() {
        return Ok(Some(Vec::new()));
    }
    // The first `e` usable recovery shards, one per number.
    let mut rows: Vec<(usize, &[u8])> = Vec::with_capacity(missing.len());
    for &(s, p) in recovery {
        if rows.len() == missing.len() {
            break;
        }
        if p.len() != shard {
            return Err(Error::Limit {
                what: format!("a recovery shard of {} bytes", p.len()),
                reason: format!("expected {shard}"),
            });
        }
        if s < plan.recovery && rows.iter().all(|&(r, _)| r != s) {
            rows.push((s, p));
        }
    }
    if rows.len() < missing.len() {
        return Ok(None);
    }
    let present: Vec<(usize, &[u8])> = (0..data).filter_map(|i| have(i).map(|p| (i, p))).collect();
    if let Some((i, p)) = present.iter().find(|(_, p)| p.len() > shard) {
        return Err(Error::Limit {
            what: format!("data chunk {i} of {} bytes", p.len()),
            reason: format!("expected at most {shard}"),
        });
    }
    // Syndromes: p_s + Σ_{present i} C'[s][i] d_i = Σ_{missing i} C'[s][i] d_i.
    let mut syn: Vec<Vec<u8>> = rows.iter().map(|(_, p)| p.to_vec()).collect();
    let coefs: Vec<u8> = rows
        .iter()
        .flat_map(|&(s, _)| present.iter().map(move |&(i, _)| plan.coefficient(s, i)))
        .collect();
    let srcs: Vec<&[u8]> = present.iter().map(|&(_, p)| p).collect();
    gf256::mul_acc_many(
        &mut syn.iter_mut().map(|v| &mut v[..]).collect::<Vec<_>>(),
        &srcs,
        &coefs,
    );
    // d_M = C'[S][M]^-1 syn.
    let e = missing.len();
    let m: Vec<u8> = rows
        .iter()
        .flat_map(|&(s, _)| missing.iter().map(move |&i| plan.coefficient(s, i)))
        .collect();
    let minv = gf256::invert(&m, e).expect("a square submatrix of a Cauchy matrix is invertible");
    let mut out: Vec<Vec<u8>> = vec![vec![0u8; shard]; e];
    let syn: Vec<&[u8]> = syn.iter().map(|v| &v[..]).collect();
    gf256::mul_acc_many(
        &mut out.iter_mut().map(|v| &mut v[..]).collect::<Vec<_>>(),
        &syn,
        &minv,
    );
    Ok(Some(missing.into_iter().zip(out).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::gf256::mul_slow;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn plans_follow_the_rule() {
        let cs = 65504;
        assert_eq!(Plan::for_percent(0.0, cs).unwrap(), None);
        let shape = |p: f64, cs: usize| {
            let p = Plan::for_percent(p, cs).unwrap().unwrap();
            (p.stripe, p.recovery)
        };
        assert_eq!(shape(2.0, cs), (100, 2));
        assert_eq!(shape(3.0, cs), (100, 3));
        assert_eq!(shape(0.1, cs), (100, 2));
        assert_eq!(shape(2.0, 8 << 20), (32, 2));
        assert_eq!(shape(3.5, cs), (240, 9));
        assert_eq!(shape(5.0, cs), (240, 12));
        assert_eq!(shape(10.0, cs), (232, 24));
        assert_eq!(shape(100.0, cs), (128, 128));
        assert_eq!(shape(100.0, 64 << 20), (4, 4));
        for tenth in 1..=1000 {
            let p = Plan::for_percent(tenth as f64 / 10.0, cs).unwrap().unwrap();
            assert!(p.stripe + p.recovery <= MAX_STRIPE_SHARDS, "{tenth}");
            assert_eq!(Plan::checked(p.stripe, p.recovery, cs), Some(p));
        }
        let p = Plan::for_percent(5.0, cs).unwrap().unwrap();
        assert_eq!(p.recovery_for(1), 2);
        assert_eq!(p.recovery_for(240), 12);
        assert_eq!(p.recovery_for(100), 5);
        assert!(Plan::for_percent(101.0, cs).is_err());
        assert!(Plan::for_percent(f64::NAN, cs).is_err());
        assert_eq!(Plan::checked(240, 16, cs).map(|p| p.recovery), Some(16));
        assert_eq!(Plan::checked(240, 17, cs), None);
    }

    /// 1 / a by search, with the shift-and-add product only.
    fn inv_slow(a: u8) -> u8 {
        (1..=255u8).find(|&b| mul_slow(a, b) == 1).unwrap()
    }

    /// Recovery shard `s` of a stripe byte by byte from the definition.
    fn naive_shard(plan: Plan, cs: usize, chunks: &[Vec<u8>], s: usize) -> Vec<u8> {
        let k = plan.stripe;
        let cauchy = |s: usize, i: usize| inv_slow((i ^ (k + s)) as u8);
        (0..cs)
            .map(|b| {
                chunks.iter().enumerate().fold(0u8, |acc, (i, d)| {
                    let c = mul_slow(cauchy(s, i), inv_slow(cauchy(0, i)));
                    acc ^ mul_slow(c, d.get(b).copied().unwrap_or(0))
                })
            })
            .collect()
    }

    fn encode(
        plan: Plan,
        cs: usize,
        chunks: &[Vec<u8>],
        rng: &mut ChaCha20Rng,
    ) -> Vec<(usize, Vec<u8>)> {
        let mut enc = StripeEncoder::new(plan, cs).unwrap();
        let mut first = Vec::new();
        // The same stripe twice through one encoder: the second starts from zero, its
        // partial accumulators included.
        for round in 0..2 {
            let mut at = 0;
            while at < chunks.len() {
                let n = rng.gen_range(1..=4).min(chunks.len() - at);
                let batch: Vec<&[u8]> = chunks[at..at + n].iter().map(|c| &c[..]).collect();
                match rng.gen_range(0..3) {
                    0 if n == 1 => enc.add(batch[0]).unwrap(),
                    0 | 1 => enc.add_many(&batch).unwrap(),
                    _ => {
                        // Runs of the batch into sets of partial accumulators, any run
                        // into any set.
                        let jobs = rng.gen_range(1..=3);
                        let mut sets = enc.partials(n, jobs).unwrap();
                        let mut j = 0;
                        while j < n {
                            let m = rng.gen_range(1..=n - j);
                            sets[rng.gen_range(0..jobs)].add(j, &batch[j..j + m]);
                            j += m;
                        }
                    }
                }
                at += n;
                assert_eq!(enc.added(), at);
            }
            assert_eq!(enc.full(), chunks.len() == plan.stripe);
            let mut rec = Vec::new();
            let count = enc
                .finish(|i, s| {
                    rec.push((i, s.to_vec()));
                    Ok(())
                })
                .unwrap();
            assert_eq!(count, plan.recovery_for(chunks.len()));
            assert_eq!(rec.len(), count);
            if round == 1 {
                assert_eq!(rec, first, "the second stripe as the first");
            }
            first = rec;
        }
        first
    }

    #[test]
    fn recovery_shards_follow_the_formula() {
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        for (k, r, data, cs) in [
            (1, 1, 1, 5),
            (6, 3, 4, 101),
            (40, 8, 40, 130),
            (250, 6, 7, 64),
        ] {
            let plan = Plan {
                stripe: k,
                recovery: r,
            };
            let chunks: Vec<Vec<u8>> = (0..data)
                .map(|i| {
                    let len = if i % 3 == 2 { cs / 2 + 1 } else { cs };
                    (0..len).map(|_| rng.r#gen()).collect()
                })
                .collect();
            let rec = encode(plan, cs, &chunks, &mut rng);
            for (s, shard) in &rec {
                assert_eq!(
                    shard,
                    &naive_shard(plan, cs, &chunks, *s),
                    "{k}+{r}, shard {s}"
                );
            }
            // Row 0 is the XOR of the data.
            let xor: Vec<u8> = (0..cs)
                .map(|b| {
                    chunks
                        .iter()
                        .fold(0, |a, d| a ^ d.get(b).copied().unwrap_or(0))
                })
                .collect();
            assert_eq!(rec[0].1, xor);
            // The encoder starts the next stripe from zero.
            assert_eq!(encode(plan, cs, &chunks, &mut rng), rec);
        }
    }

    /// The example of docs/format.md ("Recovery: the code").
    #[test]
    fn the_documented_example() {
        let plan = Plan {
            stripe: 3,
            recovery: 2,
        };
        assert_eq!(
            (0..3).map(|i| plan.coefficient(1, i)).collect::<Vec<_>>(),
            [0x46, 0xA4, 0x7B]
        );
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let chunks = [vec![1, 2], vec![3, 4], vec![5]];
        let rec = encode(plan, 2, &chunks, &mut rng);
        assert_eq!(rec, [(0, vec![0x07, 0x06]), (1, vec![0x3D, 0x2A])]);
        let rec = encode(plan, 2, &chunks[..2], &mut rng);
        assert_eq!(rec, [(0, vec![0x02, 0x06]), (1, vec![0xB1, 0x2A])]);
    }

    /// Every set of `e` out of `n`, in order.
    fn subsets(n: usize, e: usize, out: &mut Vec<Vec<usize>>) {
        fn go(n: usize, e: usize, from: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            if cur.len() == e {
                out.push(cur.clone());
                return;
            }
            for i in from..n {
                if n - i < e - cur.len() {
                    break;
                }
                cur.push(i);
                go(n, e, i + 1, cur, out);
                cur.pop();
            }
        }
        go(n, e, 0, &mut Vec::new(), out);
    }

    fn binomial(n: usize, e: usize) -> usize {
        (0..e).fold(1usize, |acc, t| acc * (n - t) / (t + 1))
    }

    /// Random stripes; every erasure pattern of up to `R'` data chunks (a random sample of
    /// them when there are too many) with a random choice of surviving recovery shards
    /// rebuilds exactly; one loss more than the surviving shards gives `None`.
    #[test]
    fn any_k_chunks_rebuild_the_stripe() {
        let mut rng = ChaCha20Rng::seed_from_u64(13);
        let mut patterns = 0;
        for case in 0..120 {
            let plan = Plan {
                stripe: rng.gen_range(1..=40),
                recovery: rng.gen_range(1..=8),
            };
            let data = rng.gen_range(1..=plan.stripe);
            let cs = match rng.gen_range(0..3) {
                0 => rng.gen_range(1..=8),
                1 => 64 * rng.gen_range(1..=3),
                _ => rng.gen_range(1..=300),
            };
            let chunks: Vec<Vec<u8>> = (0..data)
                .map(|_| {
                    let len = if rng.gen_bool(0.7) {
                        cs
                    } else {
                        rng.gen_range(1..=cs)
                    };
                    (0..len).map(|_| rng.r#gen()).collect()
                })
                .collect();
            let rec = encode(plan, cs, &chunks, &mut rng);
            let count = rec.len();
            for e in 1..=count.min(data) {
                let mut lost_sets = Vec::new();
                if binomial(data, e) <= 400 {
                    subsets(data, e, &mut lost_sets);
                } else {
                    let all: Vec<usize> = (0..data).collect();
                    for _ in 0..100 {
                        let mut l: Vec<usize> = all.choose_multiple(&mut rng, e).copied().collect();
                        l.sort();
                        lost_sets.push(l);
                    }
                }
                for lost in lost_sets {
                    patterns += 1;
                    let have = |i: usize| (!lost.contains(&i)).then(|| &chunks[i][..]);
                    // A random choice of at least `e` surviving recovery shards, in any order.
                    let mut survive: Vec<(usize, &[u8])> =
                        rec.iter().map(|(i, s)| (*i, &s[..])).collect();
                    survive.shuffle(&mut rng);
                    survive.truncate(rng.gen_range(e..=count));
                    let got = rebuild(plan, cs, data, have, &survive).unwrap().unwrap();
                    assert_eq!(
                        got.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
                        lost,
                        "case {case}"
                    );
                    for (i, s) in got {
                        let c = &chunks[i];
                        assert_eq!(s.len(), cs);
                        assert_eq!(&s[..c.len()], &c[..], "case {case} {plan:?}, chunk {i}");
                        assert!(s[c.len()..].iter().all(|&b| b == 0));
                    }
                    // One shard too few.
                    survive.truncate(e - 1);
                    assert!(
                        rebuild(plan, cs, data, have, &survive).unwrap().is_none(),
                        "case {case}"
                    );
                }
            }
            // One loss more than all the recovery shards.
            if count < data {
                let mut lost: Vec<usize> = (0..data).collect();
                lost.shuffle(&mut rng);
                lost.truncate(count + 1);
                let have = |i: usize| (!lost.contains(&i)).then(|| &chunks[i][..]);
                let all: Vec<(usize, &[u8])> = rec.iter().map(|(i, s)| (*i, &s[..])).collect();
                assert!(rebuild(plan, cs, data, have, &all).unwrap().is_none());
            }
            // Nothing lost: nothing to do.
            let have = |i: usize| Some(&chunks[i][..]);
            assert_eq!(
                rebuild(plan, cs, data, have, &[]).unwrap(),
                Some(Vec::new())
            );
        }
        assert!(patterns > 10_000, "{patterns} patterns");
    }

    #[test]
    fn the_encoder_refuses_what_does_not_fit() {
        let plan = Plan {
            stripe: 3,
            recovery: 2,
        };
        let mut enc = StripeEncoder::new(plan, 10).unwrap();
        assert!(enc.add(&[0; 11]).is_err());
        enc.add_many(&[&[1; 10], &[2; 3]]).unwrap();
        assert!(enc.add_many(&[&[1; 10], &[2; 3]]).is_err());
        assert_eq!(enc.added(), 2);
        enc.add(&[7; 10]).unwrap();
        assert!(enc.full());
        assert!(enc.add(&[7; 10]).is_err());
        let bad = Plan {
            stripe: 250,
            recovery: 7,
        };
        assert!(StripeEncoder::new(bad, 10).is_err());
    }
}
