//! `tilecode simulate`: Monte Carlo (and exact) error rates of codes on noisy channels.

use super::checkpoint::{self, Saved, Writer};
use super::plot;
use super::team::Processes;
use anyhow::{Context, bail};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use tilecode::code::{BlockCode, DecoderKind, Spec, build};
use tilecode::sim::analytic::{uncoded_ber, union_bound_ber, union_bound_fer};
use tilecode::sim::{
    Analytic, Channel, ChannelSpec, Engine, ErasureModel, ExactModel, PointResult, Run, Simulator,
    StopReason, StopRule, merge, parse_db_list, parse_p_list, parse_results, results_json,
};

/// Arguments of `tilecode simulate`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Channels (a `p` in a channel stands for each value of --p):
  bsc                     binary symmetric channel, crossover p (same as bsc:p)
  burst:LEN[:RATE]        solid bursts of LEN bits starting at each bit with probability RATE (default p)
  ge:P_GB:P_BG:P_G:P_B    Gilbert-Elliott: good->bad, bad->good per bit, error rate in good, in bad
  bec[:E]                 binary erasure channel, erasure probability E (default p); --decoder erasure
  awgn                    BPSK over white Gaussian noise at each Eb/N0 of --ebn0 (dB; Es/N0 = R Eb/N0)
A channel without `p` runs one point, reported at its mean bit error rate.

Decoders (--decoder): hard (hard decisions, then the code's decoder), ml (exact soft maximum
likelihood; codes with n 2^min(k, n-k) <= 2^24), chase (Chase-II, --chase-p), iterative (min-sum
on the row/column checks of odd-by-odd alien boards and product codes, --iterations), erasure (bec).

Examples:
  tilecode simulate alien:9x9 secded:81 --p 1e-2,1e-3 --exact --json
  tilecode simulate alien:9x9 --p 1e-4:1e-1:x10 --plot fer.svg
  tilecode simulate alien:9x9 --channel burst:8 --p 1e-4,1e-3 --interleave 8
  tilecode simulate hamming:7 --channel awgn --ebn0 0:8:1 --decoder ml --exact --plot fer.png
  tilecode simulate alien:9x9 --channel awgn --ebn0 2:7:1 --decoder hard,chase,iterative --exact
  tilecode simulate secded:16 --channel bec --p 0.05,0.1 --exact
  tilecode simulate --merge run1.json run2.json --json
  tilecode simulate alien:9x9 --channel awgn --ebn0 0:6:0.5 --checkpoint run.ckpt --json
  tilecode simulate alien:9x9 --channel awgn --ebn0 0:6:0.5 --resume run.ckpt --checkpoint run.ckpt --json
  mpirun -np 4 tilecode simulate alien:9x9 --channel awgn --ebn0 0:6:0.5 --threads 1 --json
    (a build with the cargo feature `mpi`; the ranks share the batches, rank 0 prints)")]
pub struct Args {
    /// Codes to simulate: alien:MxN, secded:N, hamming:N, repetition:N, parity:N, product:MxN.
    #[arg(value_name = "SPEC", required_unless_present = "merge")]
    specs: Vec<String>,
    /// Values of p: a comma list, START:STOP:xFACTOR or START:STOP:+STEP (e.g. 1e-5:1e-1:x10).
    #[arg(long = "p", value_name = "LIST", allow_hyphen_values = true)]
    p: Option<String>,
    /// The channel (see below).
    #[arg(long, default_value = "bsc")]
    channel: String,
    /// Eb/N0 values in dB for --channel awgn: a comma list or START:STOP:STEP (e.g. 0:8:0.5).
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    ebn0: Option<String>,
    /// Whether --ebn0 gives Eb/N0 (per information bit) or Es/N0 (per channel bit).
    #[arg(long, value_enum, default_value_t = SnrType::Eb)]
    snr_type: SnrType,
    /// The decoders, a comma list (see below; default: erasure on bec, hard otherwise).
    #[arg(long, value_enum, value_delimiter = ',')]
    decoder: Vec<DecoderArg>,
    /// Chase-II: the number of least reliable positions whose flips are tried.
    #[arg(long, value_name = "P", default_value_t = 4)]
    chase_p: usize,
    /// Iterative decoding: the most row-and-column passes.
    #[arg(long, value_name = "N", default_value_t = 20)]
    iterations: usize,
    /// Interleave D codewords per frame, so that a burst of up to D bits meets each codeword once.
    #[arg(long, value_name = "D", default_value_t = 1)]
    interleave: usize,
    /// Stop a point after this many frame errors (0: no such rule).
    #[arg(long, value_name = "N", default_value_t = 100)]
    min_frame_errors: u64,
    /// Stop a point after this many frames (0: no limit).
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    max_frames: u64,
    /// Stop a point after this many seconds (0: no limit).
    #[arg(long, value_name = "S", default_value_t = 0.0)]
    max_seconds: f64,
    /// Seed of the random streams; the counts depend on it alone, not on --threads.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// The decoding path: `sliced` (bit-sliced kernels) or `reference` (one codeword at a time
    /// through the codes' own encoder and decoder; same counts, much slower).
    #[arg(long, value_enum, default_value_t = EngineArg::Sliced)]
    engine: EngineArg,
    /// Also compute exact and analytic rates: the exact BSC rates (bsc; awgn with --decoder hard,
    /// at the equivalent crossover p), uncoded BPSK and the union bound (awgn), ML erasure rates
    /// (bec).
    #[arg(long)]
    exact: bool,
    /// Save the finished points and the progress of the current one to FILE as the run goes.
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Seconds between two checkpoints (one is always written when a point ends).
    #[arg(long, value_name = "S", default_value_t = 30.0)]
    checkpoint_every: f64,
    /// Go on with a run stopped after writing FILE with --checkpoint: the same command and
    /// seed end with the counts the run would have had.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// Add up the counts of runs saved with --json (made with different seeds).
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["specs", "p", "exact"])]
    merge: Vec<PathBuf>,
    /// Draw FER and BER against p (or Eb/N0 on awgn) into a PNG (`.png`) or SVG (`.svg`) file.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// JSON output.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// CSV output.
    #[arg(long)]
    csv: bool,
}

/// `--engine` values.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum EngineArg {
    /// Bit-sliced kernels.
    Sliced,
    /// One codeword at a time through the codes' own encoder and decoder.
    Reference,
}

/// `--snr-type` values.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum SnrType {
    /// Energy per information bit.
    Eb,
    /// Energy per channel symbol.
    Es,
}

/// `--decoder` values.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum DecoderArg {
    /// Hard decisions, then the code's decoder.
    Hard,
    /// Exact maximum-likelihood soft decoding.
    Ml,
    /// Chase-II around the hard decoder.
    Chase,
    /// Min-sum on an alien board's row and column checks.
    Iterative,
    /// Maximum-likelihood erasure decoding.
    Erasure,
}

/// Runs `tilecode simulate`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let processes = Processes::start();
    let results = if args.merge.is_empty() {
        simulate(&args, &processes)?
    } else {
        let mut runs = Vec::new();
        for path in &args.merge {
            let name = path.display().to_string();
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {name}"))?;
            let doc: serde_json::Value =
                serde_json::from_str(&text).with_context(|| format!("{name} is not JSON"))?;
            runs.push((name.clone(), parse_results(&doc, &name)?));
        }
        merge(&runs)?
    };
    if !processes.is_root() {
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &args.plot {
        plot::fer_ber(path, &results).with_context(|| format!("drawing {}", path.display()))?;
    }
    let out = if args.json {
        serde_json::to_string_pretty(&results_json(&results))? + "\n"
    } else if args.csv {
        csv(&results)
    } else {
        table(&results)
    };
    super::common::print_output(&out)
}

fn simulate(args: &Args, processes: &Processes) -> anyhow::Result<Vec<PointResult>> {
    let specs: Vec<Spec> = args
        .specs
        .iter()
        .map(|s| s.parse::<Spec>())
        .collect::<Result<_, _>>()?;
    let channel: ChannelSpec = args.channel.parse()?;
    // Each point: the channel's parameter p, or (Eb/N0, Es/N0 offset by the rate) on AWGN.
    let ps: Vec<Option<f64>> = match (&args.p, channel.has_placeholder()) {
        (Some(list), true) => parse_p_list(list)?.into_iter().map(Some).collect(),
        (None, true) => bail!("--p is required: the channel `{channel}` contains p"),
        (Some(_), false) => {
            bail!("--p has nothing to set: the channel `{channel}` has no `p` placeholder")
        }
        (None, false) => vec![None],
    };
    let snrs = match (&args.ebn0, channel.is_awgn()) {
        (Some(list), true) => parse_db_list(list)?,
        (None, true) => bail!("--ebn0 is required with --channel awgn"),
        (Some(_), false) => bail!("--ebn0 needs --channel awgn, found `{channel}`"),
        (None, false) => Vec::new(),
    };
    let decoders: Vec<DecoderKind> = match (args.decoder.as_slice(), channel) {
        ([], ChannelSpec::Bec(_)) => vec![DecoderKind::Erasure],
        ([], _) => vec![DecoderKind::Hard],
        (list, _) => list
            .iter()
            .map(|d| match d {
                DecoderArg::Erasure => DecoderKind::Erasure,
                DecoderArg::Hard => DecoderKind::Hard,
                DecoderArg::Ml => DecoderKind::Ml,
                DecoderArg::Chase => DecoderKind::Chase { p: args.chase_p },
                DecoderArg::Iterative => DecoderKind::Iterative {
                    iterations: args.iterations,
                },
            })
            .collect(),
    };
    if args.interleave == 0 {
        bail!("--interleave must be at least 1, found 0");
    }
    if !(args.max_seconds >= 0.0 && args.max_seconds.is_finite()) {
        bail!(
            "--max-seconds must be a number >= 0, found {}",
            args.max_seconds
        );
    }
    let threads = match args.threads {
        Some(0) => bail!("--threads must be at least 1, found 0"),
        Some(t) => t,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let engine = match args.engine {
        EngineArg::Reference => Engine::Reference,
        EngineArg::Sliced => Engine::Sliced,
    };
    let stop = StopRule {
        min_frame_errors: args.min_frame_errors,
        max_frames: args.max_frames,
        max_seconds: args.max_seconds,
    };
    let saved = match &args.resume {
        Some(path) => Saved::load(path)?,
        None => Saved::default(),
    };
    let mut writer = match &args.checkpoint {
        Some(path) if processes.is_root() => Some(Writer::new(path.clone(), args.checkpoint_every)),
        _ => None,
    };
    let mut results = Vec::new();
    for spec in &specs {
        let code = build(spec);
        let model = if args.exact && decoders.contains(&DecoderKind::Hard) {
            if !channel.is_awgn() && !channel.resolve(Some(0.0))?.is_bsc() {
                bail!(
                    "--exact needs the binary symmetric channel (or awgn, bec), found `{channel}`"
                );
            }
            let rho = tilecode::code::covering_radius(code.as_ref())?;
            Some((
                ExactModel::new(code.as_ref(), args.interleave)?,
                (code.d(), rho),
            ))
        } else {
            None
        };
        let soft = Analytics::new(code.as_ref(), args.exact, channel)?;
        // On AWGN each Eb/N0 is a point; elsewhere each p.
        let points: Vec<(Channel, Option<f64>)> = if channel.is_awgn() {
            let rate_db = 10.0 * code.rate().log10();
            snrs.iter()
                .map(|&db| match args.snr_type {
                    SnrType::Eb => (
                        Channel::Awgn {
                            esn0_db: db + rate_db,
                        },
                        Some(db),
                    ),
                    SnrType::Es => (Channel::Awgn { esn0_db: db }, Some(db - rate_db)),
                })
                .collect()
        } else {
            ps.iter()
                .map(|&p| Ok((channel.resolve(p)?, None)))
                .collect::<anyhow::Result<_>>()?
        };
        for (&decoder, &(ch, ebn0_db)) in decoders
            .iter()
            .flat_map(|d| points.iter().map(move |pt| (d, pt)))
        {
            let sim = Simulator::new(code.as_ref(), ch, args.interleave, args.seed, engine)?
                .with_decoder(decoder)?;
            let p = ch.mean_error_rate();
            let report = |counts, stop_reason, seconds| {
                let mut r = sim.report(
                    p,
                    &Run {
                        counts,
                        stop_reason,
                        seconds,
                    },
                    threads,
                );
                r.ebn0_db = ebn0_db;
                r
            };
            let key = checkpoint::key(&report(Default::default(), StopReason::MaxFrames, 0.0));
            let mut point = match saved.done(&key) {
                Some(done) => done,
                None => {
                    let from = saved.progress(&key).unwrap_or_default();
                    let (run, _) =
                        sim.run_with(&stop, threads, from, processes.team(), &mut |pr| {
                            let Some(w) = writer.as_mut() else {
                                return Ok(());
                            };
                            let mut now = report(pr.counts, StopReason::MaxFrames, pr.seconds);
                            now.stop_reason = "checkpoint".into();
                            w.save(&results, Some((&now, pr)), false)
                                .map_err(|e| std::io::Error::other(format!("{e:#}")).into())
                        })?;
                    report(run.counts, run.stop_reason, run.seconds)
                }
            };
            if let (Some((m, distances)), DecoderKind::Hard) = (&model, decoder) {
                point.exact = Some(m.rates(point.p));
                point.distances = Some(*distances);
            }
            point.analytic = soft.at(&point);
            results.push(point);
            if let Some(w) = writer.as_mut() {
                w.save(&results, None, true)?;
            }
        }
    }
    Ok(results)
}

/// The rate of a frame of `d` independent codewords, each failing with probability `x` (capped
/// at 1 first).
fn frame_of(x: f64, d: usize) -> f64 {
    -(d as f64 * (-x.min(1.0)).ln_1p()).exp_m1()
}

/// The analytic curves of one code, set up once (see `tilecode::sim::analytic`).
enum Analytics {
    None,
    /// Uncoded BPSK and the union bound (from the weight distribution).
    Awgn(Vec<num_bigint::BigUint>),
    /// ML erasure rates.
    Bec(ErasureModel),
}

impl Analytics {
    fn new(code: &dyn BlockCode, exact: bool, channel: ChannelSpec) -> anyhow::Result<Self> {
        Ok(match channel {
            _ if !exact => Analytics::None,
            ChannelSpec::Awgn => Analytics::Awgn(tilecode::code::weight_distribution(code)?),
            ChannelSpec::Bec(_) => Analytics::Bec(ErasureModel::new(code)?),
            _ => Analytics::None,
        })
    }

    fn at(&self, point: &PointResult) -> Option<Analytic> {
        match self {
            Analytics::None => None,
            Analytics::Awgn(wd) => {
                let ebn0 = point.ebn0_db?;
                let esn0 = ebn0 + 10.0 * (point.k as f64 / point.n as f64).log10();
                Some(Analytic {
                    uncoded_ber: Some(uncoded_ber(ebn0)),
                    union_bound_fer: Some(frame_of(union_bound_fer(wd, esn0), point.interleave)),
                    union_bound_ber: Some(union_bound_ber(wd, point.k, esn0).min(1.0)),
                    erasure_fer: None,
                })
            }
            Analytics::Bec(m) => {
                let (lo, hi) = m.fer(point.p);
                let d = point.interleave;
                Some(Analytic {
                    erasure_fer: Some((frame_of(lo, d), frame_of(hi, d))),
                    ..Analytic::default()
                })
            }
        }
    }
}

fn sci(x: f64) -> String {
    format!("{x:.3e}")
}

fn table(results: &[PointResult]) -> String {
    let has_exact = results.iter().any(|r| r.exact.is_some());
    let mut s = String::new();
    let _ = write!(
        s,
        "{:<14} {:>10} {:>11} {:>8} {:>10} {:>23}",
        "code", "p or Eb/N0", "frames", "errors", "FER", "95% interval"
    );
    if has_exact {
        let _ = write!(s, " {:>10}", "exact FER");
    }
    let _ = writeln!(
        s,
        " {:>10} {:>23} {:>10} {:>10} {:>12} {:>10}",
        "BER", "95% interval", "detected", "miscorr.", "stop", "Mbit/s"
    );
    for r in results {
        let (fl, fh) = r.fer_ci();
        let (bl, bh) = r.ber_ci();
        let _ = write!(
            s,
            "{:<14} {:>10} {:>11} {:>8} {:>10} {:>23}",
            r.code,
            r.ebn0_db.map_or_else(|| sci(r.p), |db| format!("{db} dB")),
            r.counts.frames,
            r.counts.frame_errors,
            sci(r.fer()),
            format!("[{}, {}]", sci(fl), sci(fh))
        );
        if has_exact {
            let e = r.exact.map_or("-".to_string(), |e| sci(e.fer));
            let _ = write!(s, " {e:>10}");
        }
        let _ = writeln!(
            s,
            " {:>10} {:>23} {:>10} {:>10} {:>12} {:>10.1}",
            sci(r.ber()),
            format!("[{}, {}]", sci(bl), sci(bh)),
            sci(r.detected_rate()),
            sci(r.miscorrection_rate()),
            r.stop_reason,
            r.info_bits_per_second() / 1e6
        );
    }
    if let Some(r) = results.first() {
        let _ = writeln!(
            s,
            "channel {}, decoder {}, interleave {}, seed(s) {:?}, {} thread(s), {} engine",
            r.channel.split(':').next().unwrap_or(""),
            r.decoder,
            r.interleave,
            r.seeds,
            r.threads,
            r.engine
        );
    }
    s
}

fn csv(results: &[PointResult]) -> String {
    let mut s = String::from(
        "code,n,k,channel,p,interleave,seeds,frames,frame_errors,fer,fer_low,fer_high,\
         bit_errors,ber,ber_low,ber_high,detected_frames,detected_rate,miscorrected_frames,\
         miscorrection_rate,channel_bit_errors,stop_reason,seconds,info_bits_per_second,\
         exact_fer,exact_detected_rate,exact_miscorrection_rate,decoder,ebn0_db\n",
    );
    for r in results {
        let (fl, fh) = r.fer_ci();
        let (bl, bh) = r.ber_ci();
        let seeds: Vec<String> = r.seeds.iter().map(u64::to_string).collect();
        let (ef, ed, em) = r
            .exact
            .map_or((String::new(), String::new(), String::new()), |e| {
                (
                    e.fer.to_string(),
                    e.detected_rate.to_string(),
                    e.miscorrection_rate.to_string(),
                )
            });
        let c = &r.counts;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.code,
            r.n,
            r.k,
            r.channel,
            r.p,
            r.interleave,
            seeds.join(";"),
            c.frames,
            c.frame_errors,
            r.fer(),
            fl,
            fh,
            c.bit_errors,
            r.ber(),
            bl,
            bh,
            c.detected_frames,
            r.detected_rate(),
            c.miscorrected_frames,
            r.miscorrection_rate(),
            c.channel_bit_errors,
            r.stop_reason,
            r.seconds,
            r.info_bits_per_second(),
            ef,
            ed,
            em,
            r.decoder,
            r.ebn0_db.map_or(String::new(), |db| db.to_string())
        );
    }
    s
}
