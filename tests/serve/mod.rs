//! A `tilecode serve` on a free loopback port, and a minimal HTTP/1.1 client for it.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// A running server, stopped when dropped (or a client of one, from [`Server::attach`]).
pub struct Server {
    child: Option<Child>,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Server {
    /// Starts `tilecode serve --port 0` and waits for the line with its URL.
    pub fn start() -> Server {
        Server::start_with(&[], |_| {})
    }

    /// Starts `tilecode serve --port 0` with more arguments, after `configure` has had its say
    /// on the command (environment, a piped stderr), and waits for the line with its URL.
    pub fn start_with(args: &[&str], configure: impl FnOnce(&mut Command)) -> Server {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("tilecode"));
        command
            .args(["serve", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        configure(&mut command);
        let mut child = command.spawn().expect("tilecode serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|s| s.split('/').next())
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_string();
        assert!(addr.starts_with("127.0.0.1:"), "{addr}");
        Server {
            child: Some(child),
            addr,
        }
    }

    /// The first line the server wrote on stderr (piped by `start_with`'s `configure`).
    pub fn stderr_line(&mut self) -> String {
        let err = self.child.as_mut().and_then(|c| c.stderr.take());
        let mut line = String::new();
        BufReader::new(err.expect("a piped stderr"))
            .read_line(&mut line)
            .unwrap();
        line
    }

    /// A client of the server at `addr`, which it does not stop.
    pub fn attach(addr: String) -> Server {
        Server { child: None, addr }
    }

    /// Sends one request and returns the status and the body.
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.addr,
            body.len()
        )
        .unwrap();
        // The server may answer (413) and close before it has read a large body.
        let _ = s.write_all(body);
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a complete response head");
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
        let mut body = raw[split + 4..].to_vec();
        if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            body = unchunk(&body);
        }
        (status, body)
    }

    /// POSTs a JSON value and returns the status and the JSON answer.
    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let (status, body) = self.request("POST", path, body.to_string().as_bytes());
        let v = serde_json::from_slice(&body).unwrap_or_else(|e| {
            panic!("{path}: not JSON ({e}): {}", String::from_utf8_lossy(&body))
        });
        (status, v)
    }

    /// POSTs and asserts a 200.
    pub fn ok(&self, path: &str, body: &Value) -> Value {
        let (status, v) = self.post(path, body);
        assert_eq!(status, 200, "{path}: {}", short(&v.to_string()));
        v
    }
}

fn unchunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = body.windows(2).position(|w| w == b"\r\n").unwrap();
        let len =
            usize::from_str_radix(std::str::from_utf8(&body[..eol]).unwrap().trim(), 16).unwrap();
        if len == 0 {
            return out;
        }
        out.extend_from_slice(&body[eol + 2..eol + 2 + len]);
        body = &body[eol + 2 + len + 2..];
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The first 400 characters of a long text (answers can carry megabytes of base64).
fn short(text: &str) -> &str {
    &text[..text.len().min(400)]
}
