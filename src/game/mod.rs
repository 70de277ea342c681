//! Switching games: boards, toggle patterns and their solvers.

pub mod alien;
mod board;
pub mod chase;
mod chebyshev;
pub mod decompose;
mod gfp;
mod gray;
pub mod hardest;
pub mod pattern;
pub mod qalien;
pub mod qaliencount;
pub mod qchase;
pub mod qshortest;
pub mod qstate;
pub mod shortest;
pub mod solve;
pub mod solver;
pub mod squares;

pub use board::Board;
pub use pattern::{Game, Pattern, Stencil};
pub use qstate::{QBoard, QSolver};
pub use solve::{QuietPattern, Solve};
pub use solver::{PressLayout, Solver, random_solvable, solve_closed_form};
