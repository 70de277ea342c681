//! Channels, Monte Carlo and exact error rates, throughput measurement.
//!
//! * [`channel`]: the binary symmetric, burst and Gilbert–Elliott channels, sampled by geometric
//!   skips (the crate's one sampler, [`crate::noise::Geometric`]); the binary erasure channel;
//!   BPSK over AWGN;
//! * [`kernel`]: the simulator's view of the one bit-sliced kernel layer
//!   ([`crate::slice::kernel`], [`crate::slice::locate`]): 64 codewords per `u64`, in the
//!   container's row order;
//! * [`engine`]: the seeded, thread-count-independent Monte Carlo loop;
//! * [`chacha`]: its random streams (ChaCha8, sixteen blocks a refill);
//! * [`monitor`]: what the engine counts and its AFF3CT-style stop rules, read by [`report`]
//!   (engine -> monitor <- report: the report never reads the engine);
//! * [`point`]: a simulator's points, the glue that runs the engine and fills a report;
//! * [`scratch`]: the reusable buffers of one worker, for the engine and the soft path;
//! * [`soft`]: the engine's soft-decision path (AWGN, erasures), one codeword at a time;
//! * [`exact`]: exact frame rates on the binary symmetric channel;
//! * [`analytic`]: uncoded BPSK, the union bound, ML erasure rates;
//! * [`normal`]: the normal tail `Q`, erfc, and conditioned normal draws;
//! * [`report`]: the figures of a point, their JSON form, merging runs;
//! * [`stats`]: Wilson intervals, and a BER interval that allows for errors clustered in frames;
//! * [`sweep`]: lists and ranges of swept probabilities and Eb/N0 values;
//! * [`team`]: resuming runs, and runs shared by cooperating processes (MPI ranks).

pub mod analytic;
pub mod bernoulli;
pub mod chacha;
pub mod channel;
pub mod engine;
pub mod exact;
pub mod kernel;
pub mod monitor;
pub mod normal;
pub mod point;
pub mod report;
pub mod scratch;
pub mod soft;
pub mod stats;
pub mod sweep;
pub mod team;

pub use analytic::{Analytic, ErasureModel};
pub use channel::{Channel, ChannelSpec, Geometric, Sampler};
pub use engine::{Engine, Simulator};
pub use exact::{ExactModel, ExactRates};
pub use kernel::{KernelScratch, SlicedCode};
pub use monitor::{Counts, Run, StopReason, StopRule};
pub use report::{PointResult, merge, parse_results, results_json};
pub use scratch::Scratch;
pub use sweep::{parse_db_list, parse_p_list};
pub use team::{Progress, Solo, Team};
