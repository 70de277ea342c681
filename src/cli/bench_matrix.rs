//! The throughput matrix of `tilecode bench` (codes by interleaving depths): the floor each
//! cell is held to, and the matrix as a Markdown table (`--markdown`) for docs/benchmarks.md.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use tilecode::code::{Spec, build};

/// The floor of encode and clean decode for every code and depth (issue 14's).
pub(super) const FLOOR: f64 = 0.6;

/// The ratios to memcpy a cell must reach: encode and clean decode 0.6 for every code and
/// depth; decode at the noisy BER 0.4 for codes that correct (`t >= 1`) with `n <= 128`;
/// alien:9x9 and secded:72 at `D = 64` (the hand-written paths) 0.8 / 0.8 / 0.5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Floor {
    pub encode: f64,
    pub clean: f64,
    pub noisy: Option<f64>,
}

/// The floor of `spec` at depth `d`.
pub(super) fn floor(spec: &Spec, d: usize) -> Floor {
    let code = build(spec);
    let tuned = d == 64 && matches!(spec.to_string().as_str(), "alien:9x9" | "secded:72");
    if tuned {
        return Floor {
            encode: 0.8,
            clean: 0.8,
            noisy: Some(0.5),
        };
    }
    Floor {
        encode: FLOOR,
        clean: FLOOR,
        noisy: (code.t() >= 1 && code.n() <= 128).then_some(0.4),
    }
}

impl Floor {
    /// The floor as JSON, and whether the measured `result` meets it.
    pub(super) fn judge(&self, result: &Value) -> (Value, bool) {
        let r = |k: &str| result[k].as_f64().unwrap_or(0.0);
        let meets = r("encode_ratio") >= self.encode
            && r("decode_clean_ratio") >= self.clean
            && self.noisy.is_none_or(|f| r("decode_noisy_ratio") >= f);
        let floor = json!({
            "encode": self.encode,
            "decode_clean": self.clean,
            "decode_noisy": self.noisy,
        });
        (floor, meets)
    }
}

/// The results as a Markdown table: a row per code, a column per depth, each cell
/// `encode / clean / noisy` ratios to memcpy, a value below its floor in bold.
pub(super) fn markdown(results: &[Value]) -> String {
    let mut depths: Vec<u64> = results
        .iter()
        .filter_map(|r| r["interleave"].as_u64())
        .collect();
    depths.sort_unstable();
    depths.dedup();
    // Codes in order of first appearance, cells by depth.
    let mut codes: Vec<(String, BTreeMap<u64, &Value>)> = Vec::new();
    for r in results {
        let code = r["code"].as_str().unwrap_or("").to_string();
        let d = r["interleave"].as_u64().unwrap_or(0);
        match codes.iter_mut().find(|(c, _)| *c == code) {
            Some((_, cells)) => {
                cells.insert(d, r);
            }
            None => codes.push((code, BTreeMap::from([(d, r)]))),
        }
    }
    let mut s = String::from("| code |");
    for d in &depths {
        let _ = write!(s, " D = {d} |");
    }
    s.push_str("\n|---|");
    s.push_str(&"---|".repeat(depths.len()));
    s.push('\n');
    let (mut cells, mut met) = (0, 0);
    for (code, by_depth) in &codes {
        let _ = write!(s, "| {code} |");
        for d in &depths {
            let Some(r) = by_depth.get(d) else {
                s.push_str(" |");
                continue;
            };
            let f = &r["floor"];
            let show = |k: &str, fk: &str| {
                let v = r[k].as_f64().unwrap_or(0.0);
                match f[fk].as_f64() {
                    Some(min) if v < min => format!("**{v:.2}**"),
                    _ => format!("{v:.2}"),
                }
            };
            let _ = write!(
                s,
                " {} / {} / {} |",
                show("encode_ratio", "encode"),
                show("decode_clean_ratio", "decode_clean"),
                show("decode_noisy_ratio", "decode_noisy"),
            );
            cells += 1;
            met += usize::from(r["meets_floor"].as_bool() == Some(true));
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "\n{met} of {cells} cells meet their floor. Each cell: encode / clean decode / decode at \
         the noisy BER, ratios to memcpy in the same run (medians); **bold**: below the floor \
         (encode and clean 0.6, noisy 0.4 for t >= 1 and n <= 128; alien:9x9 and secded:72 at \
         D = 64: 0.8 / 0.8 / 0.5)."
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floors_follow_the_rule() {
        let f = |s: &str, d| floor(&s.parse().unwrap(), d);
        assert_eq!(f("alien:9x9", 64).encode, 0.8);
        assert_eq!(f("alien:9x9", 512).encode, 0.6);
        assert_eq!(f("secded:72", 64).noisy, Some(0.5));
        assert_eq!(f("secded:72", 4096).noisy, Some(0.4));
        // n = 1024 > 128, and a parity code corrects nothing.
        assert_eq!(f("hamming:1024", 64).noisy, None);
        assert_eq!(f("parity:9", 64).noisy, None);
    }

    #[test]
    fn the_table_marks_cells_below_their_floor() {
        let cell = |code: &str, d: u64, e: f64| {
            let mut v = json!({
                "code": code, "interleave": d, "encode_ratio": e,
                "decode_clean_ratio": 0.7, "decode_noisy_ratio": 0.45,
            });
            let (floor, meets) = floor(&code.parse().unwrap(), d as usize).judge(&v);
            v["floor"] = floor;
            v["meets_floor"] = json!(meets);
            v
        };
        let t = markdown(&[cell("alien:5x5", 64, 0.5), cell("alien:5x5", 512, 0.65)]);
        assert!(t.contains("| code | D = 64 | D = 512 |"), "{t}");
        assert!(t.contains("| alien:5x5 | **0.50** / 0.70 / 0.45 | 0.65 / 0.70 / 0.45 |"));
        assert!(t.contains("1 of 2 cells meet their floor"), "{t}");
    }
}
