//! `--checkpoint FILE` and `--resume FILE`: the points finished so far and the progress of the
//! current one, saved as JSON so that a stopped run (a preempted cluster job) goes on where it
//! stood and ends with the counts it would have had.
//!
//! The file is `{"checkpoint": 1, "done": [points], "current": point}` where every point is the
//! JSON of `tilecode simulate --json` and `current` also has `next_batch` and `round`. A point is
//! known again by its code, channel, decoder, depth and seed; it is written to a temporary file
//! and renamed, so a kill mid-write leaves the last checkpoint whole.

use anyhow::{Context, bail};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;
use tilecode::sim::{PointResult, Progress};

/// The identity of a point across runs.
pub fn key(p: &PointResult) -> String {
    format!(
        "{}|{}|{}|{}|{:?}",
        p.code, p.channel, p.decoder, p.interleave, p.seeds
    )
}

/// What a checkpoint file holds.
#[derive(Default)]
pub struct Saved {
    done: Vec<PointResult>,
    current: Option<(String, Progress)>,
}

impl Saved {
    /// Reads a checkpoint file.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {name}"))?;
        let doc: Value =
            serde_json::from_str(&text).with_context(|| format!("{name} is not JSON"))?;
        if doc.get("checkpoint").and_then(Value::as_u64) != Some(1) {
            bail!("{name}: expected a checkpoint file (\"checkpoint\": 1)");
        }
        let done = tilecode::sim::parse_results(&json!({ "results": doc["done"] }), &name)?;
        let current = match doc.get("current") {
            None | Some(Value::Null) => None,
            Some(c) => {
                let point = PointResult::from_json(c, &format!("{name} current"))?;
                let num = |k: &str| {
                    c.get(k)
                        .and_then(Value::as_u64)
                        .with_context(|| format!("{name}: expected `current.{k}` to be an integer"))
                };
                let progress = Progress {
                    counts: point.counts,
                    next_batch: num("next_batch")?,
                    round: u32::try_from(num("round")?)?,
                    seconds: point.seconds,
                };
                Some((key(&point), progress))
            }
        };
        Ok(Saved { done, current })
    }

    /// The finished point with this key.
    pub fn done(&self, key: &str) -> Option<PointResult> {
        self.done.iter().find(|p| self::key(p) == key).cloned()
    }

    /// Where the point with this key stood.
    pub fn progress(&self, key: &str) -> Option<Progress> {
        self.current
            .as_ref()
            .filter(|(k, _)| k == key)
            .map(|(_, p)| *p)
    }
}

/// Writes checkpoints to a file, at most once every `every` seconds (and always at the end of
/// a point).
pub struct Writer {
    path: PathBuf,
    every: f64,
    last: Instant,
}

impl Writer {
    /// A writer to `path`.
    pub fn new(path: PathBuf, every: f64) -> Self {
        Writer {
            path,
            every,
            last: Instant::now(),
        }
    }

    /// Saves `done` and, when given, the current point with its progress, if `force` or the
    /// interval has passed.
    pub fn save(
        &mut self,
        done: &[PointResult],
        current: Option<(&PointResult, &Progress)>,
        force: bool,
    ) -> anyhow::Result<()> {
        if !force && self.last.elapsed().as_secs_f64() < self.every {
            return Ok(());
        }
        let current = current.map(|(point, p)| {
            let mut v = point.to_json();
            v["next_batch"] = json!(p.next_batch);
            v["round"] = json!(p.round);
            v
        });
        let doc = json!({
            "checkpoint": 1,
            "done": done.iter().map(PointResult::to_json).collect::<Vec<_>>(),
            "current": current,
        });
        let tmp = self.path.with_extension("tmp");
        let name = self.path.display();
        std::fs::write(&tmp, serde_json::to_string_pretty(&doc)? + "\n")
            .with_context(|| format!("writing the checkpoint {name}"))?;
        std::fs::rename(&tmp, &self.path)
            .with_context(|| format!("writing the checkpoint {name}"))?;
        self.last = Instant::now();
        Ok(())
    }
}
