//! Switching games: boards, toggle patterns and their solvers.

pub mod alien;
mod board;
pub mod pattern;

pub use board::Board;
pub use pattern::{Game, Pattern, Stencil};
