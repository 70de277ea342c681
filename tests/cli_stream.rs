//! The stream subcommands end to end: `tilecode encode | decode | verify | corrupt | demo`.

use assert_cmd::Command;
use predicates::prelude::*;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use tempfile::TempDir;
use tilecode::code::Spec;
use tilecode::stream::{self, Options};

const DEPTHS: &[usize] = &[64, 512, 4096];
const MIB: usize = 1 << 20;

fn tilecode() -> Command {
    Command::cargo_bin("tilecode").expect("the tilecode binary")
}

fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; len];
    ChaCha20Rng::seed_from_u64(seed).fill_bytes(&mut v);
    v
}

fn write(dir: &TempDir, name: &str, data: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    fs::write(&p, data).unwrap();
    p
}

/// The last line of `text` that is a JSON object.
fn json_line(text: &[u8]) -> Value {
    let s = String::from_utf8_lossy(text);
    let line = s
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("no JSON line in {s:?}"));
    serde_json::from_str(line).unwrap()
}

/// Exactly one line, `tilecode: ...`.
fn one_error_line(stderr: &[u8]) -> String {
    let s = String::from_utf8_lossy(stderr).into_owned();
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 1, "expected one line, got {s:?}");
    assert!(lines[0].starts_with("tilecode: "), "{s:?}");
    s
}

fn encode_file(input: &Path, out: &Path, spec: &str, depth: usize, extra: &[&str]) {
    tilecode()
        .arg("encode")
        .arg(input)
        .arg("-o")
        .arg(out)
        .args([
            "--code",
            spec,
            "--interleave",
            &depth.to_string(),
            "--quiet",
        ])
        .args(extra)
        .assert()
        .success();
}

fn flip(v: &mut [u8], bit: u64) {
    v[(bit / 8) as usize] ^= 1 << (bit % 8);
}

/// Bytes of the header region (the trailer region has the same size): half an empty stream.
fn region_bytes(spec: &str, depth: usize) -> u64 {
    let opts = Options {
        code: spec.parse::<Spec>().unwrap(),
        interleave: depth,
        ..Options::default()
    };
    stream::encode(&[], &opts).unwrap().len() as u64 / 2
}

/// Flips one random bit in the header, one in the trailer, and one in each of many regions
/// spaced so that no codeword and no header or trailer bit position gets two. Returns how many
/// flips landed between the header and the trailer regions.
fn flip_one_per_codeword(v: &mut [u8], spec: &str, depth: usize, seed: u64) -> (u64, u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let n = spec.parse::<Spec>().unwrap().n() as u64;
    let region = region_bytes(spec, depth) * 8;
    let bits = v.len() as u64 * 8;
    let spacing = (n * depth as u64).max(region) + 1;
    let mut total = 0;
    let mut inner = 0;
    // Header and trailer first.
    flip(v, rng.gen_range(0..region));
    let trailer_bit = bits - 1 - rng.gen_range(0..region);
    flip(v, trailer_bit);
    total += 2;
    // Even slots after the header slot whose flips stay `spacing` away from the trailer flip.
    let mut j = 1u64;
    while (2 * j + 1) * spacing + spacing <= bits - region {
        let b = 2 * j * spacing + rng.gen_range(0..spacing);
        flip(v, b);
        total += 1;
        if b >= region && b < bits - region {
            inner += 1;
        }
        j += 1;
    }
    (inner, total)
}

mod roundtrip {
    use super::*;

    fn family(spec: &str) {
        let dir = tempfile::tempdir().unwrap();
        for &depth in DEPTHS {
            for (i, &len) in [0usize, 1, MIB].iter().enumerate() {
                let data = random_bytes(len, (depth * 10 + i) as u64);
                let input = write(&dir, &format!("in-{depth}-{len}"), &data);
                let enc = dir.path().join(format!("in-{depth}-{len}.tc"));
                encode_file(&input, &enc, spec, depth, &[]);
                let out = dir.path().join(format!("out-{depth}-{len}"));
                let a = tilecode()
                    .arg("decode")
                    .arg(&enc)
                    .arg("-o")
                    .arg(&out)
                    .arg("--json")
                    .assert()
                    .code(0);
                assert_eq!(
                    fs::read(&out).unwrap(),
                    data,
                    "{spec} D={depth} {len} bytes"
                );
                let j = json_line(&a.get_output().stderr);
                assert_eq!(j["status"], "clean", "{j}");
                assert_eq!(j["bytes_out"], len as u64);
                assert_eq!(j["bytes_in"], fs::metadata(&enc).unwrap().len());
                assert_eq!(j["checksum_ok"], true);
            }
        }
    }

    #[test]
    fn alien_9x9() {
        family("alien:9x9");
    }
    #[test]
    fn alien_4x5() {
        family("alien:4x5");
    }
    #[test]
    fn alien_5x4() {
        family("alien:5x4");
    }
    #[test]
    fn alien_3x3() {
        family("alien:3x3");
    }
    #[test]
    fn secded_72() {
        family("secded:72");
    }
    #[test]
    fn hamming_31() {
        family("hamming:31");
    }
    #[test]
    fn repetition_3() {
        family("repetition:3");
    }
    #[test]
    fn parity_9() {
        family("parity:9");
    }
}

mod encode {
    use super::*;

    #[test]
    fn default_output_is_file_dot_tc_and_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let input = write(&dir, "x.bin", &random_bytes(1000, 1));
        tilecode().arg("encode").arg(&input).assert().success();
        let tc = dir.path().join("x.bin.tc");
        let first = fs::read(&tc).unwrap();
        assert!(first.len() > 1000);
        let a = tilecode().arg("encode").arg(&input).assert().code(1);
        let e = one_error_line(&a.get_output().stderr);
        assert!(
            e.contains("refusing to overwrite") && e.contains("--force"),
            "{e}"
        );
        assert_eq!(fs::read(&tc).unwrap(), first);
        tilecode()
            .arg("encode")
            .arg(&input)
            .args(["--force", "--code", "secded:72"])
            .assert()
            .success();
        assert_ne!(fs::read(&tc).unwrap(), first);
    }

    #[test]
    fn stdin_to_stdout_and_dash() {
        let data = random_bytes(5000, 2);
        let a = tilecode()
            .arg("encode")
            .write_stdin(data.clone())
            .assert()
            .success();
        let from_stdin = a.get_output().stdout.clone();
        let b = tilecode()
            .args(["encode", "-", "-o", "-"])
            .write_stdin(data.clone())
            .assert()
            .success();
        // Every stream has its own random id, so the two differ in their frames only.
        assert_eq!(b.get_output().stdout.len(), from_stdin.len());
        for enc in [&b.get_output().stdout, &from_stdin] {
            let d = tilecode()
                .args(["decode", "-o", "-", "-q"])
                .write_stdin(enc.clone())
                .assert()
                .success();
            assert_eq!(d.get_output().stdout, data);
        }
        let dir = tempfile::tempdir().unwrap();
        let input = write(&dir, "d", &data);
        let c = tilecode()
            .arg("encode")
            .arg(&input)
            .args(["-o", "-"])
            .assert()
            .success();
        // From a file the stream also records the file's name, mode and time.
        let (dec, _) = stream::decode(&c.get_output().stdout).unwrap();
        assert_eq!(dec.as_ref(), &data[..]);
        assert_eq!(stream::decode(&from_stdin).unwrap().0.as_ref(), &data[..]);
    }

    #[test]
    fn devices_are_written_in_place() {
        tilecode()
            .args(["encode", "-o", "/dev/null", "-q"])
            .write_stdin(random_bytes(100_000, 4))
            .assert()
            .success();
        assert!(!fs::metadata("/dev/null").unwrap().is_file());
    }

    #[test]
    #[cfg(unix)]
    fn decoding_into_a_device_leaves_its_mode_alone() {
        // The stream of a file records its mode; decoding gives it to the file it creates,
        // and never to a device written in place (`-o /dev/null` once made /dev/null
        // `-rw-r--r--`). A FIFO stands for the device here.
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let data = random_bytes(50_000, 8);
        let input = write(&dir, "orig", &data);
        fs::set_permissions(&input, fs::Permissions::from_mode(0o600)).unwrap();
        let e = tilecode()
            .arg("encode")
            .arg(&input)
            .args(["-o", "-", "-q"])
            .assert()
            .success();
        let stream = write(&dir, "orig.tc", &e.get_output().stdout);
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .args(["-m", "0662"])
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let f = fifo.clone();
            std::thread::spawn(move || fs::read(f).unwrap())
        };
        tilecode()
            .arg("decode")
            .arg(&stream)
            .arg("-o")
            .arg(&fifo)
            .arg("-q")
            .assert()
            .success();
        assert_eq!(reader.join().unwrap(), data);
        let mode = fs::metadata(&fifo).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o662, "the FIFO keeps its own mode");
        let out = dir.path().join("out");
        tilecode()
            .arg("decode")
            .arg(&stream)
            .arg("-o")
            .arg(&out)
            .arg("-q")
            .assert()
            .success();
        let mode = fs::metadata(&out).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600, "a decoded file gets the original's mode");
    }

    #[test]
    fn a_full_disk_is_an_output_error_on_encode_and_decode() {
        // `/dev/full` fails every write with ENOSPC, as a full disk does: both commands exit
        // 1 and say that the output could not be written (decode once named only the input).
        let full = std::path::Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let input = write(&dir, "orig", &random_bytes(5 << 20, 9));
        let stream = dir.path().join("orig.tc");
        tilecode()
            .arg("encode")
            .arg(&input)
            .arg("-o")
            .arg(&stream)
            .arg("-q")
            .assert()
            .success();
        for (cmd, file) in [("encode", &input), ("decode", &stream)] {
            let a = tilecode()
                .arg(cmd)
                .arg(file)
                .arg("-o")
                .arg(full)
                .arg("-q")
                .assert()
                .code(1);
            let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
            assert!(
                err.contains("cannot write the output") && err.contains("No space left"),
                "{cmd}: {err}"
            );
        }
    }

    #[test]
    fn bad_code_and_depth_are_usage_errors() {
        for args in [
            &["--code", "alien:9"][..],
            &["--code", "golay:23"],
            &["--interleave", "100"],
            &["--interleave", "0"],
            &["--chunk-size", "x"],
        ] {
            let a = tilecode()
                .arg("encode")
                .args(args)
                .write_stdin("abc")
                .assert()
                .code(1);
            assert!(!a.get_output().stderr.is_empty());
        }
    }

    #[test]
    fn warns_about_codes_without_redundancy() {
        tilecode()
            .args(["encode", "--code", "alien:2x2", "--quiet"])
            .write_stdin("abc")
            .assert()
            .success()
            .stderr(
                predicate::str::contains("warning").and(predicate::str::contains("even-by-even")),
            );
    }

    #[test]
    fn large_interleave_works() {
        let data = random_bytes(70_000, 3);
        let a = tilecode()
            .args(["encode", "--interleave", "65536", "--quiet"])
            .write_stdin(data.clone())
            .assert()
            .success();
        let b = tilecode()
            .arg("decode")
            .write_stdin(a.get_output().stdout.clone())
            .assert()
            .code(0);
        assert_eq!(b.get_output().stdout, data);
    }
}

mod decode {
    use super::*;

    /// One 1 MiB file encoded with `spec` and depth `depth`, in a fresh directory.
    fn encoded(
        spec: &str,
        depth: usize,
        len: usize,
        extra: &[&str],
    ) -> (TempDir, Vec<u8>, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let data = random_bytes(len, depth as u64 ^ 0x5eed);
        let input = write(&dir, "orig", &data);
        let enc = dir.path().join("orig.tc");
        encode_file(&input, &enc, spec, depth, extra);
        let bytes = fs::read(&enc).unwrap();
        (dir, data, bytes)
    }

    fn decode_bytes(
        dir: &TempDir,
        stream_bytes: &[u8],
        extra: &[&str],
    ) -> (i32, Vec<u8>, Value, PathBuf) {
        let p = write(dir, "damaged.tc", stream_bytes);
        let out = dir.path().join("damaged");
        let _ = fs::remove_file(&out);
        let a = tilecode()
            .arg("decode")
            .arg(&p)
            .arg("--json")
            .args(extra)
            .assert();
        let o = a.get_output();
        let code = o.status.code().unwrap();
        let j = json_line(&o.stderr);
        let data = fs::read(&out).unwrap_or_default();
        (code, data, j, out)
    }

    #[test]
    fn one_flip_per_codeword_is_corrected_everywhere() {
        for spec in [
            "alien:9x9",
            "alien:3x3",
            "secded:72",
            "hamming:31",
            "repetition:3",
        ] {
            for &depth in DEPTHS {
                // The positions of one bit per codeword are computed for the version 1
                // layout (chunks back to back); the codewords are the same in version 2.
                let v1 = ["--recovery", "0", "--format-version", "1"];
                let (dir, data, mut bytes) = encoded(spec, depth, MIB, &v1);
                let (inner, total) = flip_one_per_codeword(&mut bytes, spec, depth, 77);
                assert!(inner >= 8, "{spec} D={depth}: only {inner} flips");
                let (code, out, j, _) = decode_bytes(&dir, &bytes, &[]);
                assert_eq!(code, 0, "{spec} D={depth}: {j}");
                assert!(out == data, "{spec} D={depth}: output differs");
                assert_eq!(j["status"], "repaired", "{j}");
                let corrected = j["corrected_bits"].as_u64().unwrap();
                assert!(
                    corrected >= inner && corrected <= total,
                    "{spec} D={depth}: corrected {corrected}, flipped {inner} inner / {total}"
                );
                assert_eq!(j["uncorrectable_codewords"], 0);
            }
        }
    }

    #[test]
    fn a_burst_of_depth_bits_is_corrected() {
        for spec in ["alien:9x9", "secded:72", "hamming:31"] {
            for &depth in DEPTHS {
                let (dir, data, mut bytes) = encoded(spec, depth, MIB, &[]);
                let mut rng = ChaCha20Rng::seed_from_u64(depth as u64);
                let bits = bytes.len() as u64 * 8;
                for start in [
                    rng.gen_range(0..bits - depth as u64),
                    0,
                    bits - depth as u64,
                    bits / 2 + 3,
                ] {
                    let mut b = bytes.clone();
                    for i in start..start + depth as u64 {
                        flip(&mut b, i);
                    }
                    let (code, out, j, _) = decode_bytes(&dir, &b, &[]);
                    assert_eq!(code, 0, "{spec} D={depth} burst at {start}: {j}");
                    assert!(out == data, "{spec} D={depth} burst at {start}");
                }
                bytes.clear();
            }
        }
    }

    #[test]
    fn garbage_is_reported_narrowly_and_withheld_unless_kept() {
        let chunk = 65536usize;
        let spec = "alien:9x9";
        let (dir, data, mut bytes) =
            encoded(spec, 64, 4 * MIB, &["--chunk-size", &chunk.to_string()]);
        let (g0, g1) = (3 * MIB / 2, 5 * MIB / 2);
        let garbage = random_bytes(g1 - g0, 99);
        bytes[g0..g1].copy_from_slice(&garbage);

        let (code, out, j, out_path) = decode_bytes(&dir, &bytes, &[]);
        assert_eq!(code, 2, "{j}");
        assert_eq!(j["status"], "damaged");
        assert!(j["uncorrectable_codewords"].as_u64().unwrap() > 0);
        assert!(
            out.is_empty() && !out_path.exists(),
            "no output without --keep-damaged"
        );
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");

        let ranges: Vec<(u64, u64)> = j["damaged_ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r[0].as_u64().unwrap(), r[1].as_u64().unwrap()))
            .collect();
        assert!(!ranges.is_empty());
        // Where the garbage lands in the original data, give or take a chunk each side.
        let rate = 65.0 / 81.0;
        let lo = (g0 as f64 * rate) as u64;
        let hi = (g1 as f64 * rate) as u64;
        let slack = 2 * chunk as u64;
        let width: u64 = ranges.iter().map(|&(a, b)| b - a).sum();
        assert!(
            ranges[0].0 + slack >= lo && ranges.last().unwrap().1 <= hi + slack,
            "{ranges:?}"
        );
        assert!(
            width <= (hi - lo) + 2 * slack,
            "{width} bytes damaged for {} bytes of garbage",
            g1 - g0
        );

        let (code, kept, j2, _) = decode_bytes(&dir, &bytes, &["--keep-damaged"]);
        assert_eq!(code, 2);
        assert_eq!(j2["damaged_ranges"], j["damaged_ranges"]);
        assert_eq!(kept.len(), data.len());
        // Everything outside the reported ranges is intact.
        let mut pos = 0usize;
        for &(a, b) in &ranges {
            assert!(
                kept[pos..a as usize] == data[pos..a as usize],
                "bytes {pos}..{a} differ"
            );
            pos = b as usize;
        }
        assert!(kept[pos..] == data[pos..]);
        assert!(kept != data);
    }

    #[test]
    fn not_a_stream_empty_and_truncated_exit_3_with_one_line() {
        let (dir, _data, bytes) = encoded("alien:9x9", 64, 300_000, &["--recovery", "0"]);
        // The end frame's three copies and 100 bytes of the last chunk cut off.
        let cut = bytes.len() - 3 * 64 - 100;
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            ("empty", Vec::new(), ""),
            (
                "text",
                b"hello, this is not a tilecode stream\n".repeat(40),
                "not a tilecode stream",
            ),
            ("half", bytes[..bytes.len() / 2].to_vec(), "truncated"),
            ("header-only", bytes[..40].to_vec(), ""),
            ("no-trailer", bytes[..cut].to_vec(), "truncated"),
        ];
        for (name, content, needle) in cases {
            let p = write(&dir, &format!("{name}.tc"), &content);
            let a = tilecode().arg("decode").arg(&p).assert().code(3);
            let e = one_error_line(&a.get_output().stderr);
            assert!(e.contains(needle), "{name}: {e}");
            assert!(!dir.path().join(name).exists(), "{name}: output written");
            let a = tilecode().arg("verify").arg(&p).assert().code(3);
            one_error_line(&a.get_output().stderr);
        }
    }

    #[test]
    fn output_name_rules_and_overwrite_refusal() {
        let (dir, data, bytes) = encoded("alien:9x9", 64, 1000, &[]);
        let tc = dir.path().join("orig.tc");
        let before = fs::metadata(&tc).unwrap().modified().unwrap();
        // orig exists (it is the encoder's input): refused.
        let a = tilecode().arg("decode").arg(&tc).assert().code(1);
        let e = one_error_line(&a.get_output().stderr);
        assert!(e.contains("refusing to overwrite"), "{e}");
        fs::remove_file(dir.path().join("orig")).unwrap();
        tilecode().arg("decode").arg(&tc).arg("-q").assert().code(0);
        assert_eq!(fs::read(dir.path().join("orig")).unwrap(), data);
        tilecode()
            .arg("decode")
            .arg(&tc)
            .arg("--force")
            .arg("-q")
            .assert()
            .code(0);
        // The input is never touched.
        assert_eq!(fs::read(&tc).unwrap(), bytes);
        assert_eq!(fs::metadata(&tc).unwrap().modified().unwrap(), before);
        // No .tc suffix and no -o: refused.
        let other = write(&dir, "stream.bin", &bytes);
        let a = tilecode().arg("decode").arg(&other).assert().code(1);
        let e = one_error_line(&a.get_output().stderr);
        assert!(e.contains(".tc"), "{e}");
        // Decoding onto its own input is refused even with --force.
        let a = tilecode()
            .arg("decode")
            .arg(&other)
            .arg("-o")
            .arg(&other)
            .arg("--force")
            .assert()
            .code(1);
        one_error_line(&a.get_output().stderr);
        assert_eq!(fs::read(&other).unwrap(), bytes);
    }

    #[test]
    fn pipes_and_dash() {
        let data = random_bytes(200_000, 5);
        let enc = tilecode()
            .args(["encode", "--code", "hamming:31"])
            .write_stdin(data.clone())
            .assert()
            .success();
        let dec = tilecode()
            .arg("decode")
            .write_stdin(enc.get_output().stdout.clone())
            .assert()
            .code(0);
        assert_eq!(dec.get_output().stdout, data);
        let dec = tilecode()
            .args(["decode", "-", "-o", "-", "--json"])
            .write_stdin(enc.get_output().stdout.clone())
            .assert()
            .code(0);
        assert_eq!(dec.get_output().stdout, data);
        assert_eq!(json_line(&dec.get_output().stderr)["status"], "clean");
    }

    #[test]
    fn damage_on_stdout_stops_with_exit_2() {
        let (_dir, _data, mut bytes) = encoded(
            "alien:9x9",
            64,
            300_000,
            &["--chunk-size", "65536", "--recovery", "0"],
        );
        let mid = bytes.len() / 2;
        let junk = random_bytes(20_000, 8);
        bytes[mid..mid + 20_000].copy_from_slice(&junk);
        let a = tilecode()
            .args(["decode", "-o", "-"])
            .write_stdin(bytes.clone())
            .assert()
            .code(2);
        assert!(a.get_output().stdout.len() < 300_000);
        let b = tilecode()
            .args(["decode", "-o", "-", "--keep-damaged", "-q"])
            .write_stdin(bytes)
            .assert()
            .code(2);
        assert_eq!(b.get_output().stdout.len(), 300_000);
    }

    #[test]
    fn broken_pipe_exits_0() {
        use std::io::Read;
        use std::process::Stdio;
        let (dir, _data, _bytes) = encoded("alien:9x9", 64, 8 * MIB, &[]);
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tilecode"))
            .arg("decode")
            .arg(dir.path().join("orig.tc"))
            .args(["-o", "-"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut one = [0u8; 1];
        child.stdout.as_mut().unwrap().read_exact(&mut one).unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

mod verify {
    use super::*;

    #[test]
    fn reports_clean_repaired_and_damaged_as_json_on_stdout() {
        let dir = tempfile::tempdir().unwrap();
        let data = random_bytes(100_000, 9);
        let input = write(&dir, "v", &data);
        let tc = dir.path().join("v.tc");
        encode_file(&input, &tc, "secded:72", 512, &["--recovery", "0"]);
        let a = tilecode()
            .arg("verify")
            .arg(&tc)
            .arg("--json")
            .assert()
            .code(0);
        let j = json_line(&a.get_output().stdout);
        assert_eq!(j["status"], "clean");
        assert_eq!(j["bytes_out"], 100_000);
        assert_eq!(j["corrected_bits"], 0);
        assert_eq!(j["code"], "secded:72");
        assert_eq!(j["interleave"], 512);
        assert!(j["codewords"].as_u64().unwrap() >= 100_000 * 8 / 64);

        let mut bytes = fs::read(&tc).unwrap();
        let n = bytes.len();
        flip(&mut bytes, (n as u64 / 2) * 8 + 5);
        let p = write(&dir, "one.tc", &bytes);
        let a = tilecode()
            .arg("verify")
            .arg(&p)
            .arg("--json")
            .assert()
            .code(0);
        let j = json_line(&a.get_output().stdout);
        assert_eq!(j["status"], "repaired");
        assert_eq!(j["corrected_bits"], 1);

        let junk = random_bytes(5000, 10);
        bytes[n / 2..n / 2 + 5000].copy_from_slice(&junk);
        let p = write(&dir, "bad.tc", &bytes);
        let a = tilecode()
            .arg("verify")
            .arg(&p)
            .arg("--json")
            .assert()
            .code(2);
        let j = json_line(&a.get_output().stdout);
        assert_eq!(j["status"], "damaged");
        assert!(!j["damaged_ranges"].as_array().unwrap().is_empty());
        // The human report names the figures.
        tilecode().arg("verify").arg(&p).assert().code(2).stderr(
            predicate::str::contains("uncorrectable codewords")
                .and(predicate::str::contains("damaged byte ranges"))
                .and(predicate::str::contains("checksum")),
        );
        // Verify never writes.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 4);
    }

    #[test]
    fn quiet_silences_the_human_report() {
        let enc = tilecode()
            .args(["encode", "-q"])
            .write_stdin("x")
            .assert()
            .success();
        let dir = tempfile::tempdir().unwrap();
        let p = write(&dir, "q.tc", &enc.get_output().stdout);
        tilecode()
            .arg("verify")
            .arg(&p)
            .arg("-q")
            .assert()
            .code(0)
            .stderr("")
            .stdout("");
    }
}

mod corrupt {
    use super::*;

    fn run(input: &Path, out: &Path, args: &[&str]) -> Value {
        let a = tilecode()
            .arg("corrupt")
            .arg(input)
            .arg("-o")
            .arg(out)
            .arg("--json")
            .args(args)
            .assert()
            .success();
        json_line(&a.get_output().stderr)
    }

    fn diff_bits(a: &[u8], b: &[u8]) -> u64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x ^ y).count_ones() as u64)
            .sum()
    }

    #[test]
    fn flips_keep_the_length_and_are_reproducible() {
        let dir = tempfile::tempdir().unwrap();
        let data = random_bytes(50_000, 11);
        let input = write(&dir, "c", &data);
        let (o1, o2, o3) = (
            dir.path().join("1"),
            dir.path().join("2"),
            dir.path().join("3"),
        );
        let j = run(&input, &o1, &["--flips", "37", "--seed", "4"]);
        run(&input, &o2, &["--flips", "37", "--seed", "4"]);
        run(&input, &o3, &["--flips", "37", "--seed", "5"]);
        let (a, b, c) = (
            fs::read(&o1).unwrap(),
            fs::read(&o2).unwrap(),
            fs::read(&o3).unwrap(),
        );
        assert_eq!(a.len(), data.len());
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(diff_bits(&a, &data), 37);
        assert_eq!(j["flipped_bits"], 37);
        assert_eq!(j["seed"], 4);
    }

    #[test]
    fn ber_flips_about_p_times_the_bits_and_reports_them() {
        let dir = tempfile::tempdir().unwrap();
        let data = random_bytes(MIB, 12);
        let input = write(&dir, "c", &data);
        let out = dir.path().join("o");
        let j = run(&input, &out, &["--ber", "0.001", "--seed", "1"]);
        let got = diff_bits(&fs::read(&out).unwrap(), &data);
        assert_eq!(j["flipped_bits"].as_u64().unwrap(), got);
        // mean 8389, sd ~92
        assert!((7900..8900).contains(&got), "{got}");
        let out0 = dir.path().join("o0");
        let j = run(&input, &out0, &["--ber", "0", "--seed", "1"]);
        assert_eq!(j["flipped_bits"], 0);
        assert_eq!(fs::read(&out0).unwrap(), data);
    }

    #[test]
    fn burst_at_an_offset_and_from_stdin() {
        let data = vec![0u8; 100];
        let a = tilecode()
            .args(["corrupt", "-o", "-", "--burst", "12@4", "-q"])
            .write_stdin(data)
            .assert()
            .success();
        let out = &a.get_output().stdout;
        assert_eq!(out.len(), 100);
        assert_eq!(&out[..3], &[0xf0, 0xff, 0x00]);
        assert!(out[3..].iter().all(|&b| b == 0));
        let b = tilecode()
            .args(["corrupt", "-o", "-", "--burst", "64", "--seed", "3", "-q"])
            .write_stdin(vec![0u8; 100])
            .assert()
            .success();
        let ones: u32 = b.get_output().stdout.iter().map(|x| x.count_ones()).sum();
        assert_eq!(ones, 64);
    }

    #[test]
    fn usage_errors_exit_1() {
        let dir = tempfile::tempdir().unwrap();
        let input = write(&dir, "c", &[1, 2, 3]);
        let out = dir.path().join("o");
        for args in [
            &["-o", "-"][..],                             // no channel
            &["--flips", "3"],                            // no -o
            &["-o", "-", "--flips", "25"],                // more flips than bits
            &["-o", "-", "--burst", "10@20"],             // does not fit
            &["-o", "-", "--ber", "2"],                   // not a probability
            &["-o", "-", "--ber", "0.1", "--flips", "1"], // two channels
        ] {
            let a = tilecode()
                .arg("corrupt")
                .arg(&input)
                .args(args)
                .assert()
                .code(1);
            assert!(!a.get_output().stderr.is_empty(), "{args:?}");
        }
        fs::write(&out, b"keep").unwrap();
        tilecode()
            .arg("corrupt")
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .args(["--flips", "1"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("refusing to overwrite"));
        assert_eq!(fs::read(&out).unwrap(), b"keep");
    }

    #[test]
    fn corrupt_then_decode_repairs_a_sparse_channel() {
        let dir = tempfile::tempdir().unwrap();
        let data = random_bytes(MIB, 13);
        let input = write(&dir, "d", &data);
        let tc = dir.path().join("d.tc");
        encode_file(&input, &tc, "alien:9x9", 4096, &[]);
        let bad = dir.path().join("bad.tc");
        let j = run(&tc, &bad, &["--burst", "4096", "--seed", "2"]);
        assert_eq!(j["flipped_bits"], 4096);
        let out = dir.path().join("restored");
        tilecode()
            .arg("decode")
            .arg(&bad)
            .arg("-o")
            .arg(&out)
            .arg("-q")
            .assert()
            .code(0);
        assert!(fs::read(&out).unwrap() == data);
    }
}

mod demo {
    use super::*;

    #[test]
    fn restores_the_sample_exactly() {
        let a = tilecode().args(["demo", "--json"]).assert().code(0);
        let j = json_line(&a.get_output().stdout);
        assert_eq!(j["restored"], true);
        assert_eq!(j["status"], "repaired");
        assert!(j["random_flips"].as_u64().unwrap() > 0);
        assert_eq!(j["burst_bits"], 64);
        assert!(j["corrected_bits"].as_u64().unwrap() > 64);
        tilecode()
            .arg("demo")
            .assert()
            .code(0)
            .stdout(predicate::str::contains("restored   exactly"));
    }

    #[test]
    fn a_code_that_only_detects_fails_the_demo() {
        let a = tilecode()
            .args(["demo", "--code", "parity:9", "--json"])
            .assert()
            .code(2);
        let j = json_line(&a.get_output().stdout);
        assert_eq!(j["restored"], false);
        assert_eq!(j["status"], "damaged");
    }
}
