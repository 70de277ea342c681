//! `tilecode solve`.

use std::process::ExitCode;

/// Arguments of `tilecode solve`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode solve`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode solve` is not available in this build yet")
}
