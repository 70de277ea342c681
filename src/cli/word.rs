//! `tilecode word`.

use std::process::ExitCode;

/// Arguments of `tilecode word`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode word`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode word` is not available in this build yet")
}
