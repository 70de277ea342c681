//! The monitor: what a simulation counts, and when it stops.
//!
//! The engine ([`crate::sim::engine`]) fills [`Counts`] batch by batch and asks its
//! [`StopRule`] between rounds; the report ([`crate::sim::report`]) reads the counts of a
//! finished [`Run`]. Dependencies go that one way, as in AFF3CT: engine -> monitor -> report,
//! and neither the engine nor the monitor knows how a point is reported.

/// Event counts of a simulation; they add up across batches, threads and runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Frames sent.
    pub frames: u64,
    /// Frames in error (`detected_frames + miscorrected_frames`).
    pub frame_errors: u64,
    /// Frames in which the decoder detected an error it could not correct.
    pub detected_frames: u64,
    /// Frames delivered with a wrong message and no detection.
    pub miscorrected_frames: u64,
    /// Wrong message bits delivered.
    pub bit_errors: u64,
    /// Sum over frames of the squared number of wrong message bits (for the BER interval).
    pub bit_errors_sq: u128,
    /// Bits flipped by the channel.
    pub channel_bit_errors: u64,
}

impl std::ops::Add for Counts {
    type Output = Counts;

    /// The sum of two counts.
    fn add(self, o: Counts) -> Counts {
        Counts {
            frames: self.frames + o.frames,
            frame_errors: self.frame_errors + o.frame_errors,
            detected_frames: self.detected_frames + o.detected_frames,
            miscorrected_frames: self.miscorrected_frames + o.miscorrected_frames,
            bit_errors: self.bit_errors + o.bit_errors,
            bit_errors_sq: self.bit_errors_sq + o.bit_errors_sq,
            channel_bit_errors: self.channel_bit_errors + o.channel_bit_errors,
        }
    }
}

/// When to stop simulating a point (checked between rounds of batches, as in AFF3CT).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StopRule {
    /// Stop once this many frame errors are seen (0: no such rule).
    pub min_frame_errors: u64,
    /// Never send more than this many frames (0: no limit). Met exactly.
    pub max_frames: u64,
    /// Stop after this many seconds (0: no limit).
    pub max_seconds: f64,
}

impl Default for StopRule {
    fn default() -> Self {
        StopRule {
            min_frame_errors: 100,
            max_frames: 10_000_000,
            max_seconds: 0.0,
        }
    }
}

impl StopRule {
    /// True when the rule sets no limit at all: a run under it would never stop.
    pub fn is_unbounded(&self) -> bool {
        self.min_frame_errors == 0 && self.max_frames == 0 && self.max_seconds <= 0.0
    }

    /// Why a run that has counted `counts` stops now, if it does: enough frame errors, then
    /// enough frames, then enough time. `seconds` is called only when there is a time limit
    /// and neither count has stopped the run (in a team it is a collective call that every
    /// member makes at the same point).
    pub fn reached(&self, counts: &Counts, seconds: impl FnOnce() -> f64) -> Option<StopReason> {
        if self.min_frame_errors > 0 && counts.frame_errors >= self.min_frame_errors {
            return Some(StopReason::FrameErrors);
        }
        if self.max_frames > 0 && counts.frames >= self.max_frames {
            return Some(StopReason::MaxFrames);
        }
        if self.max_seconds > 0.0 && seconds() >= self.max_seconds {
            return Some(StopReason::MaxSeconds);
        }
        None
    }
}

/// Why a point stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// `min_frame_errors` frame errors were seen.
    FrameErrors,
    /// `max_frames` frames were sent.
    MaxFrames,
    /// `max_seconds` passed.
    MaxSeconds,
}

impl StopReason {
    /// `frame_errors`, `max_frames` or `max_seconds`.
    pub fn as_str(&self) -> &'static str {
        match self {
            StopReason::FrameErrors => "frame_errors",
            StopReason::MaxFrames => "max_frames",
            StopReason::MaxSeconds => "max_seconds",
        }
    }
}

/// The outcome of simulating one point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// What was counted.
    pub counts: Counts,
    /// Why it stopped.
    pub stop_reason: StopReason,
    /// Wall-clock time.
    pub seconds: f64,
}

/// Frame-level counts of a batch from its lane masks.
pub(crate) fn finish(
    active: u64,
    detected: u64,
    wrong: u64,
    bit_errors: u64,
    per_lane: &[u64; 64],
    channel_bit_errors: u64,
) -> Counts {
    let detected = detected & active;
    let wrong = wrong & active;
    Counts {
        frames: u64::from(active.count_ones()),
        frame_errors: u64::from((detected | wrong).count_ones()),
        detected_frames: u64::from(detected.count_ones()),
        miscorrected_frames: u64::from((wrong & !detected).count_ones()),
        bit_errors,
        bit_errors_sq: per_lane
            .iter()
            .map(|&x| u128::from(x) * u128::from(x))
            .sum(),
        channel_bit_errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_rule_order_and_the_clock_asked_last() {
        let rule = StopRule {
            min_frame_errors: 10,
            max_frames: 1000,
            max_seconds: 2.0,
        };
        let counts = |frames, frame_errors| Counts {
            frames,
            frame_errors,
            ..Counts::default()
        };
        let no_clock = || -> f64 { panic!("the clock is asked only when the counts go on") };
        assert_eq!(
            rule.reached(&counts(1000, 10), no_clock),
            Some(StopReason::FrameErrors)
        );
        assert_eq!(
            rule.reached(&counts(1000, 9), no_clock),
            Some(StopReason::MaxFrames)
        );
        assert_eq!(
            rule.reached(&counts(999, 9), || 2.0),
            Some(StopReason::MaxSeconds)
        );
        assert_eq!(rule.reached(&counts(999, 9), || 1.9), None);
        // Without a time limit the clock is never asked.
        let counts_only = StopRule {
            max_seconds: 0.0,
            ..rule
        };
        assert_eq!(counts_only.reached(&counts(0, 0), no_clock), None);
        assert!(!counts_only.is_unbounded());
        assert!(
            StopRule {
                min_frame_errors: 0,
                max_frames: 0,
                max_seconds: 0.0
            }
            .is_unbounded()
        );
    }

    #[test]
    fn finish_counts_the_active_lanes_only() {
        let active = 0b1111;
        let per_lane = {
            let mut a = [0u64; 64];
            a[1] = 2;
            a[2] = 3;
            a
        };
        // Lane 0 detected, lane 1 wrong and detected, lane 2 wrong only; lanes 4 and up are
        // not counted.
        let c = finish(active, 0b0011 | 1 << 40, 0b0110 | 1 << 41, 5, &per_lane, 7);
        assert_eq!(
            c,
            Counts {
                frames: 4,
                frame_errors: 3,
                detected_frames: 2,
                miscorrected_frames: 1,
                bit_errors: 5,
                bit_errors_sq: 13,
                channel_bit_errors: 7,
            }
        );
    }
}
