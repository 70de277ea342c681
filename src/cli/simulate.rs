//! `tilecode simulate`: Monte Carlo (and exact) error rates of codes on noisy channels.

use super::plot;
use anyhow::{Context, bail};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use tilecode::code::{Spec, build};
use tilecode::sim::{
    ChannelSpec, Engine, ExactModel, PointResult, Simulator, StopRule, merge, parse_p_list,
    parse_results, results_json,
};

/// Arguments of `tilecode simulate`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Channels (a `p` in a channel stands for each value of --p):
  bsc                     binary symmetric channel, crossover p (same as bsc:p)
  burst:LEN[:RATE]        solid bursts of LEN bits starting at each bit with probability RATE (default p)
  ge:P_GB:P_BG:P_G:P_B    Gilbert-Elliott: good->bad, bad->good per bit, error rate in good, in bad
A channel without `p` runs one point, reported at its mean bit error rate.

Examples:
  tilecode simulate alien:9x9 secded:81 --p 1e-2,1e-3 --exact --json
  tilecode simulate alien:9x9 --p 1e-4:1e-1:x10 --plot fer.svg
  tilecode simulate alien:9x9 --channel burst:8 --p 1e-4,1e-3 --interleave 8
  tilecode simulate --merge run1.json run2.json --json")]
pub struct Args {
    /// Codes to simulate: alien:MxN, secded:N, hamming:N, repetition:N, parity:N.
    #[arg(value_name = "SPEC", required_unless_present = "merge")]
    specs: Vec<String>,
    /// Values of p: a comma list, START:STOP:xFACTOR or START:STOP:+STEP (e.g. 1e-5:1e-1:x10).
    #[arg(long = "p", value_name = "LIST", allow_hyphen_values = true)]
    p: Option<String>,
    /// The channel (see below).
    #[arg(long, default_value = "bsc")]
    channel: String,
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
    /// Also compute the exact rates from the weight distribution (binary symmetric channel only).
    #[arg(long)]
    exact: bool,
    /// Add up the counts of runs saved with --json (made with different seeds).
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["specs", "p", "exact"])]
    merge: Vec<PathBuf>,
    /// Draw FER and BER against p (log-log) into an SVG file.
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

/// Runs `tilecode simulate`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let results = if args.merge.is_empty() {
        simulate(&args)?
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
    if let Some(path) = &args.plot {
        plot::fer_ber_svg(path, &results).with_context(|| format!("drawing {}", path.display()))?;
    }
    let out = if args.json {
        serde_json::to_string_pretty(&results_json(&results))? + "\n"
    } else if args.csv {
        csv(&results)
    } else {
        table(&results)
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn simulate(args: &Args) -> anyhow::Result<Vec<PointResult>> {
    let specs: Vec<Spec> = args
        .specs
        .iter()
        .map(|s| s.parse::<Spec>())
        .collect::<Result<_, _>>()?;
    let channel: ChannelSpec = args.channel.parse()?;
    let ps: Vec<Option<f64>> = match (&args.p, channel.has_placeholder()) {
        (Some(list), true) => parse_p_list(list)?.into_iter().map(Some).collect(),
        (None, true) => bail!("--p is required: the channel `{channel}` contains p"),
        (Some(_), false) => {
            bail!("--p has nothing to set: the channel `{channel}` has no `p` placeholder")
        }
        (None, false) => vec![None],
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
    let mut results = Vec::new();
    for spec in &specs {
        let code = build(spec);
        let model = if args.exact {
            let probe = channel.resolve(Some(0.0))?;
            if !probe.is_bsc() {
                bail!(
                    "--exact needs the binary symmetric channel (--channel bsc), found `{channel}`"
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
        for &p in &ps {
            let ch = channel.resolve(p)?;
            let sim = Simulator::new(code.as_ref(), ch, args.interleave, args.seed, engine)?;
            let mut point = sim.point(p.unwrap_or_else(|| ch.mean_error_rate()), &stop, threads)?;
            if let Some((m, distances)) = &model {
                point.exact = Some(m.rates(point.p));
                point.distances = Some(*distances);
            }
            results.push(point);
        }
    }
    Ok(results)
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
        "code", "p", "frames", "errors", "FER", "95% interval"
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
            sci(r.p),
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
            "channel {}, interleave {}, seed(s) {:?}, {} thread(s), {} engine",
            r.channel.split(':').next().unwrap_or(""),
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
         exact_fer,exact_detected_rate,exact_miscorrection_rate\n",
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
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
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
            em
        );
    }
    s
}
