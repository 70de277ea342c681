//! Soft-decision and erasure decoding: every decoder against exhaustive search over all
//! codewords on the same noise, and the AWGN must-show figures (uncoded BPSK, hard decisions
//! against the BSC formulas, ML against the union bound).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tilecode::code::soft::reference::{exhaustive_erasure, exhaustive_ml};
use tilecode::code::soft::{correlation, soft_decoder};
use tilecode::code::{BlockCode, DecoderKind, SoftDecoder, from_spec_str, weight_distribution};
use tilecode::gf2::BitVec;
use tilecode::sim::analytic::{uncoded_ber, union_bound_fer};
use tilecode::sim::stats::wilson;
use tilecode::sim::{Channel, Engine, ExactModel, Simulator, StopRule};

/// The normal quantile of a two-sided 99.99% interval.
const Z9999: f64 = 3.890_591_886_413_094;

fn stop_frames(frames: u64) -> StopRule {
    StopRule {
        min_frame_errors: 0,
        max_frames: frames,
        max_seconds: 0.0,
    }
}

/// `count` random codewords of `code` and their LLRs after `channel`.
fn noisy(
    code: &dyn BlockCode,
    channel: Channel,
    count: usize,
    seed: u64,
) -> Vec<(BitVec, Vec<f32>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = code.n();
    (0..count)
        .map(|_| {
            let msg: Vec<bool> = (0..code.k()).map(|_| rng.r#gen()).collect();
            let cw = code.encode(&BitVec::from_bools(&msg));
            let mut agree = Vec::new();
            channel
                .sampler()
                .sample_agreement(&mut rng, 1, n, &mut agree);
            let llr = (0..n)
                .map(|i| if cw.get(i) { -agree[i] } else { agree[i] })
                .collect();
            (cw, llr)
        })
        .collect()
}

fn decode(d: &dyn SoftDecoder, llr: &[f32]) -> (BitVec, bool) {
    let mut out = BitVec::default();
    let detected = d.decode(llr, &mut out);
    (out, detected)
}

const SMALL: [&str; 10] = [
    "hamming:7",
    "secded:16",
    "alien:3x3",
    "alien:3x5",
    "alien:4x3",
    "repetition:5",
    "parity:6",
    "product:3x3",
    "product:4x5",
    "product:2x6",
];

#[test]
fn ml_finds_the_exhaustive_maximum() {
    for spec in SMALL {
        let code = from_spec_str(spec).unwrap();
        let ml = soft_decoder(code.as_ref(), DecoderKind::Ml).unwrap();
        for (i, (_, llr)) in noisy(code.as_ref(), Channel::Awgn { esn0_db: 1.0 }, 300, 7)
            .iter()
            .enumerate()
        {
            let (got, detected) = decode(ml.as_ref(), llr);
            let want = exhaustive_ml(code.as_ref(), llr);
            assert!(!detected);
            let (g, w) = (correlation(llr, &got), correlation(llr, &want));
            // Equal words, or (an f32 near-tie) equal likelihoods.
            assert!(
                got == want || (g - w).abs() < 1e-4 * w.abs().max(1.0),
                "{spec} ({}) frame {i}: {g} vs exhaustive {w}",
                ml.name()
            );
        }
    }
}

#[test]
fn chase_and_iterative_are_never_more_likely_than_ml() {
    // Per frame, the codeword a suboptimal decoder returns is never more likely than the ML
    // word (a word returned as detected need not be a codeword: it is a frame error anyway);
    // Chase with every position flipped is ML itself.
    let cases: [(&str, DecoderKind); 8] = [
        ("hamming:7", DecoderKind::Chase { p: 1 }),
        ("secded:16", DecoderKind::Chase { p: 2 }),
        ("alien:3x5", DecoderKind::Chase { p: 2 }),
        ("product:4x5", DecoderKind::Chase { p: 2 }),
        ("alien:3x3", DecoderKind::Iterative { iterations: 10 }),
        ("alien:3x5", DecoderKind::Iterative { iterations: 10 }),
        ("product:3x3", DecoderKind::Iterative { iterations: 10 }),
        ("product:4x5", DecoderKind::Iterative { iterations: 10 }),
    ];
    for (spec, kind) in cases {
        let code = from_spec_str(spec).unwrap();
        let d = soft_decoder(code.as_ref(), kind).unwrap();
        let mut worse = 0;
        for (_, llr) in noisy(code.as_ref(), Channel::Awgn { esn0_db: 0.0 }, 400, 3) {
            let best = correlation(&llr, &exhaustive_ml(code.as_ref(), &llr));
            let (got, detected) = decode(d.as_ref(), &llr);
            if detected {
                worse += 1;
                continue;
            }
            let m = correlation(&llr, &got);
            assert!(
                m <= best + 1e-4 * best.abs().max(1.0),
                "{spec} {kind}: {m} > ML {best}"
            );
            worse += usize::from(m < best - 1e-6);
        }
        // The test can tell them apart: at 0 dB they miss the ML word now and then.
        assert!(worse > 0, "{spec} {kind} matched ML on every frame");
    }
    let code = from_spec_str("hamming:7").unwrap();
    let full = soft_decoder(code.as_ref(), DecoderKind::Chase { p: 7 }).unwrap();
    for (_, llr) in noisy(code.as_ref(), Channel::Awgn { esn0_db: 0.0 }, 200, 9) {
        assert_eq!(
            decode(full.as_ref(), &llr).0,
            exhaustive_ml(code.as_ref(), &llr)
        );
    }
}

#[test]
fn erasure_decoding_equals_exhaustive_search() {
    for spec in SMALL {
        let code = from_spec_str(spec).unwrap();
        let d = soft_decoder(code.as_ref(), DecoderKind::Erasure).unwrap();
        let (mut unique, mut ambiguous) = (0, 0);
        for (cw, llr) in noisy(code.as_ref(), Channel::Bec { e: 0.5 }, 400, 5) {
            let all = exhaustive_erasure(code.as_ref(), &llr);
            let (got, detected) = decode(d.as_ref(), &llr);
            assert!(
                all.contains(&got),
                "{spec}: a word that disagrees with the bits received"
            );
            assert_eq!(detected, all.len() > 1, "{spec}: {} candidates", all.len());
            if all.len() == 1 {
                assert_eq!(got, cw);
                unique += 1;
            } else {
                ambiguous += 1;
            }
        }
        assert!(
            unique > 0 && ambiguous > 0,
            "{spec}: {unique} unique, {ambiguous} ambiguous"
        );
    }
}

/// The exhaustive ML decoder, to plug into the simulator.
#[derive(Debug)]
struct Exhaustive(Box<dyn BlockCode>);

impl SoftDecoder for Exhaustive {
    fn name(&self) -> &'static str {
        "exhaustive"
    }
    fn decode(&self, llr: &[f32], out: &mut BitVec) -> bool {
        *out = exhaustive_ml(self.0.as_ref(), llr);
        false
    }
}

#[test]
fn ml_fer_equals_exhaustive_search_and_stays_under_the_union_bound() {
    for spec in ["hamming:7", "secded:16"] {
        let code = from_spec_str(spec).unwrap();
        let wd = weight_distribution(code.as_ref()).unwrap();
        let rate_db = 10.0 * code.rate().log10();
        for ebn0 in [4.0, 5.0, 6.0] {
            let ch = Channel::Awgn {
                esn0_db: ebn0 + rate_db,
            };
            let sim = |seed| Simulator::new(code.as_ref(), ch, 1, seed, Engine::Sliced).unwrap();
            let ml = sim(2).with_decoder(DecoderKind::Ml).unwrap();
            let r = ml.point(0.0, &stop_frames(200_000), 2).unwrap();
            let bound = union_bound_fer(&wd, ebn0 + rate_db);
            // Below the bound, within the 99.99% interval (the bound is tight at high SNR).
            let (lo, _) = wilson(r.counts.frame_errors as f64, r.counts.frames as f64, Z9999);
            assert!(
                r.counts.frame_errors > 20 && lo < bound,
                "{spec} at {ebn0} dB: ML FER {} (low end {lo}) vs union bound {bound}",
                r.fer()
            );
            // The same noise through exhaustive search: the same frames fail.
            let reference = sim(2)
                .with_soft_decoder(Box::new(Exhaustive(from_spec_str(spec).unwrap())))
                .unwrap();
            let e = reference.point(0.0, &stop_frames(3_000), 2).unwrap();
            let m = ml.point(0.0, &stop_frames(3_000), 2).unwrap();
            assert_eq!(m.counts, e.counts, "{spec} at {ebn0} dB");
            assert_eq!(
                (e.decoder.as_str(), m.decoder.as_str()),
                ("exhaustive", "ml")
            );
            // Hard decisions on that noise do worse.
            let hard = sim(2).point(0.0, &stop_frames(200_000), 2).unwrap();
            assert!(
                hard.counts.frame_errors > r.counts.frame_errors,
                "{spec} at {ebn0} dB"
            );
        }
    }
}

#[test]
fn uncoded_bpsk_ber_is_q_of_sqrt_2_ebn0() {
    let code = from_spec_str("repetition:1").unwrap();
    for ebn0 in [0.0, 2.0, 4.0, 6.0, 8.0] {
        let ch = Channel::Awgn { esn0_db: ebn0 };
        let sim = Simulator::new(code.as_ref(), ch, 1, 1, Engine::Sliced).unwrap();
        let r = sim.point(0.0, &stop_frames(2_000_000), 2).unwrap();
        let (lo, hi) = wilson(r.counts.bit_errors as f64, r.counts.frames as f64, Z9999);
        let q = uncoded_ber(ebn0);
        assert!(
            lo <= q && q <= hi,
            "{ebn0} dB: BER {} in [{lo}, {hi}] vs Q = {q}",
            r.ber()
        );
    }
}

#[test]
fn alien_hard_decisions_on_awgn_agree_with_the_bsc_formulas() {
    let code = from_spec_str("alien:9x9").unwrap();
    let rate_db = 10.0 * code.rate().log10();
    let model = ExactModel::new(code.as_ref(), 1).unwrap();
    for ebn0 in [3.0, 5.0, 7.0] {
        let ch = Channel::Awgn {
            esn0_db: ebn0 + rate_db,
        };
        let sim = Simulator::new(code.as_ref(), ch, 1, 3, Engine::Sliced).unwrap();
        let r = sim
            .point(ch.mean_error_rate(), &stop_frames(400_000), 2)
            .unwrap();
        let e = model.rates(r.p);
        for (got, want, what) in [
            (r.counts.frame_errors, e.fer, "FER"),
            (r.counts.detected_frames, e.detected_rate, "detected"),
            (
                r.counts.miscorrected_frames,
                e.miscorrection_rate,
                "miscorrected",
            ),
        ] {
            let (lo, hi) = wilson(got as f64, r.counts.frames as f64, Z9999);
            assert!(
                lo <= want && want <= hi,
                "{ebn0} dB {what}: [{lo}, {hi}] vs exact {want}"
            );
        }
    }
}

#[test]
fn ml_is_refused_past_its_limit() {
    let code = from_spec_str("alien:15x15").unwrap();
    let err = soft_decoder(code.as_ref(), DecoderKind::Ml)
        .unwrap_err()
        .to_string();
    assert!(err.contains("2^24") && err.contains("225 * 2^28"), "{err}");
    assert!(soft_decoder(code.as_ref(), DecoderKind::Chase { p: 17 }).is_err());
}
