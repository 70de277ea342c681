//! The simulator against the exact rates, the interval's coverage, and the sliced kernels
//! against the per-codeword codes.

use quickcheck::{QuickCheck, TestResult};
use tilecode::code::{BlockCode, Status, from_spec_str};
use tilecode::gf2::BitVec;
use tilecode::sim::{
    Channel, Engine, ExactModel, ExactRates, Scratch, Simulator, SlicedCode, StopRule,
};

fn stop_frames(frames: u64) -> StopRule {
    StopRule {
        min_frame_errors: 0,
        max_frames: frames,
        max_seconds: 0.0,
    }
}

/// |simulated - exact| within `z` standard deviations of the exact rate (plus a hair).
fn close(sim: u64, frames: u64, exact: f64, z: f64) -> bool {
    let rate = sim as f64 / frames as f64;
    let sd = (exact * (1.0 - exact) / frames as f64).sqrt();
    (rate - exact).abs() <= z * sd + 1e-12
}

#[test]
fn simulation_agrees_with_exact_rates() {
    // 4 standard deviations: a false alarm has probability ~6e-5 per check.
    let cases = [
        "alien:9x9",
        "secded:81",
        "alien:3x3",
        "alien:5x7",
        "alien:4x5",
        "alien:5x4",
        "hamming:15",
        "secded:13",
        "repetition:5",
        "parity:8",
    ];
    for spec in cases {
        let code = from_spec_str(spec).unwrap();
        for depth in [1, 2] {
            let model = ExactModel::new(code.as_ref(), depth).unwrap();
            for p in [0.01, 0.05] {
                let sim =
                    Simulator::new(code.as_ref(), Channel::Bsc { p }, depth, 11, Engine::Sliced)
                        .unwrap();
                let r = sim.point(p, &stop_frames(40_000), 1).unwrap();
                let e = model.rates(p);
                let f = r.counts.frames;
                assert!(
                    close(r.counts.frame_errors, f, e.fer, 4.0),
                    "{spec} D={depth} p={p}: FER {} vs exact {}",
                    r.fer(),
                    e.fer
                );
                assert!(
                    close(r.counts.detected_frames, f, e.detected_rate, 4.0),
                    "{spec} D={depth} p={p}: detected {} vs exact {}",
                    r.detected_rate(),
                    e.detected_rate
                );
                assert!(
                    close(r.counts.miscorrected_frames, f, e.miscorrection_rate, 4.0),
                    "{spec} D={depth} p={p}: miscorrected {} vs exact {}",
                    r.miscorrection_rate(),
                    e.miscorrection_rate
                );
            }
        }
    }
}

#[test]
fn wilson_interval_covers_the_exact_fer_about_95_percent_of_the_time() {
    let code = from_spec_str("alien:9x9").unwrap();
    let p = 0.01;
    let exact: ExactRates = ExactModel::new(code.as_ref(), 1).unwrap().rates(p);
    let runs = 80u64;
    let mut covered = 0;
    for seed in 0..runs {
        let sim = Simulator::new(
            code.as_ref(),
            Channel::Bsc { p },
            1,
            1000 + seed,
            Engine::Sliced,
        )
        .unwrap();
        let r = sim.point(p, &stop_frames(1500), 1).unwrap();
        let (lo, hi) = r.fer_ci();
        if lo <= exact.fer && exact.fer <= hi {
            covered += 1;
        }
    }
    // Binomial(80, 0.95): mean 76, sd 1.95. Below 68 or at 80 every time would be suspect
    // (an interval too narrow, or one so wide it means nothing).
    assert!((68..80).contains(&covered), "covered {covered} of {runs}");
}

#[test]
fn reference_engine_gives_the_same_counts() {
    for (spec, ch, depth) in [
        ("alien:9x9", Channel::Bsc { p: 0.01 }, 1),
        (
            "secded:72",
            Channel::Burst {
                len: 4,
                rate: 0.002,
            },
            4,
        ),
        (
            "alien:5x5",
            Channel::GilbertElliott {
                p_gb: 0.01,
                p_bg: 0.2,
                p_g: 0.001,
                p_b: 0.1,
            },
            2,
        ),
    ] {
        let code = from_spec_str(spec).unwrap();
        let run = |engine| {
            Simulator::new(code.as_ref(), ch, depth, 5, engine)
                .unwrap()
                .run(&stop_frames(3000), 1)
                .unwrap()
                .counts
        };
        assert_eq!(run(Engine::Sliced), run(Engine::Reference), "{spec} {ch}");
    }
}

/// Lane `l` of a slice, whose words are in the kernel's row order, as a codeword.
fn lane_word(kernel: &SlicedCode, words: &[u64], l: usize) -> BitVec {
    let mut v = BitVec::zeros(words.len());
    for (&w, &p) in words.iter().zip(kernel.pos_of_row()) {
        v.set(p as usize, (w >> l) & 1 == 1);
    }
    v
}

/// Quickcheck: for random messages and random error patterns, the sliced kernel decodes every
/// lane exactly as the code's own decoder does.
fn kernel_matches(spec: &str, seed: Vec<u64>, errors: Vec<(u16, u8)>) -> TestResult {
    let code: Box<dyn BlockCode> = from_spec_str(spec).unwrap();
    let kernel = SlicedCode::new(code.as_ref());
    let n = code.n();
    let mut words = vec![0u64; n];
    for (i, w) in words[..code.k()].iter_mut().enumerate() {
        *w = seed
            .get(i % seed.len().max(1))
            .copied()
            .unwrap_or(0)
            .rotate_left(i as u32);
    }
    kernel.encode(&mut words);
    for l in 0..64 {
        let w = lane_word(&kernel, &words, l);
        if code.encode(&code.extract(&w)) != w {
            return TestResult::failed();
        }
    }
    for &(pos, lane) in &errors {
        words[pos as usize % n] ^= 1 << (lane % 64);
    }
    let received = words.clone();
    let det = kernel.decode(&mut words);
    for l in 0..64 {
        let d = code.decode(&lane_word(&kernel, &received, l));
        if (d.status == Status::Detected) != ((det >> l) & 1 == 1)
            || d.codeword != lane_word(&kernel, &words, l)
        {
            return TestResult::failed();
        }
    }
    TestResult::passed()
}

const QC_SPECS: [&str; 7] = [
    "alien:9x9",
    "alien:7x5",
    "alien:6x5",
    "alien:5x6",
    "secded:72",
    "hamming:31",
    "parity:6",
];

fn prop_kernel(which: u8, seed: Vec<u64>, errors: Vec<(u16, u8)>) -> TestResult {
    kernel_matches(QC_SPECS[which as usize % QC_SPECS.len()], seed, errors)
}

#[test]
fn quickcheck_sliced_kernels() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop_kernel as fn(u8, Vec<u64>, Vec<(u16, u8)>) -> TestResult);
}

#[test]
fn batches_are_reproducible() {
    let code = from_spec_str("alien:15x17").unwrap();
    let sim = Simulator::new(
        code.as_ref(),
        Channel::Bsc { p: 0.004 },
        1,
        3,
        Engine::Sliced,
    )
    .unwrap();
    let mut s = Scratch::default();
    let a: Vec<_> = (0..5).map(|i| sim.batch(&mut s, i, !0)).collect();
    let b: Vec<_> = (0..5).rev().map(|i| sim.batch(&mut s, i, !0)).collect();
    assert_eq!(a, b.into_iter().rev().collect::<Vec<_>>());
    assert_ne!(a[0], a[1]);
}
