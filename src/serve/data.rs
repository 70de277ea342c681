//! The stream commands on uploaded data: `encode`, `corrupt` and `decode`, with the bytes as
//! base64 in the JSON `data` key (both ways). Only the stream module's public API is used:
//! [`Encoder`], [`Decoder`] and its report.

use super::super::corrupt::{Channel, corrupt_in_place, parse_burst};
use super::super::encode::{options, summary_json};
use super::super::report::to_json;
use super::error::ApiError;
use super::limits::MAX_FILE;
use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rand::RngCore;
use serde::Deserialize;
use serde_json::{Value, json};
use std::io::{Read, Write};
use tilecode::stream::{Decoder, Encoder};

fn decode_base64(text: &str) -> Result<Vec<u8>, ApiError> {
    BASE64
        .decode(text)
        .map_err(|e| ApiError::bad(format!("bad data: expected base64, {e}")))
}

/// The keys of `encode`: the file and the encoder's options (`code`, `interleave`,
/// `chunk_size`, `recovery`, `format_version`, as the CLI's).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EncodeKeys {
    data: String,
    #[serde(default = "default_code")]
    code: String,
    #[serde(default)]
    interleave: Option<usize>,
    #[serde(default)]
    chunk_size: Option<usize>,
    #[serde(default)]
    recovery: Option<f64>,
    #[serde(default)]
    format_version: Option<u8>,
}

fn default_code() -> String {
    "alien:9x9".into()
}

/// `encode`: the object `tilecode encode --json` prints, and the stream in `data`.
pub fn encode(keys: EncodeKeys) -> Result<Value, ApiError> {
    let input = decode_base64(&keys.data)?;
    if input.len() > MAX_FILE {
        return Err(ApiError::too_large(format!(
            "file too large: expected at most {MAX_FILE} bytes here, found {}",
            input.len()
        )));
    }
    let mut opts = options(&keys.code, keys.interleave, keys.chunk_size)?;
    if let Some(r) = keys.recovery {
        opts.recovery = r;
    }
    if let Some(v) = keys.format_version {
        opts.version = v;
    }
    if keys.chunk_size.is_none() {
        // As `tilecode encode FILE` does: chunks sized to the upload.
        opts = opts.for_input_len(input.len() as u64);
    }
    opts.validate()?;
    let mut enc = Encoder::new(Vec::new(), &opts)?;
    let io_error = |e: std::io::Error| ApiError::bad(format!("encoding failed: {e}"));
    enc.write_all(&input).map_err(io_error)?;
    let out = enc.finish().map_err(io_error)?;
    let mut v = summary_json(&opts, input.len() as u64, out.len() as u64);
    v["data"] = json!(BASE64.encode(&out));
    Ok(v)
}

/// The keys of `corrupt`: the data, one channel (`ber`, `flips` or `burst`, as the CLI's
/// options) and, beyond the CLI, `zero`: `LEN@OFFSET` bytes set to zero (a dead sector).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorruptKeys {
    data: String,
    #[serde(default)]
    ber: Option<f64>,
    #[serde(default)]
    flips: Option<u64>,
    #[serde(default)]
    burst: Option<String>,
    #[serde(default)]
    zero: Option<String>,
    #[serde(default)]
    seed: Option<u64>,
}

/// `corrupt`: the channels applied in the order ber, flips, burst, zero; the object counts
/// what each did, and `data` holds the damaged bytes.
pub fn corrupt(keys: CorruptKeys) -> Result<Value, ApiError> {
    let mut data = decode_base64(&keys.data)?;
    if keys.ber.is_none() && keys.flips.is_none() && keys.burst.is_none() && keys.zero.is_none() {
        return Err(ApiError::bad(
            "no damage asked for: expected at least one of ber, flips, burst, zero",
        ));
    }
    let seed = keys.seed.unwrap_or_else(|| rand::rngs::OsRng.next_u64());
    let mut report = json!({ "seed": seed, "bytes": data.len(), "bits": data.len() as u64 * 8 });
    let mut flipped = 0;
    if let Some(p) = keys.ber {
        if !(0.0..=1.0).contains(&p) {
            return Err(ApiError::bad(format!(
                "bad ber {p}: expected a probability between 0 and 1"
            )));
        }
        flipped += corrupt_in_place(&mut data, &Channel::Ber(p), seed)?;
        report["ber"] = json!(p);
    }
    if let Some(n) = keys.flips {
        flipped += corrupt_in_place(&mut data, &Channel::Flips(n), seed.wrapping_add(1))?;
        report["flips"] = json!(n);
    }
    if let Some(b) = &keys.burst {
        let (len, offset) = parse_burst(b)?;
        let channel = Channel::Burst { len, offset };
        flipped += corrupt_in_place(&mut data, &channel, seed.wrapping_add(2))?;
        report["burst_len"] = json!(len);
    }
    report["flipped_bits"] = json!(flipped);
    if let Some(z) = &keys.zero {
        let (len, offset) = parse_zero(z, data.len())?;
        data[offset..offset + len].fill(0);
        report["zeroed"] = json!([offset, offset + len]);
    }
    report["data"] = json!(BASE64.encode(&data));
    Ok(report)
}

/// Parses `LEN@OFFSET` (bytes) and checks that the range fits in `size` bytes.
fn parse_zero(text: &str, size: usize) -> Result<(usize, usize), ApiError> {
    let bad = || ApiError::bad(format!("bad zero {text:?}: expected LEN@OFFSET in bytes"));
    let (len, off) = text.split_once('@').ok_or_else(bad)?;
    let len: usize = len.trim().parse().map_err(|_| bad())?;
    let off: usize = off.trim().parse().map_err(|_| bad())?;
    if off.checked_add(len).is_none_or(|end| end > size) {
        return Err(ApiError::bad(format!(
            "bad zero {text:?}: {len} bytes at offset {off} do not fit in {size} bytes"
        )));
    }
    Ok((len, off))
}

/// The keys of `decode`: the stream.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecodeKeys {
    data: String,
}

/// `decode`, best effort (damaged chunks kept as decoded and reported): the report
/// `tilecode decode --json` prints, and the restored bytes in `data`. Input that is not a
/// readable stream (no header, truncated) is a 422 with the decoder's message.
pub fn decode(keys: DecodeKeys) -> Result<Value, ApiError> {
    let input = decode_base64(&keys.data)?;
    let unreadable = |e: std::io::Error| ApiError {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        message: format!("cannot decode: {e}"),
    };
    let mut dec = Decoder::new(&input[..])
        .map_err(unreadable)?
        .keep_damaged(true);
    let mut out = Vec::new();
    dec.read_to_end(&mut out).map_err(unreadable)?;
    let mut v = to_json(dec.report(), Some(dec.header()));
    v["data"] = json!(BASE64.encode(&out));
    Ok(v)
}
