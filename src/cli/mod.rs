//! The `tilecode` command line: clap definitions and one module per subcommand.
//!
//! Each subcommand module has `Args` (clap) and `run(Args) -> anyhow::Result<ExitCode>`.
//! Errors print as one line `tilecode: ...` and exit with the code design.md assigns:
//! 3 for not-a-stream / bad header / truncation, 2 for unrepaired damage, 1 otherwise;
//! a broken pipe exits 0.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod analyze;
mod bench;
mod bench_matrix;
mod checkpoint;
mod common;
mod compare;
mod corrupt;
mod decode;
mod demo;
mod encode;
mod fileio;
mod hardest;
mod info;
mod phases;
mod plot;
mod plot_awgn;
mod plot_bench;
mod progress;
mod random;
mod report;
#[cfg(feature = "serve")]
#[path = "../serve/mod.rs"]
mod serve;
mod signals;
mod simulate;
mod solve;
mod team;
mod verify;
mod word;

/// Alien Tiles error-correcting codes: protect files, compare codes, solve switching games.
#[derive(Parser, Debug)]
#[command(name = "tilecode", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Exact parameters of a code: n, k, d, covering radius, weight distribution, bounds.
    Info(info::Args),
    /// Codes side by side, with exact error probabilities on a binary symmetric channel.
    Compare(compare::Args),
    /// Encode or decode a single codeword given as a bit string.
    Word(word::Args),
    /// Protect a file or a pipe with an error-correcting code.
    Encode(encode::Args),
    /// Restore the original data from a tilecode stream, correcting what the code can.
    Decode(decode::Args),
    /// Check a tilecode stream without writing the data.
    Verify(verify::Args),
    /// Flip bits in a file: a channel to try the codec with.
    Corrupt(corrupt::Args),
    /// Encode a built-in sample, damage it, decode it and show the report.
    Demo(demo::Args),
    /// Solve a switching-game board (Lights Out, Alien Tiles, ...).
    Solve(solve::Args),
    /// Rank, nullity, quiet patterns and solvable boards of a switching game.
    Analyze(analyze::Args),
    /// A uniformly random solvable board of a switching game.
    Random(random::Args),
    /// The solvable board of a small switching game whose shortest solution is longest.
    Hardest(hardest::Args),
    /// Monte Carlo (and exact) error rates of codes on noisy channels.
    Simulate(simulate::Args),
    /// Codec throughput against memcpy, measured in the same run.
    Bench(bench::Args),
    /// A playground in the browser: play the games, watch a codeword correct itself, repair a file.
    #[cfg(feature = "serve")]
    Serve(serve::Args),
}

/// Parses the command line, runs the subcommand and maps errors to exit codes.
pub fn main() -> ExitCode {
    // Usage errors exit 1 (clap's default 2 means unrepaired damage here).
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                common::EXIT_USAGE
            } else {
                common::EXIT_OK
            });
        }
    };
    signals::install();
    let result = match cli.command {
        Command::Info(a) => info::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Word(a) => word::run(a),
        Command::Encode(a) => encode::run(a),
        Command::Decode(a) => decode::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Corrupt(a) => corrupt::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Analyze(a) => analyze::run(a),
        Command::Random(a) => random::run(a),
        Command::Hardest(a) => hardest::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Bench(a) => bench::run(a),
        #[cfg(feature = "serve")]
        Command::Serve(a) => serve::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => common::report_error(&e),
    }
}
