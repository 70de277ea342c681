//! `tilecode serve` over HTTP on loopback: the API answers what the CLI's `--json` prints,
//! refuses bad requests with a 4xx JSON error and keeps serving.
#![cfg(feature = "serve")]

mod serve;

use assert_cmd::Command;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};
use serve::Server;

/// The JSON a CLI command prints.
fn cli_json(args: &[&str], stdin: &str) -> Value {
    let out = Command::cargo_bin("tilecode")
        .unwrap()
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn game_routes_answer_what_the_cli_prints() {
    let s = Server::start();
    let random = s.ok(
        "/api/random",
        &json!({ "game": "lights-out:5x5", "seed": 7 }),
    );
    assert_eq!(
        random,
        cli_json(&["random", "lights-out:5x5", "--seed", "7", "--json"], "")
    );
    let board = random["board"].as_str().unwrap();
    let solved = s.ok(
        "/api/solve",
        &json!({ "game": "lights-out:5x5", "board": board, "shortest": true }),
    );
    assert_eq!(
        solved,
        cli_json(
            &["solve", "lights-out:5x5", "-", "--shortest", "--json"],
            board
        )
    );
    assert_eq!(solved["solvable"], true);
    assert_eq!(solved["optimal"], true);

    let q = json!({ "game": "alien:4x5", "torus": true, "states": 3 });
    assert_eq!(
        s.ok("/api/analyze", &q),
        cli_json(
            &["analyze", "alien:4x5", "--torus", "--states", "3", "--json"],
            ""
        )
    );
    let unsolvable = s.ok(
        "/api/solve",
        &json!({ "game": "lights-out:5x5", "board": "10000\n00000\n00000\n00000\n00000", "method": "gauss" }),
    );
    assert_eq!(unsolvable["solvable"], false);
    assert_eq!(unsolvable["certificate"].as_str().unwrap().len(), 25);
}

/// 17 message bits of `alien:5x5`.
const MESSAGE: &str = "10110011101010011";

#[test]
fn code_routes_answer_what_the_cli_prints() {
    let s = Server::start();
    assert_eq!(
        s.ok("/api/info", &json!({ "spec": "alien:3x4" })),
        cli_json(&["info", "alien:3x4", "--json"], "")
    );
    let enc = s.ok(
        "/api/word/encode",
        &json!({ "spec": "alien:5x5", "bits": MESSAGE }),
    );
    assert_eq!(
        enc,
        cli_json(&["word", "encode", "alien:5x5", MESSAGE, "--json"], "")
    );
    let mut word: Vec<u8> = enc["codeword"].as_str().unwrap().bytes().collect();
    word[7] ^= 1; // row 1, column 2
    let word = String::from_utf8(word).unwrap();
    let dec = s.ok(
        "/api/word/decode",
        &json!({ "spec": "alien:5x5", "bits": word }),
    );
    assert_eq!(
        dec,
        cli_json(&["word", "decode", "alien:5x5", &word, "--json"], "")
    );
    assert_eq!(dec["status"], "corrected");
    assert_eq!(dec["error_cells"], json!([{ "row": 1, "column": 2 }]));
    assert_eq!(dec["message"], MESSAGE);
}

#[test]
fn a_file_is_encoded_damaged_and_repaired() {
    let s = Server::start();
    let file: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let enc = s.ok("/api/encode", &json!({ "data": BASE64.encode(&file) }));
    assert_eq!(enc["code"], "alien:9x9");
    assert_eq!(enc["bytes_in"], 20_000);
    let damaged = s.ok(
        "/api/corrupt",
        &json!({ "data": enc["data"], "burst": "64", "ber": 0.0001, "seed": 5 }),
    );
    assert!(damaged["flipped_bits"].as_u64().unwrap() >= 64);
    let dec = s.ok("/api/decode", &json!({ "data": damaged["data"] }));
    assert_eq!(dec["status"], "repaired", "{}", dec["damaged_ranges"]);
    assert_eq!(dec["damaged_ranges"], json!([]));
    assert_eq!(BASE64.decode(dec["data"].as_str().unwrap()).unwrap(), file);

    // A zeroed sector inside the data is more than the code corrects: the report and the
    // bytes are those of `tilecode decode --keep-damaged --json` on the same stream.
    let zeroed = s.ok(
        "/api/corrupt",
        &json!({ "data": enc["data"], "zero": "4096@8192" }),
    );
    assert_eq!(zeroed["zeroed"], json!([8192, 12288]));
    let mut dec = s.ok("/api/decode", &json!({ "data": zeroed["data"] }));
    let dir = tempfile::tempdir().unwrap();
    let (tc, out) = (dir.path().join("z.tc"), dir.path().join("z.out"));
    std::fs::write(
        &tc,
        BASE64.decode(zeroed["data"].as_str().unwrap()).unwrap(),
    )
    .unwrap();
    let cli = Command::cargo_bin("tilecode")
        .unwrap()
        .arg("decode")
        .arg(&tc)
        .arg("-o")
        .arg(&out)
        .args(["--keep-damaged", "--json"])
        .output()
        .unwrap();
    let restored = BASE64.decode(dec["data"].as_str().unwrap()).unwrap();
    assert_eq!(restored, std::fs::read(&out).unwrap());
    dec.as_object_mut().unwrap().remove("data");
    assert_eq!(dec, serde_json::from_slice::<Value>(&cli.stderr).unwrap());
    // The damage map's promise: every byte outside the reported ranges is right.
    let ranges = dec["damaged_ranges"].as_array().unwrap();
    for (i, (a, b)) in restored.iter().zip(&file).enumerate() {
        let i = i as u64;
        let inside = ranges
            .iter()
            .any(|r| r[0].as_u64().unwrap() <= i && i < r[1].as_u64().unwrap());
        assert!(
            inside || a == b,
            "byte {i} wrong outside the damaged ranges"
        );
    }
}

#[test]
fn encode_takes_the_cli_options() {
    let s = Server::start();
    let file = b"a short file".repeat(100);
    let enc = s.ok(
        "/api/encode",
        &json!({ "data": BASE64.encode(&file), "code": "secded:72", "interleave": 128, "recovery": 0 }),
    );
    let dir = tempfile::tempdir().unwrap();
    let (path, tc) = (dir.path().join("f"), dir.path().join("f.tc"));
    std::fs::write(&path, &file).unwrap();
    let cli = Command::cargo_bin("tilecode")
        .unwrap()
        .arg("encode")
        .arg(&path)
        .arg("-o")
        .arg(&tc)
        .args([
            "--code",
            "secded:72",
            "--interleave",
            "128",
            "--recovery",
            "0",
            "--json",
        ])
        .output()
        .unwrap();
    let mut cli_json: Value = serde_json::from_slice(&cli.stderr).unwrap();
    cli_json["data"] = json!(BASE64.encode(std::fs::read(&tc).unwrap()));
    // The streams themselves differ (the CLI's records the input file's name and times), and
    // so do their lengths; every other key is the same.
    let mut api = enc.clone();
    let data = BASE64.decode(enc["data"].as_str().unwrap()).unwrap();
    assert_eq!(enc["bytes_out"], data.len());
    for v in [&mut api, &mut cli_json] {
        let o = v.as_object_mut().unwrap();
        o.remove("data");
        o.remove("bytes_out");
    }
    assert_eq!(api, cli_json);
    let dec = s.ok("/api/decode", &json!({ "data": enc["data"] }));
    assert_eq!(dec["status"], "clean");
    assert_eq!(dec["code"], "secded:72");
    assert_eq!(BASE64.decode(dec["data"].as_str().unwrap()).unwrap(), file);
}

/// Asserts a 4xx status whose JSON error contains `needle`.
fn refused(s: &Server, path: &str, body: &[u8], status: u16, needle: &str) {
    let (got, body) = s.request("POST", path, body);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(got, status, "{path}: {v}");
    let msg = v["error"].as_str().unwrap();
    assert!(msg.contains(needle), "{path}: {msg:?} lacks {needle:?}");
}

#[test]
fn bad_requests_get_a_clear_4xx_and_the_server_keeps_serving() {
    let s = Server::start();
    let j = |v: Value| v.to_string().into_bytes();
    refused(
        &s,
        "/api/analyze",
        &j(json!({ "game": "lights-out:1000x1000" })),
        413,
        "expected at most 32x32",
    );
    refused(
        &s,
        "/api/analyze",
        &j(json!({ "game": "lights-out:5x5", "states": 99 })),
        413,
        "states",
    );
    refused(
        &s,
        "/api/analyze",
        &j(json!({ "game": "lights-off:5x5" })),
        400,
        "lights-off",
    );
    refused(
        &s,
        "/api/solve",
        b"{\"game\": \"lights-out:5x5\", \"board\"",
        400,
        "bad request body",
    );
    refused(&s, "/api/solve", b"[1, 2]", 400, "bad request body");
    refused(
        &s,
        "/api/solve",
        &j(json!({ "game": "lights-out:2x2", "board": "10\n01", "method": "magic" })),
        400,
        "expected one of auto, gauss",
    );
    refused(
        &s,
        "/api/solve",
        &j(json!({ "game": "lights-out:2x2", "board": "102\n01" })),
        400,
        "",
    );
    refused(
        &s,
        "/api/random",
        &j(json!({ "game": "alien:3x3", "colour": 1 })),
        400,
        "unknown field `colour`",
    );
    refused(
        &s,
        "/api/info",
        &j(json!({ "spec": "secded:100000" })),
        413,
        "code too long",
    );
    refused(
        &s,
        "/api/info",
        &j(json!({ "spec": "turbo:9" })),
        400,
        "turbo",
    );
    refused(
        &s,
        "/api/word/decode",
        &j(json!({ "spec": "alien:3x3", "bits": "0101" })),
        400,
        "expected 9",
    );
    refused(
        &s,
        "/api/analyze",
        &vec![b' '; 100_000],
        413,
        "length limit",
    );
    refused(
        &s,
        "/api/encode",
        &j(json!({ "data": "***" })),
        400,
        "expected base64",
    );
    let big = BASE64.encode(vec![0u8; 5 << 20]);
    refused(
        &s,
        "/api/encode",
        &j(json!({ "data": big })),
        413,
        "file too large",
    );
    refused(
        &s,
        "/api/decode",
        &j(json!({ "data": BASE64.encode(b"not a stream at all") })),
        422,
        "cannot decode",
    );
    refused(
        &s,
        "/api/corrupt",
        &j(json!({ "data": "AAAA" })),
        400,
        "no damage asked for",
    );
    refused(
        &s,
        "/api/corrupt",
        &j(json!({ "data": "AAAA", "zero": "10@0" })),
        400,
        "do not fit",
    );
    refused(&s, "/api/nothing", b"{}", 404, "no such route");
    // Still serving.
    assert_eq!(
        s.ok("/api/analyze", &json!({ "game": "lights-out:5x5" }))["nullity"],
        2
    );
    let (status, page) = s.request("GET", "/", b"");
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&page).contains("<title>tilecode playground</title>"));
}

#[test]
fn a_slow_request_does_not_stall_the_others() {
    let s = Server::start();
    // About 3 s of Smith normal form over Z/4 on this board (a prime Q would take the
    // packed elimination, far faster).
    let slow = json!({ "game": "alien:32x32", "states": 4 });
    let addr = s.addr.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let slow_thread = {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let s = Server::attach(addr);
            let v = s.ok("/api/analyze", &slow);
            tx.send("slow").unwrap();
            v
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(100));
    for _ in 0..20 {
        s.ok(
            "/api/word/decode",
            &json!({ "spec": "alien:3x3", "bits": "000010000" }),
        );
    }
    tx.send("quick").unwrap();
    assert_eq!(
        rx.recv().unwrap(),
        "quick",
        "the quick requests waited for the slow one"
    );
    assert_eq!(slow_thread.join().unwrap()["states"], 4);
}

#[test]
fn two_hundred_concurrent_requests_are_all_answered() {
    let s = Server::start();
    let threads: Vec<_> = (0..200)
        .map(|i| {
            let s = Server::attach(s.addr.clone());
            std::thread::spawn(move || {
                s.ok("/api/solve", &json!({ "game": "lights-out:7x7", "board": random_board(i), "shortest": true }))
            })
        })
        .collect();
    let answered = threads
        .into_iter()
        .map(|t| t.join().unwrap())
        .filter(|v| v["solvable"].is_boolean())
        .count();
    assert_eq!(answered, 200);
}

/// A 7x7 board from a seed (every 7x7 Lights Out board is solvable).
fn random_board(seed: u64) -> String {
    (0..7)
        .map(|r| {
            (0..7)
                .map(|c| {
                    if (seed * 31 + r * 7 + c).wrapping_mul(0x9E37_79B9) >> 7 & 1 == 1 {
                        '1'
                    } else {
                        '0'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn open_without_a_browser_says_so_and_keeps_serving() {
    let empty = tempfile::tempdir().unwrap();
    let mut s = Server::start_with(&["--bind", "127.0.0.1", "--open"], |c| {
        c.env("PATH", empty.path())
            .stderr(std::process::Stdio::piped());
    });
    let err = s.stderr_line();
    assert!(err.contains("cannot start xdg-open"), "{err}");
    assert_eq!(
        s.ok("/api/analyze", &json!({ "game": "alien:3x3" }))["rank"],
        5
    );
}

#[test]
fn a_port_in_use_is_a_clear_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    Command::cargo_bin("tilecode")
        .unwrap()
        .args(["serve", "--port", &port])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(format!(
            "cannot listen on 127.0.0.1:{port}"
        )));
}

#[test]
fn a_request_past_the_time_limit_gets_a_503_and_the_server_keeps_serving() {
    let s = Server::start_with(&["--time-limit", "0.2"], |_| {});
    // Seconds of elimination over Z/16.
    let (status, v) = s.post(
        "/api/analyze",
        &json!({ "game": "alien:32x32", "states": 16 }),
    );
    assert_eq!(status, 503, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("no answer within 0.2 s"),
        "{v}"
    );
    assert_eq!(
        s.ok("/api/analyze", &json!({ "game": "alien:3x3" }))["rank"],
        5
    );
}
