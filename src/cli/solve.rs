//! `tilecode solve`: solve one board of a switching game, or prove it unsolvable.

use super::common::print_report;
use super::phases::Phases;
use anyhow::Context;
use num_bigint::BigUint;
use num_traits::One;
use serde_json::{Map, Value, json};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::io::Read;
use std::process::ExitCode;
use std::str::FromStr;
use tilecode::game::chase::Chaser;
use tilecode::game::decompose;
use tilecode::game::qchase::{self, QChaser};
use tilecode::game::qshortest::shortest_q;
use tilecode::game::qstate::{
    MAX_Q_SIZE, QBoard, QSolver, effect_q, packed_applies, values_string,
};
use tilecode::game::shortest::Progress;
use tilecode::game::shortest::{self, Limits};
use tilecode::game::squares::{squares_one_way, squares_two_way};
use tilecode::game::{Board, Game, Pattern, PressLayout, Solve, Solver, alien, solve_closed_form};
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
    /// closed-form for alien and gale-berlekamp; gauss up to 4096 moves; chase beyond.
    Auto,
    /// Gaussian elimination on the move matrix (any game).
    Gauss,
    /// Light chasing (lights-out, squares, stencils; plain or torus where it applies).
    Chase,
    /// The Toggle Squares one-way sweep (squares, plain).
    OneWay,
    /// The Toggle Squares two-way sweep (squares, plain).
    TwoWay,
    /// The O(mn) closed forms (two-state alien and gale-berlekamp).
    ClosedForm,
    /// The paper's states decomposition: prime by prime, digit by digit (q-state games).
    Decompose,
}

impl Method {
    /// The name clap knows the method by.
    pub fn name(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Gauss => "gauss",
            Method::Chase => "chase",
            Method::OneWay => "one-way",
            Method::TwoWay => "two-way",
            Method::ClosedForm => "closed-form",
            Method::Decompose => "decompose",
        }
    }
}

/// `auto` eliminates on games with at most this many moves and chases beyond.
pub const AUTO_GAUSS_MOVES: usize = 4096;

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
    /// Find a solution with the fewest presses (exact where it can be proven; otherwise the
    /// best found, with `optimal: false` and a lower bound). With --states Q a press counts
    /// as many clicks as its count 0..Q-1.
    #[arg(long)]
    shortest: bool,
    /// Print a JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Print the time of each phase (read, parse, prepare, solve, verify, ...) to stderr.
    #[arg(long)]
    timings: bool,
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
    let flat = bits.to_chars(b'.', b'#');
    let mut s = String::with_capacity(rows * (cols + 1));
    for i in 0..rows {
        s.push_str(&flat[i * cols..(i + 1) * cols]);
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
pub struct Outcome {
    method: &'static str,
    /// Presses as a JSON value (string, or rows/cols for Gale–Berlekamp), their drawing and count.
    presses: Option<(Value, String, u64)>,
    optimal: bool,
    solutions: Option<String>,
    /// The shortest search's label and proven lower bound, with `--shortest`.
    search: Option<(&'static str, usize)>,
    /// For unsolvable boards: the certificate as a string and drawn, when one was produced.
    certificate: Option<(String, String)>,
}

/// Runs `tilecode solve`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let game = args.game.game()?;
    let mut t = Phases::new(args.timings);
    let text = read_input(&args.board)?;
    t.mark("read");
    let limits = Limits::default();
    let out = solve_timed(
        &game,
        &text,
        args.method,
        args.shortest.then_some(&limits),
        true,
        &mut t,
    )?;
    drop(text);
    let code = print_report(
        args.json,
        || outcome_json(&game, &out),
        |text| print(text, &game, &out),
    )?;
    t.mark("output");
    t.report();
    Ok(code)
}

/// A two-state answer before the shortest search and formatting.
struct Found {
    method: &'static str,
    /// The presses, or the certificate when there is one (`Err(None)`: unsolvable, no
    /// certificate from this method).
    result: Result<BitVec, Option<BitVec>>,
    /// log2 of the number of solutions.
    nullity: usize,
    /// The quiet patterns, for the shortest search (not needed for alien).
    kernel: Kernel,
}

/// A spanning set of the quiet patterns, or the chaser that makes one on demand (a basis of
/// full-board vectors is large on huge boards, and only `--shortest` needs it).
enum Kernel {
    Ready(Vec<BitVec>),
    Chase(Box<Chaser>),
}

impl Kernel {
    fn vectors(self) -> Vec<BitVec> {
        match self {
            Kernel::Ready(v) => v,
            Kernel::Chase(c) => c.quiet_patterns(),
        }
    }
}

fn gauss(game: &Game, board: &Board) -> anyhow::Result<Found> {
    let s = Solver::new(game)?;
    Ok(Found {
        method: "gauss",
        result: s.solve(board).map_err(Some),
        nullity: s.nullity(),
        kernel: Kernel::Ready(s.quiet_patterns().to_vec()),
    })
}

fn chase(game: &Game, board: &Board, t: &mut Phases) -> anyhow::Result<Found> {
    let c = Chaser::new(game)?;
    t.mark("prepare");
    chase_with(c, game, board, t)
}

fn chase_with(c: Chaser, game: &Game, board: &Board, t: &mut Phases) -> anyhow::Result<Found> {
    let solved = c.solve(board)?;
    t.mark("chase");
    let result = match solved {
        Some(x) => Ok(x),
        // Chasing proves unsolvability without a certificate; elimination gives one when the
        // game is small enough for it.
        None if game.num_moves() <= AUTO_GAUSS_MOVES => {
            Err(Some(Solver::new(game)?.solve(board).expect_err(
                "light chasing and elimination agree on solvability",
            )))
        }
        None => Err(None),
    };
    Ok(Found {
        method: "chase",
        result,
        nullity: c.nullity(),
        kernel: Kernel::Chase(Box::new(c)),
    })
}

fn closed_form(game: &Game, board: &Board) -> anyhow::Result<Found> {
    let Some(result) = solve_closed_form(game, board) else {
        anyhow::bail!(
            "--method closed-form is not available for {}: expected an alien or gale-berlekamp game",
            game.spec()
        );
    };
    let (nullity, kernel) = match game.pattern {
        Pattern::GaleBerlekamp => (1, vec![BitVec::ones(game.num_moves())]),
        _ => (alien::syndrome_dim(game.rows, game.cols), Vec::new()),
    };
    Ok(Found {
        method: "closed-form",
        result: result.map_err(Some),
        nullity,
        kernel: Kernel::Ready(kernel),
    })
}

/// `auto` for a two-state game: the closed forms, elimination, or light chasing where it
/// applies (the chaser built to find out is the one used).
fn auto(game: &Game, board: &Board, t: &mut Phases) -> anyhow::Result<Found> {
    match game.pattern {
        Pattern::Alien | Pattern::GaleBerlekamp => closed_form(game, board),
        _ if game.num_moves() <= AUTO_GAUSS_MOVES => gauss(game, board),
        _ => match Chaser::new(game) {
            Ok(c) => {
                t.mark("prepare");
                chase_with(c, game, board, t)
            }
            Err(_) => gauss(game, board),
        },
    }
}

fn sweep(game: &Game, board: &Board, method: Method, t: &mut Phases) -> anyhow::Result<Found> {
    if game.pattern != Pattern::Squares || game.torus {
        anyhow::bail!(
            "--method {} is not available for {game}: expected a plain squares game",
            method.name()
        );
    }
    let swept = if method == Method::OneWay {
        squares_one_way(board)
    } else {
        squares_two_way(board)
    };
    let decided = auto(game, board, t)?;
    match (swept, decided.result) {
        (Some(x), Ok(_)) => Ok(Found {
            method: method.name(),
            result: Ok(x),
            ..decided
        }),
        (None, Err(cert)) => Ok(Found {
            result: Err(cert),
            ..decided
        }),
        (None, Ok(_)) => anyhow::bail!(
            "the {} sweep leaves lights on for this {}x{} board, which is solvable \
             (try --method auto)",
            method.name(),
            game.rows,
            game.cols
        ),
        (Some(_), Err(_)) => unreachable!("a sweep that clears the board solved it"),
    }
}

fn find(game: &Game, board: &Board, method: Method, t: &mut Phases) -> anyhow::Result<Found> {
    match method {
        Method::Auto => auto(game, board, t),
        Method::Gauss => gauss(game, board),
        Method::Chase => chase(game, board, t),
        Method::ClosedForm => closed_form(game, board),
        Method::OneWay | Method::TwoWay => sweep(game, board, method, t),
        Method::Decompose => anyhow::bail!(
            "--method decompose is not available for two-state games: expected --states Q \
             with Q > 2 (with two states there is one layer, the plain elimination of \
             --method gauss)"
        ),
    }
}

/// Runs a shortest search with a progress bar on stderr when `progress` is allowed and stderr
/// is a terminal.
fn with_progress_bar<T>(progress: bool, search: impl FnOnce(Progress<'_>) -> T) -> T {
    let bar = (progress && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(1000);
        bar.set_style(
            indicatif::ProgressStyle::with_template("shortest search {bar:40} {percent}% {eta}")
                .expect("a valid template"),
        );
        bar
    });
    let report = |done: u64, total: u64| {
        if let Some(b) = &bar {
            b.set_position(done.saturating_mul(1000) / total.max(1));
        }
    };
    let out = search(bar.as_ref().map(|_| &report as _));
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    out
}

/// Solves the board `text` of `game` (either number of states) by `method`, with the shortest
/// search within `limits` when `shortest`; `progress` allows a progress bar on stderr when it
/// is a terminal.
pub fn solve(
    game: &Game,
    text: &str,
    method: Method,
    shortest: Option<&Limits>,
    progress: bool,
) -> anyhow::Result<Outcome> {
    solve_timed(
        game,
        text,
        method,
        shortest,
        progress,
        &mut Phases::new(false),
    )
}

/// [`solve`], recording the time of each phase in `t`.
pub fn solve_timed(
    game: &Game,
    text: &str,
    method: Method,
    shortest: Option<&Limits>,
    progress: bool,
    t: &mut Phases,
) -> anyhow::Result<Outcome> {
    if game.states != 2 {
        return solve_q_state(game, text, method, shortest.is_some(), progress, t);
    }
    let board = Board::parse(text)?;
    game.check_board(&board)?;
    t.mark("parse");
    let found = find(game, &board, method, t)?;
    t.mark("solve");
    let x = match found.result {
        Ok(x) => x,
        Err(cert) => {
            return Ok(Outcome {
                method: found.method,
                presses: None,
                optimal: false,
                solutions: None,
                search: None,
                certificate: cert.map(|y| (y.to_string(), draw_bits(&y, game.rows, game.cols))),
            });
        }
    };
    // Check the answer against the board: a wrong press list never leaves this command.
    let made = match game.pattern.stencil() {
        Some(_) => tilecode::game::chase::effect(game, &x)?,
        None => game.effect(&x),
    };
    if made != board {
        anyhow::bail!("internal error: the presses found do not solve the board");
    }
    t.mark("verify");
    let solutions = (BigUint::one() << found.nullity).to_string();
    let (x, optimal, search) = if let Some(limits) = shortest {
        let best = with_progress_bar(progress, |progress| {
            anyhow::Ok(if game.pattern == Pattern::Alien {
                shortest::alien_shortest_with(&board, limits, progress)
                    .expect("the board was solved, so it is solvable")
            } else {
                shortest::shortest_by_kernel_with(&x, &found.kernel.vectors(), limits, progress)?
            })
        })?;
        (
            best.presses,
            best.optimal,
            Some((best.method, best.lower_bound)),
        )
    } else {
        // A unique solution is trivially the shortest.
        (x, found.nullity == 0, None)
    };
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
    Ok(Outcome {
        method: found.method,
        presses: Some((value, drawing, count)),
        optimal,
        solutions: Some(solutions),
        search,
        certificate: None,
    })
}

fn solve_q_state(
    game: &Game,
    text: &str,
    method: Method,
    want_shortest: bool,
    progress: bool,
    t: &mut Phases,
) -> anyhow::Result<Outcome> {
    let board = QBoard::parse(text, game.states)?;
    t.mark("parse");
    if !matches!(
        method,
        Method::Auto | Method::Gauss | Method::Decompose | Method::Chase
    ) {
        anyhow::bail!(
            "--method {} is not available with {} states: expected auto, gauss, chase or \
             decompose",
            method.name(),
            game.states
        );
    }
    let past_elimination = game.num_cells() + game.num_moves() > MAX_Q_SIZE;
    // `--shortest` needs the quiet patterns, which packed elimination gives past the Smith
    // normal form's limit.
    let packed = packed_applies(game.states as u64);
    if method == Method::Chase
        || (method == Method::Auto
            && past_elimination
            && qchase::applies(game)
            && !(want_shortest && packed))
    {
        if want_shortest {
            anyhow::bail!(
                "--shortest with {} states needs the quiet patterns of an elimination: \
                 expected cells + moves <= {MAX_Q_SIZE}, found {} (or a square-free number of \
                 states, without --method chase)",
                game.states,
                game.num_cells() + game.num_moves()
            );
        }
        return chase_q_state(game, &board, t);
    }
    if past_elimination && !packed && matches!(method, Method::Auto | Method::Decompose) {
        if want_shortest {
            anyhow::bail!(
                "--shortest with {} states needs the quiet patterns of the Smith normal form: \
                 expected cells + moves <= {MAX_Q_SIZE}, found {} (without --shortest the \
                 board is solved by decomposition)",
                game.states,
                game.num_cells() + game.num_moves()
            );
        }
        return decompose_q_state(game, &board, t);
    }
    let solver = QSolver::new(game)?;
    let q = game.states;
    let unique = solver.solutions_per_board() == BigUint::one();
    let mut direct = solver.try_solve(&board)?;
    if method == Method::Decompose {
        direct = match (decompose::solve(game, &board)?, direct) {
            (Some(d), Ok(_)) => Ok(d.presses),
            // The decomposition proves unsolvability; the Smith normal form gives the
            // certificate.
            (None, Err(w)) => Err(w),
            _ => anyhow::bail!(
                "internal error: the decomposition and the Smith normal form disagree on \
                 whether this board is solvable"
            ),
        };
    }
    let name = if method == Method::Decompose {
        "decompose"
    } else {
        "gauss"
    };
    let solved = match direct {
        Ok(x) if want_shortest => {
            let best =
                with_progress_bar(progress, |progress| shortest_q(&solver, &board, progress))?
                    .expect("the board was solved, so it is solvable");
            debug_assert!(best.clicks() <= x.iter().map(|&v| v as u64).sum());
            let search = Some((best.method, best.lower_bound as usize));
            Ok((best.presses, best.optimal, search))
        }
        // A unique solution is trivially the shortest.
        Ok(x) => Ok((x, unique, None)),
        Err(w) => Err(w),
    };
    Ok(match solved {
        Ok((x, optimal, search)) => Outcome {
            method: name,
            presses: Some(q_presses(game, &x)),
            optimal,
            solutions: Some(solver.solutions_per_board().to_string()),
            search,
            certificate: None,
        },
        Err(w) => Outcome {
            method: name,
            presses: None,
            optimal: false,
            solutions: None,
            search: None,
            certificate: Some((
                values_string(&w, q),
                draw_values(&w, game.rows, game.cols, q),
            )),
        },
    })
}

/// q-state presses as a JSON value (counts per row and column for Gale–Berlekamp), their
/// drawing and their number of clicks.
fn q_presses(game: &Game, x: &[u32]) -> (Value, String, u64) {
    let count: u64 = x.iter().map(|&v| v as u64).sum();
    if game.pattern == Pattern::GaleBerlekamp {
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
            Value::String(values_string(x, game.states)),
            draw_values(x, game.rows, game.cols, game.states),
            count,
        )
    }
}

/// True when `x` brings `board` to zero.
fn solves_q(game: &Game, board: &QBoard, x: &[u32]) -> bool {
    let q = game.states;
    let made = effect_q(game, x);
    made.cells()
        .iter()
        .zip(board.cells())
        .all(|(m, b)| (m + b) % q == 0)
}

/// A q-state board past the Smith normal form's limit by decomposition (packed elimination
/// mod each prime, layer by layer); the answer is checked against the board. An unsolvable
/// board has no certificate here (that needs the Smith normal form), and the number of
/// solutions is known when the layers tell it ([`decompose::Decomposition::solutions`]).
fn decompose_q_state(game: &Game, board: &QBoard, t: &mut Phases) -> anyhow::Result<Outcome> {
    decompose::check(game)?;
    let found = decompose::solve(game, board)?;
    t.mark("solve");
    let Some(d) = found else {
        return Ok(Outcome {
            method: "decompose",
            presses: None,
            optimal: false,
            solutions: None,
            search: None,
            certificate: None,
        });
    };
    if !solves_q(game, board, &d.presses) {
        anyhow::bail!("internal error: the presses found do not solve the board");
    }
    t.mark("verify");
    Ok(Outcome {
        method: "decompose",
        presses: Some(q_presses(game, &d.presses)),
        optimal: d.unique(),
        solutions: d.solutions().map(|n| n.to_string()),
        search: None,
        certificate: None,
    })
}

/// A q-state board by light chasing over `Z/QZ`; the answer is checked against the board.
fn chase_q_state(game: &Game, board: &QBoard, t: &mut Phases) -> anyhow::Result<Outcome> {
    let c = QChaser::new(game)?;
    let solutions = c.solutions_per_board();
    t.mark("prepare");
    let solved = c.solve(board)?;
    t.mark("chase");
    let Some(x) = solved else {
        return Ok(Outcome {
            method: "chase",
            presses: None,
            optimal: false,
            solutions: None,
            search: None,
            certificate: None,
        });
    };
    if !solves_q(game, board, &x) {
        anyhow::bail!("internal error: the presses found do not solve the board");
    }
    t.mark("verify");
    Ok(Outcome {
        method: "chase",
        presses: Some(q_presses(game, &x)),
        optimal: solutions == BigUint::one(),
        solutions: Some(solutions.to_string()),
        search: None,
        certificate: None,
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

/// The JSON object of `tilecode solve --json`: the keys docs/cli.md lists.
pub fn outcome_json(game: &Game, o: &Outcome) -> Value {
    let mut m = Map::new();
    m.insert("game".into(), Value::String(game.spec()));
    m.insert("torus".into(), Value::Bool(game.torus));
    m.insert("states".into(), json!(game.states));
    m.insert("solvable".into(), Value::Bool(o.presses.is_some()));
    m.insert("method".into(), Value::String(o.method.into()));
    let (presses, count) = match &o.presses {
        Some((v, _, c)) => (v.clone(), json!(c)),
        None => (Value::Null, Value::Null),
    };
    m.insert("presses".into(), presses);
    m.insert("press_count".into(), count);
    m.insert("optimal".into(), Value::Bool(o.optimal));
    let (search, bound) = match o.search {
        Some((name, bound)) => (Value::String(name.into()), json!(bound)),
        None => (Value::Null, Value::Null),
    };
    m.insert("search".into(), search);
    m.insert("lower_bound".into(), bound);
    m.insert(
        "solutions".into(),
        o.solutions.as_ref().map_or(Value::Null, json_int),
    );
    m.insert(
        "certificate".into(),
        o.certificate
            .as_ref()
            .map_or(Value::Null, |(s, _)| Value::String(s.clone())),
    );
    Value::Object(m)
}

fn print(out: &mut String, game: &Game, o: &Outcome) -> std::fmt::Result {
    match (&o.presses, &o.certificate) {
        (Some((_, drawing, count)), _) => {
            let sols = o.solutions.as_deref().unwrap_or("?");
            let note = match (o.optimal, o.search) {
                (true, Some((search, _))) => {
                    format!("proven minimal by {search}, one of {sols} solutions")
                }
                (true, None) => "the only solution".to_string(),
                (false, Some((search, bound))) => format!(
                    "best found by {search}, not proven minimal: every solution has at least \
                     {bound} presses"
                ),
                (false, None) if o.solutions.is_none() => "one of several solutions, \
                    not proven minimal; counting them needs the Smith normal form"
                    .to_string(),
                (false, None) => format!("one of {sols} solutions, not proven minimal"),
            };
            writeln!(
                out,
                "{game}: solvable with {count} presses ({note}; method {})",
                o.method
            )?;
            write!(out, "{drawing}")?;
        }
        (None, Some((_, drawing))) => {
            writeln!(out, "{game}: not solvable")?;
            if game.states == 2 {
                writeln!(
                    out,
                    "certificate: the marked cells meet every move an even number of times and \
                     the board an odd number of times:"
                )?;
            } else {
                writeln!(
                    out,
                    "certificate: these cell weights sum to 0 mod {q} over every move's cells and \
                     to a nonzero value over the board:",
                    q = game.states
                )?;
            }
            write!(out, "{drawing}")?;
        }
        (None, None) => {
            writeln!(out, "{game}: not solvable")?;
            let how = if o.method == "decompose" {
                "the decomposition proved it; the certificate needs the Smith normal form, \
                 limited to cells + moves <= 2048"
            } else {
                "light chasing proved it; the board is too large for an elimination certificate"
            };
            writeln!(out, "({how})")?;
        }
    }
    Ok(())
}
