//! Lists of swept probabilities: `1e-3,1e-2`, geometric ranges `1e-5:1e-1:x10` and linear ranges
//! `0.01:0.05:+0.01`, mixed freely with commas.

use crate::error::{Error, Result};

/// Rounds to 12 significant digits, so that `1e-5 * 10^3` prints as `0.01`.
fn tidy(x: f64) -> f64 {
    format!("{x:.11e}").parse().unwrap_or(x)
}

fn parse_prob(s: &str, full: &str) -> Result<f64> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(Error::spec(
            full,
            format!("expected a probability in [0, 1], found `{}`", s.trim()),
        )),
    }
}

/// Parses a list of probabilities: comma-separated items, each a number in `[0, 1]`,
/// `START:STOP:xFACTOR` (geometric, factor > 1) or `START:STOP:+STEP` (linear, step > 0).
/// Ranges include `STOP` when they land on it (to 12 significant digits). The result keeps the
/// order given and drops repeats.
///
/// # Errors
/// [`Error::Spec`] naming the offending item.
pub fn parse_p_list(text: &str) -> Result<Vec<f64>> {
    let mut out: Vec<f64> = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let parts: Vec<&str> = item.split(':').collect();
        match parts.as_slice() {
            [one] => out.push(parse_prob(one, item)?),
            [a, b, step] => {
                let (start, stop) = (parse_prob(a, item)?, parse_prob(b, item)?);
                let step = step.trim();
                let bad_step = |why: &str| Error::spec(item, why.to_string());
                if let Some(f) = step.strip_prefix(['x', 'X', '*']) {
                    let f: f64 = f
                        .parse()
                        .map_err(|_| bad_step("expected a factor after `x`, e.g. x10"))?;
                    if !(f > 1.0 && f.is_finite()) {
                        return Err(bad_step("expected a geometric factor > 1"));
                    }
                    if start <= 0.0 {
                        return Err(bad_step("a geometric range needs START > 0"));
                    }
                    let mut i = 0;
                    loop {
                        let v = tidy(start * f.powi(i));
                        if v > stop * (1.0 + 1e-9) {
                            break;
                        }
                        out.push(v);
                        i += 1;
                        if out.len() > MAX_POINTS {
                            return Err(bad_step("more than 10000 points"));
                        }
                    }
                } else if let Some(s) = step.strip_prefix('+') {
                    linear(start, stop, s, item, &mut out)?;
                } else {
                    return Err(bad_step(
                        "expected the step as xFACTOR (geometric) or +STEP (linear)",
                    ));
                }
            }
            _ => {
                return Err(Error::spec(
                    item,
                    "expected P or START:STOP:xFACTOR or START:STOP:+STEP",
                ));
            }
        }
    }
    dedup(out, text, "probability")
}

/// The most points a list may have.
const MAX_POINTS: usize = 10_000;

/// Appends `start, start + step, ...` up to `stop` (included when landed on) to `out`; `step`
/// is the text after the `+` (or the whole step for dB lists).
fn linear(start: f64, stop: f64, step: &str, item: &str, out: &mut Vec<f64>) -> Result<()> {
    let bad_step = |why: &str| Error::spec(item, why.to_string());
    let s: f64 = step
        .trim()
        .parse()
        .map_err(|_| bad_step("expected a number as the step, e.g. +0.01"))?;
    if !(s > 0.0 && s.is_finite()) {
        return Err(bad_step("expected a linear step > 0"));
    }
    let mut i = 0;
    loop {
        let v = tidy(start + s * i as f64);
        if v > stop + s * 1e-9 {
            return Ok(());
        }
        out.push(v);
        i += 1;
        if out.len() > MAX_POINTS {
            return Err(bad_step("more than 10000 points"));
        }
    }
}

/// Parses a list of signal-to-noise ratios in dB: comma-separated items, each a number or a
/// linear range `START:STOP:STEP` (also written `START:STOP:+STEP`), e.g. `0:8:2`.
///
/// # Errors
/// [`Error::Spec`] naming the offending item.
pub fn parse_db_list(text: &str) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    let db = |s: &str, item: &str| match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v.abs() <= 100.0 => Ok(v),
        _ => Err(Error::spec(
            item,
            format!(
                "expected a value in dB between -100 and 100, found `{}`",
                s.trim()
            ),
        )),
    };
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let parts: Vec<&str> = item.split(':').collect();
        match parts.as_slice() {
            [one] => out.push(db(one, item)?),
            [a, b, step] => {
                let step = step.trim();
                linear(
                    db(a, item)?,
                    db(b, item)?,
                    step.strip_prefix('+').unwrap_or(step),
                    item,
                    &mut out,
                )?
            }
            _ => return Err(Error::spec(item, "expected DB or START:STOP:STEP")),
        }
    }
    dedup(out, text, "value in dB")
}

/// The values in the order given, repeats dropped; an error for an empty list.
fn dedup(out: Vec<f64>, text: &str, what: &str) -> Result<Vec<f64>> {
    if out.is_empty() {
        return Err(Error::spec(text, format!("expected at least one {what}")));
    }
    let mut seen = Vec::with_capacity(out.len());
    for v in out {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn db_lists() {
        assert_eq!(
            parse_db_list("0:8:2").unwrap(),
            vec![0.0, 2.0, 4.0, 6.0, 8.0]
        );
        assert_eq!(
            parse_db_list("-1,0.5:1.5:+0.5,1").unwrap(),
            vec![-1.0, 0.5, 1.0, 1.5]
        );
        for bad in ["", "x", "0:8", "0:8:0", "0:8:-1", "1e9", "0:1:2:3"] {
            assert!(parse_db_list(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lists_and_ranges() {
        assert_eq!(parse_p_list("1e-2,1e-3").unwrap(), vec![1e-2, 1e-3]);
        assert_eq!(
            parse_p_list("1e-5:1e-1:x10").unwrap(),
            vec![1e-5, 1e-4, 1e-3, 1e-2, 1e-1]
        );
        assert_eq!(
            parse_p_list("0.01:0.05:+0.01").unwrap(),
            vec![0.01, 0.02, 0.03, 0.04, 0.05]
        );
        assert_eq!(
            parse_p_list("1e-3:1e-2:x3, 0.5,0.5").unwrap(),
            vec![1e-3, 3e-3, 9e-3, 0.5]
        );
        for bad in [
            "",
            "2",
            "-1",
            "a",
            "1e-3:1e-1",
            "0:1e-1:x10",
            "1e-3:1e-1:x1",
            "1e-3:1e-1:+0",
            "1e-3:1e-1:10",
            "1:2:3:4",
        ] {
            assert!(parse_p_list(bad).is_err(), "{bad}");
        }
    }
}
