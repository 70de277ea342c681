//! `tilecode bench`.

use std::process::ExitCode;

/// Arguments of `tilecode bench`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode bench`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode bench` is not available in this build yet")
}
