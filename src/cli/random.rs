//! `tilecode random`: a uniformly random solvable board.

use super::solve::GameArgs;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::io::Write;
use std::process::ExitCode;
use tilecode::game::qstate::random_solvable_q;
use tilecode::game::random_solvable;

/// Arguments of `tilecode random`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    /// Seed of the ChaCha20 generator, for a reproducible board (default: a fresh random seed).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
}

/// Runs `tilecode random`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let game = args.game.game()?;
    let mut rng = match args.seed {
        Some(s) => ChaCha20Rng::seed_from_u64(s),
        None => ChaCha20Rng::from_entropy(),
    };
    let text = if game.states == 2 {
        random_solvable(&game, &mut rng).to_string()
    } else {
        random_solvable_q(&game, &mut rng).to_string()
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
