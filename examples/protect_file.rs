//! Protect a file with the streaming codec, damage the protected copy, and get the file back.
//!
//! ```text
//! cargo run --release --example protect_file -- FILE [SPEC] [DEPTH]
//! ```
//!
//! Writes `FILE.tc` through [`tilecode::stream::Encoder`], flips single bits three groups
//! apart plus a burst of `DEPTH` bits, then streams it back through
//! [`tilecode::stream::Decoder`] and compares with the original.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use tilecode::code::Spec;
use tilecode::stream::{Decoder, Encoder, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: protect_file FILE [SPEC] [DEPTH]")?;
    let spec: Spec = args.next().as_deref().unwrap_or("alien:9x9").parse()?;
    let depth: usize = args.next().as_deref().unwrap_or("512").parse()?;
    let opts = Options {
        code: spec,
        interleave: depth,
        ..Options::default()
    };
    let protected = format!("{path}.tc");

    // Encode: any reader into any writer.
    let mut input = BufReader::with_capacity(1 << 20, File::open(&path)?);
    let out = BufWriter::with_capacity(1 << 20, File::create(&protected)?);
    let mut enc = Encoder::new(out, &opts)?;
    let copied = io::copy(&mut input, &mut enc)?;
    enc.finish()?.flush()?;
    println!("{path}: {copied} bytes protected as {protected} with {spec}, interleave {depth}");

    // Damage: flips three groups (n * D bits) apart, so never two in one codeword, and a burst
    // of D bits one group after one of them, so it shares no group with any flip.
    let mut f = File::options().read(true).write(true).open(&protected)?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    let step = (spec.n() * depth / 8).max(1);
    let mut flips = 0;
    let mut burst_at = bytes.len();
    for at in (step / 2..bytes.len()).step_by(3 * step) {
        bytes[at] ^= 0x10;
        flips += 1;
        if flips == 3 {
            burst_at = at + step;
        }
    }
    let burst_at = burst_at.min(bytes.len());
    let burst_end = (burst_at + depth / 8).min(bytes.len());
    for b in &mut bytes[burst_at..burst_end] {
        *b ^= 0xff;
    }
    f.seek(SeekFrom::Start(0))?;
    f.write_all(&bytes)?;
    drop(f);
    println!(
        "damaged {protected}: {flips} single bit flips and a burst of {} bits",
        (burst_end - burst_at) * 8
    );

    // Decode and compare.
    let mut dec = Decoder::new(BufReader::with_capacity(1 << 20, File::open(&protected)?))?;
    let mut restored = Vec::new();
    dec.read_to_end(&mut restored)?;
    let original = std::fs::read(&path)?;
    let r = dec.report();
    println!(
        "decoded: {} codewords, {} bits corrected, {} uncorrectable, checksum {}",
        r.codewords,
        r.corrected_bits,
        r.uncorrectable_codewords,
        if r.checksum_ok { "ok" } else { "MISMATCH" }
    );
    if restored == original {
        println!("restored {} bytes exactly", restored.len());
        Ok(())
    } else {
        Err("the restored data differs from the original".into())
    }
}
