//! Switching games: boards, toggle patterns and their solvers.

pub mod alien;
mod board;

pub use board::Board;
