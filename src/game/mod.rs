//! Switching games: boards, toggle patterns and their solvers.

pub mod alien;
mod board;
pub mod chase;
pub mod pattern;
pub mod shortest;

pub use board::Board;
pub use pattern::{Game, Pattern, Stencil};
