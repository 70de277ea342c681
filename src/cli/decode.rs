//! `tilecode decode`.

use std::process::ExitCode;

/// Arguments of `tilecode decode`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tilecode decode`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tilecode decode` is not available in this build yet")
}
