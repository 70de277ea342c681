#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod code;
pub mod cpu;
pub mod error;
pub mod game;
pub mod gf2;
pub mod noise;
pub mod sim;
pub mod slice;
pub mod stream;

pub use error::{Error, Result};
