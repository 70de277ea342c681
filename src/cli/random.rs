//! `tilecode random`.

use std::process::ExitCode;

/// Arguments of `tilecode random`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode random`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode random` is not available in this build yet")
}
