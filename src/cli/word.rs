//! `tilecode word`: encode or decode a single codeword given on the command line.
//!
//! Bits are `0`/`1` strings (message bits in the code's order, codewords row-major), or with
//! `--hex` hexadecimal digits packing the same bit string four bits a digit, first bit in the
//! most significant place, the last digit padded with zero bits.

use anyhow::{Context, bail};
use serde_json::{Map, Value, json};
use std::process::ExitCode;
use tilecode::code::{BlockCode, Decoded, Spec, Status, build, decode_checked, encode_checked};
use tilecode::gf2::BitVec;

/// Arguments of `tilecode word`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Encode or decode.
    #[command(subcommand)]
    pub action: Action,
}

/// What `tilecode word` does.
#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Encode a K-bit message into an N-bit codeword (alien codes print it as a grid).
    Encode(WordArgs),
    /// Decode an N-bit word: status (clean, corrected, detected), error positions, codeword and
    /// message. Exits 2 when errors are detected that the code cannot correct.
    Decode(WordArgs),
}

/// The arguments both actions take.
#[derive(clap::Args, Debug)]
pub struct WordArgs {
    /// The code: alien:MxN, secded:N, hamming:N, repetition:N, parity:N or product:MxN.
    pub spec: String,
    /// The bits: a 0/1 string (or hexadecimal digits with --hex).
    pub bits: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Read and write bit strings as hexadecimal (first bit = most significant bit of the
    /// first digit; the last digit is padded with zero bits).
    #[arg(long)]
    pub hex: bool,
}

/// Runs `tilecode word`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.action {
        Action::Encode(a) => encode(a),
        Action::Decode(a) => decode(a),
    }
}

/// Parses `text` as `len` bits, in 0/1 or hexadecimal form.
pub fn parse_bits(text: &str, len: usize, hex: bool) -> anyhow::Result<BitVec> {
    let bits = if hex {
        parse_hex(text, len)?
    } else {
        BitVec::parse(text)?
    };
    if bits.len() != len {
        return Err(tilecode::Error::Length {
            expected: len,
            found: bits.len(),
        }
        .into());
    }
    Ok(bits)
}

/// Hexadecimal digits (optionally `0x`-prefixed; spaces and `_` ignored) as `len` bits.
pub fn parse_hex(text: &str, len: usize) -> anyhow::Result<BitVec> {
    let t = text.trim();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    let mut digits = Vec::new();
    for (position, ch) in t.chars().enumerate() {
        match ch.to_digit(16) {
            Some(d) => digits.push(d),
            None if ch.is_ascii_whitespace() || ch == '_' => {}
            None => bail!("bad hex digit {ch:?} at position {position} (expected 0-9, a-f or A-F)"),
        }
    }
    let want = len.div_ceil(4);
    if digits.len() != want {
        bail!(
            "expected {want} hex digits for {len} bits, found {}",
            digits.len()
        );
    }
    let mut bits = BitVec::zeros(len);
    for (i, d) in digits.iter().enumerate() {
        for b in 0..4 {
            let idx = 4 * i + b;
            let one = (d >> (3 - b)) & 1 == 1;
            if idx < len {
                bits.set(idx, one);
            } else if one {
                bail!("the padding bits after bit {len} in the last hex digit must be zero");
            }
        }
    }
    Ok(bits)
}

/// A bit string as hexadecimal digits (the inverse of [`parse_hex`]).
pub fn to_hex(bits: &BitVec) -> String {
    (0..bits.len().div_ceil(4))
        .map(|i| {
            let d = (0..4).fold(0u32, |acc, b| {
                let idx = 4 * i + b;
                acc << 1 | u32::from(idx < bits.len() && bits.get(idx))
            });
            char::from_digit(d, 16).expect("a hex digit")
        })
        .collect()
}

fn show(bits: &BitVec, hex: bool) -> String {
    if hex { to_hex(bits) } else { bits.to_string() }
}

/// The codeword for humans: one row per line for alien and product codes (indented after the
/// first line).
fn grid(spec: &Spec, cw: &BitVec, hex: bool, indent: usize) -> String {
    match *spec {
        Spec::Alien { rows, cols } | Spec::Product { rows, cols } if !hex => {
            let s = cw.to_string();
            (0..rows)
                .map(|i| s[i * cols..(i + 1) * cols].to_string())
                .collect::<Vec<_>>()
                .join(&format!("\n{:indent$}", ""))
        }
        _ => show(cw, hex),
    }
}

fn setup(spec: &str) -> anyhow::Result<(Spec, Box<dyn BlockCode>)> {
    let spec: Spec = spec.parse()?;
    Ok((spec, build(&spec)))
}

/// Encodes the message `bits` with the code `spec`: the spec, message and codeword.
fn encode_word(spec: &str, bits: &str, hex: bool) -> anyhow::Result<(Spec, BitVec, BitVec)> {
    let (spec, code) = setup(spec)?;
    let msg = parse_bits(bits, code.k(), hex).with_context(|| format!("message for {spec}"))?;
    let cw = encode_checked(code.as_ref(), &msg)?;
    Ok((spec, msg, cw))
}

/// The JSON object of `tilecode word encode --json` for the message `bits`.
pub fn encode_json(spec: &str, bits: &str, hex: bool) -> anyhow::Result<Value> {
    let (spec, msg, cw) = encode_word(spec, bits, hex)?;
    Ok(json!({
        "spec": spec.to_string(),
        "message": show(&msg, hex),
        "codeword": show(&cw, hex),
    }))
}

fn encode(a: WordArgs) -> anyhow::Result<ExitCode> {
    if a.json {
        let v = encode_json(&a.spec, &a.bits, a.hex)?;
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        let (spec, _, cw) = encode_word(&a.spec, &a.bits, a.hex)?;
        println!("{}", grid(&spec, &cw, a.hex, 0));
    }
    Ok(ExitCode::SUCCESS)
}

fn cell(spec: &Spec, pos: usize) -> Option<(usize, usize)> {
    match *spec {
        Spec::Alien { cols, .. } | Spec::Product { cols, .. } => Some((pos / cols, pos % cols)),
        _ => None,
    }
}

/// Decodes the word `bits` with the code `spec`.
fn decode_word(spec: &str, bits: &str, hex: bool) -> anyhow::Result<(Spec, Decoded)> {
    let (spec, code) = setup(spec)?;
    let word = parse_bits(bits, code.n(), hex).with_context(|| format!("word for {spec}"))?;
    Ok((spec, decode_checked(code.as_ref(), &word)?))
}

/// The JSON object of `tilecode word decode --json` for the word `bits`, and its status.
pub fn decode_json(spec: &str, bits: &str, hex: bool) -> anyhow::Result<(Value, Status)> {
    let (spec, d) = decode_word(spec, bits, hex)?;
    let mut o = Map::new();
    o.insert("spec".into(), json!(spec.to_string()));
    o.insert("status".into(), json!(d.status.as_str()));
    o.insert("errors".into(), json!(d.errors));
    if matches!(spec, Spec::Alien { .. } | Spec::Product { .. }) {
        let cells: Vec<Value> = d
            .errors
            .iter()
            .filter_map(|&p| cell(&spec, p))
            .map(|(row, column)| json!({ "row": row, "column": column }))
            .collect();
        o.insert("error_cells".into(), Value::Array(cells));
    }
    o.insert("codeword".into(), json!(show(&d.codeword, hex)));
    o.insert(
        "message".into(),
        d.message
            .as_ref()
            .map_or(Value::Null, |m| json!(show(m, hex))),
    );
    Ok((Value::Object(o), d.status))
}

fn decode(a: WordArgs) -> anyhow::Result<ExitCode> {
    let status = if a.json {
        let (v, status) = decode_json(&a.spec, &a.bits, a.hex)?;
        println!("{}", serde_json::to_string_pretty(&v)?);
        status
    } else {
        let (spec, d) = decode_word(&a.spec, &a.bits, a.hex)?;
        let place = |p: usize| match cell(&spec, p) {
            Some((r, c)) => format!("{p} (row {r}, column {c})"),
            None => p.to_string(),
        };
        let errors = match (d.status, d.errors.len()) {
            (Status::Detected, _) => "detected, not correctable".to_string(),
            (_, 0) => "none".to_string(),
            (_, 1) => format!("1 at position {}", place(d.errors[0])),
            (_, k) => format!(
                "{k} at positions {}",
                d.errors
                    .iter()
                    .map(|&p| place(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        println!("{:<10}{}", "status", d.status.as_str());
        println!("{:<10}{errors}", "errors");
        println!("{:<10}{}", "codeword", grid(&spec, &d.codeword, a.hex, 10));
        println!(
            "{:<10}{}",
            "message",
            d.message
                .as_ref()
                .map_or_else(|| "none".to_string(), |m| show(m, a.hex))
        );
        d.status
    };
    Ok(if status == Status::Detected {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        for len in 1..=20usize {
            for seed in 0..50u64 {
                let bits = BitVec::from_bools(
                    &(0..len)
                        .map(|i| (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> i) & 1 == 1)
                        .collect::<Vec<_>>(),
                );
                let h = to_hex(&bits);
                assert_eq!(h.len(), len.div_ceil(4));
                assert_eq!(parse_hex(&h, len).unwrap(), bits);
            }
        }
        // 11010 -> 1101 0(000) -> "d0"
        assert_eq!(to_hex(&BitVec::parse("11010").unwrap()), "d0");
        assert!(parse_hex("d4", 5).is_err()); // padding bit set
        assert_eq!(parse_hex("0xD8", 5).unwrap().to_string(), "11011");
        assert!(parse_hex("d", 5).is_err()); // too short
        assert!(parse_hex("dz", 5).is_err());
    }
}
