//! The channels: binary ones that flip bits (the binary symmetric channel, a solid-burst channel
//! and the Gilbert–Elliott two-state channel), the binary erasure channel, and BPSK over additive
//! white Gaussian noise.
//!
//! BPSK sends bit `b` as `s = 1 - 2b` with energy `Es = 1`; the channel adds noise of variance
//! `sigma^2 = 1 / (2 Es/N0)`. The noise of each bit is drawn as `sigma * s * z` with `z` standard
//! normal: since `z` is symmetric and independent of `s`, that is exactly AWGN, and it makes the
//! received value `y = s (1 + sigma z)`, so the hard decision is wrong exactly when
//! `z < -1/sigma`, an event of probability `p = Q(1/sigma)` whatever was sent. So `z` is drawn
//! in two steps: first which bits come out wrong, a Bernoulli(`p`) process placed by geometric
//! skips like the binary symmetric channel's; then, from the draws after those, `z` itself from
//! its conditional law, `z < -1/sigma` for the wrong bits (the normal tail) and `z >= -1/sigma`
//! for the others (rejection from the standard normal, Ziggurat from `rand_distr`). The law of
//! `z` is exactly the standard normal; the hard-decision path stops after the first step (it
//! runs at the speed of the binary symmetric channel), and the soft path (log-likelihood ratios
//! `2 y / sigma^2`) sees the same wrong bits from the same draws.
//!
//! Every channel is sampled one *frame* at a time, started in its stationary state, so the
//! frames of a simulation are independent and identically distributed: that is what makes the
//! binomial confidence intervals of [`crate::sim::stats`] valid for channels with memory too.

use super::bernoulli::{BernoulliWords, WORTH_FROM};
use super::normal::{db_to_linear, normal_above, normal_tail, q_function};
use crate::error::{Error, Result};
pub use crate::noise::Geometric;
use rand::Rng;
use std::fmt;
use std::str::FromStr;

/// A binary channel with fixed parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Channel {
    /// The binary symmetric channel: every bit flips independently with probability `p`.
    Bsc {
        /// Crossover probability.
        p: f64,
    },
    /// Solid bursts: every bit position starts a burst with probability `rate`, and a burst
    /// flips `len` consecutive bits. Bits covered by several bursts flip once.
    Burst {
        /// Burst length in bits (>= 1).
        len: usize,
        /// Probability that a burst starts at a given bit.
        rate: f64,
    },
    /// The Gilbert–Elliott channel: a two-state (good, bad) Markov chain advanced once per bit;
    /// a bit flips with probability `p_g` in the good state and `p_b` in the bad state.
    GilbertElliott {
        /// Probability of moving from good to bad after a bit.
        p_gb: f64,
        /// Probability of moving from bad to good after a bit.
        p_bg: f64,
        /// Bit error probability in the good state.
        p_g: f64,
        /// Bit error probability in the bad state.
        p_b: f64,
    },
    /// BPSK over additive white Gaussian noise at `Es/N0` (dB) per channel bit.
    Awgn {
        /// Energy per channel symbol over the noise density, in dB (`R * Eb/N0` in dB terms:
        /// `Eb/N0 + 10 log10 R`).
        esn0_db: f64,
    },
    /// The binary erasure channel: every bit is erased independently with probability `e`.
    Bec {
        /// Erasure probability.
        e: f64,
    },
}

impl Channel {
    /// The long-run probability that a bit is flipped.
    pub fn mean_error_rate(&self) -> f64 {
        match *self {
            Channel::Bsc { p } => p,
            Channel::Burst { len, rate } => -((len as f64) * (-rate).ln_1p()).exp_m1(),
            Channel::GilbertElliott {
                p_gb,
                p_bg,
                p_g,
                p_b,
            } => {
                let bad = stationary_bad(p_gb, p_bg);
                bad * p_b + (1.0 - bad) * p_g
            }
            Channel::Awgn { esn0_db } => q_function((2.0 * db_to_linear(esn0_db)).sqrt()),
            Channel::Bec { e } => e,
        }
    }

    /// True for the channels whose output is not a flipped bit (AWGN, BEC): they need a decoder
    /// that reads reliabilities or erasures, except AWGN with hard decisions.
    pub fn is_soft(&self) -> bool {
        matches!(self, Channel::Awgn { .. } | Channel::Bec { .. })
    }

    /// True for the binary symmetric channel (the only one with exact figures).
    pub fn is_bsc(&self) -> bool {
        matches!(self, Channel::Bsc { .. })
    }

    /// The channel's samplers, set up once.
    pub fn sampler(&self) -> Sampler {
        match *self {
            Channel::Bsc { p } => Sampler::Bsc(Geometric::new(p)),
            Channel::Burst { len, rate } => Sampler::Burst(len, Geometric::new(rate)),
            Channel::GilbertElliott {
                p_gb,
                p_bg,
                p_g,
                p_b,
            } => Sampler::GilbertElliott {
                leave: [Geometric::new(p_gb), Geometric::new(p_bg)],
                err: [Geometric::new(p_g), Geometric::new(p_b)],
                bad: stationary_bad(p_gb, p_bg),
            },
            Channel::Awgn { esn0_db } => {
                let sigma = (0.5 / db_to_linear(esn0_db)).sqrt();
                let p = q_function(1.0 / sigma);
                Sampler::Awgn {
                    sigma,
                    wrong: Geometric::new(p),
                    words: (p >= WORTH_FROM).then(|| BernoulliWords::new(p)),
                }
            }
            Channel::Bec { e } => Sampler::Bec(Geometric::new(e)),
        }
    }

    /// Samples the errors of `lanes` independent frames of `len` bits each (see
    /// [`Sampler::sample_frames`]).
    pub fn sample_frames<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        lanes: usize,
        len: usize,
        flip: impl FnMut(usize, usize),
    ) {
        self.sampler().sample_frames(rng, lanes, len, flip);
    }
}

/// A [`Channel`] with its geometric samplers precomputed.
// Built once per simulator: the AWGN variant's 512-byte table costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
pub enum Sampler {
    /// Binary symmetric channel.
    Bsc(Geometric),
    /// Solid bursts of a length, with their start sampler.
    Burst(usize, Geometric),
    /// Gilbert–Elliott: state-leaving and error samplers of the (good, bad) states, and the
    /// stationary probability of the bad state.
    GilbertElliott {
        /// Leaving the good, the bad state.
        leave: [Geometric; 2],
        /// Bit errors in the good, the bad state.
        err: [Geometric; 2],
        /// Stationary probability of the bad state.
        bad: f64,
    },
    /// AWGN with BPSK: flips are the hard decisions that come out wrong.
    Awgn {
        /// Noise standard deviation (signal amplitude 1).
        sigma: f64,
        /// The wrong hard decisions: Bernoulli(`Q(1 / sigma)`), by geometric skips.
        wrong: Geometric,
        /// The same, a word of 64 lanes per position, when that is cheaper (`p` from
        /// [`WORTH_FROM`]).
        words: Option<BernoulliWords>,
    },
    /// Binary erasure channel: the "flips" are the erased positions.
    Bec(Geometric),
}

impl Sampler {
    /// Samples the errors of `lanes` independent frames of `len` bits each and calls
    /// `flip(lane, position)` once per flipped bit, positions increasing within a lane for the
    /// channels with memory.
    pub fn sample_frames<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        lanes: usize,
        len: usize,
        mut flip: impl FnMut(usize, usize),
    ) {
        match *self {
            Sampler::Bsc(g) => {
                // One Bernoulli process over all lanes * len trials, lane-major. The lane is
                // the trial index over `len`: a division per flip is cheaper than stepping
                // lane by lane to it (a loop of data-dependent length, its exit mispredicted:
                // 8 % of `alien:9x9`'s simulation on an AMD Zen 5).
                g.for_each_success(rng, (lanes * len) as u64, |t| {
                    let t = t as usize;
                    let lane = t / len;
                    flip(lane, t - lane * len);
                });
            }
            Sampler::Burst(blen, g) => {
                // Bursts that start up to blen - 1 bits before the frame still reach into it.
                let span = (len + blen - 1) as u64;
                for lane in 0..lanes {
                    let mut covered = 0usize;
                    g.for_each_success(rng, span, |s| {
                        let start = s as usize; // frame position start - (blen - 1)
                        let from = (start + 1).saturating_sub(blen).max(covered);
                        let to = (start + 1).min(len);
                        for pos in from..to {
                            flip(lane, pos);
                        }
                        covered = covered.max(to);
                    });
                }
            }
            Sampler::GilbertElliott { leave, err, bad } => {
                for lane in 0..lanes {
                    let mut state = usize::from(rng.r#gen::<f64>() < bad);
                    let mut pos = 0usize;
                    while pos < len {
                        // Bits spent in this state: 1 + failures before leaving.
                        let stay = leave[state].sample(rng).saturating_add(1);
                        let end = (pos as u64).saturating_add(stay).min(len as u64) as usize;
                        err[state].for_each_success(rng, (end - pos) as u64, |t| {
                            flip(lane, pos + t as usize);
                        });
                        pos = end;
                        state ^= 1;
                    }
                }
            }
            Sampler::Awgn {
                words: Some(words), ..
            } => {
                let lanes_mask = if lanes >= 64 { !0 } else { (1u64 << lanes) - 1 };
                assert!(lanes <= 64, "at most 64 lanes");
                for t in 0..len {
                    let mut w = words.word(rng) & lanes_mask;
                    while w != 0 {
                        flip(w.trailing_zeros() as usize, t);
                        w &= w - 1;
                    }
                }
            }
            Sampler::Awgn { wrong: g, .. } | Sampler::Bec(g) => {
                Sampler::Bsc(g).sample_frames(rng, lanes, len, flip);
            }
        }
    }

    /// The flips of 64 frames of `len` bits as one word per position (bit `lane` set where that
    /// frame's bit flips): `word(t, w)` for every position `t` in order, with the same draws
    /// and the same flips as [`Sampler::sample_frames`] with 64 lanes. Only for the samplers
    /// that draw words (see [`Sampler::draws_words`]).
    ///
    /// # Panics
    /// For any other sampler.
    pub fn sample_words<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        len: usize,
        mut word: impl FnMut(usize, u64),
    ) {
        let Sampler::Awgn {
            words: Some(words), ..
        } = self
        else {
            panic!("sample_words on a sampler that does not draw words");
        };
        for t in 0..len {
            word(t, words.word(rng));
        }
    }

    /// True when [`Sampler::sample_words`] is available.
    pub fn draws_words(&self) -> bool {
        matches!(self, Sampler::Awgn { words: Some(_), .. })
    }

    /// For each of `lanes * len` bits (lane-major, as [`Sampler::sample_frames`] draws them),
    /// the log-likelihood ratio of the bit *as sent*: `out[t] * (1 - 2 b)` is the LLR of the
    /// received bit `b` (positive: 0 more likely). AWGN gives `2 (1 + sigma z) / sigma^2`, the
    /// erasure channel `0` for an erased bit and `1` otherwise; the bit-flipping channels `-1`
    /// for a flipped bit and `1` otherwise. Same draws, same noise as `sample_frames`.
    pub fn sample_agreement<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        lanes: usize,
        len: usize,
        out: &mut Vec<f32>,
    ) {
        out.clear();
        out.resize(lanes * len, 1.0);
        match *self {
            Sampler::Awgn { sigma, .. } => {
                self.sample_frames(rng, lanes, len, |l, p| out[l * len + p] = -1.0);
                let scale = 2.0 / (sigma * sigma);
                let cut = -1.0 / sigma;
                for a in out.iter_mut() {
                    let z = if *a < 0.0 {
                        -normal_tail(rng, -cut)
                    } else {
                        normal_above(rng, cut)
                    };
                    *a = (scale * (1.0 + sigma * z)) as f32;
                }
            }
            Sampler::Bec(_) => self.sample_frames(rng, lanes, len, |l, p| out[l * len + p] = 0.0),
            _ => self.sample_frames(rng, lanes, len, |l, p| out[l * len + p] = -1.0),
        }
    }
}

/// Stationary probability of the bad state.
fn stationary_bad(p_gb: f64, p_bg: f64) -> f64 {
    if p_gb + p_bg == 0.0 {
        0.0
    } else {
        p_gb / (p_gb + p_bg)
    }
}

/// Formats a probability so that it reads back exactly: plain decimals down to `0.0001`,
/// scientific notation when that is shorter below.
fn fmt_prob(x: f64) -> String {
    let plain = format!("{x}");
    let sci = format!("{x:e}");
    if plain.len() > 6 && sci.len() < plain.len() {
        sci
    } else {
        plain
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Channel::Bsc { p } => write!(f, "bsc:{}", fmt_prob(p)),
            Channel::Burst { len, rate } => write!(f, "burst:{len}:{}", fmt_prob(rate)),
            Channel::GilbertElliott {
                p_gb,
                p_bg,
                p_g,
                p_b,
            } => write!(
                f,
                "ge:{}:{}:{}:{}",
                fmt_prob(p_gb),
                fmt_prob(p_bg),
                fmt_prob(p_g),
                fmt_prob(p_b)
            ),
            Channel::Awgn { esn0_db } => write!(f, "awgn:esn0={esn0_db}"),
            Channel::Bec { e } => write!(f, "bec:{}", fmt_prob(e)),
        }
    }
}

/// A probability in a channel spec: a number, or `p`, which stands for each value of the swept
/// parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Param {
    /// A fixed probability.
    Value(f64),
    /// The swept parameter.
    P,
}

impl Param {
    fn resolve(self, p: Option<f64>) -> f64 {
        match self {
            Param::Value(v) => v,
            Param::P => p.expect("placeholder resolved with a value"),
        }
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Value(v) => f.write_str(&fmt_prob(*v)),
            Param::P => f.write_str("p"),
        }
    }
}

/// A channel as written on the command line, possibly with `p` placeholders:
/// `bsc` (= `bsc:p`), `bsc:P`, `burst:LEN` (= `burst:LEN:p`), `burst:LEN:RATE`,
/// `ge:P_GB:P_BG:P_G:P_B` (also `gilbert-elliott:...`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ChannelSpec {
    /// `bsc:P`.
    Bsc(Param),
    /// `burst:LEN:RATE`.
    Burst(usize, Param),
    /// `ge:P_GB:P_BG:P_G:P_B`.
    GilbertElliott([Param; 4]),
    /// `awgn`: BPSK over AWGN, its noise levels given apart (`--ebn0`).
    Awgn,
    /// `bec:E`: the binary erasure channel.
    Bec(Param),
}

impl ChannelSpec {
    fn params(&self) -> Vec<Param> {
        match self {
            ChannelSpec::Bsc(p) => vec![*p],
            ChannelSpec::Burst(_, r) => vec![*r],
            ChannelSpec::GilbertElliott(ps) => ps.to_vec(),
            ChannelSpec::Awgn => Vec::new(),
            ChannelSpec::Bec(e) => vec![*e],
        }
    }

    /// True for `awgn`, whose noise levels come from a list of Eb/N0 (or Es/N0) values.
    pub fn is_awgn(&self) -> bool {
        matches!(self, ChannelSpec::Awgn)
    }

    /// True when the spec contains `p`, so that it needs values of the swept parameter.
    pub fn has_placeholder(&self) -> bool {
        self.params().contains(&Param::P)
    }

    /// The channel with every `p` replaced by `p`.
    ///
    /// # Errors
    /// [`Error::Spec`] when the spec has a placeholder and `p` is `None`, or a probability is
    /// outside `[0, 1]`; for `awgn`, whose channel is [`Channel::Awgn`] at a given Es/N0.
    pub fn resolve(&self, p: Option<f64>) -> Result<Channel> {
        let text = self.to_string();
        if self.is_awgn() {
            return Err(Error::spec(
                text,
                "the awgn channel takes its noise levels from --ebn0, not from --p",
            ));
        }
        if self.has_placeholder() && p.is_none() {
            return Err(Error::spec(
                text,
                "the channel contains `p`: give its values with --p",
            ));
        }
        let ch = match *self {
            ChannelSpec::Bsc(q) => Channel::Bsc { p: q.resolve(p) },
            ChannelSpec::Burst(len, r) => Channel::Burst {
                len,
                rate: r.resolve(p),
            },
            ChannelSpec::GilbertElliott([a, b, c, d]) => Channel::GilbertElliott {
                p_gb: a.resolve(p),
                p_bg: b.resolve(p),
                p_g: c.resolve(p),
                p_b: d.resolve(p),
            },
            ChannelSpec::Bec(e) => Channel::Bec { e: e.resolve(p) },
            ChannelSpec::Awgn => unreachable!("refused above"),
        };
        let probs: Vec<f64> = match ch {
            Channel::Bsc { p } => vec![p],
            Channel::Burst { rate, .. } => vec![rate],
            Channel::GilbertElliott {
                p_gb,
                p_bg,
                p_g,
                p_b,
            } => vec![p_gb, p_bg, p_g, p_b],
            Channel::Bec { e } => vec![e],
            Channel::Awgn { .. } => Vec::new(),
        };
        if let Some(bad) = probs.iter().find(|x| !(0.0..=1.0).contains(*x)) {
            return Err(Error::spec(
                text,
                format!("expected probabilities in [0, 1], found {bad}"),
            ));
        }
        Ok(ch)
    }
}

impl fmt::Display for ChannelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChannelSpec::Bsc(p) => write!(f, "bsc:{p}"),
            ChannelSpec::Burst(len, r) => write!(f, "burst:{len}:{r}"),
            ChannelSpec::GilbertElliott([a, b, c, d]) => write!(f, "ge:{a}:{b}:{c}:{d}"),
            ChannelSpec::Awgn => f.write_str("awgn"),
            ChannelSpec::Bec(e) => write!(f, "bec:{e}"),
        }
    }
}

fn parse_param(s: &str, full: &str) -> Result<Param> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("p") {
        return Ok(Param::P);
    }
    match t.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(Param::Value(v)),
        _ => Err(Error::spec(
            full,
            format!("expected a probability in [0, 1] or `p`, found `{t}`"),
        )),
    }
}

impl FromStr for ChannelSpec {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let parts: Vec<&str> = s.trim().split(':').collect();
        let family = parts[0].to_ascii_lowercase();
        let args = &parts[1..];
        let usage = |what: &str| {
            Err(Error::spec(
                s,
                format!("expected {what}, found {} parameter(s)", args.len()),
            ))
        };
        match family.as_str() {
            "bsc" => match args {
                [] => Ok(ChannelSpec::Bsc(Param::P)),
                [p] => Ok(ChannelSpec::Bsc(parse_param(p, s)?)),
                _ => usage("bsc or bsc:P"),
            },
            "burst" => {
                let (len, rate) = match args {
                    [len] => (*len, Param::P),
                    [len, rate] => (*len, parse_param(rate, s)?),
                    _ => return usage("burst:LEN or burst:LEN:RATE"),
                };
                match len.trim().parse::<usize>() {
                    Ok(l) if l >= 1 => Ok(ChannelSpec::Burst(l, rate)),
                    _ => Err(Error::spec(
                        s,
                        format!("expected a burst length >= 1, found `{len}`"),
                    )),
                }
            }
            "ge" | "gilbert-elliott" => match args {
                [a, b, c, d] => Ok(ChannelSpec::GilbertElliott([
                    parse_param(a, s)?,
                    parse_param(b, s)?,
                    parse_param(c, s)?,
                    parse_param(d, s)?,
                ])),
                _ => usage("ge:P_GB:P_BG:P_G:P_B"),
            },
            "awgn" => match args {
                [] => Ok(ChannelSpec::Awgn),
                _ => usage("awgn (its Eb/N0 values go in --ebn0)"),
            },
            "bec" => match args {
                [] => Ok(ChannelSpec::Bec(Param::P)),
                [e] => Ok(ChannelSpec::Bec(parse_param(e, s)?)),
                _ => usage("bec or bec:E"),
            },
            other => Err(Error::spec(
                s,
                format!("unknown channel `{other}` (expected bsc, burst, ge, awgn or bec)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn count_errors(ch: &Channel, lanes: usize, len: usize, seed: u64) -> Vec<Vec<usize>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut out = vec![Vec::new(); lanes];
        ch.sample_frames(&mut rng, lanes, len, |l, p| out[l].push(p));
        out
    }

    #[test]
    fn bsc_rate_and_bounds() {
        let ch = Channel::Bsc { p: 0.02 };
        let frames = count_errors(&ch, 64, 1000, 7);
        let total: usize = frames.iter().map(|f| f.len()).sum();
        // 64000 trials, mean 1280, sd ~35.4.
        assert!((total as f64 - 1280.0).abs() < 5.0 * 35.4, "{total}");
        for f in &frames {
            assert!(f.iter().all(|&p| p < 1000));
            assert!(f.windows(2).all(|w| w[0] < w[1]));
        }
        assert!(
            count_errors(&Channel::Bsc { p: 0.0 }, 64, 100, 1)
                .iter()
                .all(|f| f.is_empty())
        );
        let all = count_errors(&Channel::Bsc { p: 1.0 }, 3, 10, 1);
        assert!(all.iter().all(|f| f.len() == 10));
    }

    #[test]
    fn bursts_are_solid_and_unique() {
        let ch = Channel::Burst { len: 5, rate: 0.01 };
        let frames = count_errors(&ch, 64, 400, 3);
        let mut total = 0usize;
        for f in &frames {
            assert!(f.windows(2).all(|w| w[0] < w[1]), "no bit flips twice");
            assert!(f.iter().all(|&p| p < 400));
            total += f.len();
        }
        let mean = ch.mean_error_rate() * 64.0 * 400.0;
        // Burst errors are correlated (clusters of ~5): allow a wide margin.
        assert!(
            (total as f64 - mean).abs() < 0.25 * mean,
            "{total} vs {mean}"
        );
        // Rate 1: every bit covered.
        let full = count_errors(&Channel::Burst { len: 3, rate: 1.0 }, 2, 17, 1);
        assert!(full.iter().all(|f| *f == (0..17).collect::<Vec<_>>()));
        // A burst in the middle of a clean frame is one run of `len` bits.
        let single = count_errors(
            &Channel::Burst {
                len: 4,
                rate: 0.002,
            },
            64,
            50,
            9,
        );
        for f in single.iter().filter(|f| !f.is_empty()) {
            let runs = f.windows(2).filter(|w| w[1] != w[0] + 1).count() + 1;
            let interior = f[0] > 0 && *f.last().unwrap() < 49;
            if runs == 1 && interior {
                assert_eq!(f.len(), 4);
            }
        }
    }

    #[test]
    fn gilbert_elliott_rate() {
        let ch = Channel::GilbertElliott {
            p_gb: 0.01,
            p_bg: 0.1,
            p_g: 0.001,
            p_b: 0.2,
        };
        let expect = (0.01 / 0.11) * 0.2 + (0.1 / 0.11) * 0.001;
        assert!((ch.mean_error_rate() - expect).abs() < 1e-15);
        let mut total = 0usize;
        for seed in 0..20 {
            total += count_errors(&ch, 64, 2000, seed)
                .iter()
                .map(|f| f.len())
                .sum::<usize>();
        }
        let mean = expect * 20.0 * 64.0 * 2000.0;
        assert!(
            (total as f64 - mean).abs() < 0.1 * mean,
            "{total} vs {mean}"
        );
        // Only the good state, p_g = 0: no errors at all.
        let quiet = Channel::GilbertElliott {
            p_gb: 0.0,
            p_bg: 0.5,
            p_g: 0.0,
            p_b: 1.0,
        };
        assert!(
            count_errors(&quiet, 64, 100, 1)
                .iter()
                .all(|f| f.is_empty())
        );
    }

    #[test]
    fn awgn_flips_are_the_wrong_hard_decisions() {
        let ch = Channel::Awgn { esn0_db: 2.0 };
        let p = ch.mean_error_rate();
        // Q(sqrt(2 * 10^0.2)) = Q(1.7804...) = 0.0375...
        assert!((p - 0.037_506).abs() < 1e-5, "{p}");
        let frames = count_errors(&ch, 64, 2000, 5);
        let total: usize = frames.iter().map(|f| f.len()).sum();
        let mean = p * 128_000.0;
        assert!(
            (total as f64 - mean).abs() < 5.0 * mean.sqrt(),
            "{total} vs {mean}"
        );
        // The soft values of the same draws: negative exactly where a bit flipped.
        let s = ch.sampler();
        let mut out = Vec::new();
        s.sample_agreement(&mut ChaCha8Rng::seed_from_u64(5), 64, 2000, &mut out);
        for (lane, f) in frames.iter().enumerate() {
            let neg: Vec<usize> = (0..2000).filter(|&t| out[lane * 2000 + t] < 0.0).collect();
            assert_eq!(&neg, f);
        }
        // The noise is standard normal: mean, variance and the tail beyond 2 sigma, at a
        // wide and at a narrow tail cut.
        for esn0_db in [-3.0, 2.0, 9.0] {
            let ch = Channel::Awgn { esn0_db };
            let Sampler::Awgn { sigma, .. } = ch.sampler() else {
                unreachable!()
            };
            let mut out = Vec::new();
            ch.sampler()
                .sample_agreement(&mut ChaCha8Rng::seed_from_u64(8), 64, 4000, &mut out);
            let zs: Vec<f64> = out
                .iter()
                .map(|&a| (f64::from(a) * sigma * sigma / 2.0 - 1.0) / sigma)
                .collect();
            let n = zs.len() as f64;
            let mean = zs.iter().sum::<f64>() / n;
            let var = zs.iter().map(|z| z * z).sum::<f64>() / n - mean * mean;
            let tail = zs.iter().filter(|&&z| z < -2.0).count() as f64 / n;
            let q2 = q_function(2.0);
            assert!(mean.abs() < 5.0 / n.sqrt(), "{esn0_db} dB: mean {mean}");
            assert!(
                (var - 1.0).abs() < 5.0 * (2.0 / n).sqrt(),
                "{esn0_db} dB: var {var}"
            );
            assert!(
                (tail - q2).abs() < 5.0 * (q2 / n).sqrt(),
                "{esn0_db} dB: tail {tail} vs {q2}"
            );
        }
        let bec = Channel::Bec { e: 0.25 };
        let mut out = Vec::new();
        bec.sampler()
            .sample_agreement(&mut ChaCha8Rng::seed_from_u64(1), 8, 100, &mut out);
        assert_eq!(
            out.iter().filter(|&&a| a == 0.0).count(),
            count_errors(&bec, 8, 100, 1)
                .iter()
                .map(Vec::len)
                .sum::<usize>()
        );
        assert!(out.iter().all(|&a| a == 0.0 || a == 1.0));
    }

    #[test]
    fn specs_parse_resolve_and_print() {
        let a: ChannelSpec = "awgn".parse().unwrap();
        assert!(a.is_awgn() && !a.has_placeholder());
        assert!(a.resolve(None).is_err());
        let e: ChannelSpec = "bec".parse().unwrap();
        assert_eq!(e.resolve(Some(0.125)).unwrap(), Channel::Bec { e: 0.125 });
        assert_eq!(
            "bec:0.5".parse::<ChannelSpec>().unwrap().to_string(),
            "bec:0.5"
        );
        let s: ChannelSpec = "bsc".parse().unwrap();
        assert!(s.has_placeholder());
        assert_eq!(s.resolve(Some(1e-3)).unwrap().to_string(), "bsc:0.001");
        assert!(s.resolve(None).is_err());
        let b: ChannelSpec = "burst:8:1e-4".parse().unwrap();
        assert!(!b.has_placeholder());
        assert_eq!(
            b.resolve(None).unwrap(),
            Channel::Burst { len: 8, rate: 1e-4 }
        );
        assert_eq!(b.to_string(), "burst:8:0.0001");
        let tiny: ChannelSpec = "bsc:0.000001".parse().unwrap();
        assert_eq!(tiny.to_string(), "bsc:1e-6");
        let g: ChannelSpec = "ge:0.01:0.1:p:0.5".parse().unwrap();
        assert_eq!(g.to_string(), "ge:0.01:0.1:p:0.5");
        assert_eq!(
            g.resolve(Some(0.25)).unwrap().to_string(),
            "ge:0.01:0.1:0.25:0.5"
        );
        for bad in [
            "bsc:2",
            "bsc:1:2",
            "burst",
            "burst:0:0.1",
            "burst:x",
            "ge:1:2",
            "ge:0.1:0.1:0.1:-1",
            "awgn:3",
            "bec:2",
            "bec:0.1:0.2",
        ] {
            assert!(bad.parse::<ChannelSpec>().is_err(), "{bad}");
        }
        assert!(
            "bsc"
                .parse::<ChannelSpec>()
                .unwrap()
                .resolve(Some(1.5))
                .is_err()
        );
    }
}
