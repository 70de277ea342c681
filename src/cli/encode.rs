//! `tilecode encode`.

use std::process::ExitCode;

/// Arguments of `tilecode encode`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode encode`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode encode` is not available in this build yet")
}
