//! Recovery chunks (format v2): Reed–Solomon erasure coding across a stripe of data chunks,
//! par2-style, over `reed-solomon-simd`. A stripe is `K` consecutive data chunks followed by
//! `R` recovery chunks; any `K` of the `K + R` rebuild the rest. The shards are the chunks'
//! payloads, zero-padded to the shard size; a short last stripe is padded with virtual
//! all-zero data chunks that are never written, so it uses the same code.

use crate::error::{Error, Result};
use reed_solomon_simd::{ReedSolomonDecoder, ReedSolomonEncoder};

/// Data chunks per stripe at recovery percentages up to [`SMALL_STRIPE_MAX_PERCENT`]: with up
/// to 4 recovery chunks the Reed–Solomon work area is 128 shards (8 MiB at the default chunk
/// size), which keeps default decoding far below 64 MiB.
pub const SMALL_STRIPE: usize = 124;
/// Data chunks per stripe above [`SMALL_STRIPE_MAX_PERCENT`]: long enough that 5 % repairs a
/// megabyte of consecutive damage.
pub const LARGE_STRIPE: usize = 480;
/// The largest percentage that uses [`SMALL_STRIPE`].
pub const SMALL_STRIPE_MAX_PERCENT: f64 = 3.0;
/// The most chunks (data and recovery) a stripe may have; a frame naming more is refused, so
/// that a hostile header cannot ask for a huge Reed–Solomon work area.
pub const MAX_STRIPE_SHARDS: usize = 1024;
/// The most payload a stripe may hold (a decoder keeps one stripe in memory): larger chunks
/// need a lower recovery percentage or none.
pub const MAX_STRIPE_BYTES: usize = 256 << 20;
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
    /// The plan for a recovery percentage (`None` for 0) and chunks of `chunk_size` bytes:
    /// `R = max(2, ceil(K p / 100))` with `K` = [`SMALL_STRIPE`] up to 3 % and
    /// [`LARGE_STRIPE`] above, fewer when a stripe of such chunks would exceed
    /// [`MAX_STRIPE_BYTES`] (deep interleaving makes large chunks).
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
        let stripe = if percent <= SMALL_STRIPE_MAX_PERCENT {
            SMALL_STRIPE
        } else {
            LARGE_STRIPE
        }
        .min(MAX_STRIPE_BYTES / chunk_size.max(1))
        .max(1);
        let recovery = ((stripe as f64 * percent / 100.0).ceil() as usize).max(MIN_RECOVERY);
        Ok(Some(Plan { stripe, recovery }))
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
}

/// Bytes of a shard for chunks of `chunk_size` payload bytes (even, as the coder requires).
pub fn shard_bytes(chunk_size: usize) -> usize {
    chunk_size.next_multiple_of(2)
}

/// Gathers a stripe's data chunks and makes its recovery shards.
pub struct StripeEncoder {
    enc: ReedSolomonEncoder,
    plan: Plan,
    shard: usize,
    added: usize,
    pad: Vec<u8>,
}

impl std::fmt::Debug for StripeEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StripeEncoder")
            .field("plan", &self.plan)
            .field("shard", &self.shard)
            .field("added", &self.added)
            .finish()
    }
}

impl StripeEncoder {
    /// An encoder for stripes of this plan and chunk size.
    pub fn new(plan: Plan, chunk_size: usize) -> Result<StripeEncoder> {
        let shard = shard_bytes(chunk_size);
        let enc = ReedSolomonEncoder::new(plan.stripe, plan.recovery, shard).map_err(rs_error)?;
        Ok(StripeEncoder {
            enc,
            plan,
            shard,
            added: 0,
            pad: Vec::new(),
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
        if payload.len() == self.shard {
            self.enc.add_original_shard(payload).map_err(rs_error)?;
        } else {
            self.pad.clear();
            self.pad.extend_from_slice(payload);
            self.pad.resize(self.shard, 0);
            self.enc.add_original_shard(&self.pad).map_err(rs_error)?;
        }
        self.added += 1;
        Ok(())
    }

    /// Ends the stripe: pads it with virtual zero chunks, computes the recovery shards and
    /// hands the first `R'` of them to `emit` (with their numbers), then starts a new stripe.
    /// Returns `R'` (zero for an empty stripe).
    pub fn finish(&mut self, mut emit: impl FnMut(usize, &[u8]) -> Result<()>) -> Result<usize> {
        if self.added == 0 {
            return Ok(0);
        }
        if self.added < self.plan.stripe {
            self.pad.clear();
            self.pad.resize(self.shard, 0);
            for _ in self.added..self.plan.stripe {
                self.enc.add_original_shard(&self.pad).map_err(rs_error)?;
            }
        }
        let count = self.plan.recovery_for(self.added);
        {
            let result = self.enc.encode().map_err(rs_error)?;
            for (i, shard) in result.recovery_iter().take(count).enumerate() {
                emit(i, shard)?;
            }
        }
        self.enc
            .reset(self.plan.stripe, self.plan.recovery, self.shard)
            .map_err(rs_error)?;
        self.added = 0;
        Ok(count)
    }
}

/// Rebuilt data chunks: (chunk number within the stripe, full shard).
pub type Rebuilt = Vec<(usize, Vec<u8>)>;

/// Rebuilds the missing data chunks of a stripe of `data` chunks (`K'`) from the chunks that
/// verified and the recovery shards that verified. `have(i)` gives data chunk `i`'s payload
/// (`None` when it is missing); returns the rebuilt payloads (full shards) by chunk number,
/// or `None` when fewer than `K'` chunks survive.
pub fn rebuild<'a>(
    plan: Plan,
    chunk_size: usize,
    data: usize,
    have: impl Fn(usize) -> Option<&'a [u8]>,
    recovery: &[(usize, &[u8])],
) -> Result<Option<Rebuilt>> {
    let missing: Vec<usize> = (0..data).filter(|&i| have(i).is_none()).collect();
    if missing.is_empty() {
        return Ok(Some(Vec::new()));
    }
    if recovery.len() < missing.len() {
        return Ok(None);
    }
    let shard = shard_bytes(chunk_size);
    let mut dec = ReedSolomonDecoder::new(plan.stripe, plan.recovery, shard).map_err(rs_error)?;
    let mut pad = vec![0u8; shard];
    for i in 0..plan.stripe {
        match (i < data).then(|| have(i)).flatten() {
            Some(p) if p.len() == shard => dec.add_original_shard(i, p).map_err(rs_error)?,
            Some(p) => {
                pad[..p.len()].copy_from_slice(p);
                pad[p.len()..].fill(0);
                dec.add_original_shard(i, &pad).map_err(rs_error)?;
            }
            None if i >= data => {
                pad.fill(0);
                dec.add_original_shard(i, &pad).map_err(rs_error)?;
            }
            None => {}
        }
    }
    for &(r, s) in recovery {
        dec.add_recovery_shard(r, s).map_err(rs_error)?;
    }
    let result = dec.decode().map_err(rs_error)?;
    Ok(Some(
        missing
            .iter()
            .map(|&i| {
                let s = result.restored_original(i).expect("a missing original");
                (i, s.to_vec())
            })
            .collect(),
    ))
}

fn rs_error(e: reed_solomon_simd::Error) -> Error {
    Error::Limit {
        what: "reed-solomon recovery".into(),
        reason: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_follow_the_rule() {
        let cs = 65504;
        assert_eq!(Plan::for_percent(0.0, cs).unwrap(), None);
        let p = Plan::for_percent(2.0, cs).unwrap().unwrap();
        assert_eq!((p.stripe, p.recovery), (124, 3));
        let big = Plan::for_percent(2.0, 8 << 20).unwrap().unwrap();
        assert_eq!((big.stripe, big.recovery), (32, 2));
        let p = Plan::for_percent(5.0, cs).unwrap().unwrap();
        assert_eq!((p.stripe, p.recovery), (480, 24));
        assert_eq!(Plan::for_percent(0.1, cs).unwrap().unwrap().recovery, 2);
        assert_eq!(p.recovery_for(1), 2);
        assert_eq!(p.recovery_for(480), 24);
        assert_eq!(p.recovery_for(100), 5);
        assert!(Plan::for_percent(101.0, cs).is_err());
        assert!(Plan::for_percent(f64::NAN, cs).is_err());
    }

    #[test]
    fn any_k_chunks_rebuild_the_stripe() {
        let plan = Plan {
            stripe: 6,
            recovery: 3,
        };
        let cs = 101;
        for data in [1usize, 4, 6] {
            let chunks: Vec<Vec<u8>> = (0..data)
                .map(|i| (0..cs - (i % 2)).map(|j| (i * 31 + j * 7) as u8).collect())
                .collect();
            let mut enc = StripeEncoder::new(plan, cs).unwrap();
            for c in &chunks {
                enc.add(c).unwrap();
            }
            let mut rec = Vec::new();
            let count = enc
                .finish(|i, s| {
                    rec.push((i, s.to_vec()));
                    Ok(())
                })
                .unwrap();
            assert_eq!(count, plan.recovery_for(data));
            // Lose as many data chunks as there are recovery shards.
            let lost: Vec<usize> = (0..data).rev().take(count).collect();
            let have = |i: usize| (!lost.contains(&i)).then(|| &chunks[i][..]);
            let refs: Vec<(usize, &[u8])> = rec.iter().map(|(i, s)| (*i, &s[..])).collect();
            let got = rebuild(plan, cs, data, have, &refs).unwrap().unwrap();
            assert_eq!(got.len(), lost.len());
            for (i, s) in got {
                assert_eq!(
                    &s[..chunks[i].len()],
                    &chunks[i][..],
                    "stripe of {data}, chunk {i}"
                );
            }
            // One loss too many.
            if count < data {
                let lost: Vec<usize> = (0..=count).collect();
                let have = |i: usize| (!lost.contains(&i)).then(|| &chunks[i][..]);
                assert!(rebuild(plan, cs, data, have, &refs).unwrap().is_none());
            }
        }
    }
}
