//! `tilecode info`.

use std::process::ExitCode;

/// Arguments of `tilecode info`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode info`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode info` is not available in this build yet")
}
