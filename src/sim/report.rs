//! Simulation results: the figures of one point, their JSON form, and merging runs made with
//! different seeds.
//!
//! The JSON of a run is `{"results": [...]}`, one object per code and swept value, with the
//! counts (exact integers) that merging adds up, the rates and 95% intervals recomputed from
//! them, and the figures of the run (stop reason, seconds, throughput). Key names are stable and
//! documented in `docs/cli.md`.
//!
//! The report reads the monitor's counts and knows nothing of the engine: the points of a
//! simulator are put together in [`crate::sim::point`].

use super::analytic::Analytic;
use super::exact::ExactRates;
use super::monitor::Counts;
use super::stats::{ber_interval95, wilson95};
use crate::error::{Error, Result};
use serde_json::{Map, Number, Value, json};
use std::str::FromStr;

/// The figures of one simulated point (a code at one channel setting).
#[derive(Clone, Debug, PartialEq)]
pub struct PointResult {
    /// The code spec, e.g. `alien:9x9`.
    pub code: String,
    /// Codeword length.
    pub n: usize,
    /// Message length.
    pub k: usize,
    /// The channel with its parameters, e.g. `bsc:0.001`.
    pub channel: String,
    /// The swept value (for a channel without `p`, its mean bit error rate).
    pub p: f64,
    /// Interleaving depth: codewords per frame.
    pub interleave: usize,
    /// `sliced` or `reference` (`mixed` after merging both).
    pub engine: String,
    /// The kernel that decoded (`alien`, `hamming`, `secded`, `product`, `repetition`,
    /// `parity`; `block_code` for the reference engine, or the soft decoder).
    pub kernel: String,
    /// The seeds of the runs counted here (one, or several after merging).
    pub seeds: Vec<u64>,
    /// Worker threads (the largest among merged runs).
    pub threads: usize,
    /// The counts.
    pub counts: Counts,
    /// `frame_errors`, `max_frames`, `max_seconds`, or `merged`.
    pub stop_reason: String,
    /// Wall-clock seconds (summed over merged runs).
    pub seconds: f64,
    /// Exact rates, when asked for.
    pub exact: Option<ExactRates>,
    /// Minimum distance and covering radius, reported with the exact rates.
    pub distances: Option<(usize, usize)>,
    /// The decoder: `hard`, `ml`, `chase:P`, `iterative:I` or `erasure`.
    pub decoder: String,
    /// Eb/N0 in dB, on AWGN.
    pub ebn0_db: Option<f64>,
    /// Analytic curves at this point, when asked for.
    pub analytic: Option<Analytic>,
}

fn ratio(x: u64, n: u64) -> f64 {
    if n == 0 { 0.0 } else { x as f64 / n as f64 }
}

fn num_f64(x: f64) -> Value {
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

fn num_u128(x: u128) -> Value {
    Value::Number(Number::from_str(&x.to_string()).expect("an integer is a JSON number"))
}

fn pair(p: (f64, f64)) -> Value {
    json!([num_f64(p.0), num_f64(p.1)])
}

impl PointResult {
    /// Message bits sent: `frames * k * interleave`.
    pub fn message_bits(&self) -> u128 {
        u128::from(self.counts.frames) * (self.k * self.interleave) as u128
    }

    /// Frame error rate.
    pub fn fer(&self) -> f64 {
        ratio(self.counts.frame_errors, self.counts.frames)
    }

    /// 95% Wilson interval of the FER.
    pub fn fer_ci(&self) -> (f64, f64) {
        wilson95(self.counts.frame_errors, self.counts.frames)
    }

    /// Bit error rate of the delivered message bits.
    pub fn ber(&self) -> f64 {
        let bits = self.message_bits();
        if bits == 0 {
            0.0
        } else {
            self.counts.bit_errors as f64 / bits as f64
        }
    }

    /// 95% interval of the BER (allowing for errors clustered in frames).
    pub fn ber_ci(&self) -> (f64, f64) {
        ber_interval95(
            self.counts.bit_errors,
            self.counts.bit_errors_sq,
            self.counts.frames,
            (self.k * self.interleave) as u64,
        )
    }

    /// Rate of frames with a detected, uncorrected error.
    pub fn detected_rate(&self) -> f64 {
        ratio(self.counts.detected_frames, self.counts.frames)
    }

    /// 95% Wilson interval of the detected rate.
    pub fn detected_ci(&self) -> (f64, f64) {
        wilson95(self.counts.detected_frames, self.counts.frames)
    }

    /// Rate of frames delivered wrong without detection.
    pub fn miscorrection_rate(&self) -> f64 {
        ratio(self.counts.miscorrected_frames, self.counts.frames)
    }

    /// 95% Wilson interval of the miscorrection rate.
    pub fn miscorrection_ci(&self) -> (f64, f64) {
        wilson95(self.counts.miscorrected_frames, self.counts.frames)
    }

    /// Fraction of channel bits flipped.
    pub fn channel_ber(&self) -> f64 {
        let bits = u128::from(self.counts.frames) * (self.n * self.interleave) as u128;
        if bits == 0 {
            0.0
        } else {
            self.counts.channel_bit_errors as f64 / bits as f64
        }
    }

    /// Information (message) bits simulated per second of wall-clock time.
    pub fn info_bits_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.message_bits() as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// The JSON object of this point.
    pub fn to_json(&self) -> Value {
        let c = &self.counts;
        let mut m = Map::new();
        let mut put = |k: &str, v: Value| {
            m.insert(k.to_string(), v);
        };
        put("code", json!(self.code));
        put("n", json!(self.n));
        put("k", json!(self.k));
        put("channel", json!(self.channel));
        put("decoder", json!(self.decoder));
        if let Some(db) = self.ebn0_db {
            put("ebn0_db", num_f64(db));
        }
        put("p", num_f64(self.p));
        put("interleave", json!(self.interleave));
        put("engine", json!(self.engine));
        put("kernel", json!(self.kernel));
        if let [seed] = self.seeds.as_slice() {
            put("seed", json!(seed));
        }
        put("seeds", json!(self.seeds));
        put("threads", json!(self.threads));
        put("frames", json!(c.frames));
        put("frame_errors", json!(c.frame_errors));
        put("fer", num_f64(self.fer()));
        put("fer_ci", pair(self.fer_ci()));
        put("message_bits", num_u128(self.message_bits()));
        put("bit_errors", json!(c.bit_errors));
        put("bit_errors_sq", num_u128(c.bit_errors_sq));
        put("ber", num_f64(self.ber()));
        put("ber_ci", pair(self.ber_ci()));
        put("detected_frames", json!(c.detected_frames));
        put("detected_rate", num_f64(self.detected_rate()));
        put("detected_ci", pair(self.detected_ci()));
        put("miscorrected_frames", json!(c.miscorrected_frames));
        put("miscorrection_rate", num_f64(self.miscorrection_rate()));
        put("miscorrection_ci", pair(self.miscorrection_ci()));
        put("channel_bit_errors", json!(c.channel_bit_errors));
        put("channel_ber", num_f64(self.channel_ber()));
        put("stop_reason", json!(self.stop_reason));
        put("seconds", num_f64(self.seconds));
        put("info_bits_per_second", num_f64(self.info_bits_per_second()));
        if let Some((d, rho)) = self.distances {
            put("d", json!(d));
            put("covering_radius", json!(rho));
        }
        if let Some(e) = &self.exact {
            put(
                "exact",
                json!({
                    "fer": num_f64(e.fer),
                    "detected_rate": num_f64(e.detected_rate),
                    "miscorrection_rate": num_f64(e.miscorrection_rate),
                }),
            );
        }
        if let Some(a) = &self.analytic {
            let mut o = Map::new();
            if let Some(x) = a.uncoded_ber {
                o.insert("uncoded_ber".into(), num_f64(x));
            }
            if let Some(x) = a.union_bound_fer {
                o.insert("union_bound_fer".into(), num_f64(x));
            }
            if let Some(x) = a.union_bound_ber {
                o.insert("union_bound_ber".into(), num_f64(x));
            }
            if let Some((lo, hi)) = a.erasure_fer {
                o.insert("erasure_fer_low".into(), num_f64(lo));
                o.insert("erasure_fer_high".into(), num_f64(hi));
            }
            put("analytic", Value::Object(o));
        }
        Value::Object(m)
    }

    /// Reads a point back from its JSON object (as written by [`PointResult::to_json`]).
    ///
    /// # Errors
    /// [`Error::Merge`] naming the missing or malformed key.
    pub fn from_json(v: &Value, source: &str) -> Result<Self> {
        let bad = |key: &str, what: &str| Error::Merge {
            reason: format!("{source}: expected `{key}` to be {what}"),
        };
        let u = |key: &str| {
            v.get(key)
                .and_then(Value::as_u64)
                .ok_or_else(|| bad(key, "an unsigned integer"))
        };
        let f = |key: &str| {
            v.get(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| bad(key, "a number"))
        };
        let s = |key: &str| {
            v.get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| bad(key, "a string"))
        };
        let big = |key: &str| {
            v.get(key)
                .and_then(Value::as_number)
                .and_then(|n| n.to_string().parse::<u128>().ok())
                .ok_or_else(|| bad(key, "an unsigned integer"))
        };
        let seeds = match v.get("seeds") {
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| x.as_u64().ok_or_else(|| bad("seeds", "a list of seeds")))
                .collect::<Result<Vec<u64>>>()?,
            _ => vec![u("seed")?],
        };
        let exact = match v.get("exact") {
            None | Some(Value::Null) => None,
            Some(e) => {
                let g = |key: &str| {
                    e.get(key)
                        .and_then(Value::as_f64)
                        .ok_or_else(|| bad(&format!("exact.{key}"), "a number"))
                };
                Some(ExactRates {
                    fer: g("fer")?,
                    detected_rate: g("detected_rate")?,
                    miscorrection_rate: g("miscorrection_rate")?,
                })
            }
        };
        let analytic = match v.get("analytic") {
            None | Some(Value::Null) => None,
            Some(a) => {
                let g = |key: &str| a.get(key).and_then(Value::as_f64);
                Some(Analytic {
                    uncoded_ber: g("uncoded_ber"),
                    union_bound_fer: g("union_bound_fer"),
                    union_bound_ber: g("union_bound_ber"),
                    erasure_fer: g("erasure_fer_low").zip(g("erasure_fer_high")),
                })
            }
        };
        let counts = Counts {
            frames: u("frames")?,
            frame_errors: u("frame_errors")?,
            detected_frames: u("detected_frames")?,
            miscorrected_frames: u("miscorrected_frames")?,
            bit_errors: u("bit_errors")?,
            bit_errors_sq: big("bit_errors_sq")?,
            channel_bit_errors: u("channel_bit_errors")?,
        };
        if counts.frame_errors != counts.detected_frames + counts.miscorrected_frames {
            return Err(Error::Merge {
                reason: format!(
                    "{source}: expected frame_errors = detected_frames + miscorrected_frames, found {} != {} + {}",
                    counts.frame_errors, counts.detected_frames, counts.miscorrected_frames
                ),
            });
        }
        Ok(PointResult {
            code: s("code")?,
            n: u("n")? as usize,
            k: u("k")? as usize,
            channel: s("channel")?,
            p: f("p")?,
            interleave: u("interleave")? as usize,
            engine: s("engine")?,
            kernel: s("kernel")?,
            seeds,
            threads: u("threads")? as usize,
            counts,
            stop_reason: s("stop_reason")?,
            seconds: f("seconds")?,
            exact,
            distances: match (v.get("d"), v.get("covering_radius")) {
                (Some(_), Some(_)) => Some((u("d")? as usize, u("covering_radius")? as usize)),
                _ => None,
            },
            // Runs from before decoders were chosen decoded hard.
            decoder: v
                .get("decoder")
                .map_or(Ok("hard".to_string()), |_| s("decoder"))?,
            ebn0_db: v.get("ebn0_db").map(|_| f("ebn0_db")).transpose()?,
            analytic,
        })
    }
}

/// The JSON document of a run: `{"results": [...]}`.
pub fn results_json(results: &[PointResult]) -> Value {
    json!({ "results": results.iter().map(PointResult::to_json).collect::<Vec<_>>() })
}

/// Reads the points of a JSON document written by [`results_json`]; `source` names it in
/// errors.
///
/// # Errors
/// [`Error::Merge`] when the document has no `results` list or a point is malformed.
pub fn parse_results(doc: &Value, source: &str) -> Result<Vec<PointResult>> {
    let list = doc
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::Merge {
            reason: format!("{source}: expected an object with a `results` list"),
        })?;
    list.iter()
        .enumerate()
        .map(|(i, v)| PointResult::from_json(v, &format!("{source} result {}", i + 1)))
        .collect()
}

/// Adds up runs of the same points made with different seeds: every run must list the same
/// codes, channels, depths and swept values in the same order, and no seed may appear twice.
///
/// # Errors
/// [`Error::Merge`] on the first mismatch.
pub fn merge(runs: &[(String, Vec<PointResult>)]) -> Result<Vec<PointResult>> {
    let Some((first_name, first)) = runs.first() else {
        return Err(Error::Merge {
            reason: "expected at least one run".into(),
        });
    };
    let mut out = first.clone();
    for (name, run) in &runs[1..] {
        if run.len() != out.len() {
            return Err(Error::Merge {
                reason: format!(
                    "{first_name} has {} results but {name} has {}",
                    out.len(),
                    run.len()
                ),
            });
        }
        for (i, (acc, r)) in out.iter_mut().zip(run).enumerate() {
            let key = |x: &PointResult| {
                (
                    x.code.clone(),
                    x.channel.clone(),
                    x.interleave,
                    x.p.to_bits(),
                    x.n,
                    x.k,
                    x.decoder.clone(),
                )
            };
            if key(acc) != key(r) {
                return Err(Error::Merge {
                    reason: format!(
                        "result {} is {} on {} (D = {}, p = {}, {} decoder) in {first_name} but {} on {} (D = {}, p = {}, {} decoder) in {name}",
                        i + 1,
                        acc.code,
                        acc.channel,
                        acc.interleave,
                        acc.p,
                        acc.decoder,
                        r.code,
                        r.channel,
                        r.interleave,
                        r.p,
                        r.decoder
                    ),
                });
            }
            if let Some(s) = r.seeds.iter().find(|s| acc.seeds.contains(s)) {
                return Err(Error::Merge {
                    reason: format!(
                        "seed {s} appears twice ({name} result {}): the same seed repeats the same frames",
                        i + 1
                    ),
                });
            }
            acc.seeds.extend_from_slice(&r.seeds);
            acc.counts = acc.counts + r.counts;
            acc.seconds += r.seconds;
            acc.threads = acc.threads.max(r.threads);
            acc.stop_reason = "merged".into();
            if acc.engine != r.engine {
                acc.engine = "mixed".into();
            }
            if acc.kernel != r.kernel {
                acc.kernel = "mixed".into();
            }
            if acc.exact.is_none() {
                acc.exact = r.exact;
            }
            if acc.distances.is_none() {
                acc.distances = r.distances;
            }
            if acc.analytic.is_none() {
                acc.analytic = r.analytic;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(seed: u64, frames: u64, fe: u64) -> PointResult {
        PointResult {
            code: "alien:9x9".into(),
            n: 81,
            k: 65,
            channel: "bsc:0.01".into(),
            p: 0.01,
            interleave: 1,
            engine: "sliced".into(),
            kernel: "alien".into(),
            seeds: vec![seed],
            threads: 1,
            counts: Counts {
                frames,
                frame_errors: fe,
                detected_frames: fe - 1,
                miscorrected_frames: 1,
                bit_errors: 3 * fe,
                bit_errors_sq: u128::from(u64::MAX) * 3,
                channel_bit_errors: frames,
            },
            stop_reason: "frame_errors".into(),
            seconds: 0.5,
            exact: None,
            distances: Some((4, 3)),
            decoder: "hard".into(),
            ebn0_db: None,
            analytic: None,
        }
    }

    #[test]
    fn json_round_trip_keeps_big_integers() {
        let p = point(7, 1000, 100);
        let doc = results_json(std::slice::from_ref(&p));
        let text = serde_json::to_string(&doc).unwrap();
        assert!(
            text.contains("\"bit_errors_sq\":55340232221128654845"),
            "{text}"
        );
        let back = parse_results(&serde_json::from_str(&text).unwrap(), "x").unwrap();
        assert_eq!(back, vec![p]);
    }

    #[test]
    fn merge_adds_counts_and_refuses_mismatches() {
        let a = ("a".to_string(), vec![point(1, 1000, 100)]);
        let b = ("b".to_string(), vec![point(2, 3000, 50)]);
        let m = merge(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(m[0].counts, a.1[0].counts + b.1[0].counts);
        assert_eq!(m[0].seeds, vec![1, 2]);
        assert_eq!(m[0].stop_reason, "merged");
        assert!(merge(&[a.clone(), a.clone()]).is_err(), "same seed twice");
        let mut c = b.clone();
        c.1[0].p = 0.02;
        assert!(merge(&[a.clone(), c]).is_err());
        let mut c = b.clone();
        c.1[0].code = "secded:81".into();
        assert!(merge(&[a.clone(), c]).is_err());
        let mut c = b.clone();
        c.1[0].channel = "burst:8:0.01".into();
        assert!(merge(&[a.clone(), c]).is_err());
        let mut c = b;
        c.1.push(point(2, 1, 1));
        assert!(merge(&[a, c]).is_err());
    }
}
