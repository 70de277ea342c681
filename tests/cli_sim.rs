//! `tilecode simulate` end to end.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn tilecode() -> Command {
    Command::cargo_bin("tilecode").unwrap()
}

fn run_json(args: &[&str]) -> Value {
    json_of(
        tilecode()
            .arg("simulate")
            .args(args)
            .arg("--json")
            .output()
            .unwrap(),
    )
}

/// The output of a run that must have succeeded (its stderr shown otherwise).
fn ok(out: std::process::Output) -> std::process::Output {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The JSON a successful run printed.
fn json_of(out: std::process::Output) -> Value {
    serde_json::from_slice(&ok(out).stdout).unwrap()
}

fn results(v: &Value) -> &Vec<Value> {
    v["results"].as_array().unwrap()
}

fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

fn u(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

mod exact {
    use super::*;

    /// The documented command: simulated FER, detected and miscorrection rates with their
    /// intervals beside the exact values, which the intervals must contain.
    #[test]
    fn simulated_fer_is_inside_the_interval_around_the_exact_value() {
        let v = run_json(&["alien:9x9", "secded:81", "--p", "1e-2,1e-3", "--exact"]);
        let rs = results(&v);
        assert_eq!(rs.len(), 4);
        let want = [
            ("alien:9x9", 1e-2),
            ("alien:9x9", 1e-3),
            ("secded:81", 1e-2),
            ("secded:81", 1e-3),
        ];
        for (r, (code, p)) in rs.iter().zip(want) {
            assert_eq!(r["code"], code);
            assert_eq!(f(r, "p"), p);
            assert!(u(r, "frame_errors") >= 100, "{r}");
            assert_eq!(r["stop_reason"], "frame_errors");
            let exact = f(&r["exact"], "fer");
            let ci = r["fer_ci"].as_array().unwrap();
            let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
            assert!(
                lo <= exact && exact <= hi,
                "{code} p={p}: exact FER {exact} outside [{lo}, {hi}]"
            );
            assert!(lo <= f(r, "fer") && f(r, "fer") <= hi);
            for key in [
                "frames",
                "frame_errors",
                "fer",
                "fer_ci",
                "bit_errors",
                "ber",
                "ber_ci",
                "detected_rate",
                "miscorrection_rate",
                "stop_reason",
                "seconds",
                "info_bits_per_second",
                "detected_frames",
                "miscorrected_frames",
                "message_bits",
                "seed",
                "threads",
            ] {
                assert!(r.get(key).is_some(), "missing {key}");
            }
            for key in ["fer", "detected_rate", "miscorrection_rate"] {
                assert!(r["exact"][key].is_f64(), "exact.{key}");
            }
        }
        // Same length, same t: the FER of both codes is the same; their miscorrection is not.
        assert_eq!(f(&rs[0]["exact"], "fer"), f(&rs[2]["exact"], "fer"));
        assert!(
            f(&rs[0]["exact"], "miscorrection_rate") * 5.0
                < f(&rs[2]["exact"], "miscorrection_rate")
        );
    }

    #[test]
    fn exact_needs_the_binary_symmetric_channel() {
        tilecode()
            .args([
                "simulate",
                "alien:9x9",
                "--channel",
                "burst:4",
                "--p",
                "1e-3",
                "--exact",
            ])
            .assert()
            .code(1)
            .stderr(predicate::str::contains(
                "--exact needs the binary symmetric channel",
            ));
    }
}

mod merge {
    use super::*;
    use std::fs;

    fn seeded(dir: &std::path::Path, seed: &str) -> (std::path::PathBuf, Value) {
        let v = run_json(&[
            "alien:9x9",
            "secded:72",
            "--p",
            "1e-2,3e-3",
            "--seed",
            seed,
            "--max-frames",
            "5000",
        ]);
        let path = dir.join(format!("run{seed}.json"));
        fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
        (path, v)
    }

    #[test]
    fn merged_counts_are_the_sums() {
        let dir = tempfile::tempdir().unwrap();
        let (pa, a) = seeded(dir.path(), "1");
        let (pb, b) = seeded(dir.path(), "2");
        assert_ne!(results(&a)[0]["bit_errors"], results(&b)[0]["bit_errors"]);
        let m = run_json(&["--merge", pa.to_str().unwrap(), pb.to_str().unwrap()]);
        let (ra, rb, rm) = (results(&a), results(&b), results(&m));
        assert_eq!(rm.len(), ra.len());
        for i in 0..rm.len() {
            for key in [
                "frames",
                "frame_errors",
                "bit_errors",
                "detected_frames",
                "miscorrected_frames",
                "channel_bit_errors",
                "message_bits",
                "bit_errors_sq",
            ] {
                assert_eq!(u(&rm[i], key), u(&ra[i], key) + u(&rb[i], key), "{key}");
            }
            assert_eq!(rm[i]["seeds"], serde_json::json!([1, 2]));
            assert_eq!(rm[i]["stop_reason"], "merged");
            let fer = u(&rm[i], "frame_errors") as f64 / u(&rm[i], "frames") as f64;
            assert_eq!(f(&rm[i], "fer"), fer);
            // The merged interval is the interval of the summed counts: narrower than either.
            let w = |r: &Value| {
                let c = r["fer_ci"].as_array().unwrap();
                c[1].as_f64().unwrap() - c[0].as_f64().unwrap()
            };
            assert!(w(&rm[i]) < w(&ra[i]) && w(&rm[i]) < w(&rb[i]));
        }
    }

    #[test]
    fn mismatched_runs_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (pa, _) = seeded(dir.path(), "1");
        let other = run_json(&[
            "alien:9x9",
            "--p",
            "1e-2",
            "--seed",
            "2",
            "--max-frames",
            "640",
        ]);
        let pb = dir.path().join("other.json");
        fs::write(&pb, serde_json::to_string(&other).unwrap()).unwrap();
        tilecode()
            .args([
                "simulate",
                "--merge",
                pa.to_str().unwrap(),
                pb.to_str().unwrap(),
            ])
            .assert()
            .code(1)
            .stderr(predicate::str::starts_with("tilecode: cannot merge runs:"))
            .stderr(predicate::str::contains('\n').count(1));
        // The same run twice repeats the same frames.
        tilecode()
            .args([
                "simulate",
                "--merge",
                pa.to_str().unwrap(),
                pa.to_str().unwrap(),
            ])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("seed 1 appears twice"));
        let junk = dir.path().join("junk.json");
        fs::write(&junk, "{\"results\": [{\"code\": \"alien:9x9\"}]}").unwrap();
        tilecode()
            .args(["simulate", "--merge", junk.to_str().unwrap()])
            .assert()
            .code(1)
            .stderr(
                predicate::str::contains("expected `frames`")
                    .or(predicate::str::contains("expected `")),
            );
    }
}

mod determinism {
    use super::*;

    fn counts(v: &Value) -> Vec<(u64, u64, u64)> {
        results(v)
            .iter()
            .map(|r| (u(r, "frames"), u(r, "frame_errors"), u(r, "bit_errors")))
            .collect()
    }

    #[test]
    fn same_seed_same_counts_on_any_thread_count() {
        let args = [
            "alien:9x9",
            "--p",
            "1e-2",
            "--seed",
            "9",
            "--min-frame-errors",
            "200",
        ];
        let one = run_json(&[&args[..], &["--threads", "1"]].concat());
        let two = run_json(&[&args[..], &["--threads", "2"]].concat());
        let three = run_json(&[&args[..], &["--threads", "3"]].concat());
        assert_eq!(counts(&one), counts(&two));
        assert_eq!(counts(&one), counts(&three));
        let other = run_json(&[
            "alien:9x9",
            "--p",
            "1e-2",
            "--seed",
            "10",
            "--min-frame-errors",
            "200",
        ]);
        assert_ne!(counts(&one), counts(&other));
    }

    #[test]
    fn reference_engine_agrees() {
        let args = [
            "alien:5x5",
            "hamming:15",
            "--p",
            "2e-2",
            "--max-frames",
            "2000",
            "--min-frame-errors",
            "0",
        ];
        let sliced = run_json(&args);
        let reference = run_json(&[&args[..], &["--engine", "reference"]].concat());
        assert_eq!(counts(&sliced), counts(&reference));
        assert_eq!(results(&reference)[0]["engine"], "reference");
    }
}

mod channels {
    use super::*;

    #[test]
    fn interleaving_defeats_bursts() {
        let run = |d: &str| {
            run_json(&[
                "alien:9x9",
                "--channel",
                "burst:8",
                "--p",
                "2e-4",
                "--interleave",
                d,
                "--max-frames",
                "20000",
                "--min-frame-errors",
                "0",
            ])
        };
        let flat = run("1");
        let deep = run("8");
        let (rf, rd) = (&results(&flat)[0], &results(&deep)[0]);
        assert_eq!(rd["channel"], "burst:8:0.0002");
        assert_eq!(u(rd, "interleave"), 8);
        assert_eq!(u(rd, "message_bits"), 20000 * 65 * 8);
        // Frame errors per burst (a burst flips 8 bits): nearly every burst is fatal without
        // interleaving; with depth 8 only two bursts in one frame are.
        let per_burst =
            |r: &Value| u(r, "frame_errors") as f64 * 8.0 / u(r, "channel_bit_errors") as f64;
        assert!(per_burst(rf) > 0.8, "{rf}");
        assert!(per_burst(rd) < 0.15, "{rd}");
    }

    #[test]
    fn fixed_channel_runs_one_point_at_its_mean_rate() {
        let v = run_json(&[
            "secded:72",
            "--channel",
            "ge:0.01:0.1:0.0001:0.1",
            "--max-frames",
            "3000",
        ]);
        let r = &results(&v)[0];
        let mean = 0.01 / 0.11 * 0.1 + 0.1 / 0.11 * 0.0001;
        assert!((f(r, "p") - mean).abs() < 1e-15);
        assert!((f(r, "channel_ber") - mean).abs() < 0.3 * mean, "{r}");
    }

    #[test]
    fn bad_input_is_one_line_and_exit_1() {
        for args in [
            vec!["alien:9x9", "--p", "2"],
            vec!["alien:9x9", "--p", "1e-3:1e-1"],
            vec!["alien:9x9"],
            vec!["alien:9x9", "--p", "1e-3", "--channel", "awgn"],
            vec!["alien:9x9", "--channel", "burst:4:0.1", "--p", "1e-3"],
            vec!["alien:0x9", "--p", "1e-3"],
            vec!["alien:9x9", "--p", "1e-3", "--interleave", "0"],
            vec!["alien:9x9", "--p", "1e-3", "--threads", "0"],
            vec![
                "alien:9x9",
                "--p",
                "1e-3",
                "--min-frame-errors",
                "0",
                "--max-frames",
                "0",
            ],
        ] {
            tilecode()
                .arg("simulate")
                .args(&args)
                .assert()
                .code(1)
                .stderr(predicate::str::starts_with("tilecode: "))
                .stderr(predicate::str::contains('\n').count(1));
        }
    }
}

mod output {
    use super::*;

    #[test]
    fn csv_and_table() {
        tilecode()
            .args([
                "simulate",
                "alien:3x3",
                "--p",
                "1e-2",
                "--max-frames",
                "640",
                "--csv",
            ])
            .assert()
            .success()
            .stdout(predicate::str::starts_with(
                "code,n,k,channel,p,interleave,seeds,frames,",
            ))
            .stdout(predicate::str::contains(
                "\nalien:3x3,9,5,bsc:0.01,0.01,1,1,640,",
            ));
        tilecode()
            .args([
                "simulate",
                "alien:3x3",
                "--p",
                "1e-2",
                "--max-frames",
                "640",
                "--exact",
            ])
            .assert()
            .success()
            .stdout(
                predicate::str::contains("exact FER").and(predicate::str::contains("alien:3x3")),
            );
    }

    #[test]
    fn plot_has_both_codes_axes_and_error_bars() {
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("fer.svg");
        tilecode()
            .args([
                "simulate",
                "alien:9x9",
                "secded:81",
                "--p",
                "1e-2,3e-3",
                "--exact",
                "--plot",
            ])
            .arg(&svg)
            .assert()
            .success();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.starts_with("<svg"));
        for needle in [
            "alien:9x9 exact",
            "secded:81 exact",
            "alien:9x9 simulated",
            "secded:81 simulated",
            "Frame error rate",
            "FER",
            "BER",
            "p (channel bit error probability)",
            "<circle",
            "<polyline",
        ] {
            assert!(text.contains(needle), "{needle} missing from the SVG");
        }
        // Rendered for real when rsvg-convert is installed (scripts/render_plots.sh needs it).
        if let Ok(out) = std::process::Command::new("rsvg-convert")
            .arg(&svg)
            .arg("-o")
            .arg(dir.path().join("fer.png"))
            .output()
        {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let png = std::fs::read(dir.path().join("fer.png")).unwrap();
            assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000);
        }
    }
}

mod bench {
    use super::*;

    #[test]
    fn bench_reports_codec_and_cli_against_memcpy_and_cat() {
        let out = ok(tilecode()
            .args([
                "bench",
                "alien:9x9",
                "secded:72",
                "--size",
                "4",
                "--repetitions",
                "1",
                "--json",
            ])
            .output()
            .unwrap());
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let rs = results(&v);
        assert_eq!(rs.len(), 2);
        for (r, code) in rs.iter().zip(["alien:9x9", "secded:72"]) {
            assert_eq!(r["code"], code);
            // Rounded down to whole chunks of about 1 MiB.
            assert!(u(r, "bytes") > 3 << 20 && u(r, "bytes") <= 4 << 20);
            for key in [
                "memcpy_bytes_per_sec",
                "encode_bytes_per_sec",
                "decode_clean_bytes_per_sec",
                "decode_noisy_bytes_per_sec",
                "encode_ratio",
            ] {
                assert!(f(r, key) > 0.0, "{key}");
            }
            assert!(f(&r["cli"], "cat_bytes_per_sec") > 0.0);
            assert!(f(&r["cli"], "encode_bytes_per_sec") > 0.0);
            assert!(u(r, "flipped_bits") > 0);
        }
        tilecode()
            .args(["bench", "alien:9x9", "--size", "0"])
            .assert()
            .code(1)
            .stderr(predicate::str::starts_with("tilecode: --size"));
    }

    /// Several depths in one run: a result per code and depth with its floor, then the same
    /// results rendered again from the saved JSON as a Markdown matrix and a plot.
    #[test]
    fn bench_matrix_over_depths_renders_from_saved_json() {
        let dir = tempfile::tempdir().unwrap();
        let out = ok(tilecode()
            .args(["bench", "alien:5x5", "secded:39", "--interleave", "64,512"])
            .args([
                "--size",
                "1",
                "--repetitions",
                "1",
                "--threads",
                "1",
                "--no-cli",
            ])
            .args(["--recovery", "0", "--json"])
            .output()
            .unwrap());
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let rs = results(&v);
        let cells: Vec<(String, u64)> = rs
            .iter()
            .map(|r| (r["code"].as_str().unwrap().to_string(), u(r, "interleave")))
            .collect();
        let want = [
            ("alien:5x5", 64),
            ("alien:5x5", 512),
            ("secded:39", 64),
            ("secded:39", 512),
        ];
        assert_eq!(cells, want.map(|(c, d)| (c.to_string(), d)));
        for r in rs {
            assert_eq!(f(&r["floor"], "encode"), 0.6);
            assert_eq!(f(&r["floor"], "decode_noisy"), 0.4);
            let meets = f(r, "encode_ratio") >= 0.6
                && f(r, "decode_clean_ratio") >= 0.6
                && f(r, "decode_noisy_ratio") >= 0.4;
            assert_eq!(r["meets_floor"].as_bool(), Some(meets));
        }
        let saved = dir.path().join("m.json");
        std::fs::write(&saved, &out.stdout).unwrap();
        let plot = dir.path().join("m.png");
        let out = ok(tilecode()
            .arg("bench")
            .arg("--from")
            .arg(&saved)
            .arg("--markdown")
            .arg("--plot")
            .arg(&plot)
            .output()
            .unwrap());
        let md = String::from_utf8(out.stdout).unwrap();
        assert!(
            md.starts_with("| code | D = 64 | D = 512 |\n|---|---|---|\n"),
            "{md}"
        );
        assert!(
            md.contains("| alien:5x5 |") && md.contains("| secded:39 |"),
            "{md}"
        );
        assert!(md.contains(" of 4 cells meet their floor"), "{md}");
        let png = std::fs::read(&plot).unwrap();
        assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000);
        tilecode()
            .args(["bench", "--interleave", "64,100", "--size", "1", "--no-cli"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("multiples of 64, found 100"));
        tilecode()
            .arg("bench")
            .arg("--from")
            .arg(&plot)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(
                "expected the JSON of `tilecode bench --json`",
            ));
    }
}

mod awgn {
    use super::*;

    /// R = 4/7: Es/N0 = Eb/N0 + 10 log10(4/7) dB.
    const HAMMING7_RATE_DB: f64 = -2.430_380_486_862_944;

    #[test]
    fn json_carries_channel_ebn0_decoder_and_analytic_curves() {
        let v = run_json(&[
            "hamming:7",
            "--channel",
            "awgn",
            "--ebn0",
            "2:4:2",
            "--decoder",
            "ml",
            "--exact",
            "--min-frame-errors",
            "50",
        ]);
        let rs = results(&v);
        assert_eq!(rs.len(), 2);
        for (r, db) in rs.iter().zip([2.0, 4.0]) {
            assert_eq!(f(r, "ebn0_db"), db);
            assert_eq!(r["decoder"], "ml");
            assert_eq!(r["kernel"], "viterbi");
            assert_eq!(r["engine"], "soft");
            let esn0: f64 = r["channel"].as_str().unwrap()["awgn:esn0=".len()..]
                .parse()
                .unwrap();
            assert!((esn0 - (db + HAMMING7_RATE_DB)).abs() < 1e-12, "{r}");
            let a = &r["analytic"];
            assert!(f(a, "union_bound_fer") > f(r, "fer") * 0.5, "{r}");
            assert!(f(a, "uncoded_ber") > 0.0);
            assert!(f(a, "union_bound_ber") > f(r, "ber") * 0.5, "{r}");
            assert!(
                r.get("exact").is_none(),
                "exact BSC rates are for hard decisions"
            );
        }
        // --snr-type es: the values are Es/N0.
        let v = run_json(&[
            "hamming:7",
            "--channel",
            "awgn",
            "--ebn0",
            "1",
            "--snr-type",
            "es",
            "--max-frames",
            "640",
        ]);
        let r = &results(&v)[0];
        assert_eq!(r["channel"], "awgn:esn0=1");
        assert!((f(r, "ebn0_db") - (1.0 - HAMMING7_RATE_DB)).abs() < 1e-12);
        assert_eq!(r["decoder"], "hard");
    }

    #[test]
    fn hard_decisions_get_the_bsc_formulas_at_the_equivalent_p() {
        let v = run_json(&[
            "alien:9x9",
            "--channel",
            "awgn",
            "--ebn0",
            "4",
            "--exact",
            "--min-frame-errors",
            "400",
        ]);
        let r = &results(&v)[0];
        let (lo, hi) = (
            r["fer_ci"][0].as_f64().unwrap(),
            r["fer_ci"][1].as_f64().unwrap(),
        );
        let exact = f(&r["exact"], "fer");
        assert!(lo <= exact && exact <= hi, "{r}");
        assert_eq!(u(r, "d"), 4);
    }

    #[test]
    fn every_decoder_sees_the_same_noise() {
        // The alien code and the product code it contains, every decoder.
        for spec in ["alien:5x5", "product:5x5"] {
            let run = |decoder: &str| {
                let v = run_json(&[
                    spec,
                    "--channel",
                    "awgn",
                    "--ebn0",
                    "3",
                    "--decoder",
                    decoder,
                    "--max-frames",
                    "3000",
                    "--min-frame-errors",
                    "0",
                ]);
                results(&v)[0].clone()
            };
            let hard = run("hard");
            let (ml, chase, it) = (run("ml"), run("chase"), run("iterative"));
            for r in [&ml, &chase, &it] {
                assert_eq!(u(r, "channel_bit_errors"), u(&hard, "channel_bit_errors"));
            }
            assert_eq!(hard["kernel"], spec.split(':').next().unwrap());
            assert_eq!(ml["kernel"], "viterbi");
            assert_eq!(chase["decoder"], "chase:4");
            assert_eq!(it["decoder"], "iterative:20");
            // Not better than ML on the same noise, and soft beats hard.
            for r in [&chase, &it, &hard] {
                assert!(
                    u(r, "frame_errors") >= u(&ml, "frame_errors"),
                    "{spec}: {r} vs {ml}"
                );
            }
            assert!(
                u(&hard, "frame_errors") > u(&chase, "frame_errors"),
                "{spec}"
            );
        }
    }

    #[test]
    fn erasure_channel_defaults_to_the_erasure_decoder_with_exact_rates() {
        let v = run_json(&["secded:16", "--channel", "bec", "--p", "0.1", "--exact"]);
        let r = &results(&v)[0];
        assert_eq!(r["decoder"], "erasure");
        assert_eq!(r["kernel"], "gf2_solve");
        let a = &r["analytic"];
        assert_eq!(f(a, "erasure_fer_low"), f(a, "erasure_fer_high"));
        let (lo, hi) = (
            r["fer_ci"][0].as_f64().unwrap(),
            r["fer_ci"][1].as_f64().unwrap(),
        );
        let exact = f(a, "erasure_fer_low");
        assert!(lo <= exact && exact <= hi, "{r}");
    }

    #[test]
    fn png_and_svg_plots_against_ebn0() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["fer.png", "fer.svg"] {
            let path = dir.path().join(name);
            tilecode()
                .args([
                    "simulate",
                    "hamming:7",
                    "--channel",
                    "awgn",
                    "--ebn0",
                    "0:6:2",
                    "--decoder",
                    "ml",
                    "--exact",
                    "--min-frame-errors",
                    "30",
                    "--plot",
                ])
                .arg(&path)
                .assert()
                .success();
            let bytes = std::fs::read(&path).unwrap();
            if name.ends_with("png") {
                assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 20_000);
            } else {
                let text = String::from_utf8(bytes).unwrap();
                for needle in ["Eb/N0 (dB)", "union bound", "uncoded BPSK", "hamming:7 ml"] {
                    assert!(text.contains(needle), "{needle} missing from the SVG");
                }
            }
        }
        tilecode()
            .args(["simulate", "hamming:7", "--p", "0.01", "--plot"])
            .arg(dir.path().join("fer.jpg"))
            .assert()
            .code(1)
            .stderr(predicate::str::contains(
                "expected a plot file ending in .png or .svg",
            ));
    }

    #[test]
    fn decoders_past_their_limits_are_refused() {
        for (args, msg) in [
            (
                vec!["alien:15x15", "--decoder", "ml"],
                "expected n 2^min(k, n - k) <= 2^24",
            ),
            (
                vec!["hamming:7", "--decoder", "iterative"],
                "odd-by-odd alien",
            ),
            (
                vec!["hamming:7", "--decoder", "erasure"],
                "expected the erasure channel",
            ),
        ] {
            tilecode()
                .args(["simulate", "--channel", "awgn", "--ebn0", "3"])
                .args(&args)
                .assert()
                .code(1)
                .stderr(predicate::str::contains(msg));
        }
        tilecode()
            .args(["simulate", "hamming:7", "--p", "0.1", "--ebn0", "3"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("--ebn0 needs --channel awgn"));
    }
}

mod resume {
    use super::*;

    const KEYS: [&str; 7] = [
        "frames",
        "frame_errors",
        "detected_frames",
        "miscorrected_frames",
        "bit_errors",
        "bit_errors_sq",
        "channel_bit_errors",
    ];

    fn counts(v: &Value) -> Vec<Vec<String>> {
        results(v)
            .iter()
            .map(|r| KEYS.iter().map(|k| r[*k].to_string()).collect())
            .collect()
    }

    const ARGS: [&str; 13] = [
        "simulate",
        "hamming:7",
        "--channel",
        "awgn",
        "--ebn0",
        "2,3",
        "--decoder",
        "ml",
        "--max-frames",
        "1000000",
        "--min-frame-errors",
        "0",
        "--json",
    ];

    /// A run killed (SIGKILL) after it wrote a checkpoint, resumed from it, ends with the
    /// counts of the run that was never stopped.
    #[test]
    fn a_killed_run_resumes_to_the_same_counts() {
        let dir = tempfile::tempdir().unwrap();
        let ck = dir.path().join("run.ckpt");
        let whole = run_json(&ARGS[1..ARGS.len() - 1]);
        let bin = assert_cmd::cargo::cargo_bin("tilecode");
        let mut child = std::process::Command::new(&bin)
            .args(ARGS)
            .args(["--threads", "1", "--checkpoint-every", "0", "--checkpoint"])
            .arg(&ck)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Wait for a checkpoint in the middle of the first point, then kill.
        let started = std::time::Instant::now();
        loop {
            let text = std::fs::read_to_string(&ck).unwrap_or_default();
            if text.contains("\"next_batch\"") && text.contains("\"frames\": ") {
                let v: Value = serde_json::from_str(&text).unwrap();
                if u(&v["current"], "frames") > 100_000 {
                    break;
                }
            }
            assert!(started.elapsed().as_secs() < 60, "no checkpoint written");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was killed"
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&ck).unwrap()).unwrap();
        assert!(u(&saved["current"], "frames") < 1_000_000);
        let resumed = json_of(
            tilecode()
                .args(ARGS)
                .arg("--resume")
                .arg(&ck)
                .output()
                .unwrap(),
        );
        assert_eq!(counts(&resumed), counts(&whole));
        // Not a checkpoint: refused.
        tilecode()
            .args(ARGS)
            .arg("--resume")
            .arg(dir.path())
            .assert()
            .code(1);
    }

    /// `mpirun -np 2` and one process: the same counts for one seed (a build with the `mpi`
    /// feature; scripts/mpi_check.sh installs OpenMPI and runs this).
    #[cfg(feature = "mpi")]
    #[test]
    fn mpirun_with_two_ranks_counts_what_one_process_counts() {
        let args = [
            "simulate",
            "alien:9x9",
            "--channel",
            "awgn",
            "--ebn0",
            "3,5",
            "--decoder",
            "chase",
            "--max-frames",
            "30001",
            "--min-frame-errors",
            "0",
            "--threads",
            "1",
            "--json",
        ];
        let one = run_json(&args[1..args.len() - 1]);
        let out = std::process::Command::new("mpirun")
            .args(["--allow-run-as-root", "--oversubscribe", "-np", "2"])
            .arg(assert_cmd::cargo::cargo_bin("tilecode"))
            .args(args)
            .output()
            .expect("mpirun (OpenMPI) is installed: see scripts/mpi_check.sh");
        let two = json_of(out);
        assert_eq!(counts(&two), counts(&one));
        assert_eq!(u(&results(&two)[0], "frames"), 30_001);
    }
}
