//! `tilecode solve`: solve one board of a switching game, or prove it unsolvable.

use anyhow::Context;
use serde_json::{Map, Value, json};
use std::io::Read;
use std::process::ExitCode;
use std::str::FromStr;
use tilecode::game::qstate::{QBoard, QSolver, values_string};
use tilecode::game::{Board, Game, Pattern, PressLayout, Solver};
use tilecode::gf2::BitVec;

/// The game arguments shared by `solve`, `analyze` and `random`.
#[derive(clap::Args, Debug, Clone)]
pub struct GameArgs {
    /// The game: lights-out:MxN, alien:MxN, squares:MxN, gale-berlekamp:MxN or
    /// stencil:ROWS/ROWS/...:MxN (0/1 rows centred on the pressed cell, e.g. stencil:010/111/010:5x5).
    #[arg(value_name = "GAME")]
    pub game: String,
    /// Wrap the toggle pattern around the board's edges.
    #[arg(long)]
    pub torus: bool,
    /// States per cell: cells hold 0..Q-1 and a press adds 1 mod Q to each cell it touches.
    #[arg(long, value_name = "Q", default_value_t = 2)]
    pub states: u32,
}

impl GameArgs {
    /// The game these arguments describe.
    pub fn game(&self) -> anyhow::Result<Game> {
        if self.states < 2 {
            anyhow::bail!(
                "bad --states: expected at least 2 states, found {}",
                self.states
            );
        }
        Ok(Game::from_str(&self.game)?
            .with_torus(self.torus)
            .with_states(self.states))
    }
}

/// How to find the presses.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The closed form for alien boards, otherwise Gaussian elimination.
    Auto,
    /// Gaussian elimination on the move matrix (any game).
    Gauss,
    /// The O(mn) closed forms of Alien Tiles (the paper, Section 3).
    ClosedForm,
}

/// Arguments of `tilecode solve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    /// The board: a file, or `-` for stdin. One line per row; cells 0/1 or ./# (digits 0..Q-1
    /// with --states Q); blank lines and spaces are ignored.
    #[arg(value_name = "BOARD")]
    board: String,
    /// How to find the presses.
    #[arg(long, value_enum, default_value_t = Method::Auto)]
    method: Method,
    /// Print a JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Reads a board file, or stdin for `-`.
pub fn read_input(path: &str) -> anyhow::Result<String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the board from stdin")?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading board file {path}"))
    }
}

/// An exact JSON integer from a decimal string (any size).
pub fn json_int(n: impl ToString) -> Value {
    Value::Number(serde_json::Number::from_str(&n.to_string()).expect("a decimal integer"))
}

/// Draws row-major 0/1 presses or cells as a grid of `#` and `.`.
pub fn draw_bits(bits: &BitVec, rows: usize, cols: usize) -> String {
    let mut s = String::new();
    for i in 0..rows {
        for j in 0..cols {
            s.push(if bits.get(i * cols + j) { '#' } else { '.' });
        }
        s.push('\n');
    }
    s
}

/// Draws row-major q-state values as a grid of digits (`.` for 0), or numbers for `Q > 10`.
pub fn draw_values(values: &[u32], rows: usize, cols: usize, states: u32) -> String {
    let mut s = String::new();
    for i in 0..rows {
        let row = &values[i * cols..(i + 1) * cols];
        if states <= 10 {
            for &v in row {
                s.push(if v == 0 {
                    '.'
                } else {
                    char::from(b'0' + v as u8)
                });
            }
        } else {
            let cells: Vec<String> = row.iter().map(u32::to_string).collect();
            s.push_str(&cells.join(" "));
        }
        s.push('\n');
    }
    s
}

/// The outcome of solving one board, ready to print.
struct Outcome {
    method: &'static str,
    /// Presses as a JSON value (string, or rows/cols for Gale–Berlekamp), their drawing and count.
    presses: Option<(Value, String, u64)>,
    optimal: bool,
    solutions: Option<String>,
    certificate: Option<(String, String)>,
}

/// Runs `tilecode solve`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let game = args.game.game()?;
    let text = read_input(&args.board)?;
    let out = if game.states == 2 {
        solve_two_state(&game, &text, args.method)?
    } else {
        solve_q_state(&game, &text, args.method)?
    };
    print(&game, &out, args.json);
    Ok(ExitCode::SUCCESS)
}

fn solve_two_state(game: &Game, text: &str, method: Method) -> anyhow::Result<Outcome> {
    let board = Board::parse(text)?;
    game.check_board(&board)?;
    if method == Method::ClosedForm {
        anyhow::bail!(
            "--method closed-form is not available for {}: expected an alien game",
            game.spec()
        );
    }
    let solver = Solver::new(game)?;
    Ok(match solver.solve(&board) {
        Ok(x) => {
            let count = x.weight() as u64;
            let (value, drawing) = match PressLayout::of(game, &x) {
                PressLayout::Cells(b) => (
                    Value::String(b.bits().to_string()),
                    draw_bits(b.bits(), game.rows, game.cols),
                ),
                PressLayout::Lines { rows, cols } => {
                    let drawing = format!(
                        "rows flipped: {}\ncolumns flipped: {}\n",
                        list(&rows),
                        list(&cols)
                    );
                    (json!({ "rows": rows, "cols": cols }), drawing)
                }
            };
            Outcome {
                method: "gauss",
                presses: Some((value, drawing, count)),
                // The only solution is trivially the shortest.
                optimal: solver.nullity() == 0,
                solutions: Some(solver.solutions_per_board().to_string()),
                certificate: None,
            }
        }
        Err(y) => Outcome {
            method: "gauss",
            presses: None,
            optimal: false,
            solutions: None,
            certificate: Some((y.to_string(), draw_bits(&y, game.rows, game.cols))),
        },
    })
}

fn solve_q_state(game: &Game, text: &str, method: Method) -> anyhow::Result<Outcome> {
    let board = QBoard::parse(text, game.states)?;
    if method == Method::ClosedForm {
        anyhow::bail!(
            "--method closed-form is not available for {} states: expected a two-state alien game",
            game.states
        );
    }
    let solver = QSolver::new(game)?;
    let q = game.states;
    Ok(match solver.solve(&board)? {
        Ok(x) => {
            let count: u64 = x.iter().map(|&v| v as u64).sum();
            let presses = if game.pattern == Pattern::GaleBerlekamp {
                let (r, c) = x.split_at(game.rows);
                (
                    json!({ "row_counts": r, "col_counts": c }),
                    format!(
                        "row press counts: {}\ncolumn press counts: {}\n",
                        join(r),
                        join(c)
                    ),
                    count,
                )
            } else {
                (
                    Value::String(values_string(&x, q)),
                    draw_values(&x, game.rows, game.cols, q),
                    count,
                )
            };
            Outcome {
                method: "gauss",
                presses: Some(presses),
                // A unique solution is trivially the shortest.
                optimal: solver.solutions_per_board() == 1u32.into(),
                solutions: Some(solver.solutions_per_board().to_string()),
                certificate: None,
            }
        }
        Err(w) => Outcome {
            method: "gauss",
            presses: None,
            optimal: false,
            solutions: None,
            certificate: Some((
                values_string(&w, q),
                draw_values(&w, game.rows, game.cols, q),
            )),
        },
    })
}

fn join(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
}

fn list(v: &[usize]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.iter().map(usize::to_string).collect::<Vec<_>>().join(" ")
    }
}

fn print(game: &Game, out: &Outcome, json: bool) {
    if json {
        let mut m = Map::new();
        m.insert("game".into(), Value::String(game.spec()));
        m.insert("torus".into(), Value::Bool(game.torus));
        m.insert("states".into(), json!(game.states));
        m.insert("solvable".into(), Value::Bool(out.presses.is_some()));
        m.insert("method".into(), Value::String(out.method.into()));
        let (presses, count) = match &out.presses {
            Some((v, _, c)) => (v.clone(), json!(c)),
            None => (Value::Null, Value::Null),
        };
        m.insert("presses".into(), presses);
        m.insert("press_count".into(), count);
        m.insert("optimal".into(), Value::Bool(out.optimal));
        m.insert(
            "solutions".into(),
            out.solutions.as_ref().map_or(Value::Null, json_int),
        );
        m.insert(
            "certificate".into(),
            out.certificate
                .as_ref()
                .map_or(Value::Null, |(s, _)| Value::String(s.clone())),
        );
        println!("{}", Value::Object(m));
        return;
    }
    match (&out.presses, &out.certificate) {
        (Some((_, drawing, count)), _) => {
            let sols = out.solutions.as_deref().unwrap_or("?");
            let note = if out.optimal {
                "minimal".to_string()
            } else {
                format!("one of {sols} solutions, not proven minimal")
            };
            println!(
                "{game}: solvable with {count} presses ({note}; method {})",
                out.method
            );
            print!("{drawing}");
        }
        (None, Some((_, drawing))) => {
            println!("{game}: not solvable");
            if game.states == 2 {
                println!(
                    "certificate: the marked cells meet every move an even number of times and \
                     the board an odd number of times:"
                );
            } else {
                println!(
                    "certificate: these cell weights sum to 0 mod {q} over every move's cells and \
                     to a nonzero value over the board:",
                    q = game.states
                );
            }
            print!("{drawing}");
        }
        (None, None) => unreachable!("an outcome has presses or a certificate"),
    }
}
