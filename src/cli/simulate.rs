//! `tilecode simulate`.

use std::process::ExitCode;

/// Arguments of `tilecode simulate`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode simulate`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode simulate` is not available in this build yet")
}
