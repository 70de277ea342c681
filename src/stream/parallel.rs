//! The codec's threads: a fixed set of workers that runs a batch of independent jobs (whole
//! chunks to encode or decode, byte ranges of the recovery shards) and hands their results
//! back in order, so that everything after them runs on one thread exactly as it would
//! without workers. The output is thereby the same for every thread count.
//!
//! With `N` threads a pool of `N` threads runs the jobs (the caller waits), taking them as
//! they come free, so that a batch is cut into more jobs than threads
//! ([`Workers::parts`]): on a busy machine a thread that is not scheduled holds up at most
//! one small job, which another takes over instead of waiting. One thread runs everything
//! inline, with no pool at all. Pools are made once per process and thread count, and
//! shared.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Chunks each thread takes in one batch: the batch is `CHUNKS_PER_THREAD * threads` chunks
/// (one thread: the recovery coder's batch of four, as before threads).
pub const CHUNKS_PER_THREAD: usize = 4;

/// Chunks each of several threads takes in one batch when chunks are small (at most
/// [`SMALL_CHUNK`] bytes, as at `D = 64`): twice [`CHUNKS_PER_THREAD`], so that the pool is
/// woken and waited for half as often per byte. Each wake-up costs tens of microseconds on
/// a virtual machine, against about 110 for a batch of 8 chunks of `alien:9x9` on 2 threads;
/// on 2 threads, 16-chunk batches encoded 256 MiB in 0.129 s against 0.151 s (2 % recovery,
/// medians of 5 alternated runs). One thread keeps batches of 4: its recovery coder takes a
/// batch after coding it, and 8 chunks no longer fit its cache (0.155 s against 0.134 s).
pub const SMALL_CHUNKS_PER_THREAD: usize = 8;

/// The largest chunk (encoded, in bytes) that [`SMALL_CHUNKS_PER_THREAD`] applies to, so
/// that the larger batches take at most 4 MiB a thread.
pub const SMALL_CHUNK: usize = 512 << 10;

/// The most bytes of chunks one batch takes, whatever the thread count: a stripe's worth
/// (`stripe::MAX_STRIPE_BYTES`), which a decoder holds anyway.
pub const MAX_BATCH_BYTES: usize = 256 << 20;

/// The threads a count asks for: `0` means every core the system offers
/// ([`std::thread::available_parallelism`]); any other count is taken as it is (more threads
/// than cores are allowed).
pub fn resolve(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Runs batches of jobs on a fixed number of threads.
#[derive(Clone)]
pub struct Workers {
    threads: usize,
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workers")
            .field("threads", &self.threads)
            .finish()
    }
}

impl Default for Workers {
    fn default() -> Self {
        Workers::new(1)
    }
}

impl Workers {
    /// Workers for `threads` threads (`0`: every core, as [`resolve`]).
    pub fn new(threads: usize) -> Workers {
        let threads = resolve(threads);
        let pool = (threads > 1).then(|| shared_pool(threads));
        Workers { threads, pool }
    }

    /// The number of threads (the caller's included).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Chunks in one batch: [`CHUNKS_PER_THREAD`] per thread.
    pub fn batch(&self) -> usize {
        CHUNKS_PER_THREAD * self.threads
    }

    /// Chunks of `bytes` bytes each in one batch: [`Workers::batch`] ([`SMALL_CHUNKS_PER_THREAD`]
    /// per thread for chunks of at most [`SMALL_CHUNK`] bytes on several threads), but no
    /// more than fit [`MAX_BATCH_BYTES`] (at least one), so that many threads and large
    /// chunks cannot make a batch, and the memory it takes, unbounded.
    pub fn batch_of(&self, bytes: usize) -> usize {
        let batch = if self.threads > 1 && bytes <= SMALL_CHUNK {
            SMALL_CHUNKS_PER_THREAD * self.threads
        } else {
            self.batch()
        };
        batch.min(MAX_BATCH_BYTES / bytes.max(1)).max(1)
    }

    /// Jobs a batch is cut into: two per thread (one with one thread).
    pub fn parts(&self) -> usize {
        if self.threads > 1 {
            2 * self.threads
        } else {
            1
        }
    }

    /// Runs every job on the pool and returns their results in the order of the jobs.
    pub fn run<J, T>(&self, jobs: Vec<J>) -> Vec<T>
    where
        J: FnOnce() -> T + Send,
        T: Send,
    {
        use rayon::prelude::*;
        match self.pool.as_ref().filter(|_| jobs.len() > 1) {
            Some(pool) => pool.install(|| jobs.into_par_iter().map(|j| j()).collect()),
            None => jobs.into_iter().map(|j| j()).collect(),
        }
    }
}

/// The process's pool of `n` threads.
fn shared_pool(n: usize) -> Arc<rayon::ThreadPool> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    pools
        .entry(n)
        .or_insert_with(|| {
            Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("tilecode-codec-{i}"))
                    .build()
                    .expect("the codec's threads start"),
            )
        })
        .clone()
}

/// Splits `0..len` into at most `parts` consecutive ranges of whole multiples of `align`
/// bytes (the last one takes the rest), none empty.
pub fn ranges(len: usize, parts: usize, align: usize) -> Vec<std::ops::Range<usize>> {
    let units = len.div_ceil(align);
    let parts = parts.clamp(1, units.max(1));
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for p in 0..parts {
        let end = if p + 1 == parts {
            len
        } else {
            ((units * (p + 1) / parts) * align).min(len)
        };
        if end > start {
            out.push(start..end);
        }
        start = end;
    }
    out
}

/// Splits `0..n` items into at most `parts` consecutive runs of nearly equal length, none
/// empty.
pub fn runs(n: usize, parts: usize) -> Vec<std::ops::Range<usize>> {
    ranges(n, parts, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_everything_once() {
        for len in [0usize, 1, 63, 64, 65, 1000, 195_496] {
            for parts in 1..6 {
                let r = ranges(len, parts, 64);
                assert!(r.len() <= parts);
                let mut at = 0;
                for x in &r {
                    assert_eq!(x.start, at);
                    assert!(x.end > x.start);
                    assert!(x.end == len || x.end % 64 == 0, "{len} {parts} {r:?}");
                    at = x.end;
                }
                assert_eq!(at, len);
            }
        }
        assert_eq!(runs(5, 2), vec![0..2, 2..5]);
        assert_eq!(runs(1, 4), vec![0..1]);
    }

    #[test]
    fn jobs_come_back_in_order_on_any_pool() {
        for threads in [1, 2, 3, 5] {
            let w = Workers::new(threads);
            assert_eq!(w.threads(), threads);
            let jobs: Vec<_> = (0..7u64).map(|i| move || i * i).collect();
            assert_eq!(w.run(jobs), vec![0, 1, 4, 9, 16, 25, 36]);
        }
        assert!(Workers::new(0).threads() >= 1);
    }

    #[test]
    fn batches_stay_within_their_byte_cap() {
        let (two, many) = (Workers::new(2), Workers::new(64));
        assert_eq!(two.batch_of(245_000), 16);
        assert_eq!(two.batch_of(SMALL_CHUNK + 1), 8);
        assert_eq!(many.batch_of(245_000), 512);
        assert_eq!(many.batch_of(64 << 20), 4);
        assert_eq!(two.batch_of(1 << 30), 1);
        assert_eq!(Workers::new(1).batch_of(10), CHUNKS_PER_THREAD);
    }
}
