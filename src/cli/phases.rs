//! `--timings`: the wall-clock time of each phase of a command, reported on stderr.

use std::time::Instant;

/// Phase times, recorded as each phase ends.
pub struct Phases {
    on: bool,
    start: Instant,
    last: Instant,
    done: Vec<(&'static str, f64)>,
}

impl Phases {
    /// Starts the clock; records nothing unless `on`.
    pub fn new(on: bool) -> Phases {
        let now = Instant::now();
        Phases {
            on,
            start: now,
            last: now,
            done: Vec::new(),
        }
    }

    /// Ends the phase `name` (it began when the previous one ended).
    pub fn mark(&mut self, name: &'static str) {
        if self.on {
            let now = Instant::now();
            self.done.push((name, (now - self.last).as_secs_f64()));
            self.last = now;
        }
    }

    /// One line on stderr: `timings: read 0.012 s, parse 0.034 s, ..., total 0.1 s`.
    pub fn report(&self) {
        if self.on {
            let parts: Vec<String> = self
                .done
                .iter()
                .map(|(name, s)| format!("{name} {s:.3} s"))
                .collect();
            eprintln!(
                "timings: {}, total {:.3} s",
                parts.join(", "),
                self.start.elapsed().as_secs_f64()
            );
        }
    }
}
