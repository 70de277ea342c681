//! The Monte Carlo engine: frames through a channel and back through a decoder, counted until a
//! stop rule is met.
//!
//! Work is cut into batches of 64 frames. Batch `i` draws all of its randomness (messages, then
//! channel errors) from its own ChaCha8 stream ([`super::chacha`]): the key is a SHA-256 of
//! the seed, the code, the channel and the interleaving depth, the stream number is `i`.
//! Batches are run in rounds of a fixed, growing size, and the stop rule is checked between
//! rounds. The counts of a run are therefore a function of the seed alone: the same for any
//! thread count (only `max_seconds` depends on the clock).
//!
//! A frame is one codeword, or with interleaving depth `D` one block of `D` codewords sent
//! interleaved (bit `j` of codeword `c` goes out at time `j * D + c`), so that a burst of up to
//! `D` bits touches each codeword at most once. A frame is in error when the decoder detects
//! an uncorrectable error in any of its codewords (a *detected* frame) or a decoded message
//! differs from the one sent (a *miscorrected* frame, when nothing was detected). Bit errors
//! count the wrong message bits delivered: the decoded message, or for a detected codeword the
//! message bits as received.
//!
//! On AWGN and the erasure channel a [`DecoderKind`] other than `hard` decodes each codeword
//! from its log-likelihood ratios (see [`crate::sim::soft`]); the noise is the same for every
//! decoder, since the decoder is not part of the random streams' key.

use super::chacha::{self, Stream};
use super::channel::{Channel, Sampler};
use super::kernel::SlicedCode;
use super::monitor::{Counts, Run, StopRule, finish};
use super::scratch::Scratch;
use super::soft::SoftBatch;
use super::team::{Progress, Solo, Team};
use crate::code::{BlockCode, DecoderKind, SoftDecoder, Status, build, soft_decoder};
use crate::error::{Error, Result};
use crate::gf2::BitVec;
use rand::RngCore;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::time::Instant;

/// Frames per batch: one per bit of a `u64`.
pub const LANES: u64 = 64;

/// Which path decodes the frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The bit-sliced kernels of [`SlicedCode`] (the default).
    Sliced,
    /// One codeword at a time through [`BlockCode::encode`] and [`BlockCode::decode`]: slow, the
    /// reference the sliced path is checked against. Same randomness, so same counts.
    Reference,
}

impl Engine {
    /// `sliced` or `reference`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Engine::Sliced => "sliced",
            Engine::Reference => "reference",
        }
    }
}

/// A code on a channel, ready to simulate.
#[derive(Debug)]
pub struct Simulator {
    code: Box<dyn BlockCode>,
    kernel: SlicedCode,
    channel: Channel,
    sampler: Sampler,
    interleave: usize,
    key: [u8; 32],
    seed: u64,
    engine: Engine,
    decoder: DecoderKind,
    soft: Option<Box<dyn SoftDecoder>>,
    /// The decoder as reported: `decoder` printed, or a caller's decoder's name.
    label: String,
}

impl Simulator {
    /// A simulator of `code` on `channel` with interleaving depth `interleave` (>= 1), its
    /// randomness derived from `seed`.
    ///
    /// # Errors
    /// [`Error::Limit`] for a depth of 0 or a frame beyond 2^32 bits.
    pub fn new(
        code: &dyn BlockCode,
        channel: Channel,
        interleave: usize,
        seed: u64,
        engine: Engine,
    ) -> Result<Self> {
        if interleave == 0 || code.n().saturating_mul(interleave) > 1 << 32 {
            return Err(Error::Limit {
                what: format!("interleaving depth {interleave}"),
                reason: format!(
                    "expected 1 <= D and n * D <= 2^32 bits, found n = {}",
                    code.n()
                ),
            });
        }
        let mut h = Sha256::new();
        h.update(format!(
            "tilecode-sim/1|{seed}|{}|{channel}|{interleave}",
            code.spec()
        ));
        Ok(Simulator {
            code: build(&code.spec()),
            kernel: SlicedCode::new(code),
            channel,
            sampler: channel.sampler(),
            interleave,
            key: h.finalize().into(),
            seed,
            engine,
            decoder: DecoderKind::Hard,
            soft: None,
            label: DecoderKind::Hard.to_string(),
        })
    }

    /// The same simulator with another decoder. `hard` runs on the bit-flipping channels and
    /// AWGN (hard decisions); `ml`, `chase` and `iterative` need AWGN; `erasure` needs the
    /// erasure channel, which needs it. Every decoder but `hard` runs on the soft path, one
    /// codeword at a time, whatever the engine.
    ///
    /// # Errors
    /// [`Error::Limit`] for a decoder the channel or the code cannot have (see
    /// [`soft_decoder`]).
    pub fn with_decoder(mut self, decoder: DecoderKind) -> Result<Self> {
        let ch = self.channel;
        let fits = match decoder {
            DecoderKind::Hard => !matches!(ch, Channel::Bec { .. }),
            DecoderKind::Erasure => matches!(ch, Channel::Bec { .. }),
            _ => matches!(ch, Channel::Awgn { .. }),
        };
        if !fits {
            let needs = match decoder {
                DecoderKind::Hard => "a channel that flips bits or awgn",
                DecoderKind::Erasure => "the erasure channel (bec)",
                _ => "the awgn channel (soft values)",
            };
            return Err(Error::Limit {
                what: format!("the {} decoder on {ch}", decoder.as_str()),
                reason: format!("expected {needs}, found {ch}"),
            });
        }
        self.soft = match decoder {
            DecoderKind::Hard => None,
            kind => Some(soft_decoder(self.code.as_ref(), kind)?),
        };
        self.decoder = decoder;
        self.label = decoder.to_string();
        Ok(self)
    }

    /// The same simulator with a decoder of the caller's own (for example an exhaustive
    /// reference) on the soft path, reported as `label`; it sees the noise every built-in
    /// decoder sees for the same seed.
    ///
    /// # Errors
    /// [`Error::Limit`] unless the channel is AWGN or the erasure channel.
    pub fn with_soft_decoder(mut self, decoder: Box<dyn SoftDecoder>) -> Result<Self> {
        if !self.channel.is_soft() {
            return Err(Error::Limit {
                what: format!("the {} decoder on {}", decoder.name(), self.channel),
                reason: format!("expected awgn or bec, found {}", self.channel),
            });
        }
        self.label = decoder.name().to_string();
        self.soft = Some(decoder);
        Ok(self)
    }

    /// The built-in decoder (`Hard` also when a caller's decoder was given with
    /// [`Simulator::with_soft_decoder`]; the report names that one).
    pub fn decoder(&self) -> DecoderKind {
        self.decoder
    }

    /// The code.
    pub fn code(&self) -> &dyn BlockCode {
        self.code.as_ref()
    }

    /// The bit-sliced kernel.
    pub fn kernel(&self) -> &SlicedCode {
        &self.kernel
    }

    /// The channel.
    pub fn channel(&self) -> Channel {
        self.channel
    }

    /// Interleaving depth: codewords per frame.
    pub fn interleave(&self) -> usize {
        self.interleave
    }

    /// The seed the randomness derives from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The path that decodes, as reported: `soft` when a soft decoder runs, else the engine's
    /// name (`sliced` or `reference`).
    pub fn engine_name(&self) -> &'static str {
        if self.soft.is_some() {
            "soft"
        } else {
            self.engine.as_str()
        }
    }

    /// What decodes, as reported: the soft decoder's name, the sliced kernel's, or
    /// `block_code` for the reference engine.
    pub fn kernel_name(&self) -> &str {
        match (&self.soft, self.engine) {
            (Some(d), _) => d.name(),
            (None, Engine::Sliced) => self.kernel.kernel_name(),
            (None, Engine::Reference) => "block_code",
        }
    }

    /// The decoder as reported: the built-in decoder, or the name of a caller's decoder.
    pub fn decoder_name(&self) -> &str {
        &self.label
    }

    /// Message bits per frame, `k * D`.
    pub fn message_bits_per_frame(&self) -> u64 {
        (self.code.k() * self.interleave) as u64
    }

    /// Runs batch number `batch` (64 frames) and counts the frames of the lanes in `active`.
    pub fn batch(&self, scratch: &mut Scratch, batch: u64, active: u64) -> Counts {
        // One dispatch per batch, not per draw (dispatching every draw cost `alien:9x9` about
        // 8 %), and the stream used in place (passed on by value, about 4 % slower).
        match &mut chacha::stream(self.key, batch) {
            #[cfg(target_arch = "x86_64")]
            Stream::Wide(rng) => self.batch_from(scratch, rng, active),
            Stream::Plain(rng) => self.batch_from(scratch, rng, active),
        }
    }

    /// Runs a batch whose draws come from `rng`, its stream.
    fn batch_from<R: RngCore>(&self, scratch: &mut Scratch, rng: &mut R, active: u64) -> Counts {
        if let Some(decoder) = &self.soft {
            let soft = SoftBatch {
                kernel: &self.kernel,
                sampler: &self.sampler,
                decoder: decoder.as_ref(),
                interleave: self.interleave,
            };
            return soft.run(scratch, rng, active);
        }
        match self.engine {
            Engine::Sliced => self.batch_sliced(scratch, rng, active),
            Engine::Reference => self.batch_reference(rng, active),
        }
    }

    fn batch_sliced<R: RngCore>(&self, s: &mut Scratch, rng: &mut R, active: u64) -> Counts {
        let (n, k, d) = (self.code.n(), self.code.k(), self.interleave);
        // The words are in the kernel's row order: the message first, in message order (so
        // the message draws are those of the reference engine), and the channel's position
        // `p` of a codeword is its word `row[p]`.
        let row = self.kernel.row_of_pos();
        s.tx.resize(n * d, 0);
        s.rx.resize(n * d, 0);
        for cw in s.tx.chunks_exact_mut(n) {
            for w in &mut cw[..k] {
                *w = rng.next_u64();
            }
            self.kernel.encode_in(cw, &mut s.kernel);
        }
        s.rx.copy_from_slice(&s.tx);
        let mut channel_errors = 0u64;
        let rx = &mut s.rx;
        if self.sampler.draws_words() {
            self.sampler.sample_words(rng, n * d, |t, w| {
                let at = if d == 1 {
                    row[t] as usize
                } else {
                    (t % d) * n + row[t / d] as usize
                };
                rx[at] ^= w;
                channel_errors += u64::from((w & active).count_ones());
            });
        } else if d == 1 {
            self.sampler.sample_frames(rng, 64, n, |lane, t| {
                rx[row[t] as usize] ^= 1 << lane;
                channel_errors += (active >> lane) & 1;
            });
        } else {
            self.sampler.sample_frames(rng, 64, n * d, |lane, t| {
                rx[(t % d) * n + row[t / d] as usize] ^= 1 << lane;
                channel_errors += (active >> lane) & 1;
            });
        }
        let mut detected = 0u64;
        for cw in rx.chunks_exact_mut(n) {
            detected |= self.kernel.decode_in(cw, &mut s.kernel);
        }
        let mut wrong = 0u64;
        let mut bit_errors = 0u64;
        let mut per_lane = [0u64; 64];
        for (t, r) in s.tx.chunks_exact(n).zip(s.rx.chunks_exact(n)) {
            for (&t, &r) in t[..k].iter().zip(&r[..k]) {
                let x = (t ^ r) & active;
                if x != 0 {
                    wrong |= x;
                    bit_errors += u64::from(x.count_ones());
                    let mut m = x;
                    while m != 0 {
                        per_lane[m.trailing_zeros() as usize] += 1;
                        m &= m - 1;
                    }
                }
            }
        }
        finish(
            active,
            detected,
            wrong,
            bit_errors,
            &per_lane,
            channel_errors,
        )
    }

    fn batch_reference<R: RngCore>(&self, rng: &mut R, active: u64) -> Counts {
        let code = self.code.as_ref();
        let (n, k, d) = (code.n(), code.k(), self.interleave);
        let pos = code.message_positions();
        // The same draws as the sliced path: message words codeword by codeword, then errors.
        let mut words = vec![0u64; k * d];
        for c in 0..d {
            for i in 0..k {
                words[c * k + i] = rng.next_u64();
            }
        }
        let mut errors: Vec<Vec<(usize, usize)>> = vec![Vec::new(); 64];
        self.sampler.sample_frames(rng, 64, n * d, |lane, t| {
            errors[lane].push((t % d, t / d));
        });
        let (mut detected, mut wrong, mut bit_errors, mut channel_errors) = (0u64, 0u64, 0, 0);
        let mut per_lane = [0u64; 64];
        for lane in 0..64 {
            if (active >> lane) & 1 == 0 {
                continue;
            }
            channel_errors += errors[lane].len() as u64;
            for c in 0..d {
                let msg = BitVec::from_bools(
                    &(0..k)
                        .map(|i| (words[c * k + i] >> lane) & 1 == 1)
                        .collect::<Vec<_>>(),
                );
                let mut word = code.encode(&msg);
                for &(_, p) in errors[lane].iter().filter(|e| e.0 == c) {
                    word.flip(p);
                }
                let dec = code.decode(&word);
                let delivered = match dec.status {
                    Status::Detected => {
                        detected |= 1 << lane;
                        code.extract(&word)
                    }
                    _ => dec.message.expect("accepted words carry a message"),
                };
                let mut diff = delivered;
                diff.xor_assign(&msg);
                let w = diff.weight() as u64;
                if w > 0 {
                    wrong |= 1 << lane;
                    bit_errors += w;
                    per_lane[lane] += w;
                }
            }
        }
        debug_assert!(pos.len() == k);
        finish(
            active,
            detected,
            wrong,
            bit_errors,
            &per_lane,
            channel_errors,
        )
    }

    /// Simulates until `stop` is met, on `threads` threads (1: on the calling thread).
    ///
    /// # Errors
    /// [`Error::Limit`] when the stop rule has no limit at all or the thread pool cannot start.
    pub fn run(&self, stop: &StopRule, threads: usize) -> Result<Run> {
        self.run_with(stop, threads, Progress::default(), &Solo, &mut |_| Ok(()))
            .map(|(run, _)| run)
    }

    /// [`Simulator::run`] from a saved [`Progress`] (`Progress::default()` for a new run), with
    /// the batches of every round shared by the members of `team`, and `on_round` called with
    /// the progress after every round (to save it: an error there stops the run). Returns the
    /// run and its final progress. For one seed the counts are those of [`Simulator::run`],
    /// whatever the team and wherever the run was resumed.
    ///
    /// # Errors
    /// As [`Simulator::run`], and whatever `on_round` returns.
    pub fn run_with(
        &self,
        stop: &StopRule,
        threads: usize,
        from: Progress,
        team: &dyn Team,
        on_round: &mut dyn FnMut(&Progress) -> Result<()>,
    ) -> Result<(Run, Progress)> {
        if stop.is_unbounded() {
            return Err(Error::Limit {
                what: "a simulation without a stop rule".into(),
                reason: "expected --min-frame-errors, --max-frames or --max-seconds above 0".into(),
            });
        }
        let pool = if threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| Error::Limit {
                        what: format!("{threads} threads"),
                        reason: e.to_string(),
                    })?,
            )
        } else {
            None
        };
        let start = Instant::now();
        let seconds = |earlier: f64| earlier + start.elapsed().as_secs_f64();
        let bits_per_batch = (LANES as usize * self.code.n() * self.interleave).max(1);
        let cap = ((1usize << 26) / bits_per_batch).max(1) as u64;
        let (rank, size) = (team.rank() as u64, team.size().max(1) as u64);
        let mut p = from;
        let mut scratch = Scratch::default();
        let reason = loop {
            let total = p.counts;
            // Every member stops on the team's longest time, so all stop after the same round.
            if let Some(reason) = stop.reached(&total, || team.max(seconds(from.seconds))) {
                break reason;
            }
            let mut count = (1u64 << p.round.min(40)).min(cap);
            let mut last_active = !0u64;
            if stop.max_frames > 0 {
                let remaining = stop.max_frames - total.frames;
                let batches = remaining.div_ceil(LANES);
                if count >= batches {
                    count = batches;
                    if !remaining.is_multiple_of(LANES) {
                        last_active = (1u64 << (remaining % LANES)) - 1;
                    }
                }
            }
            let (next, end) = (p.next_batch, p.next_batch + count);
            let active = |i: u64| if i + 1 == end { last_active } else { !0 };
            // This member's batches: i = rank, rank + size, ... (mod size) in [next, end).
            let first = next + (rank + size - next % size) % size;
            let mine = (first..end).step_by(size as usize);
            let counts = match &pool {
                None => mine.fold(Counts::default(), |acc, i| {
                    acc + self.batch(&mut scratch, i, active(i))
                }),
                Some(pool) => {
                    let mine: Vec<u64> = mine.collect();
                    pool.install(|| {
                        mine.par_iter()
                            .with_min_len(4)
                            .map_init(Scratch::default, |s, &i| self.batch(s, i, active(i)))
                            .reduce(Counts::default, |a, b| a + b)
                    })
                }
            };
            p.counts = total + team.sum(counts);
            p.next_batch = end;
            p.round += 1;
            let now = Progress {
                seconds: seconds(from.seconds),
                ..p
            };
            on_round(&now)?;
        };
        p.seconds = seconds(from.seconds);
        Ok((
            Run {
                counts: p.counts,
                stop_reason: reason,
                seconds: p.seconds,
            },
            p,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;
    use crate::sim::monitor::StopReason;

    fn sim(spec: &str, ch: Channel, d: usize, seed: u64, engine: Engine) -> Simulator {
        Simulator::new(from_spec_str(spec).unwrap().as_ref(), ch, d, seed, engine).unwrap()
    }

    #[test]
    fn sliced_equals_reference_batch_by_batch() {
        let channels = [
            Channel::Bsc { p: 0.02 },
            Channel::Burst { len: 3, rate: 0.01 },
            Channel::GilbertElliott {
                p_gb: 0.02,
                p_bg: 0.2,
                p_g: 0.001,
                p_b: 0.1,
            },
        ];
        for spec in [
            "alien:5x5",
            "alien:4x5",
            "secded:13",
            "hamming:7",
            "repetition:4",
        ] {
            for ch in channels {
                for d in [1, 3] {
                    let a = sim(spec, ch, d, 9, Engine::Sliced);
                    let b = sim(spec, ch, d, 9, Engine::Reference);
                    let mut s = Scratch::default();
                    for i in 0..8 {
                        let active = if i == 7 { 0x00ff_00ff_0f0f_1234 } else { !0 };
                        assert_eq!(
                            a.batch(&mut s, i, active),
                            b.batch(&mut s, i, active),
                            "{spec} {ch} D={d} batch {i}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn counts_do_not_depend_on_threads() {
        let s = sim("alien:9x9", Channel::Bsc { p: 0.01 }, 1, 3, Engine::Sliced);
        let stop = StopRule {
            min_frame_errors: 300,
            max_frames: 0,
            max_seconds: 0.0,
        };
        let one = s.run(&stop, 1).unwrap();
        let two = s.run(&stop, 2).unwrap();
        assert_eq!(one.counts, two.counts);
        assert_eq!(one.stop_reason, StopReason::FrameErrors);
        assert!(one.counts.frame_errors >= 300);
        let other = sim("alien:9x9", Channel::Bsc { p: 0.01 }, 1, 4, Engine::Sliced);
        assert_ne!(other.run(&stop, 1).unwrap().counts, one.counts);
    }

    #[test]
    fn max_frames_is_exact_and_counts_are_consistent() {
        let s = sim("secded:72", Channel::Bsc { p: 0.01 }, 2, 1, Engine::Sliced);
        let stop = StopRule {
            min_frame_errors: 0,
            max_frames: 1000,
            max_seconds: 0.0,
        };
        let r = s.run(&stop, 1).unwrap();
        let c = r.counts;
        assert_eq!(c.frames, 1000);
        assert_eq!(r.stop_reason, StopReason::MaxFrames);
        assert_eq!(c.frame_errors, c.detected_frames + c.miscorrected_frames);
        assert!(c.bit_errors_sq >= u128::from(c.bit_errors));
        // The channel flips about 1% of 1000 * 144 bits.
        assert!((1000..2000).contains(&c.channel_bit_errors), "{c:?}");
        assert!(
            s.run(
                &StopRule {
                    min_frame_errors: 0,
                    max_frames: 0,
                    max_seconds: 0.0
                },
                1
            )
            .is_err()
        );
    }

    #[test]
    fn interleaving_corrects_bursts_up_to_depth() {
        // A burst of 8 bits meets each of 8 interleaved alien codewords once: all corrected.
        // Rare enough that two bursts in one frame almost never happen.
        let ch = Channel::Burst { len: 8, rate: 1e-4 };
        let stop = StopRule {
            min_frame_errors: 0,
            max_frames: 20_000,
            max_seconds: 0.0,
        };
        let deep = sim("alien:9x9", ch, 8, 1, Engine::Sliced)
            .run(&stop, 1)
            .unwrap();
        let flat = sim("alien:9x9", ch, 1, 1, Engine::Sliced)
            .run(&stop, 1)
            .unwrap();
        assert!(deep.counts.channel_bit_errors > 1000);
        // P(two bursts in one 648-bit frame) ~ 648^2 / 2 * 1e-8 ~ 0.2%: a few frames at most.
        assert!(
            deep.counts.frame_errors * 200 < deep.counts.frames,
            "{deep:?}"
        );
        // Without interleaving nearly every burst is fatal.
        assert!(
            flat.counts.frame_errors * 2 > flat.counts.channel_bit_errors / 8,
            "{flat:?}"
        );
    }
}
