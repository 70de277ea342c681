//! `tilecode decode`: restore the original data, correcting what the code can.
//!
//! A file output is written under a temporary name beside it and renamed into place only when
//! every chunk verified (or, with `--keep-damaged`, in any case). Standard output cannot be
//! taken back, so there the decoder runs strict and stops at the first unrepaired damage
//! unless `--keep-damaged` asks for the best-effort bytes.

use super::common::EXIT_OK;
use super::fileio::{
    BUF_SIZE, ReadAhead, Sink, Source, is_stdout, note_terminal_input, restore_metadata,
};
use super::{progress, report};
use anyhow::{Context, bail};
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tilecode::stream::{Decoder, Header, Report, parallel};

/// Arguments of `tilecode decode`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The encoded stream; absent or `-` reads standard input.
    file: Option<PathBuf>,
    /// Output file (default FILE without `.tc`, or standard output when reading standard
    /// input); `-` is standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Write the best-effort output even when damage could not be repaired.
    #[arg(long)]
    keep_damaged: bool,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
    /// No human report on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// The report as one JSON object on stderr.
    #[arg(long)]
    json: bool,
    /// Threads that decode: 0 uses every core (one reads the input, the others decode; one
    /// decoding thread on two cores), 1 decodes on one thread. The output and the report are
    /// the same for every count.
    #[arg(short = 'T', long, value_name = "N", default_value_t = 0)]
    threads: usize,
}

/// The default output of `decode FILE.tc`: `FILE`; an error for names without `.tc`.
pub fn default_output(input: &Path) -> anyhow::Result<PathBuf> {
    let name = input.to_string_lossy();
    match name.strip_suffix(".tc") {
        Some(stem) if !stem.is_empty() && !stem.ends_with('/') => Ok(PathBuf::from(stem)),
        _ => bail!(
            "cannot choose an output name: `{}` does not end in .tc (use -o OUT)",
            input.display()
        ),
    }
}

/// The decoder the subcommands use: over any input, read ahead on a thread.
pub type InputDecoder = Decoder<ReadAhead>;

/// The decoding threads for `--threads threads`. `0` is every core, the reading thread's
/// ([`ReadAhead`]) among them: as many decoding threads as the other cores, at least one.
/// On two cores, one decoding thread beside the reader decoded a cached 256 MiB file's
/// stream 4-16 % faster than two (`decode -o /dev/null` 0.55 -> 0.60 of `cat`, `verify`
/// 0.42 -> 0.48 on another file; docs/benchmarks.md, "The CLI's decoder on two threads").
fn decoding_threads(threads: usize) -> usize {
    match threads {
        0 => parallel::resolve(0).saturating_sub(1).max(1),
        n => n,
    }
}

/// Opens a decoder on `threads` threads ([`decoding_threads`]) on a source (header read and
/// checked now) and its progress bar.
pub fn open_decoder(
    source: &Source,
    quiet: bool,
    threads: usize,
) -> anyhow::Result<(InputDecoder, Option<indicatif::ProgressBar>)> {
    note_terminal_input(source);
    let (input, size) = source.open()?;
    let bar = progress::bar(size, quiet);
    let input = progress::wrap(input, bar.as_ref());
    let dec = Decoder::new(ReadAhead::new(input, BUF_SIZE, 3))
        .with_context(|| format!("reading {}", source.display()))?
        .threads(decoding_threads(threads));
    Ok((dec, bar))
}

/// Copies everything the decoder yields into `out`, straight from its decoded chunks;
/// returns the bytes written. A failed write is an error of its own kind that says so
/// ("cannot write the output: ...", as `encode` says), apart from the decoder's.
pub fn pump<R: Read>(dec: &mut Decoder<R>, out: &mut dyn Write) -> io::Result<u64> {
    let mut total = 0u64;
    loop {
        let data = match dec.fill_buf() {
            Ok([]) => return Ok(total),
            Ok(d) => d,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        out.write_all(data)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot write the output: {e}")))?;
        let n = data.len();
        dec.consume(n);
        total += n as u64;
    }
}

/// Prints the report the way the flags ask: JSON (on stdout or stderr) or the human summary.
pub fn print_report(
    title: &str,
    rep: &Report,
    header: &Header,
    json: bool,
    json_on_stdout: bool,
    quiet: bool,
) {
    if json {
        let v = report::to_json(rep, Some(header));
        if json_on_stdout {
            println!("{v}");
        } else {
            eprintln!("{v}");
        }
    } else if !quiet {
        eprintln!("{}", report::human(title, rep, Some(header)));
    }
}

/// Runs `tilecode decode`; with `--json` every outcome, fatal ones included, is one JSON
/// object.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    report::fatal_as_json(args.json, false, |seen| decode(args, seen))
}

fn decode(args: Args, seen: &mut Option<(Report, Header)>) -> anyhow::Result<ExitCode> {
    let source = Source::from_arg(args.file.as_deref());
    let dest = match (&args.output, &source) {
        (Some(o), _) => Some(o.clone()).filter(|o| !is_stdout(Some(o))),
        (None, Source::File(p)) => Some(default_output(p)?),
        (None, Source::Stdin) => None,
    };
    let (dec, bar) = open_decoder(&source, args.quiet, args.threads)?;
    let mut sink = match &dest {
        Some(d) => Sink::file(d, args.force, source.path())?,
        None => Sink::stdout(),
    };
    // A file can be withheld after the fact, so decode it leniently to report all damage.
    let lenient = args.keep_damaged || dest.is_some();
    let mut dec = dec.keep_damaged(lenient);
    let result = pump(&mut dec, sink.writer());
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let to = dest
        .as_ref()
        .map(|d| format!("`{}`", d.display()))
        .unwrap_or_else(|| "standard output".into());
    if let Err(e) = result {
        *seen = Some((dec.report().clone(), dec.header().clone()));
        if args.keep_damaged && dest.is_some() {
            sink.commit()?;
            eprintln!("tilecode: kept the partial output in {to}");
        }
        return Err(e).with_context(|| format!("decoding {}", source.display()));
    }
    let rep = dec.report().clone();
    let code = report::exit_code(&rep);
    let title = format!("tilecode decode: {} -> {to}", source.display());
    print_report(&title, &rep, dec.header(), args.json, false, args.quiet);
    if code == EXIT_OK || args.keep_damaged {
        if let (Some(file), Some(meta)) = (sink.commit()?, dec.metadata()) {
            restore_metadata(&file, meta);
        }
        if code != EXIT_OK && !args.quiet && !args.json {
            eprintln!("tilecode: damaged output kept in {to}");
        }
    } else {
        drop(sink);
        if !args.quiet && !args.json {
            eprintln!(
                "tilecode: damage not repaired; no output written (--keep-damaged writes the best-effort data)"
            );
        }
    }
    Ok(ExitCode::from(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_is_the_reader_and_the_decoders() {
        let cores = parallel::resolve(0);
        assert_eq!(decoding_threads(0), (cores - 1).max(1));
        assert_eq!(decoding_threads(0) + 1, cores.max(2));
        for n in [1, 2, 3, 8] {
            assert_eq!(decoding_threads(n), n, "an explicit count is kept");
        }
    }

    #[test]
    fn default_output_strips_tc() {
        assert_eq!(
            default_output(Path::new("d/x.bin.tc")).unwrap(),
            PathBuf::from("d/x.bin")
        );
        assert!(default_output(Path::new("x.bin")).is_err());
        assert!(default_output(Path::new(".tc")).is_err());
        assert!(default_output(Path::new("d/.tc")).is_err());
    }
}
