//! `tilecode hardest`: the solvable board whose shortest solution is longest.

use super::solve::{GameArgs, draw_values};
use serde_json::{Map, Value, json};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use tilecode::game::hardest::hardest;
use tilecode::game::qstate::values_string;

/// Arguments of `tilecode hardest`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    /// Print a JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `tilecode hardest`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let game = args.game.game()?;
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(1000);
        bar.set_style(
            indicatif::ProgressStyle::with_template("boards reached {bar:40} {percent}%")
                .expect("a valid template"),
        );
        bar
    });
    let report = |done: u64, total: u64| {
        if let Some(b) = &bar {
            b.set_position(done.saturating_mul(1000) / total.max(1));
        }
    };
    let progress: Option<&dyn Fn(u64, u64)> = bar.as_ref().map(|_| &report as _);
    let h = hardest(&game, progress)?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let q = game.states;
    let (mr, mc) = game.move_shape();
    let text = if args.json {
        let mut m = Map::new();
        m.insert("game".into(), Value::String(game.spec()));
        m.insert("torus".into(), Value::Bool(game.torus));
        m.insert("states".into(), json!(q));
        m.insert(
            "board".into(),
            Value::String(values_string(h.board.cells(), q)),
        );
        m.insert(
            "presses".into(),
            Value::String(values_string(&h.presses, q)),
        );
        m.insert("press_count".into(), json!(h.press_count));
        m.insert("solvable_boards".into(), json!(h.solvable_boards));
        m.insert("hardest_boards".into(), json!(h.hardest_boards));
        format!("{}\n", Value::Object(m))
    } else {
        format!(
            "{game}: the hardest solvable board needs {} presses ({} of {} solvable boards need \
             that many):\n{}presses:\n{}",
            h.press_count,
            h.hardest_boards,
            h.solvable_boards,
            draw_values(h.board.cells(), game.rows, game.cols, q),
            draw_values(&h.presses, mr, mc, q),
        )
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
