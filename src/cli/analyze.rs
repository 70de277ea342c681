//! `tilecode analyze`.

use std::process::ExitCode;

/// Arguments of `tilecode analyze`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode analyze`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode analyze` is not available in this build yet")
}
