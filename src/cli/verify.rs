//! `tilecode verify`: decode a stream without writing the data, and report.

use super::decode::{open_decoder, print_report, pump};
use super::fileio::Source;
use super::report;
use anyhow::Context;
use std::path::PathBuf;
use std::process::ExitCode;
use tilecode::stream::{Header, Report};

/// Arguments of `tilecode verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The encoded stream; `-` reads standard input.
    file: PathBuf,
    /// No human report on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// The report as one JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// Threads that decode: 0 uses every core (one reads the input, the others decode; one
    /// decoding thread on two cores), 1 decodes on one thread. The report is the same for
    /// every count.
    #[arg(short = 'T', long, value_name = "N", default_value_t = 0)]
    threads: usize,
}

/// Runs `tilecode verify`; with `--json` every outcome, fatal ones included, is one JSON
/// object on stdout.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    report::fatal_as_json(args.json, true, |seen| verify(args, seen))
}

fn verify(args: Args, seen: &mut Option<(Report, Header)>) -> anyhow::Result<ExitCode> {
    let source = Source::from_arg(Some(&args.file));
    let (dec, bar) = open_decoder(&source, args.quiet, args.threads)?;
    // Every recovery chunk is checked too: damage there weakens the protection.
    let mut dec = dec.keep_damaged(true).check_recovery(true);
    let result = pump(&mut dec, &mut std::io::sink());
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    if result.is_err() {
        *seen = Some((dec.report().clone(), dec.header().clone()));
    }
    result.with_context(|| format!("verifying {}", source.display()))?;
    let rep = dec.report().clone();
    let title = format!("tilecode verify: {}", source.display());
    print_report(&title, &rep, dec.header(), args.json, true, args.quiet);
    Ok(ExitCode::from(report::exit_code(&rep)))
}
