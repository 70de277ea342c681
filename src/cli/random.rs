//! `tilecode random`: a uniformly random solvable board.

use super::solve::GameArgs;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::{Value, json};
use std::io::Write;
use std::process::ExitCode;
use tilecode::game::Game;
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
    /// Print a JSON object (the game, the seed used and the board) instead of the board.
    #[arg(long)]
    json: bool,
}

/// A uniformly random solvable board of `game` as the text `solve` reads, and the seed that
/// made it (`seed`, or a fresh one drawn from the operating system).
pub fn random_board(game: &Game, seed: Option<u64>) -> (String, u64) {
    let seed = seed.unwrap_or_else(|| rand::rngs::OsRng.next_u64());
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let text = if game.states == 2 {
        random_solvable(game, &mut rng).to_string()
    } else {
        random_solvable_q(game, &mut rng).to_string()
    };
    (text, seed)
}

/// The JSON object of `tilecode random --json`: the keys docs/cli.md lists.
pub fn random_json(game: &Game, board: &str, seed: u64) -> Value {
    json!({
        "game": game.spec(),
        "torus": game.torus,
        "states": game.states,
        "seed": seed,
        "board": board,
    })
}

/// Runs `tilecode random`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let game = args.game.game()?;
    let (board, seed) = random_board(&game, args.seed);
    let text = if args.json {
        format!("{}\n", random_json(&game, &board, seed))
    } else {
        board
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
