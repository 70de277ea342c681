//! The soft-decision path of the engine: frames over AWGN (or the erasure channel) decoded one
//! codeword at a time by a [`SoftDecoder`].
//!
//! A batch draws exactly what the hard-decision path draws: the message words, codeword by
//! codeword, then the channel for 64 lanes (lane-major). The channel's draws become one
//! log-likelihood ratio per bit *as sent* ([`Sampler::sample_agreement`]), turned into the LLR
//! of the bit received by the sign of the bit sent. So for one seed every decoder, hard or
//! soft, sees the same noise, and a frame's hard decisions are the bits the hard path flips.

use super::channel::Sampler;
use super::kernel::SlicedCode;
use super::monitor::{Counts, finish};
use super::scratch::Scratch;
use crate::code::SoftDecoder;
use rand::RngCore;

/// What a soft batch needs to know.
pub(crate) struct SoftBatch<'a> {
    /// Encodes the messages (the same draws as the hard path).
    pub kernel: &'a SlicedCode,
    /// The channel.
    pub sampler: &'a Sampler,
    /// The decoder.
    pub decoder: &'a dyn SoftDecoder,
    /// Codewords per frame.
    pub interleave: usize,
}

impl SoftBatch<'_> {
    /// Runs one batch of 64 frames from `rng` and counts the lanes in `active`.
    pub fn run<R: RngCore>(&self, s: &mut Scratch, rng: &mut R, active: u64) -> Counts {
        let (n, k, d) = (self.kernel.n(), self.kernel.k(), self.interleave);
        let pos = self.kernel.message_positions();
        // The kernel's words are in its row order: the message first (the same draws as the
        // hard path), position `j` in word `row[j]`.
        let row = self.kernel.row_of_pos();
        let len = n * d;
        s.tx.resize(len, 0);
        for cw in s.tx.chunks_exact_mut(n) {
            for w in &mut cw[..k] {
                *w = rng.next_u64();
            }
            self.kernel.encode_in(cw, &mut s.kernel);
        }
        self.sampler.sample_agreement(rng, 64, len, &mut s.agree);
        s.llr.resize(n, 0.0);
        // The message positions as a mask over the words of a codeword, and the codeword sent
        // in a lane, as words: the wrong message bits are a masked XOR.
        let words = n.div_ceil(64);
        let mut msg_mask = vec![0u64; words];
        for &p in pos {
            msg_mask[p / 64] |= 1 << (p % 64);
        }
        let mut sent = vec![0u64; words];
        let (mut detected, mut wrong, mut bit_errors, mut channel_errors) = (0u64, 0u64, 0, 0);
        let mut per_lane = [0u64; 64];
        for lane in (0..64).filter(|l| (active >> l) & 1 == 1) {
            let agree = &s.agree[lane * len..(lane + 1) * len];
            channel_errors += agree.iter().filter(|&&a| a <= 0.0).count() as u64;
            for c in 0..d {
                let tx = &s.tx[c * n..(c + 1) * n];
                sent.fill(0);
                for (j, l) in s.llr.iter_mut().enumerate() {
                    let a = agree[j * d + c];
                    let bit = (tx[row[j] as usize] >> lane) & 1;
                    sent[j / 64] |= bit << (j % 64);
                    *l = if bit == 1 { -a } else { a };
                }
                if self.decoder.decode(&s.llr, &mut s.word) {
                    detected |= 1 << lane;
                }
                let w: u64 = s
                    .word
                    .words()
                    .iter()
                    .zip(&sent)
                    .zip(&msg_mask)
                    .map(|((&a, &b), &m)| u64::from(((a ^ b) & m).count_ones()))
                    .sum();
                if w > 0 {
                    wrong |= 1 << lane;
                    bit_errors += w;
                    per_lane[lane] += w;
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
}

#[cfg(test)]
mod tests {
    use crate::code::soft::HardDecoder;
    use crate::code::{DecoderKind, from_spec_str};
    use crate::sim::{Channel, Engine, Scratch, Simulator};

    #[test]
    fn soft_path_with_hard_decisions_equals_the_sliced_path() {
        // Same seed, same noise: hard decisions decoded one codeword at a time on the soft
        // path give the bit-sliced kernels' counts, batch by batch.
        for spec in ["alien:9x9", "alien:5x7", "secded:16", "hamming:15"] {
            let code = from_spec_str(spec).unwrap();
            for d in [1, 2] {
                let ch = Channel::Awgn { esn0_db: 3.0 };
                let sliced = Simulator::new(code.as_ref(), ch, d, 4, Engine::Sliced).unwrap();
                let soft = Simulator::new(code.as_ref(), ch, d, 4, Engine::Sliced)
                    .unwrap()
                    .with_soft_decoder(Box::new(HardDecoder::new(code.as_ref())))
                    .unwrap();
                let mut s = Scratch::default();
                for i in 0..6 {
                    let active = if i == 5 { 0x0f0f_00ff_1234_5678 } else { !0 };
                    let a = sliced.batch(&mut s, i, active);
                    assert!(a.channel_bit_errors > 0);
                    assert_eq!(a, soft.batch(&mut s, i, active), "{spec} D={d} batch {i}");
                }
            }
        }
    }

    #[test]
    fn decoders_and_channels_must_fit() {
        let code = from_spec_str("hamming:7").unwrap();
        let sim = |ch| Simulator::new(code.as_ref(), ch, 1, 1, Engine::Sliced).unwrap();
        let bsc = Channel::Bsc { p: 0.1 };
        let bec = Channel::Bec { e: 0.1 };
        let awgn = Channel::Awgn { esn0_db: 1.0 };
        assert!(sim(bsc).with_decoder(DecoderKind::Ml).is_err());
        assert!(sim(bec).with_decoder(DecoderKind::Hard).is_err());
        assert!(sim(awgn).with_decoder(DecoderKind::Erasure).is_err());
        assert!(sim(bec).with_decoder(DecoderKind::Erasure).is_ok());
        assert!(sim(awgn).with_decoder(DecoderKind::Ml).is_ok());
        let err = sim(awgn)
            .with_decoder(DecoderKind::Iterative { iterations: 5 })
            .unwrap_err()
            .to_string();
        assert!(err.contains("odd-by-odd alien"), "{err}");
    }
}
