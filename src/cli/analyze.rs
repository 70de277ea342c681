//! `tilecode analyze`: rank, nullity, quiet patterns and solvable boards of a switching game.

use super::common::print_report;
use super::solve::{AUTO_GAUSS_MOVES, GameArgs, draw_bits, draw_values, json_int};
use num_bigint::BigUint;
use num_traits::{One, Pow};
use serde_json::{Map, Value, json};
use std::fmt::Write as _;
use std::process::ExitCode;
use tilecode::game::chase::Chaser;
use tilecode::game::qaliencount;
use tilecode::game::qstate::{MAX_Q_SIZE, QSolver, values_string};
use tilecode::game::{Board, Game, Pattern, Solve, Solver, alien};
use tilecode::gf2::BitVec;

/// How many quiet patterns the text output draws.
const DRAWN: usize = 8;

/// The largest board the text output draws quiet patterns of.
const DRAWN_CELLS: usize = 64 * 64;

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
pub struct Report {
    rank: usize,
    nullity: usize,
    solvable: String,
    fraction: (String, String),
    solutions: String,
    /// Quiet patterns as row-major strings, with drawings and (q-state) orders.
    quiet: Vec<(String, String, Option<u64>)>,
    invariant_factors: Option<Vec<(u64, usize)>>,
    /// True when the quiet patterns exist but are not listed: too many bits (two states), or
    /// a closed form that counts them without listing them (q-state Alien Tiles past
    /// elimination).
    quiet_omitted: bool,
    /// How many basis patterns (two states) or generators (q states) there are when they are
    /// not listed.
    quiet_count: usize,
}

/// The most quiet-pattern bits (patterns x moves) `analyze` lists.
const LISTED_BITS: usize = 1 << 26;

/// Two-state Alien Tiles and Gale–Berlekamp in closed form, at any size: Alien Tiles has the
/// kernel of `alien::quiet_basis`, Gale–Berlekamp the single quiet pattern of every row and
/// every column flipped.
fn closed_form_report(game: &Game) -> Report {
    let (m, n) = (game.rows, game.cols);
    let quiet: Vec<BitVec> = match game.pattern {
        Pattern::GaleBerlekamp => vec![BitVec::ones(m + n)],
        _ if alien::syndrome_dim(m, n) * m * n <= LISTED_BITS => alien::quiet_basis(m, n)
            .into_iter()
            .map(Board::into_bits)
            .collect(),
        _ => Vec::new(),
    };
    let nullity = match game.pattern {
        Pattern::GaleBerlekamp => 1,
        _ => alien::syndrome_dim(m, n),
    };
    two_state_report(game, nullity, &quiet)
}

/// A two-state report from the nullity and a basis of the quiet patterns (empty when there
/// are too many bits to list).
fn two_state_report(game: &Game, nullity: usize, quiet: &[BitVec]) -> Report {
    let (mr, mc) = game.move_shape();
    let rank = game.num_moves() - nullity;
    Report {
        rank,
        nullity,
        solvable: (BigUint::one() << rank).to_string(),
        fraction: (
            "1".into(),
            (BigUint::one() << (game.num_cells() - rank)).to_string(),
        ),
        solutions: (BigUint::one() << nullity).to_string(),
        quiet_omitted: quiet.is_empty() && nullity > 0,
        quiet_count: nullity,
        quiet: quiet
            .iter()
            .map(|k| (k.to_string(), draw_bits(k, mr, mc), None))
            .collect(),
        invariant_factors: None,
    }
}

/// Runs `tilecode analyze`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let game = args.game.game()?;
    let report = analyze(&game)?;
    print_report(
        args.json,
        || report_json(&game, &report),
        |text| print_text(text, &game, &report),
    )
}

/// Rank, nullity, solvable boards and quiet patterns of `game`.
pub fn analyze(game: &Game) -> anyhow::Result<Report> {
    let (mr, mc) = game.move_shape();
    let chaser = (game.states == 2 && game.num_moves() > AUTO_GAUSS_MOVES)
        .then(|| Chaser::new(game).ok())
        .flatten();
    let closed_form = game.states == 2
        && game.num_moves() > AUTO_GAUSS_MOVES
        && matches!(game.pattern, Pattern::Alien | Pattern::GaleBerlekamp);
    let q_alien = game.states > 2
        && game.pattern == Pattern::Alien
        && game.num_cells() + game.num_moves() > MAX_Q_SIZE;
    let report = if closed_form {
        closed_form_report(game)
    } else if q_alien {
        q_alien_report(game)
    } else if let Some(c) = chaser {
        // Past the elimination's comfortable size, light chasing gives the same structure from
        // a small system.
        two_state_report(game, c.nullity(), &c.quiet_patterns())
    } else if game.states == 2 {
        solver_report(&Solver::new(game)?, None, |k| {
            (k.to_string(), draw_bits(k, mr, mc))
        })
    } else {
        let s = QSolver::new(game)?;
        let q = game.states;
        let factors = s.invariant_factors();
        solver_report(&s, Some(factors), |k| {
            (values_string(k, q), draw_values(k, mr, mc, q))
        })
    };
    Ok(report)
}

/// The report of an elimination, either number of states: `show` writes a quiet pattern as
/// a string and a drawing; the invariant factors (q-state games) come with the patterns'
/// orders.
fn solver_report<S: Solve>(
    s: &S,
    invariant_factors: Option<Vec<(u64, usize)>>,
    show: impl Fn(&S::Vector) -> (String, String),
) -> Report {
    let (num, den) = s.solvable_fraction();
    Report {
        rank: s.rank(),
        nullity: s.nullity(),
        solvable: s.solvable_count().to_string(),
        fraction: (num.to_string(), den.to_string()),
        solutions: s.solutions_per_board().to_string(),
        quiet: s
            .quiet_generators()
            .iter()
            .map(|k| {
                let (string, drawing) = show(&k.presses);
                (
                    string,
                    drawing,
                    invariant_factors.is_some().then_some(k.order),
                )
            })
            .collect(),
        invariant_factors,
        quiet_omitted: false,
        quiet_count: 0,
    }
}

/// q-state Alien Tiles past [`MAX_Q_SIZE`] in closed form (`qaliencount`): the same figures
/// and invariant factors as elimination, the quiet patterns counted but not listed.
fn q_alien_report(game: &Game) -> Report {
    let (m, n, q) = (game.rows, game.cols, game.states as u64);
    let factors = qaliencount::invariant_factors(m, n, q);
    let rank = factors
        .iter()
        .find(|&&(d, _)| d == 1)
        .map_or(0, |&(_, c)| c);
    let kernel = qaliencount::kernel_size(m, n, q);
    let solvable = BigUint::from(q).pow(game.num_moves()) / &kernel;
    let count = qaliencount::generator_count(m, n, q);
    Report {
        rank,
        nullity: game.num_moves() - rank,
        solvable: solvable.to_string(),
        // `solvable / Q^(mn) = 1 / |kernel|`, already reduced.
        fraction: ("1".into(), kernel.to_string()),
        solutions: kernel.to_string(),
        quiet: Vec::new(),
        invariant_factors: Some(factors),
        quiet_omitted: count > 0,
        quiet_count: count,
    }
}

fn fraction(f: &(String, String)) -> String {
    if f.1 == "1" {
        f.0.clone()
    } else {
        format!("{}/{}", f.0, f.1)
    }
}

/// `2^e`, with its value when that is short.
fn power_of_two(e: usize, value: &str) -> String {
    if e <= 64 {
        format!("2^{e} = {value}")
    } else {
        format!("2^{e}")
    }
}

/// A decimal integer, abbreviated when it has more than 40 digits (`--json` has it in full).
fn short(value: &str) -> String {
    if value.len() <= 40 {
        value.to_string()
    } else {
        format!(
            "{}...{} ({} digits)",
            &value[..12],
            &value[value.len() - 6..],
            value.len()
        )
    }
}

/// The JSON object of `tilecode analyze --json`: the keys docs/cli.md lists.
pub fn report_json(game: &Game, r: &Report) -> Value {
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
    let quiet = if r.quiet_omitted {
        Value::Null
    } else {
        Value::Array(
            r.quiet
                .iter()
                .map(|(s, _, _)| Value::String(s.clone()))
                .collect(),
        )
    };
    m.insert("quiet_patterns".into(), quiet);
    if let Some(f) = &r.invariant_factors {
        let orders = if r.quiet_omitted {
            Value::Null
        } else {
            Value::Array(r.quiet.iter().map(|(_, _, o)| json!(o)).collect())
        };
        m.insert("quiet_pattern_orders".into(), orders);
        m.insert(
            "invariant_factors".into(),
            Value::Array(
                f.iter()
                    .map(|&(d, c)| json!({ "factor": d, "count": c }))
                    .collect(),
            ),
        );
    }
    Value::Object(m)
}

fn print_text(out: &mut String, game: &Game, r: &Report) -> std::fmt::Result {
    let q = game.states;
    writeln!(
        out,
        "game                 {game} ({} cells, {} moves)",
        game.num_cells(),
        game.num_moves()
    )?;
    writeln!(out, "rank                 {}", r.rank)?;
    writeln!(out, "nullity              {}", r.nullity)?;
    if let Some(f) = &r.invariant_factors {
        let parts: Vec<String> = f.iter().map(|(d, c)| format!("{d} (x{c})")).collect();
        writeln!(
            out,
            "invariant factors    {} (mod {q}; 0 = zero)",
            parts.join(", ")
        )?;
    }
    let total = format!("{q}^{}", game.num_cells());
    let (solvable, frac, solutions) = if q == 2 {
        let frac = if game.num_cells() - r.rank <= 64 {
            fraction(&r.fraction)
        } else {
            format!("1/2^{}", game.num_cells() - r.rank)
        };
        (
            power_of_two(r.rank, &r.solvable),
            frac,
            power_of_two(r.nullity, &r.solutions),
        )
    } else {
        (
            short(&r.solvable),
            format!("{}/{}", short(&r.fraction.0), short(&r.fraction.1)),
            short(&r.solutions),
        )
    };
    let frac = if r.fraction.1 == "1" {
        "1".into()
    } else {
        frac
    };
    writeln!(out, "solvable boards      {solvable} of {total} ({frac})")?;
    writeln!(out, "solutions per board  {solutions}")?;
    if r.quiet_omitted && q == 2 {
        return writeln!(
            out,
            "quiet patterns       {} (basis; too many bits to list)",
            r.quiet_count
        );
    }
    if r.quiet_omitted {
        return writeln!(
            out,
            "quiet patterns       {} (generators; counted in closed form, not listed past \
             elimination)",
            r.quiet_count
        );
    }
    if r.quiet.is_empty() {
        return writeln!(
            out,
            "quiet patterns       none (every board has a unique solution)"
        );
    }
    let what = if game.states == 2 {
        "basis"
    } else {
        "generators"
    };
    writeln!(out, "quiet patterns       {} ({what})", r.quiet.len())?;
    if game.num_cells() > DRAWN_CELLS {
        return writeln!(out, "\n(too large to draw; use --json for the patterns)");
    }
    for (i, (_, drawing, order)) in r.quiet.iter().take(DRAWN).enumerate() {
        match order {
            Some(o) => writeln!(out, "\n#{} (order {o})", i + 1)?,
            None => writeln!(out, "\n#{}", i + 1)?,
        }
        write!(out, "{drawing}")?;
    }
    if r.quiet.len() > DRAWN {
        writeln!(
            out,
            "\n... and {} more (use --json for all)",
            r.quiet.len() - DRAWN
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed form prints what elimination prints on every small board, but the list of
    /// quiet patterns (text and JSON alike).
    #[test]
    fn q_alien_closed_form_matches_elimination() {
        for q in 3..=6 {
            for m in 1..=5 {
                for n in 1..=5 {
                    for torus in [false, true] {
                        let game = Game::new(Pattern::Alien, m, n)
                            .with_states(q)
                            .with_torus(torus);
                        let by_elimination = analyze(&game).unwrap();
                        let closed = q_alien_report(&game);
                        let mut a = report_json(&game, &by_elimination);
                        let mut b = report_json(&game, &closed);
                        for key in ["quiet_patterns", "quiet_pattern_orders"] {
                            a.as_object_mut().unwrap().remove(key);
                            b.as_object_mut().unwrap().remove(key);
                        }
                        assert_eq!(a, b, "{game}");
                        assert_eq!(closed.quiet_count, by_elimination.quiet.len(), "{game}");
                        let (mut ta, mut tb) = (String::new(), String::new());
                        print_text(&mut ta, &game, &by_elimination).unwrap();
                        print_text(&mut tb, &game, &closed).unwrap();
                        let cut = |t: &str| t[..t.find("quiet patterns").unwrap()].to_string();
                        assert_eq!(cut(&ta), cut(&tb), "{game}");
                    }
                }
            }
        }
    }
}
