//! Runs that stop and go on, and runs shared by cooperating processes.
//!
//! A run's state between rounds is a [`Progress`]: the counts so far, the next batch and the
//! round number. Since batch `i` always draws from random stream `i` and the round sizes depend
//! on the round number alone, a run resumed from a saved `Progress` goes on exactly as if it had
//! never stopped.
//!
//! A [`Team`] is a set of processes (MPI ranks) that run one simulation together: in every round
//! member `r` of `N` runs the batches `i` with `i mod N = r`, the counts are summed across the
//! team, and every member applies the stop rule to the same sums (and to the team's largest
//! elapsed time), so all stop together, with the counts one process alone would have found.

use super::monitor::Counts;

/// Where a run stands between two rounds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// Everything counted so far.
    pub counts: Counts,
    /// The first batch of the next round.
    pub next_batch: u64,
    /// The number of rounds done.
    pub round: u32,
    /// Seconds spent so far (before this process started, when resumed).
    pub seconds: f64,
}

/// Processes that share a run's batches.
pub trait Team {
    /// This member's index, `0..size()`.
    fn rank(&self) -> usize;
    /// The number of members.
    fn size(&self) -> usize;
    /// The sum of every member's `counts`, known to every member.
    fn sum(&self, counts: Counts) -> Counts;
    /// The largest of every member's `x`, known to every member.
    fn max(&self, x: f64) -> f64;
}

/// A team of one: this process runs every batch.
#[derive(Clone, Copy, Debug, Default)]
pub struct Solo;

impl Team for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn sum(&self, counts: Counts) -> Counts {
        counts
    }
    fn max(&self, x: f64) -> f64 {
        x
    }
}

impl Counts {
    /// The counts as eight 64-bit words (`bit_errors_sq` in two), for sending between
    /// processes.
    pub fn to_words(&self) -> [u64; 8] {
        [
            self.frames,
            self.frame_errors,
            self.detected_frames,
            self.miscorrected_frames,
            self.bit_errors,
            self.bit_errors_sq as u64,
            (self.bit_errors_sq >> 64) as u64,
            self.channel_bit_errors,
        ]
    }

    /// The counts back from [`Counts::to_words`].
    pub fn from_words(w: [u64; 8]) -> Counts {
        Counts {
            frames: w[0],
            frame_errors: w[1],
            detected_frames: w[2],
            miscorrected_frames: w[3],
            bit_errors: w[4],
            bit_errors_sq: u128::from(w[5]) | (u128::from(w[6]) << 64),
            channel_bit_errors: w[7],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;
    use crate::sim::{Channel, Engine, Run, Simulator, StopRule};
    use std::sync::{Barrier, Mutex};

    /// A team of threads in one process, summing through shared slots: what MPI's allreduce
    /// does between processes.
    struct Threads {
        barrier: Barrier,
        counts: Mutex<Vec<Counts>>,
        times: Mutex<Vec<f64>>,
    }

    struct Member<'a>(&'a Threads, usize);

    impl Team for Member<'_> {
        fn rank(&self) -> usize {
            self.1
        }
        fn size(&self) -> usize {
            self.0.counts.lock().unwrap().len()
        }
        fn sum(&self, counts: Counts) -> Counts {
            self.0.counts.lock().unwrap()[self.1] = counts;
            self.0.barrier.wait();
            let total = self
                .0
                .counts
                .lock()
                .unwrap()
                .iter()
                .fold(Counts::default(), |a, &b| a + b);
            self.0.barrier.wait();
            total
        }
        fn max(&self, x: f64) -> f64 {
            self.0.times.lock().unwrap()[self.1] = x;
            self.0.barrier.wait();
            let m = self
                .0
                .times
                .lock()
                .unwrap()
                .iter()
                .copied()
                .fold(0.0, f64::max);
            self.0.barrier.wait();
            m
        }
    }

    #[test]
    fn words_round_trip() {
        let c = Counts {
            frames: 1,
            frame_errors: 2,
            detected_frames: 3,
            miscorrected_frames: 4,
            bit_errors: 5,
            bit_errors_sq: (7u128 << 64) | 6,
            channel_bit_errors: 8,
        };
        assert_eq!(Counts::from_words(c.to_words()), c);
    }

    #[test]
    fn a_team_counts_what_one_process_counts_and_resuming_changes_nothing() {
        let code = from_spec_str("alien:5x5").unwrap();
        let sim = Simulator::new(
            code.as_ref(),
            Channel::Bsc { p: 0.03 },
            1,
            9,
            Engine::Sliced,
        )
        .unwrap();
        for stop in [
            StopRule {
                min_frame_errors: 0,
                max_frames: 50_001,
                max_seconds: 0.0,
            },
            StopRule {
                min_frame_errors: 700,
                max_frames: 0,
                max_seconds: 0.0,
            },
        ] {
            let solo = sim.run(&stop, 1).unwrap();
            for size in [2, 3] {
                let t = Threads {
                    barrier: Barrier::new(size),
                    counts: Mutex::new(vec![Counts::default(); size]),
                    times: Mutex::new(vec![0.0; size]),
                };
                let runs: Vec<Run> = std::thread::scope(|s| {
                    let hs: Vec<_> = (0..size)
                        .map(|r| {
                            let (t, sim) = (&t, &sim);
                            s.spawn(move || {
                                sim.run_with(
                                    &stop,
                                    1,
                                    Progress::default(),
                                    &Member(t, r),
                                    &mut |_| Ok(()),
                                )
                                .unwrap()
                                .0
                            })
                        })
                        .collect();
                    hs.into_iter().map(|h| h.join().unwrap()).collect()
                });
                for r in runs {
                    assert_eq!(r.counts, solo.counts, "team of {size}");
                    assert_eq!(r.stop_reason, solo.stop_reason);
                }
            }
            // Stopped after a few rounds and resumed from there: the same counts.
            let mut saved = None;
            let cut = sim.run_with(&stop, 1, Progress::default(), &Solo, &mut |p| {
                if p.round == 5 {
                    saved = Some(*p);
                    return Err(crate::error::Error::Limit {
                        what: "test".into(),
                        reason: "stop".into(),
                    });
                }
                Ok(())
            });
            assert!(cut.is_err());
            let resumed = sim
                .run_with(&stop, 2, saved.unwrap(), &Solo, &mut |_| Ok(()))
                .unwrap()
                .0;
            assert_eq!(resumed.counts, solo.counts);
        }
    }
}
