//! `tilecode info`, `compare` and `word` through the real binary.

use assert_cmd::Command;
use num_bigint::BigUint;
use predicates::prelude::*;
use serde_json::Value;
use std::str::FromStr;

fn tilecode() -> Command {
    Command::cargo_bin("tilecode").unwrap()
}

fn json(args: &[&str]) -> Value {
    let out = tilecode().args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn big(v: &Value) -> BigUint {
    BigUint::from_str(&v.to_string()).unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// One clear line on stderr, exit code 1, no panic.
fn fails_cleanly(args: &[&str], needle: &str) {
    let out = tilecode().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("tilecode: "), "{err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"));
}

mod word {
    use super::*;

    #[test]
    fn encodes_the_papers_example_as_a_grid() {
        tilecode()
            .args(["word", "encode", "alien:3x3", "11010"])
            .assert()
            .success()
            .stdout("001\n111\n001\n");
    }

    #[test]
    fn decodes_the_papers_example() {
        tilecode()
            .args(["word", "decode", "alien:3x3", "001011001"])
            .assert()
            .success()
            .stdout(predicate::str::contains("status    corrected"))
            .stdout(predicate::str::contains(
                "errors    1 at position 3 (row 1, column 0)",
            ))
            .stdout(predicate::str::contains("message   11010"))
            .stdout(predicate::str::contains(
                "codeword  001\n          111\n          001",
            ));
        let v = json(&["word", "decode", "alien:3x3", "001011001"]);
        assert_eq!(v["status"], "corrected");
        assert_eq!(v["errors"], serde_json::json!([3]));
        assert_eq!(
            v["error_cells"],
            serde_json::json!([{"row": 1, "column": 0}])
        );
        assert_eq!(v["codeword"], "001111001");
        assert_eq!(v["message"], "11010");
    }

    #[test]
    fn clean_and_detected_words() {
        let v = json(&["word", "decode", "alien:3x3", "001111001"]);
        assert_eq!(v["status"], "clean");
        assert_eq!(v["errors"], serde_json::json!([]));
        // two errors in one row of a 5x5 codeword (the zero word) are detected: exit 2
        tilecode()
            .args(["word", "decode", "alien:5x5", "1100000000000000000000000"])
            .assert()
            .code(2)
            .stdout(predicate::str::contains("status    detected"))
            .stdout(predicate::str::contains("message   none"));
        let out = tilecode()
            .args(["word", "decode", "secded:8", "11000000", "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["status"], "detected");
        assert_eq!(v["message"], Value::Null);
        assert!(v.get("error_cells").is_none());
    }

    #[test]
    fn hex_in_and_out() {
        // 11010 packs as 1101 0000 = d0; 001111001 as 0011 1100 1000 = 3c8.
        tilecode()
            .args(["word", "encode", "alien:3x3", "d0", "--hex"])
            .assert()
            .success()
            .stdout("3c8\n");
        let v = json(&["word", "decode", "alien:3x3", "0x2c8", "--hex"]);
        assert_eq!(v["codeword"], "3c8");
        assert_eq!(v["message"], "d0");
        fails_cleanly(&["word", "encode", "alien:3x3", "d4", "--hex"], "padding");
        fails_cleanly(&["word", "encode", "alien:3x3", "g0", "--hex"], "hex digit");
    }

    #[test]
    fn non_grid_codes_print_one_line() {
        let msg = "1".repeat(64);
        tilecode()
            .args(["word", "encode", "secded:72", &msg])
            .assert()
            .success()
            .stdout(format!("{}\n", "1".repeat(72)));
    }

    #[test]
    fn bad_input_is_one_line_and_exit_1() {
        fails_cleanly(
            &["word", "encode", "alien:3x3", "1101"],
            "expected 5 bits, found 4",
        );
        fails_cleanly(
            &["word", "encode", "alien:3x3", "11x10"],
            "bad character 'x'",
        );
        fails_cleanly(
            &["word", "decode", "alien:3x3", "0101"],
            "expected 9 bits, found 4",
        );
        fails_cleanly(&["word", "encode", "alien:0x3", "1"], "bad spec");
        fails_cleanly(&["word", "decode", "nonsense", "1"], "bad spec");
        fails_cleanly(&["word", "encode", "secded:3", "1"], "secded needs n >= 4");
    }
}

mod info {
    use super::*;

    #[test]
    fn paper_codes() {
        let v = json(&["info", "alien:3x3"]);
        assert_eq!((u(&v["n"]), u(&v["k"]), u(&v["d"])), (9, 5, 3));
        assert_eq!(v["optimal"], true);
        assert_eq!(u(&v["covering_radius"]), 2);
        assert!(v.get("better_code").is_none());

        let v = json(&["info", "alien:9x9"]);
        assert_eq!(
            (u(&v["n"]), u(&v["k"]), u(&v["d"]), u(&v["t"])),
            (81, 65, 4, 1)
        );
        assert_eq!(v["optimal"], false);
        assert_eq!(v["better_code"]["spec"], "secded:81");
        assert_eq!(u(&v["better_code"]["k"]), 73);
        assert_eq!(u(&v["bounds"]["singleton"]), 78);
        assert_eq!(u(&v["bounds"]["hamming"]), 74);
        assert_eq!(u(&v["bounds"]["griesmer"]), 77);
        assert_eq!(u(&v["covering_radius"]), 8);
    }

    #[test]
    fn hamming_family() {
        let v = json(&["info", "secded:72"]);
        assert_eq!((u(&v["n"]), u(&v["k"]), u(&v["d"])), (72, 64, 4));
        assert_eq!(v["optimal"], true);
        let v = json(&["info", "hamming:7"]);
        assert_eq!((u(&v["n"]), u(&v["k"]), u(&v["d"])), (7, 4, 3));
        assert_eq!(u(&v["covering_radius"]), 1);
        let wd: Vec<u64> = v["weight_distribution"]
            .as_array()
            .unwrap()
            .iter()
            .map(u)
            .collect();
        assert_eq!(wd, [1, 0, 0, 7, 7, 0, 0, 1]);
    }

    #[test]
    fn weight_distributions_sum_to_2_to_the_k() {
        for spec in [
            "alien:3x3",
            "alien:9x9",
            "alien:4x7",
            "alien:8x8",
            "alien:1x6",
            "secded:72",
            "secded:81",
            "hamming:7",
            "hamming:100",
            "parity:9",
            "repetition:5",
            "alien:31x31",
        ] {
            let v = json(&["info", spec]);
            let wd = v["weight_distribution"].as_array().unwrap();
            assert_eq!(wd.len() as u64, u(&v["n"]) + 1, "{spec}");
            let total: BigUint = wd.iter().map(big).sum();
            assert_eq!(total, BigUint::from(1u32) << u(&v["k"]), "{spec}");
            // the smallest non-zero weight is d
            let d = wd
                .iter()
                .skip(1)
                .position(|a| big(a) != BigUint::ZERO)
                .unwrap()
                + 1;
            assert_eq!(d as u64, u(&v["d"]), "{spec}");
        }
    }

    #[test]
    fn covering_radii_are_the_brute_force_values() {
        // Each checked by breadth-first search over all words or syndromes in tests/analysis.rs.
        for (spec, radius) in [
            ("alien:3x3", 2),
            ("alien:3x5", 3),
            ("alien:3x9", 4),
            ("alien:4x5", 2),
            ("alien:4x4", 0),
            ("alien:1x7", 3),
            ("hamming:7", 1),
            ("hamming:10", 2),
            ("secded:8", 2),
            ("secded:13", 3),
            ("parity:6", 1),
            ("repetition:6", 3),
        ] {
            assert_eq!(
                u(&json(&["info", spec])["covering_radius"]),
                radius,
                "{spec}"
            );
        }
    }

    #[test]
    fn human_summary() {
        tilecode()
            .args(["info", "alien:9x9"])
            .assert()
            .success()
            .stdout(predicate::str::contains("dimension k         65"))
            .stdout(predicate::str::contains(
                "optimal             no: secded:81 has k = 73",
            ))
            .stdout(predicate::str::contains("\n   4  1296\n"))
            .stdout(predicate::str::contains("--full lists them all"));
        let full = tilecode()
            .args(["info", "alien:9x9", "--full"])
            .output()
            .unwrap();
        let text = String::from_utf8(full.stdout).unwrap();
        assert!(text.contains("\n  40  "), "{text}");
        assert!(!text.contains("more weights"));
        // weight 5 has no codewords and is not listed
        assert!(!text.contains("\n   5  "));
    }

    #[test]
    fn even_by_even_warns() {
        let v = json(&["info", "alien:4x4"]);
        assert_eq!(u(&v["d"]), 1);
        assert!(v["warnings"][0].as_str().unwrap().contains("even-by-even"));
        tilecode()
            .args(["info", "alien:4x4"])
            .assert()
            .success()
            .stderr(predicate::str::contains(
                "warning: alien:4x4 is even-by-even",
            ));
    }

    #[test]
    fn beyond_the_limit_the_rest_is_still_reported() {
        let v = json(&["info", "alien:301x301"]);
        assert_eq!(v["weight_distribution"], Value::Null);
        assert_eq!(u(&v["covering_radius"]), 300);
        assert!(v["warnings"][0].as_str().unwrap().contains("out of reach"));
    }

    #[test]
    fn bad_specs() {
        fails_cleanly(&["info", "alien:3"], "bad spec `alien:3`");
        fails_cleanly(&["info", "foo:9"], "unknown code family");
        fails_cleanly(&["info", "hamming:x"], "not a positive integer");
    }
}

mod compare {
    use super::*;

    #[test]
    fn side_by_side_table() {
        let out = tilecode()
            .args(["compare", "alien:9x9", "secded:81"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            first.starts_with("code") && first.contains("alien:9x9") && first.contains("secded:81")
        );
        assert!(text.contains("no (secded:81: k=73)"));
        for p in ["1e-2", "1e-3", "1e-4", "1e-5"] {
            assert!(text.contains(&format!("BSC p = {p}")), "{text}");
        }
        // every table row has one value per code
        let fer_rows: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("frame error rate"))
            .collect();
        assert_eq!(fer_rows.len(), 4);
        assert!(fer_rows.iter().all(|l| l.split_whitespace().count() == 5));
    }

    #[test]
    fn json_rates_are_exact() {
        let v = json(&["compare", "alien:9x9", "secded:81", "--p", "1e-3,1e-5"]);
        let codes = v["codes"].as_array().unwrap();
        assert_eq!(codes.len(), 2);
        assert_eq!(codes[0]["spec"], "alien:9x9");
        assert_eq!(codes[1]["spec"], "secded:81");
        for c in codes {
            let bsc = c["bsc"].as_array().unwrap();
            assert_eq!(bsc.len(), 2);
            for r in bsc {
                let p = r["p"].as_f64().unwrap();
                // both decode exactly the patterns of weight <= 1: FER = P(weight >= 2)
                let q = 1.0 - p;
                let fer: f64 = (2..=81)
                    .map(|w| {
                        let c = (0..w).fold(1.0, |acc, x| acc * (81 - x) as f64 / (x + 1) as f64);
                        c * p.powi(w) * q.powi(81 - w)
                    })
                    .sum();
                let got = r["fer"].as_f64().unwrap();
                assert!((got - fer).abs() < 1e-12 * fer, "{p}: {got} vs {fer}");
                let sum = r["detected"].as_f64().unwrap() + r["miscorrected"].as_f64().unwrap();
                assert!((sum - got).abs() < 1e-15 * got);
            }
        }
        // the alien code has far fewer weight-4 words, so it miscorrects about 11.5 times less
        let mis = |i: usize| codes[i]["bsc"][1]["miscorrected"].as_f64().unwrap();
        assert!(mis(1) / mis(0) > 11.0 && mis(1) / mis(0) < 12.0);
        assert!(codes[0]["weight_distribution"].is_array());
    }

    #[test]
    fn bad_arguments() {
        fails_cleanly(
            &["compare", "alien:9x9", "--p", "2"],
            "expected a probability in [0, 1]",
        );
        fails_cleanly(
            &["compare", "alien:9x9", "--p", "x"],
            "expected a probability",
        );
        fails_cleanly(&["compare", "alien:9x9", "bogus:1"], "bad spec `bogus:1`");
        fails_cleanly(&["compare", "alien:301x301"], "out of reach");
    }
}

#[test]
fn product_codes_through_info_word_and_a_clear_refusal_from_encode() {
    let v = json(&["info", "product:9x9"]);
    assert_eq!((u(&v["n"]), u(&v["k"]), u(&v["d"])), (81, 64, 4));
    assert_eq!(u(&v["covering_radius"]), 9);
    // A_4: the C(9,2)^2 rectangles.
    assert_eq!(u(&v["weight_distribution"][4]), 36 * 36);
    let w = json(&["word", "decode", "product:3x3", "110100011"]);
    assert_eq!(w["status"], "corrected");
    assert_eq!(w["codeword"], "110101011");
    fails_cleanly(
        &["encode", "--code", "product:9x9", "-", "-o", "-"],
        "not supported by the stream codec",
    );
}
