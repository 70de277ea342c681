//! `tilecode verify`.

use std::process::ExitCode;

/// Arguments of `tilecode verify`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode verify`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode verify` is not available in this build yet")
}
