//! `tilecode analyze`: rank, nullity, quiet patterns and solvable boards of a switching game.

use super::solve::{GameArgs, draw_bits, draw_values, json_int};
use serde_json::{Map, Value, json};
use std::process::ExitCode;
use tilecode::game::qstate::{QSolver, values_string};
use tilecode::game::{Game, Solver};

/// How many quiet patterns the text output draws.
const DRAWN: usize = 8;

/// Arguments of `tilecode analyze`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    /// Print a JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Everything `analyze` reports, whatever the number of states.
struct Report {
    rank: usize,
    nullity: usize,
    solvable: String,
    fraction: (String, String),
    solutions: String,
    /// Quiet patterns as row-major strings, with drawings and (q-state) orders.
    quiet: Vec<(String, String, Option<u64>)>,
    invariant_factors: Option<Vec<(u64, usize)>>,
}

/// Runs `tilecode analyze`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let game = args.game.game()?;
    let (mr, mc) = game.move_shape();
    let report = if game.states == 2 {
        let s = Solver::new(&game)?;
        let (num, den) = s.solvable_fraction();
        Report {
            rank: s.rank(),
            nullity: s.nullity(),
            solvable: s.solvable_count().to_string(),
            fraction: (num.to_string(), den.to_string()),
            solutions: s.solutions_per_board().to_string(),
            quiet: s
                .quiet_patterns()
                .iter()
                .map(|k| (k.to_string(), draw_bits(k, mr, mc), None))
                .collect(),
            invariant_factors: None,
        }
    } else {
        let s = QSolver::new(&game)?;
        let (num, den) = s.solvable_fraction();
        Report {
            rank: s.rank(),
            nullity: s.nullity(),
            solvable: s.solvable_count().to_string(),
            fraction: (num.to_string(), den.to_string()),
            solutions: s.solutions_per_board().to_string(),
            quiet: s
                .quiet_patterns()
                .iter()
                .map(|k| {
                    (
                        values_string(&k.presses, game.states),
                        draw_values(&k.presses, mr, mc, game.states),
                        Some(k.order),
                    )
                })
                .collect(),
            invariant_factors: Some(s.invariant_factors()),
        }
    };
    if args.json {
        print_json(&game, &report);
    } else {
        print_text(&game, &report);
    }
    Ok(ExitCode::SUCCESS)
}

fn fraction(f: &(String, String)) -> String {
    if f.1 == "1" {
        f.0.clone()
    } else {
        format!("{}/{}", f.0, f.1)
    }
}

fn print_json(game: &Game, r: &Report) {
    let mut m = Map::new();
    m.insert("game".into(), Value::String(game.spec()));
    m.insert("torus".into(), Value::Bool(game.torus));
    m.insert("states".into(), json!(game.states));
    m.insert("rows".into(), json!(game.rows));
    m.insert("cols".into(), json!(game.cols));
    m.insert("cells".into(), json!(game.num_cells()));
    m.insert("moves".into(), json!(game.num_moves()));
    m.insert("rank".into(), json!(r.rank));
    m.insert("nullity".into(), json!(r.nullity));
    m.insert("solvable_boards".into(), json_int(&r.solvable));
    m.insert(
        "solvable_fraction".into(),
        Value::String(fraction(&r.fraction)),
    );
    m.insert(
        "completely_solvable".into(),
        Value::Bool(r.fraction.1 == "1"),
    );
    m.insert("solutions_per_board".into(), json_int(&r.solutions));
    m.insert(
        "quiet_patterns".into(),
        Value::Array(
            r.quiet
                .iter()
                .map(|(s, _, _)| Value::String(s.clone()))
                .collect(),
        ),
    );
    if let Some(f) = &r.invariant_factors {
        m.insert(
            "quiet_pattern_orders".into(),
            Value::Array(r.quiet.iter().map(|(_, _, o)| json!(o)).collect()),
        );
        m.insert(
            "invariant_factors".into(),
            Value::Array(
                f.iter()
                    .map(|&(d, c)| json!({ "factor": d, "count": c }))
                    .collect(),
            ),
        );
    }
    println!("{}", Value::Object(m));
}

fn print_text(game: &Game, r: &Report) {
    let q = game.states;
    println!(
        "game                 {game} ({} cells, {} moves)",
        game.num_cells(),
        game.num_moves()
    );
    println!("rank                 {}", r.rank);
    println!("nullity              {}", r.nullity);
    if let Some(f) = &r.invariant_factors {
        let parts: Vec<String> = f.iter().map(|(d, c)| format!("{d} (x{c})")).collect();
        println!(
            "invariant factors    {} (mod {q}; 0 = zero)",
            parts.join(", ")
        );
    }
    let total = format!("{q}^{}", game.num_cells());
    println!(
        "solvable boards      {} of {total} ({})",
        r.solvable,
        fraction(&r.fraction)
    );
    println!("solutions per board  {}", r.solutions);
    if r.quiet.is_empty() {
        println!("quiet patterns       none (every board has a unique solution)");
        return;
    }
    let what = if game.states == 2 {
        "basis"
    } else {
        "generators"
    };
    println!("quiet patterns       {} ({what})", r.quiet.len());
    for (i, (_, drawing, order)) in r.quiet.iter().take(DRAWN).enumerate() {
        match order {
            Some(o) => println!("\n#{} (order {o})", i + 1),
            None => println!("\n#{}", i + 1),
        }
        print!("{drawing}");
    }
    if r.quiet.len() > DRAWN {
        println!(
            "\n... and {} more (use --json for all)",
            r.quiet.len() - DRAWN
        );
    }
}
