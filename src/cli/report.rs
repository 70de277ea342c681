//! The decode report, for people (stderr) and for programs (`--json`).

use super::common::{EXIT_DAMAGED, EXIT_OK};
use serde_json::{Value, json};
use tilecode::stream::{Header, Report, StreamStatus};

/// How many damaged ranges the human summary lists before it abbreviates.
const SHOWN_RANGES: usize = 8;

/// The exit code a finished decode deserves: 0 verified exact, 2 damage or a checksum mismatch.
pub fn exit_code(report: &Report) -> u8 {
    if report.checksum_ok && report.status() != StreamStatus::Damaged {
        EXIT_OK
    } else {
        EXIT_DAMAGED
    }
}

/// `clean`, `repaired` or `damaged`; a checksum mismatch always counts as damaged.
pub fn status_str(report: &Report) -> &'static str {
    if report.checksum_ok {
        report.status().as_str()
    } else {
        StreamStatus::Damaged.as_str()
    }
}

/// The report as one JSON object: the contract keys plus the stream's parameters.
pub fn to_json(report: &Report, header: Option<&Header>) -> Value {
    let mut v = serde_json::to_value(report).unwrap_or_else(|_| json!({}));
    if !v.is_object() {
        v = json!({});
    }
    let obj = v.as_object_mut().expect("an object");
    obj.insert("status".into(), json!(status_str(report)));
    obj.insert("codewords".into(), json!(report.codewords));
    obj.insert("corrected_bits".into(), json!(report.corrected_bits));
    obj.insert(
        "uncorrectable_codewords".into(),
        json!(report.uncorrectable_codewords),
    );
    let ranges: Vec<Value> = report
        .damaged_ranges
        .iter()
        .map(|&(a, b)| json!([a, b]))
        .collect();
    obj.insert("damaged_ranges".into(), Value::Array(ranges));
    obj.insert("checksum_ok".into(), json!(report.checksum_ok));
    obj.insert("bytes_in".into(), json!(report.bytes_in));
    obj.insert("bytes_out".into(), json!(report.bytes_out));
    if let Some(h) = header {
        obj.insert("code".into(), json!(h.code.to_string()));
        obj.insert("interleave".into(), json!(h.interleave));
        obj.insert("chunk_size".into(), json!(h.chunk_size));
        obj.insert("version".into(), json!(h.version));
    }
    v
}

/// One JSON object for a decode or verify that stopped with an error, and its exit code:
/// `status` is `unreadable` when nothing could be decoded (not a stream, a bad header, an
/// unreadable input) and `damaged` when the stream was cut short or damage stopped a strict
/// decode; `error` is the one-line message; the report's keys follow when decoding began.
pub fn fatal_json(e: &anyhow::Error, seen: Option<&(Report, Header)>) -> (Value, u8) {
    let code = super::common::exit_code_for(e);
    let truncated = e.chain().any(|c| {
        c.downcast_ref::<tilecode::Error>()
            .is_some_and(|t| matches!(t, tilecode::Error::Truncated { .. }))
            || c.downcast_ref::<std::io::Error>().is_some_and(|io| {
                io.get_ref()
                    .and_then(|i| i.downcast_ref::<tilecode::Error>())
                    .is_some_and(|t| matches!(t, tilecode::Error::Truncated { .. }))
            })
    });
    let mut v = match seen {
        Some((rep, header)) => to_json(rep, Some(header)),
        None => json!({}),
    };
    let status = if seen.is_some() && (truncated || code == EXIT_DAMAGED) {
        "damaged"
    } else {
        "unreadable"
    };
    let obj = v.as_object_mut().expect("an object");
    obj.insert("status".into(), json!(status));
    obj.insert("error".into(), json!(format!("{e:#}")));
    (v, code)
}

/// Runs a decode or verify; with `json`, an error becomes one JSON object too (on stdout or
/// stderr) and its exit code, instead of the one-line message. `run` records the report as
/// far as it got in its second argument before it fails.
pub fn fatal_as_json(
    json: bool,
    on_stdout: bool,
    run: impl FnOnce(&mut Option<(Report, Header)>) -> anyhow::Result<std::process::ExitCode>,
) -> anyhow::Result<std::process::ExitCode> {
    let mut seen = None;
    match run(&mut seen) {
        Err(e) if json => {
            let (v, code) = fatal_json(&e, seen.as_ref());
            if on_stdout {
                println!("{v}");
            } else {
                eprintln!("{v}");
            }
            Ok(std::process::ExitCode::from(code))
        }
        other => other,
    }
}

/// The damaged ranges as `[a, b)` text, abbreviated after a few.
pub fn ranges_text(ranges: &[(u64, u64)]) -> String {
    if ranges.is_empty() {
        return "none".into();
    }
    let total: u64 = ranges.iter().map(|&(a, b)| b - a).sum();
    let mut parts: Vec<String> = ranges
        .iter()
        .take(SHOWN_RANGES)
        .map(|&(a, b)| format!("[{a}, {b})"))
        .collect();
    if ranges.len() > SHOWN_RANGES {
        parts.push(format!("and {} more", ranges.len() - SHOWN_RANGES));
    }
    format!(
        "{} ({} range{}, {total} bytes)",
        parts.join(" "),
        ranges.len(),
        if ranges.len() == 1 { "" } else { "s" }
    )
}

/// The human summary: a title line and one line per figure.
pub fn human(title: &str, report: &Report, header: Option<&Header>) -> String {
    let mut s = format!("{title}\n");
    if let Some(h) = header {
        s += &format!(
            "  code                     {} (interleave {}, chunks of {} bytes)\n",
            h.code, h.interleave, h.chunk_size
        );
    }
    s += &format!(
        "  bytes in / out           {} / {}\n",
        report.bytes_in, report.bytes_out
    );
    s += &format!("  codewords                {}\n", report.codewords);
    s += &format!("  corrected bits           {}\n", report.corrected_bits);
    s += &format!(
        "  uncorrectable codewords  {}\n",
        report.uncorrectable_codewords
    );
    s += &format!(
        "  chunks rebuilt / lost    {} / {}\n",
        report.recovered_chunks, report.lost_chunks
    );
    if report.resyncs > 0 || report.skipped_bytes > 0 {
        s += &format!(
            "  resyncs, bytes skipped   {}, {}\n",
            report.resyncs, report.skipped_bytes
        );
    }
    if report.trailing_bytes > 0 {
        s += &format!("  trailing bytes ignored   {}\n", report.trailing_bytes);
    }
    s += &format!(
        "  damaged byte ranges      {}\n",
        ranges_text(&report.damaged_ranges)
    );
    s += &format!(
        "  checksum                 {}\n",
        if report.checksum_ok { "ok" } else { "MISMATCH" }
    );
    s += &format!("  status                   {}", status_str(report));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(corrected: u64, bad: u64, ranges: Vec<(u64, u64)>, ok: bool) -> Report {
        Report {
            codewords: 100,
            corrected_bits: corrected,
            uncorrectable_codewords: bad,
            damaged_ranges: ranges,
            checksum_ok: ok,
            bytes_in: 1000,
            bytes_out: 800,
            ..Report::default()
        }
    }

    #[test]
    fn json_has_every_contract_key() {
        let r = report(3, 0, vec![], true);
        let v = to_json(&r, None);
        for k in [
            "status",
            "codewords",
            "corrected_bits",
            "uncorrectable_codewords",
            "damaged_ranges",
            "checksum_ok",
            "bytes_in",
            "bytes_out",
        ] {
            assert!(v.get(k).is_some(), "missing {k}: {v}");
        }
        assert_eq!(v["status"], "repaired");
        assert_eq!(v["corrected_bits"], 3);
        assert_eq!(exit_code(&r), EXIT_OK);
    }

    #[test]
    fn damage_and_checksum_mismatch_exit_2() {
        let r = report(0, 2, vec![(10, 20), (30, 45)], false);
        let v = to_json(&r, None);
        assert_eq!(v["status"], "damaged");
        assert_eq!(v["damaged_ranges"], json!([[10, 20], [30, 45]]));
        assert_eq!(exit_code(&r), EXIT_DAMAGED);
        let clean_but_bad_sum = report(0, 0, vec![], false);
        assert_eq!(status_str(&clean_but_bad_sum), "damaged");
        assert_eq!(exit_code(&clean_but_bad_sum), EXIT_DAMAGED);
        assert_eq!(status_str(&report(0, 0, vec![], true)), "clean");
    }

    #[test]
    fn ranges_are_abbreviated() {
        assert_eq!(ranges_text(&[]), "none");
        assert_eq!(ranges_text(&[(0, 5)]), "[0, 5) (1 range, 5 bytes)");
        let many: Vec<(u64, u64)> = (0..10).map(|i| (i * 10, i * 10 + 1)).collect();
        let t = ranges_text(&many);
        assert!(
            t.contains("and 2 more") && t.contains("10 ranges, 10 bytes"),
            "{t}"
        );
    }
}
