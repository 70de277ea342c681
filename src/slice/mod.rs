//! The bit-sliced layer that the container codec ([`crate::stream`]) and the simulator
//! ([`crate::sim`]) both run on: `64 B` codewords per block of `B` 64-bit words, row `p` of a
//! group holding bit `p` of every codeword.
//!
//! * [`kernel`]: each family's parity rows from its data rows (the plan of XOR sums), compiled
//!   portable and for AVX2, with hand-written AVX2 paths for the common codes at one word per
//!   row;
//! * [`locate`]: the per-lane decision for a codeword whose syndrome is not zero (single-error
//!   table, the code's decoder, a memo for the simulator), written once;
//! * [`prefetch`]: the hints that bring a group stream's lines in ahead of the kernels.
//!
//! What a new code family must add is in `docs/architecture.md`.

pub mod kernel;
pub mod locate;
pub mod prefetch;
