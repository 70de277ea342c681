//! `tilecode compare`.

use std::process::ExitCode;

/// Arguments of `tilecode compare`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode compare`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode compare` is not available in this build yet")
}
