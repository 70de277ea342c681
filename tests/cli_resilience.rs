//! The command line under the damage and interruptions real files meet: a zeroed sector
//! (the reproduction in the issue that introduced format version 2), cuts and insertions,
//! trailing junk, signals, metadata, terminals, and one JSON object for every outcome.

use assert_cmd::Command;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::Value;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

fn tilecode() -> Command {
    Command::cargo_bin("tilecode").unwrap()
}

fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; len];
    ChaCha20Rng::seed_from_u64(seed).fill_bytes(&mut v);
    v
}

fn json_line(bytes: &[u8]) -> Value {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with('{')).collect();
    assert_eq!(lines.len(), 1, "one JSON object expected: {text}");
    serde_json::from_str(lines[0]).unwrap()
}

fn encode(dir: &Path, data: &[u8], extra: &[&str]) -> PathBuf {
    let input = dir.join("data.bin");
    fs::write(&input, data).unwrap();
    let tc = dir.join("data.bin.tc");
    let _ = fs::remove_file(&tc);
    tilecode()
        .arg("encode")
        .arg(&input)
        .arg("-q")
        .args(extra)
        .assert()
        .success();
    tc
}

/// Decodes `bytes` to a file with `--keep-damaged --json`: (exit code, output, report).
fn decode(dir: &Path, bytes: &[u8]) -> (i32, Vec<u8>, Value) {
    let p = dir.join("hit.tc");
    fs::write(&p, bytes).unwrap();
    let out = dir.join("out");
    let _ = fs::remove_file(&out);
    let a = tilecode()
        .arg("decode")
        .arg(&p)
        .arg("-o")
        .arg(&out)
        .args(["--keep-damaged", "--json"])
        .assert();
    let o = a.get_output();
    let j = json_line(&o.stderr);
    (
        o.status.code().unwrap(),
        fs::read(&out).unwrap_or_default(),
        j,
    )
}

#[test]
fn a_zeroed_4k_sector_is_repaired_by_default() {
    // The reproduction: `dd if=/dev/zero of=d.tc bs=4096 seek=603 count=1 conv=notrunc`.
    let dir = tempfile::tempdir().unwrap();
    let data = random_bytes(3 << 20, 1);
    let tc = encode(dir.path(), &data, &[]);
    let mut bytes = fs::read(&tc).unwrap();
    for fill in [0u8, 0xFF] {
        let mut hit = bytes.clone();
        hit[603 * 4096..604 * 4096].fill(fill);
        let (code, out, j) = decode(dir.path(), &hit);
        assert_eq!(code, 0, "{j}");
        assert!(out == data);
        assert_eq!(j["status"], "repaired");
        assert!(j["recovered_chunks"].as_u64().unwrap() >= 1, "{j}");
    }
    // Without recovery chunks the same sector is reported, and only what its checks cover.
    let tc = encode(dir.path(), &data, &["--recovery", "0"]);
    bytes = fs::read(&tc).unwrap();
    bytes[603 * 4096..604 * 4096].fill(0);
    let (code, out, j) = decode(dir.path(), &bytes);
    assert_eq!(code, 2, "{j}");
    assert_eq!(out.len(), data.len());
    let ranges: Vec<(usize, usize)> = j["damaged_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[0].as_u64().unwrap() as usize,
                r[1].as_u64().unwrap() as usize,
            )
        })
        .collect();
    let lost: usize = ranges.iter().map(|(a, b)| b - a).sum();
    assert!(lost <= 2 * 65536, "{lost} bytes reported for one sector");
    let inside = |i: usize| ranges.iter().any(|&(a, b)| a <= i && i < b);
    assert!((0..data.len()).all(|i| inside(i) || out[i] == data[i]));
}

#[test]
fn cut_inserted_and_trailing_bytes_cost_nothing_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let data = random_bytes(1 << 20, 2);
    let tc = encode(dir.path(), &data, &[]);
    let bytes = fs::read(&tc).unwrap();
    let mid = bytes.len() / 2;
    let mut cut = bytes.clone();
    cut.drain(mid..mid + 1);
    let (code, out, j) = decode(dir.path(), &cut);
    assert_eq!((code, out == data), (0, true), "{j}");
    assert!(j["resyncs"].as_u64().unwrap() >= 1);
    let mut ins = bytes.clone();
    ins.splice(mid..mid, random_bytes(4096, 3));
    let (code, out, j) = decode(dir.path(), &ins);
    assert_eq!((code, out == data), (0, true), "{j}");
    assert!(j["skipped_bytes"].as_u64().unwrap() >= 4096, "{j}");
    let mut padded = bytes.clone();
    padded.extend(vec![0u8; 512]);
    let (code, out, j) = decode(dir.path(), &padded);
    assert_eq!((code, out == data), (0, true), "{j}");
    assert_eq!(j["trailing_bytes"], 512);
    assert_eq!(j["status"], "clean");
}

#[test]
fn every_outcome_is_one_json_object() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.tc");
    fs::write(&junk, b"not a stream at all".repeat(10)).unwrap();
    for cmd in ["decode", "verify"] {
        let a = tilecode()
            .arg(cmd)
            .arg(&junk)
            .args(
                ["--json", "-o", "/dev/null"]
                    .iter()
                    .take(if cmd == "decode" { 3 } else { 1 }),
            )
            .assert()
            .code(3);
        let o = a.get_output();
        let j = json_line(if cmd == "decode" {
            &o.stderr
        } else {
            &o.stdout
        });
        assert_eq!(j["status"], "unreadable", "{cmd}: {j}");
        assert!(
            j["error"]
                .as_str()
                .unwrap()
                .contains("not a tilecode stream"),
            "{j}"
        );
    }
    // Cut short: what was there is reported, with the error.
    let data = random_bytes(400_000, 4);
    let tc = encode(dir.path(), &data, &["--recovery", "0"]);
    let bytes = fs::read(&tc).unwrap();
    let short = dir.path().join("short.tc");
    fs::write(&short, &bytes[..bytes.len() / 2]).unwrap();
    let a = tilecode()
        .arg("verify")
        .arg(&short)
        .arg("--json")
        .assert()
        .code(3);
    let j = json_line(&a.get_output().stdout);
    assert_eq!(j["status"], "damaged", "{j}");
    assert!(j["error"].as_str().unwrap().contains("truncated"), "{j}");
    assert!(j["bytes_out"].as_u64().unwrap() > 0, "{j}");
}

#[test]
fn interrupted_jobs_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let data = random_bytes(200_000, 5);
    let tc = encode(dir.path(), &data, &[]);
    let exe = assert_cmd::cargo::cargo_bin("tilecode");
    for (sig, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        for job in ["encode", "decode"] {
            let out_dir = tempfile::tempdir().unwrap();
            let mut child = std::process::Command::new(&exe)
                .arg(job)
                .args(["-", "-q", "-o"])
                .arg(out_dir.path().join("out"))
                .stdin(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            // Half the input, then the job waits for more: the temporary file exists.
            let mut stdin = child.stdin.take().unwrap();
            let feed = if job == "encode" {
                data.clone()
            } else {
                fs::read(&tc).unwrap()
            };
            stdin.write_all(&feed[..feed.len() / 2]).unwrap();
            stdin.flush().unwrap();
            std::thread::sleep(Duration::from_millis(300));
            let pending = fs::read_dir(out_dir.path()).unwrap().count();
            std::process::Command::new("kill")
                .arg(format!("-{sig}"))
                .arg(child.id().to_string())
                .status()
                .unwrap();
            let status = child.wait().unwrap();
            drop(stdin);
            assert_eq!(status.code(), Some(code), "{job} SIG{sig}");
            let left: Vec<_> = fs::read_dir(out_dir.path()).unwrap().collect();
            assert!(left.is_empty(), "{job} SIG{sig}: {left:?} (had {pending})");
        }
    }
}

#[test]
fn decoding_restores_mode_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("notes.txt");
    fs::write(&input, b"keep my mode and time\n".repeat(100)).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&input, fs::Permissions::from_mode(0o640)).unwrap();
    }
    let when = std::time::UNIX_EPOCH + Duration::new(1_600_000_000, 500);
    fs::File::options()
        .write(true)
        .open(&input)
        .unwrap()
        .set_modified(when)
        .unwrap();
    tilecode()
        .arg("encode")
        .arg(&input)
        .arg("-q")
        .assert()
        .success();
    let out = dir.path().join("restored.txt");
    tilecode()
        .arg("decode")
        .arg(dir.path().join("notes.txt.tc"))
        .arg("-o")
        .arg(&out)
        .arg("-q")
        .assert()
        .success();
    let meta = fs::metadata(&out).unwrap();
    assert_eq!(meta.modified().unwrap(), when);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(meta.permissions().mode() & 0o777, 0o640);
    }
}

#[test]
fn a_binary_stream_is_not_written_to_a_terminal() {
    // `script` gives the command a terminal for its standard output.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no `script` to make a terminal");
        return;
    }
    let exe = assert_cmd::cargo::cargo_bin("tilecode");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("x");
    fs::write(&input, b"data").unwrap();
    let run = |extra: &str| {
        std::process::Command::new("script")
            .args(["-qec"])
            .arg(format!(
                "{} encode {} -o - {extra}",
                exe.display(),
                input.display()
            ))
            .arg("/dev/null")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let o = run("");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("refusing to write a binary stream"));
    let o = run("--force");
    assert_eq!(o.status.code(), Some(0));
}
