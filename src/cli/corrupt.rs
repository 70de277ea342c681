//! `tilecode corrupt`: a seeded channel that flips bits of a file and keeps its length.
//!
//! Bits are numbered from the start of the file, least significant bit of each byte first
//! (bit `b` is `byte[b / 8] & (1 << (b % 8))`), so a burst of `L` bits covers `L` consecutive
//! positions of the little-endian words the codec works on.

use super::fileio::{BUF_SIZE, Sink, Source, is_stdout};
use anyhow::{Context, bail};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use tilecode::noise::{Geometric, Successes};

/// The most positions `--flips` accepts (they are drawn up front).
const MAX_FLIPS: u64 = 1 << 24;

/// Arguments of `tilecode corrupt`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("channel").required(true).args(["ber", "flips", "burst"])))]
pub struct Args {
    /// Input file; absent or `-` reads standard input.
    file: Option<PathBuf>,
    /// Output file; `-` is standard output.
    #[arg(short, long)]
    output: PathBuf,
    /// Flip every bit independently with probability P (binary symmetric channel).
    #[arg(long, value_name = "P")]
    ber: Option<f64>,
    /// Flip exactly N distinct bits chosen uniformly.
    #[arg(long, value_name = "N")]
    flips: Option<u64>,
    /// Flip LEN consecutive bits starting at bit OFFSET (default: a random offset).
    #[arg(long, value_name = "LEN[@OFFSET]")]
    burst: Option<String>,
    /// Seed of the ChaCha20 generator (default: random, and reported).
    #[arg(long)]
    seed: Option<u64>,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
    /// Report as one JSON object on stderr.
    #[arg(long)]
    json: bool,
    /// No report unless --json.
    #[arg(short, long)]
    quiet: bool,
}

/// What the channel does.
#[derive(Clone, Debug, PartialEq)]
pub enum Channel {
    /// Independent flips with probability `p`.
    Ber(f64),
    /// Exactly this many distinct uniformly chosen flips.
    Flips(u64),
    /// `len` consecutive bits from `offset` (random when `None`).
    Burst {
        /// Number of bits.
        len: u64,
        /// First bit, or random.
        offset: Option<u64>,
    },
}

impl Channel {
    /// Does the channel need the input's length before it can start?
    fn needs_length(&self) -> bool {
        match self {
            Channel::Ber(_) => false,
            Channel::Flips(_) => true,
            Channel::Burst { .. } => true,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Channel::Ber(_) => "ber",
            Channel::Flips(_) => "flips",
            Channel::Burst { .. } => "burst",
        }
    }
}

/// Parses `LEN` or `LEN@OFFSET`.
pub fn parse_burst(text: &str) -> anyhow::Result<(u64, Option<u64>)> {
    let (len, off) = match text.split_once('@') {
        Some((l, o)) => (l, Some(o)),
        None => (text, None),
    };
    let len: u64 = len.trim().parse().map_err(|_| {
        anyhow::anyhow!("bad --burst `{text}`: expected LEN[@OFFSET] with integers")
    })?;
    if len == 0 {
        bail!("bad --burst `{text}`: the length must be at least 1");
    }
    let off = match off {
        Some(o) => Some(o.trim().parse::<u64>().map_err(|_| {
            anyhow::anyhow!("bad --burst `{text}`: offset `{o}` is not a non-negative integer")
        })?),
        None => None,
    };
    Ok((len, off))
}

/// The sorted bit positions a channel flips, produced lazily for `--ber`.
pub enum Flips {
    /// Geometric gaps between flips, from the library's one sampler (boxed: the generator is
    /// much larger than the other variant).
    Geometric(Box<Successes<ChaCha20Rng>>),
    /// Precomputed positions, ascending.
    List(std::vec::IntoIter<u64>),
}

impl Flips {
    /// The flips of `channel` on an input of `total_bits` bits (`None` when unknown, only
    /// allowed for `--ber`).
    pub fn new(channel: &Channel, seed: u64, total_bits: Option<u64>) -> anyhow::Result<Flips> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        match *channel {
            Channel::Ber(p) => {
                if !(0.0..=1.0).contains(&p) {
                    bail!("bad --ber {p}: expected a probability between 0 and 1");
                }
                Ok(Flips::Geometric(Box::new(Geometric::new(p).successes(rng))))
            }
            Channel::Flips(n) => {
                let total = total_bits.expect("flips needs the length");
                if n > total {
                    bail!("cannot flip {n} distinct bits of a {total}-bit input");
                }
                if n > MAX_FLIPS {
                    bail!(
                        "--flips {n} exceeds the limit of {MAX_FLIPS}; use --ber for dense noise"
                    );
                }
                let total_usize = usize::try_from(total).context("input too large")?;
                let mut v: Vec<u64> = rand::seq::index::sample(&mut rng, total_usize, n as usize)
                    .into_iter()
                    .map(|i| i as u64)
                    .collect();
                v.sort_unstable();
                Ok(Flips::List(v.into_iter()))
            }
            Channel::Burst { len, offset } => {
                let total = total_bits.expect("burst needs the length");
                if len > total {
                    bail!("a burst of {len} bits does not fit in a {total}-bit input");
                }
                let start = match offset {
                    Some(o) => {
                        if o.checked_add(len).is_none_or(|end| end > total) {
                            bail!(
                                "a burst of {len} bits at bit {o} does not fit in a {total}-bit input (expected offset <= {})",
                                total - len
                            );
                        }
                        o
                    }
                    None => rng.gen_range(0..=total - len),
                };
                if len > MAX_FLIPS * 64 {
                    bail!(
                        "a burst of {len} bits exceeds the limit of {} bits",
                        MAX_FLIPS * 64
                    );
                }
                Ok(Flips::List(
                    (start..start + len).collect::<Vec<_>>().into_iter(),
                ))
            }
        }
    }
}

impl Iterator for Flips {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        match self {
            Flips::List(it) => it.next(),
            Flips::Geometric(it) => it.next(),
        }
    }
}

/// Flips the bits of `flips` that fall in `buf`, which starts at bit `base`; returns how many
/// it flipped. Positions before `base` must have been consumed already.
pub fn apply(buf: &mut [u8], base: u64, flips: &mut std::iter::Peekable<Flips>) -> u64 {
    let end = base + buf.len() as u64 * 8;
    let mut n = 0;
    while let Some(&p) = flips.peek() {
        if p >= end {
            break;
        }
        let off = p - base;
        buf[(off / 8) as usize] ^= 1 << (off % 8);
        n += 1;
        flips.next();
    }
    n
}

/// Applies a channel to a byte slice in memory; returns the number of flipped bits.
pub fn corrupt_in_place(buf: &mut [u8], channel: &Channel, seed: u64) -> anyhow::Result<u64> {
    let flips = Flips::new(channel, seed, Some(buf.len() as u64 * 8))?;
    Ok(apply(buf, 0, &mut flips.peekable()))
}

/// Runs `tilecode corrupt`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let channel = match (args.ber, args.flips, args.burst.as_deref()) {
        (Some(p), _, _) => Channel::Ber(p),
        (_, Some(n), _) => Channel::Flips(n),
        (_, _, Some(b)) => {
            let (len, offset) = parse_burst(b)?;
            Channel::Burst { len, offset }
        }
        _ => bail!("one of --ber, --flips, --burst is required"),
    };
    if let Channel::Ber(p) = channel
        && !(0.0..=1.0).contains(&p)
    {
        bail!("bad --ber {p}: expected a probability between 0 and 1");
    }
    let seed = args.seed.unwrap_or_else(|| rand::rngs::OsRng.next_u64());
    let source = Source::from_arg(args.file.as_deref());
    let (mut input, size) = source.open()?;
    // Channels that need the length read a pipe into memory first.
    let mut memory: Option<Vec<u8>> = None;
    let total_bytes = match (channel.needs_length(), size) {
        (false, s) => s,
        (true, Some(s)) => Some(s),
        (true, None) => {
            let mut v = Vec::new();
            input
                .read_to_end(&mut v)
                .with_context(|| format!("cannot read {}", source.display()))?;
            let n = v.len() as u64;
            memory = Some(v);
            Some(n)
        }
    };
    let mut flips = Flips::new(&channel, seed, total_bytes.map(|b| b * 8))?.peekable();

    let mut sink = if is_stdout(Some(&args.output)) {
        Sink::stdout()
    } else {
        Sink::file(&args.output, args.force, source.path())?
    };
    let mut flipped = 0u64;
    let mut bytes = 0u64;
    if let Some(mut v) = memory {
        flipped = apply(&mut v, 0, &mut flips);
        bytes = v.len() as u64;
        sink.writer()
            .write_all(&v)
            .context("cannot write the output")?;
    } else {
        let mut buf = vec![0u8; BUF_SIZE];
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot read {}", source.display()));
                }
            };
            flipped += apply(&mut buf[..n], bytes * 8, &mut flips);
            bytes += n as u64;
            sink.writer()
                .write_all(&buf[..n])
                .context("cannot write the output")?;
        }
    }
    sink.commit()?;

    if args.json {
        let mut obj = serde_json::json!({
            "channel": channel.name(),
            "seed": seed,
            "bytes": bytes,
            "bits": bytes * 8,
            "flipped_bits": flipped,
        });
        match channel {
            Channel::Ber(p) => obj["ber"] = serde_json::json!(p),
            Channel::Flips(n) => obj["flips"] = serde_json::json!(n),
            Channel::Burst { len, .. } => obj["burst_len"] = serde_json::json!(len),
        }
        eprintln!("{obj}");
    } else if !args.quiet {
        eprintln!(
            "tilecode corrupt: flipped {flipped} of {} bits ({}, seed {seed})",
            bytes * 8,
            match channel {
                Channel::Ber(p) => format!("ber {p}"),
                Channel::Flips(n) => format!("{n} uniform flips"),
                Channel::Burst { len, .. } => format!("burst of {len} bits"),
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(c: &Channel, seed: u64, bits: u64) -> Vec<u64> {
        Flips::new(c, seed, Some(bits))
            .unwrap()
            .take_while(|&p| p < bits)
            .collect()
    }

    #[test]
    fn burst_parses() {
        assert_eq!(parse_burst("64").unwrap(), (64, None));
        assert_eq!(parse_burst("64@100").unwrap(), (64, Some(100)));
        assert!(parse_burst("0").is_err());
        assert!(parse_burst("x@1").is_err());
        assert!(parse_burst("3@-1").is_err());
    }

    #[test]
    fn flips_are_distinct_sorted_and_seeded() {
        let c = Channel::Flips(100);
        let a = positions(&c, 7, 1000);
        assert_eq!(a.len(), 100);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(a, positions(&c, 7, 1000));
        assert_ne!(a, positions(&c, 8, 1000));
        assert!(Flips::new(&Channel::Flips(1001), 1, Some(1000)).is_err());
    }

    #[test]
    fn burst_is_consecutive_and_fits() {
        let c = Channel::Burst {
            len: 10,
            offset: Some(5),
        };
        assert_eq!(positions(&c, 0, 100), (5..15).collect::<Vec<_>>());
        let r = Channel::Burst {
            len: 10,
            offset: None,
        };
        let p = positions(&r, 3, 100);
        assert_eq!(p.len(), 10);
        assert!(p.windows(2).all(|w| w[1] == w[0] + 1) && p[9] < 100);
        assert!(
            Flips::new(
                &Channel::Burst {
                    len: 10,
                    offset: Some(91)
                },
                0,
                Some(100)
            )
            .is_err()
        );
        assert!(
            Flips::new(
                &Channel::Burst {
                    len: 101,
                    offset: None
                },
                0,
                Some(100)
            )
            .is_err()
        );
    }

    #[test]
    fn ber_extremes_and_rate() {
        assert!(positions(&Channel::Ber(0.0), 1, 10_000).is_empty());
        assert_eq!(
            positions(&Channel::Ber(1.0), 1, 1000),
            (0..1000).collect::<Vec<_>>()
        );
        // 1e6 bits at p = 0.01: mean 10_000, sd ~ 99.5; allow 6 sd.
        let n = positions(&Channel::Ber(0.01), 42, 1_000_000).len() as i64;
        assert!((n - 10_000).abs() < 600, "{n}");
        assert!(Flips::new(&Channel::Ber(1.5), 1, None).is_err());
        assert!(Flips::new(&Channel::Ber(-0.1), 1, None).is_err());
    }

    #[test]
    fn apply_in_chunks_equals_apply_whole() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 31 % 251) as u8).collect();
        let c = Channel::Ber(0.05);
        let mut whole = data.clone();
        let n1 = corrupt_in_place(&mut whole, &c, 5).unwrap();
        let mut chunked = data.clone();
        let mut flips = Flips::new(&c, 5, None).unwrap().peekable();
        let mut n2 = 0;
        let mut base = 0u64;
        for ch in chunked.chunks_mut(333) {
            n2 += apply(ch, base, &mut flips);
            base += ch.len() as u64 * 8;
        }
        assert_eq!(whole, chunked);
        assert_eq!(n1, n2);
        let diff: u32 = whole
            .iter()
            .zip(&data)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum();
        assert_eq!(diff as u64, n1);
    }

    quickcheck::quickcheck! {
        /// Any chunking of the input flips the same bits, and the report counts exactly the
        /// bits that differ.
        fn chunking_does_not_matter(data: Vec<u8>, cuts: Vec<u8>, seed: u64, ber_milli: u16) -> bool {
            let c = Channel::Ber((ber_milli % 1001) as f64 / 1000.0);
            let mut whole = data.clone();
            let n1 = corrupt_in_place(&mut whole, &c, seed).unwrap();
            let mut pieces = data.clone();
            let mut flips = Flips::new(&c, seed, None).unwrap().peekable();
            let (mut n2, mut at, mut i) = (0, 0usize, 0usize);
            while at < pieces.len() {
                let step = (cuts.get(i).copied().unwrap_or(7) as usize).max(1);
                let end = (at + step).min(pieces.len());
                n2 += apply(&mut pieces[at..end], at as u64 * 8, &mut flips);
                at = end;
                i += 1;
            }
            let diff: u64 = whole.iter().zip(&data).map(|(a, b)| (a ^ b).count_ones() as u64).sum();
            whole == pieces && n1 == n2 && diff == n1
        }

        /// `--flips N` flips exactly N bits; a burst flips exactly its bits.
        fn flips_and_bursts_are_exact(len: u8, n: u16, off: u16, blen: u8, seed: u64) -> bool {
            let data = vec![0u8; len as usize];
            let bits = data.len() as u64 * 8;
            let n = n as u64 % (bits + 1);
            let mut a = data.clone();
            let ok_flips = corrupt_in_place(&mut a, &Channel::Flips(n), seed).unwrap() == n
                && a.iter().map(|b| b.count_ones() as u64).sum::<u64>() == n;
            let blen = (blen as u64).max(1);
            let mut b = data.clone();
            let burst = Channel::Burst { len: blen, offset: Some(off as u64) };
            let ok_burst = match corrupt_in_place(&mut b, &burst, seed) {
                Ok(k) => {
                    k == blen
                        && (0..bits).all(|i| ((b[(i / 8) as usize] >> (i % 8)) & 1 == 1)
                            == (i >= off as u64 && i < off as u64 + blen))
                }
                Err(_) => off as u64 + blen > bits,
            };
            ok_flips && ok_burst
        }
    }

    #[test]
    fn bit_numbering_is_lsb_first() {
        let mut b = [0u8; 2];
        corrupt_in_place(
            &mut b,
            &Channel::Burst {
                len: 3,
                offset: Some(7),
            },
            0,
        )
        .unwrap();
        assert_eq!(b, [0x80, 0x03]);
    }
}
