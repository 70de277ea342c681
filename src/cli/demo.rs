//! `tilecode demo`.

use std::process::ExitCode;

/// Arguments of `tilecode demo`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode demo`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode demo` is not available in this build yet")
}
