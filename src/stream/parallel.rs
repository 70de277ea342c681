//! The codec's threads: a fixed set of workers that runs a batch of independent jobs (whole
//! chunks to encode or decode, byte ranges of the recovery shards) and hands their results
//! back in order, so that everything after them runs on one thread exactly as it would
//! without workers. The output is thereby the same for every thread count.
//!
//! With `N` threads a pool of `N` threads runs the jobs (a caller outside the pool waits;
//! one inside it, see [`Workers::install`], takes jobs too), taking them as
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

/// Chunks each of several threads takes in one batch of the decoder when chunks are small
/// (at most [`SMALL_CHUNK`] bytes, as at `D = 64`): twice [`CHUNKS_PER_THREAD`], so that the
/// pool is woken and waited for half as often per byte. (The encoder's batches are longer:
/// [`Workers::encode_batch_of`].) On 2 threads, 16-chunk batches encoded 256 MiB in 0.129 s
/// against 0.151 s for 8 (2 % recovery, medians of 5 alternated runs), when the encoder
/// still used them. One thread keeps batches of 4: its recovery coder takes a batch after
/// coding it, and 8 chunks no longer fit its cache (0.155 s against 0.134 s).
pub const SMALL_CHUNKS_PER_THREAD: usize = 8;

/// The largest chunk (encoded, in bytes) that [`SMALL_CHUNKS_PER_THREAD`] applies to, so
/// that the larger batches take at most 4 MiB a thread.
pub const SMALL_CHUNK: usize = 512 << 10;

/// Encoded bytes each of several threads takes in one batch of the encoder
/// ([`Workers::encode_batch_of`]): 33 chunks of `alien:9x9` at `D = 64`. Jobs of a few chunks
/// go to whichever thread is free ([`Workers::run_with`]), so a longer batch wakes the pool
/// less often per byte and leaves a thread idle at its end for a smaller share of it: on 2
/// threads with 2 % recovery, encode went from 0.62 / 0.68 of memcpy with 4 MiB (16 chunks)
/// a thread to 0.64 / 0.70 (`alien:9x9` / `secded:72`, medians of 5 alternated `tilecode
/// bench` rounds).
pub const ENCODE_BYTES_PER_THREAD: usize = 8 << 20;

/// The most encoded bytes one batch of the encoder takes, whatever the thread count: 8
/// threads' worth of [`ENCODE_BYTES_PER_THREAD`].
pub const ENCODE_BATCH_BYTES: usize = 64 << 20;

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

    /// Runs `f` on one of the pool's threads (inline with one thread), so that the batches
    /// it runs ([`Workers::run`]) start on the thread that asks for them while the others
    /// take jobs from it, and end without waking a caller outside the pool. The in-memory
    /// encoder and decoder run whole this way: on 2 threads their batches are short (3 MiB
    /// for the decoder), and the hand-over to and from a caller outside the pool cost
    /// clean decode about 5 % (`alien:9x9` / `secded:72` without recovery, `tilecode bench`:
    /// 0.78 / 0.82 against 0.825 / 0.86 of memcpy, medians of 4 alternated rounds).
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    /// Runs `a` and `b` side by side on the pool, `a` on the calling thread and `b` for
    /// another to take (one after the other with one thread), and returns both results.
    /// Jobs that `b` runs on the pool ([`Workers::run`]) are taken by the thread that ran
    /// `a` once it is done, so the two share the threads rather than adding one: the CLI
    /// reads the next buffer of its input as `a` while the encoder encodes the current one.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        match &self.pool {
            Some(p) => p.install(|| rayon::join(a, b)),
            None => (a(), b()),
        }
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

    /// Chunks of `bytes` bytes each (encoded) in one batch of the encoder: on several
    /// threads, [`ENCODE_BYTES_PER_THREAD`] of them a thread (at least
    /// [`CHUNKS_PER_THREAD`]) and at most [`ENCODE_BATCH_BYTES`] in all; on one thread
    /// [`Workers::batch_of`].
    pub fn encode_batch_of(&self, bytes: usize) -> usize {
        if self.threads == 1 {
            return self.batch_of(bytes);
        }
        let bytes = bytes.max(1);
        let per_thread = (ENCODE_BYTES_PER_THREAD / bytes).max(CHUNKS_PER_THREAD);
        (per_thread * self.threads)
            .min(ENCODE_BATCH_BYTES / bytes)
            .max(1)
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
        let mut states = vec![(); self.threads];
        self.run_with(
            &mut states,
            jobs.into_iter().map(|j| move |_: &mut ()| j()).collect(),
        )
    }

    /// Runs every job on the pool as [`Workers::run`] does, each with exclusive use of the
    /// state of the thread that runs it (`states` holds one per thread, at least
    /// [`Workers::threads`]). Jobs go to whichever thread is free, so which state a job gets
    /// varies from run to run: callers use states whose end result does not depend on it
    /// (sums, as the encoder's recovery accumulators).
    ///
    /// # Panics
    /// When `states` has fewer than [`Workers::threads`] states, or a job panics.
    pub fn run_with<S, J, T>(&self, states: &mut [S], jobs: Vec<J>) -> Vec<T>
    where
        S: Send,
        J: FnOnce(&mut S) -> T + Send,
        T: Send,
    {
        assert!(states.len() >= self.threads, "a state per thread");
        let Some(pool) = self.pool.as_ref().filter(|_| jobs.len() > 1) else {
            return jobs.into_iter().map(|j| j(&mut states[0])).collect();
        };
        use rayon::prelude::*;
        let states: Vec<Mutex<&mut S>> = states.iter_mut().map(Mutex::new).collect();
        pool.install(|| {
            jobs.into_par_iter()
                .map(|job| {
                    let i = rayon::current_thread_index().expect("a job runs on the pool");
                    // Uncontended: a thread runs one job at a time (jobs do not call into
                    // the pool), and each thread has its own state.
                    job(&mut lock(&states[i]))
                })
                .collect()
        })
    }
}

/// Locks a mutex, taking it over from a thread that panicked (the panic itself reaches the
/// caller through the pool).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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
                    .start_handler(move |i| pin(i, n))
                    .build()
                    .expect("the codec's threads start"),
            )
        })
        .clone()
}

/// Whether the codec's threads are pinned: unless the environment sets `TILECODE_PIN=0`.
fn pinning() -> bool {
    std::env::var_os("TILECODE_PIN").is_none_or(|v| v != "0")
}

/// Pins thread `i` of a pool of `n` to the `i`-th CPU the process may run on, when it may
/// run on at least `n` (else the threads stay free to move, and so do they with
/// `TILECODE_PIN=0`).
///
/// Why: on a 2-vCPU virtual machine, a batch woke both threads of a free pool but one of
/// them often did not run before the other had done the whole batch (in 41-52 of the 140
/// batches of five 256 MiB `alien:9x9` encodes), apparently queued behind its sibling on
/// one CPU while the other stayed idle; pinned, none did, and the five encodes took 87-90 ms
/// against 108-111 ms (docs/benchmarks.md).
#[cfg(target_os = "linux")]
fn pin(i: usize, n: usize) {
    if !pinning() {
        return;
    }
    let Some(cpus) = allowed_cpus().filter(|c| c.len() >= n) else {
        return;
    };
    // SAFETY: `cpu_set_t` is a plain bit array, valid when zeroed; the call reads only the
    // set passed with its size, for the calling thread (pid 0).
    unsafe {
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpus[i], &mut one);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one);
    }
}

/// The CPUs the calling thread may run on, in increasing order (`None` when the kernel does
/// not say).
#[cfg(target_os = "linux")]
fn allowed_cpus() -> Option<Vec<usize>> {
    // SAFETY: `cpu_set_t` is a plain bit array, valid when zeroed; the kernel writes only
    // the set passed with its size, for the calling thread (pid 0).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        Some(
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .collect(),
        )
    }
}

/// Pinning is done on Linux only.
#[cfg(not(target_os = "linux"))]
fn pin(_: usize, _: usize) {
    let _ = pinning;
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
    fn installed_work_runs_on_the_pool_and_its_batches_too() {
        for threads in [1, 2, 3] {
            let w = Workers::new(threads);
            let (on_pool, squares) = w.install(|| {
                let jobs: Vec<_> = (0..9u64)
                    .map(|i| move || (rayon::current_thread_index().is_some(), i * i))
                    .collect();
                (rayon::current_thread_index().is_some(), w.run(jobs))
            });
            assert_eq!(on_pool, threads > 1);
            assert!(squares.iter().all(|&(p, _)| p == (threads > 1)));
            let squares: Vec<u64> = squares.into_iter().map(|(_, s)| s).collect();
            assert_eq!(squares, (0..9).map(|i| i * i).collect::<Vec<_>>());
        }
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
        // The encoder's: 8 MiB a thread, at most 64 MiB, at least 4 chunks a thread.
        assert_eq!(two.encode_batch_of(250_000), 2 * 33);
        assert_eq!(two.encode_batch_of(4 << 20), 2 * CHUNKS_PER_THREAD);
        assert_eq!(many.encode_batch_of(250_000), (64 << 20) / 250_000);
        assert_eq!(two.encode_batch_of(1 << 30), 1);
        assert_eq!(Workers::new(1).encode_batch_of(10), CHUNKS_PER_THREAD);
    }

    #[test]
    fn every_job_runs_once_with_a_state_of_its_own() {
        for threads in [1, 2, 3] {
            let w = Workers::new(threads);
            // Each state counts the jobs its thread ran and sums their numbers; a job sees
            // its state unshared for its whole run (the check-and-restore would fail
            // otherwise).
            let mut states = vec![(0u64, 0u64); threads];
            let jobs: Vec<_> = (0..40u64)
                .map(|i| {
                    move |s: &mut (u64, u64)| {
                        let before = *s;
                        std::thread::yield_now();
                        assert_eq!(*s, before, "a state is one thread's");
                        s.0 += 1;
                        s.1 += i;
                        i * 3
                    }
                })
                .collect();
            let out = w.run_with(&mut states, jobs);
            assert_eq!(out, (0..40).map(|i| i * 3).collect::<Vec<_>>());
            assert_eq!(states.iter().map(|s| s.0).sum::<u64>(), 40);
            assert_eq!(
                states.iter().map(|s| s.1).sum::<u64>(),
                (0..40u64).sum::<u64>()
            );
        }
    }

    #[test]
    #[should_panic(expected = "job 5 fails")]
    fn a_panicking_job_reaches_the_caller() {
        let jobs: Vec<_> = (0..8)
            .map(|i| move || assert!(i != 5, "job {i} fails"))
            .collect();
        Workers::new(2).run(jobs);
    }

    /// With at least as many CPUs as threads, each thread of a pool runs on one CPU, a
    /// different one per thread (unless `TILECODE_PIN=0`).
    #[cfg(target_os = "linux")]
    #[test]
    fn threads_are_pinned_to_distinct_cpus() {
        let cpus = || allowed_cpus().expect("the kernel names the allowed CPUs");
        let n = cpus().len().min(4);
        if n < 2 || !pinning() {
            return;
        }
        let w = Workers::new(n);
        let mut states = vec![None; n];
        let jobs: Vec<_> = (0..4 * n)
            .map(|_| {
                |s: &mut Option<Vec<usize>>| {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    *s = Some(cpus());
                }
            })
            .collect();
        w.run_with(&mut states, jobs);
        let mut seen: Vec<usize> = Vec::new();
        for c in states.into_iter().flatten() {
            assert_eq!(c.len(), 1, "one CPU per thread: {c:?}");
            assert!(!seen.contains(&c[0]), "distinct CPUs");
            seen.push(c[0]);
        }
    }
}
