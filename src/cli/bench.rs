//! `tilecode bench`: codec throughput against memcpy, and the command line's own overhead
//! against `cat`, each pair measured in the same run.

use anyhow::{Context, bail};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};
use tilecode::code::Spec;
use tilecode::stream::Options;
use tilecode::stream::bench::{bench_throughput_reps, random_payload};

/// Arguments of `tilecode bench`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Every rate is in payload bytes per second, the median of --repetitions runs. Each run times
memcpy (or cat) right before the codec on the same buffers (or file), and every ratio is the
median of those per-run ratios: on a shared machine the ratios are what to compare. The
codec runs on --threads threads (every core by default); memcpy always runs on one thread,
so with several threads the ratios are to one core's memcpy.

Examples:
  tilecode bench
  tilecode bench --threads 1 --no-cli
  tilecode bench alien:9x9 secded:72 alien:31x33 --size 64 --json
  tilecode bench alien:5x5 secded:39 --interleave 64,512,4096 --threads 1 --no-cli \\
      --markdown --plot bench.svg")]
pub struct Args {
    /// Codes to measure.
    #[arg(value_name = "SPEC", default_values_t = ["alien:9x9".to_string(), "secded:72".to_string()])]
    specs: Vec<String>,
    /// Payload size in MiB.
    #[arg(long, value_name = "MiB", default_value_t = 256)]
    size: usize,
    /// Interleaving depths (multiples of 64), comma-separated: every code at every depth.
    #[arg(long, value_name = "D,...", value_delimiter = ',', default_values_t = [Options::default().interleave])]
    interleave: Vec<usize>,
    /// Recovery chunks, percent of the data (0: none, as in format version 1's speed).
    #[arg(long, value_name = "PERCENT", default_value_t = tilecode::stream::DEFAULT_RECOVERY)]
    recovery: f64,
    /// Bit error rate of the noisy decode.
    #[arg(long, default_value_t = 1e-4)]
    ber: f64,
    /// Runs per measurement; the median is reported.
    #[arg(long, value_name = "N", default_value_t = 5)]
    repetitions: usize,
    /// Seed of the payload and of the flipped bits.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads that encode and decode (0: every core); memcpy and cat run on one thread.
    #[arg(short = 'T', long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// Skip timing `tilecode encode` against `cat` on a temporary file.
    #[arg(long)]
    no_cli: bool,
    /// JSON output.
    #[arg(long)]
    json: bool,
    /// The results as a Markdown table, a row per code and a column per depth, each value
    /// below its floor in bold (docs/benchmarks.md).
    #[arg(long, conflicts_with = "json")]
    markdown: bool,
    /// Also draw the ratios against depth and code length into this file (.png or .svg).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Measure nothing: show the results of an earlier `bench --json` saved in this file
    /// (as a table, `--markdown` or `--plot`).
    #[arg(long, value_name = "FILE", conflicts_with = "json")]
    from: Option<PathBuf>,
}

/// Wall-clock time of running `cmd` once with stdout to /dev/null.
fn time_command(mut cmd: Command) -> anyhow::Result<Duration> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let t = Instant::now();
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    let elapsed = t.elapsed();
    if !out.status.success() {
        bail!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(elapsed)
}

fn median<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).expect("comparable"));
    v[v.len() / 2]
}

/// A temporary file removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn with(bytes: &[u8]) -> anyhow::Result<TempFile> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path =
            std::env::temp_dir().join(format!("tilecode-bench-{}-{nanos}.bin", std::process::id()));
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        Ok(TempFile(path))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `cat FILE > /dev/null` against `tilecode encode FILE -o /dev/null`, same file, same run.
fn cli_overhead(
    exe: &Path,
    file: &Path,
    bytes: usize,
    opts: &Options,
    reps: usize,
) -> anyhow::Result<Value> {
    // cat and the encoder alternate, so that both see the same load; the ratio is the
    // median of the per-pair ratios.
    let (mut cats, mut encs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        let mut c = Command::new("cat");
        c.arg(file);
        let cat = time_command(c)?;
        let mut c = Command::new(exe);
        c.arg("encode")
            .arg(file)
            .args(["-o", "/dev/null", "--quiet", "--code"])
            .arg(opts.code.to_string())
            .arg("--interleave")
            .arg(opts.interleave.to_string())
            .arg("--recovery")
            .arg(opts.recovery.to_string())
            .arg("--threads")
            .arg(opts.threads.to_string());
        let enc = time_command(c)?;
        ratios.push(cat.as_secs_f64() / enc.as_secs_f64().max(1e-9));
        cats.push(cat);
        encs.push(enc);
    }
    let rate = |d: Duration| bytes as f64 / d.as_secs_f64().max(1e-9);
    Ok(json!({
        "cat_bytes_per_sec": rate(median(cats)),
        "encode_bytes_per_sec": rate(median(encs)),
        "encode_to_cat_ratio": median(ratios),
    }))
}

/// Runs `tilecode bench`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let results = match &args.from {
        Some(path) => saved(path)?,
        None => measure(&args)?,
    };
    if let Some(path) = &args.plot {
        super::plot_bench::throughput(path, &results)?;
    }
    let out = if args.json {
        serde_json::to_string_pretty(&json!({ "results": results }))? + "\n"
    } else if args.markdown {
        super::bench_matrix::markdown(&results)
    } else {
        table(&results)
    };
    super::common::print_output(&out)
}

/// The `results` of an earlier `bench --json`.
fn saved(path: &Path) -> anyhow::Result<Vec<Value>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let v: Value = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{}: expected the JSON of `tilecode bench --json`",
            path.display()
        )
    })?;
    match v.get("results").and_then(Value::as_array) {
        Some(r) => Ok(r.clone()),
        None => bail!(
            "{}: expected an object with a `results` array (the output of `tilecode bench --json`)",
            path.display()
        ),
    }
}

/// Measures every code at every depth.
fn measure(args: &Args) -> anyhow::Result<Vec<Value>> {
    let specs: Vec<Spec> = args
        .specs
        .iter()
        .map(|s| s.parse::<Spec>())
        .collect::<Result<_, _>>()?;
    if args.size == 0 || args.size > 16 * 1024 {
        bail!(
            "--size must be between 1 and 16384 MiB, found {}",
            args.size
        );
    }
    if args.repetitions == 0 {
        bail!("--repetitions must be at least 1, found 0");
    }
    let bytes = args.size << 20;
    let file_bytes = bytes;
    let exe = std::env::current_exe().context("locating the tilecode executable")?;
    let file = if args.no_cli {
        None
    } else {
        Some(TempFile::with(&random_payload(bytes, args.seed))?)
    };
    if let Some(d) = args.interleave.iter().find(|&&d| d == 0 || d % 64 != 0) {
        bail!("--interleave takes multiples of 64, found {d}");
    }
    let mut results = Vec::new();
    for (spec, &depth) in specs
        .iter()
        .flat_map(|s| args.interleave.iter().map(move |d| (s, d)))
    {
        // Whole chunks only (at least one): the lenient decoder of this build rejects a
        // short last chunk.
        let opts = Options::new(*spec, depth)
            .with_recovery(args.recovery)
            .with_threads(args.threads);
        let chunk = opts.chunk_size;
        let bytes = bytes
            .checked_div(chunk)
            .map_or(bytes, |chunks| chunks.max(1) * chunk);
        let r = bench_throughput_reps(&opts, bytes, args.ber, args.seed, args.repetitions)?;
        let mut v = serde_json::to_value(&r)?;
        let obj = v.as_object_mut().expect("a report is an object");
        obj.insert("code".into(), json!(spec.to_string()));
        // The byte ranges of a noisy 256 MiB decode can run to thousands: keep their count.
        if let Some(rep) = obj.get_mut("noisy_report").and_then(Value::as_object_mut) {
            let ranges = rep
                .remove("damaged_ranges")
                .and_then(|r| r.as_array().map(Vec::len))
                .unwrap_or(0);
            rep.insert("damaged_range_count".into(), json!(ranges));
        }
        obj.insert("encode_ratio".into(), json!(r.encode_ratio()));
        obj.insert("decode_clean_ratio".into(), json!(r.decode_clean_ratio()));
        obj.insert("decode_noisy_ratio".into(), json!(r.decode_noisy_ratio()));
        let (floor, meets) = super::bench_matrix::floor(spec, depth).judge(&v);
        v["floor"] = floor;
        v["meets_floor"] = json!(meets);
        let obj = v.as_object_mut().expect("a report is an object");
        if let Some(f) = &file {
            let mut cli = cli_overhead(&exe, &f.0, file_bytes, &opts, args.repetitions)?;
            let cli_rate = cli["encode_bytes_per_sec"].as_f64().unwrap_or(0.0);
            cli["encode_to_library_ratio"] = json!(cli_rate / r.encode_bytes_per_sec);
            obj.insert("cli".into(), cli);
        }
        results.push(v);
    }
    Ok(results)
}

fn table(results: &[Value]) -> String {
    let gbs = |v: &Value, k: &str| v[k].as_f64().unwrap_or(0.0) / 1e9;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<13} {:>5} {:>9} {:>16} {:>16} {:>16} {:>26}",
        "code", "D", "memcpy", "encode", "decode clean", "decode at BER", "CLI encode / cat GB/s"
    );
    for r in results {
        let ratio = |k: &str| r[k].as_f64().unwrap_or(0.0);
        let cli = match r.get("cli") {
            Some(c) => format!(
                "{:.2} / {:.2} ({:>5.1}%)",
                gbs(c, "encode_bytes_per_sec"),
                gbs(c, "cat_bytes_per_sec"),
                100.0 * c["encode_to_cat_ratio"].as_f64().unwrap_or(0.0)
            ),
            None => "-".into(),
        };
        let _ = writeln!(
            s,
            "{:<13} {:>5} {:>7.2}GB/s {:>7.2} ({:>5.1}%) {:>7.2} ({:>5.1}%) {:>7.2} ({:>5.1}%) {:>26}",
            r["code"].as_str().unwrap_or(""),
            r["interleave"],
            gbs(r, "memcpy_bytes_per_sec"),
            gbs(r, "encode_bytes_per_sec"),
            100.0 * ratio("encode_ratio"),
            gbs(r, "decode_clean_bytes_per_sec"),
            100.0 * ratio("decode_clean_ratio"),
            gbs(r, "decode_noisy_bytes_per_sec"),
            100.0 * ratio("decode_noisy_ratio"),
            cli
        );
    }
    if let Some(r) = results.first() {
        let _ = writeln!(
            s,
            "payload {:.1} MiB (whole chunks), BER {} for the noisy decode ({} bits flipped); GB/s of payload, medians of {} runs; codec on {} threads, memcpy and cat on one; (%) the median of the per-run ratios to memcpy / cat",
            r["bytes"].as_u64().unwrap_or(0) as f64 / 1048576.0,
            r["ber"],
            r["flipped_bits"],
            r["repetitions"],
            r["threads"]
        );
    }
    s
}
