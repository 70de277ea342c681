//! `tilecode corrupt`.

use std::process::ExitCode;

/// Arguments of `tilecode corrupt`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode corrupt`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode corrupt` is not available in this build yet")
}
