//! A simulator's points: the glue that runs the engine and puts its monitor's counts into a
//! report's [`PointResult`], so that the engine knows nothing of reports and the report
//! nothing of the engine (engine -> monitor <- report, joined here).

use super::engine::Simulator;
use super::monitor::{Run, StopRule};
use super::report::PointResult;
use crate::error::Result;

/// The points of a simulator.
impl Simulator {
    /// Simulates until `stop` is met and reports the point, labelled with the swept value `p`
    /// (no exact figures: see [`crate::sim::exact`]).
    ///
    /// # Errors
    /// As [`Simulator::run`].
    pub fn point(&self, p: f64, stop: &StopRule, threads: usize) -> Result<PointResult> {
        let run = self.run(stop, threads)?;
        Ok(self.report(p, &run, threads))
    }

    /// The point of a finished `run`, labelled with the swept value `p`.
    pub fn report(&self, p: f64, run: &Run, threads: usize) -> PointResult {
        let code = self.code();
        PointResult {
            code: code.spec().to_string(),
            n: code.n(),
            k: code.k(),
            channel: self.channel().to_string(),
            p,
            interleave: self.interleave(),
            engine: self.engine_name().into(),
            kernel: self.kernel_name().into(),
            decoder: self.decoder_name().into(),
            ebn0_db: None,
            analytic: None,
            seeds: vec![self.seed()],
            threads: threads.max(1),
            counts: run.counts,
            stop_reason: run.stop_reason.as_str().into(),
            seconds: run.seconds,
            exact: None,
            distances: None,
        }
    }
}
