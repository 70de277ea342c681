//! The streaming codec through its public API: roundtrips for every family and depth, damage
//! the format promises to repair (one flip per codeword anywhere, one burst of D bits
//! anywhere), damage it promises to detect, truncation, garbage, and the I/O adapters.

use quickcheck::{QuickCheck, TestResult};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{self, Read, Write};
use tilecode::Error;
use tilecode::code::Spec;
use tilecode::stream::format::{Blocks, Layout};
use tilecode::stream::{
    self, Decoder, Encoder, Header, Options, Report, StreamStatus, decode, decode_lenient, encode,
};

/// Every family, every alien shape, codes with and without correction.
const SPECS: [&str; 11] = [
    "alien:9x9",
    "alien:3x3",
    "alien:4x5",
    "alien:5x4",
    "alien:4x4",
    "alien:1x5",
    "secded:72",
    "hamming:7",
    "repetition:3",
    "parity:9",
    "alien:7x1",
];

fn spec(s: &str) -> Spec {
    s.parse().unwrap()
}

fn payload(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| rng.r#gen()).collect()
}

/// Options for the inner code's tests: no recovery chunks (so that every damaged byte is
/// read, and damage beyond the code shows), and a fixed stream id (so that streams compare
/// byte for byte). Recovery is tested in tests/stream_damage.rs.
fn opts(s: &str, d: usize, chunk_size: usize) -> Options {
    Options {
        chunk_size,
        recovery: 0.0,
        stream_id: Some(7),
        ..Options::new(spec(s), d)
    }
}

fn t_of(s: &str) -> usize {
    tilecode::code::build(&spec(s)).t()
}

/// Where the codeword groups of an encoded stream start, from its header and length.
/// Byte offsets of every group of a stream without recovery chunks, and (version 2) of every
/// frame header, end frame copies included.
fn group_starts(enc: &[u8], h: &Header) -> (Vec<usize>, Vec<usize>) {
    let slot = h.region_bytes / 3;
    let frame = if h.version == 1 { 0 } else { 64 };
    let body_end = enc.len() - h.region_bytes;
    let mut starts = Vec::new();
    let mut frames = Vec::new();
    let mut chunk = h.region_bytes;
    while chunk < body_end {
        frames.push(chunk);
        let end = (chunk + frame + h.chunk_bytes).min(body_end);
        starts.extend((chunk + frame..end).step_by(h.group_bytes));
        chunk = end;
    }
    if h.version != 1 {
        frames.extend((0..3).map(|c| body_end + c * slot));
    } else {
        frames.clear();
    }
    (starts, frames)
}

fn flip(buf: &mut [u8], bit: usize) {
    buf[bit / 8] ^= 1 << (bit % 8);
}

/// One flipped bit in every codeword of the data; in the header region (and the version 1
/// trailer) at most one copy of each bit flipped (the copies are the codewords there); one
/// flipped bit in every version 2 frame header (each corrects one).
fn flip_one_per_codeword(enc: &mut [u8], seed: u64) {
    let h = stream::read_header(enc).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = h.code.n();
    let d = h.interleave;
    let (groups, frames) = group_starts(enc, &h);
    for s in groups {
        for lane in 0..d {
            let row = rng.gen_range(0..n);
            flip(enc, s * 8 + row * d + lane);
        }
    }
    for f in frames {
        flip(enc, f * 8 + rng.gen_range(0..512));
    }
    let slot = h.region_bytes / 3;
    let trailer = enc.len() - h.region_bytes;
    let regions: &[usize] = if h.version == 1 { &[0, trailer] } else { &[0] };
    for &base in regions {
        for bit in 0..512 {
            if rng.gen_bool(0.5) {
                let copy = rng.gen_range(0..3);
                flip(enc, (base + copy * slot) * 8 + bit);
            }
        }
    }
}

fn kind_and_error(e: &io::Error) -> (io::ErrorKind, String) {
    let inner = e
        .get_ref()
        .and_then(|i| i.downcast_ref::<Error>())
        .map(|e| format!("{e:?}"))
        .unwrap_or_default();
    (e.kind(), inner)
}

fn read_all(enc: &[u8], lenient: bool, step: usize) -> (io::Result<Vec<u8>>, Option<Report>) {
    let dec = match Decoder::new(enc) {
        Ok(d) => d.keep_damaged(lenient),
        Err(e) => return (Err(e), None),
    };
    let mut dec = dec;
    let mut out = Vec::new();
    let mut buf = vec![0u8; step];
    loop {
        match dec.read(&mut buf) {
            Ok(0) => return (Ok(out), Some(dec.report().clone())),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (Err(e), Some(dec.report().clone())),
        }
    }
}

#[test]
fn roundtrip_every_family_depth_and_size() {
    for s in SPECS {
        for d in [64, 512, 4096] {
            for len in [0usize, 1, 2, 7, 999, 4097, 12_345] {
                let data = payload(len, len as u64);
                let o = opts(s, d, 4000);
                let enc = encode(&data, &o).unwrap();
                assert_eq!(enc.len() as u64, o.encoded_len(len as u64).unwrap());
                let (dec, rep) = decode(&enc).unwrap();
                assert_eq!(&dec[..], &data[..], "{s} D={d} len={len}");
                assert_eq!(rep.status(), StreamStatus::Clean);
                assert!(rep.checksum_ok);
                assert_eq!(rep.bytes_out, len as u64);
                assert_eq!(rep.bytes_in, enc.len() as u64);
                assert_eq!(rep.chunks, len.div_ceil(4000) as u64);
                let (r, rep2) = read_all(&enc, false, 1000);
                assert_eq!(r.unwrap(), data);
                assert_eq!(rep2.unwrap(), rep);
            }
        }
    }
}

#[test]
fn default_options_roundtrip_several_chunks() {
    let o = Options::default();
    assert_eq!(o.code, spec("alien:9x9"));
    assert_eq!(o.interleave, 64);
    o.validate().unwrap();
    let data = payload(3 * o.chunk_size + 12345, 3);
    let enc = encode(&data, &o).unwrap();
    let (dec, rep) = decode(&enc).unwrap();
    assert_eq!(&dec[..], &data[..]);
    assert_eq!(rep.chunks, 4);
    assert_eq!(rep.codewords % 64, 0);
}

#[test]
fn one_flip_per_codeword_anywhere_is_corrected() {
    for s in SPECS.iter().filter(|s| t_of(s) >= 1) {
        for d in [64, 512, 4096] {
            for (len, seed) in [(0usize, 1u64), (1, 2), (5000, 3), (20_001, 4)] {
                let data = payload(len, seed);
                let mut enc = encode(&data, &opts(s, d, 7000)).unwrap().to_vec();
                flip_one_per_codeword(&mut enc, seed);
                let (dec, rep) =
                    decode(&enc).unwrap_or_else(|e| panic!("{s} D={d} len={len}: {e}"));
                assert_eq!(&dec[..], &data[..], "{s} D={d} len={len}");
                assert_eq!(rep.status(), StreamStatus::Repaired);
                assert_eq!(rep.uncorrectable_codewords, 0);
                // Every data frame header and the end frame's first copy were repaired too.
                assert_eq!(
                    rep.corrected_bits - rep.header_corrected_bits,
                    rep.codewords + rep.chunks + 1,
                    "{s} D={d} len={len}: {rep:?}"
                );
            }
        }
    }
}

#[test]
fn a_burst_of_d_bits_anywhere_is_corrected() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for s in SPECS.iter().filter(|s| t_of(s) >= 1) {
        for d in [64, 512, 4096] {
            let data = payload(9000, d as u64);
            let enc = encode(&data, &opts(s, d, 5000)).unwrap().to_vec();
            let bits = enc.len() * 8;
            // Random offsets, plus the very start and the very end.
            let mut starts: Vec<usize> = (0..12).map(|_| rng.gen_range(0..bits - d)).collect();
            starts.extend([0, bits - d, bits / 2]);
            for start in starts {
                let mut bad = enc.clone();
                for bit in start..start + d {
                    flip(&mut bad, bit);
                }
                let (dec, rep) =
                    decode(&bad).unwrap_or_else(|e| panic!("{s} D={d} burst at bit {start}: {e}"));
                assert_eq!(&dec[..], &data[..], "{s} D={d} burst at bit {start}");
                // A burst only in the end frame's later copies and its slots' zero padding
                // is never read.
                let slot = stream::read_header(&enc).unwrap().region_bytes / 3;
                assert!(
                    rep.status() == StreamStatus::Repaired
                        || start >= (enc.len() - 3 * slot + 64) * 8,
                    "{s} D={d} burst at bit {start} of {}: {rep:?}",
                    enc.len() * 8
                );
            }
        }
    }
}

#[test]
fn truncation_anywhere_is_unexpected_eof() {
    for (s, d) in [("alien:9x9", 64), ("secded:72", 512), ("alien:3x3", 4096)] {
        let data = payload(3000, 5);
        let enc = encode(&data, &opts(s, d, 1200)).unwrap();
        let step = if enc.len() > 20_000 { 7 } else { 1 };
        for cut in (1..enc.len()).step_by(step) {
            let short = &enc[..cut];
            match decode(short) {
                Err(Error::Truncated { .. }) => {}
                // Only the end frame's copies cut: the short last chunk proves the data
                // complete.
                Ok((out, rep)) if rep.end_missing || rep.corrected_bits == 0 => {
                    assert_eq!(&out[..], &data[..], "{s} D={d} cut at {cut}");
                    assert!(
                        cut >= enc.len() - 3 * 64.max(d / 8),
                        "{s} D={d} cut at {cut}"
                    );
                    continue;
                }
                other => panic!("{s} D={d} cut at {cut} of {}: {other:?}", enc.len()),
            }
            match decode_lenient(short) {
                Err(Error::Truncated { .. }) => {}
                other => panic!("lenient {s} D={d} cut at {cut}: {other:?}"),
            }
            let (r, _) = read_all(short, false, 4096);
            let e = r.expect_err("a truncated stream must fail");
            let (kind, inner) = kind_and_error(&e);
            assert_eq!(kind, io::ErrorKind::UnexpectedEof, "{s} cut at {cut}: {e}");
            assert!(inner.starts_with("Truncated"), "{inner}");
            assert!(e.to_string().starts_with("truncated stream: "), "{e}");
        }
    }
}

#[test]
fn empty_input_and_garbage_are_not_tilecode() {
    assert!(matches!(decode(b""), Err(Error::NotTilecode { .. })));
    let e = Decoder::new(&b""[..]).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    assert!(kind_and_error(&e).1.starts_with("NotTilecode"));
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for len in [1usize, 5, 63, 64, 100, 191, 192, 1000, 300_000] {
        for _ in 0..3 {
            let junk: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
            match decode(&junk) {
                Err(Error::NotTilecode { .. }) => {}
                other => panic!("garbage of {len} bytes: {other:?}"),
            }
            let e = Decoder::new(&junk[..]).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        }
    }
    let text = b"Hello, this is a plain text file, certainly not an encoded stream.\n".repeat(20);
    assert!(matches!(decode(&text), Err(Error::NotTilecode { .. })));
}

#[test]
fn header_damaged_beyond_repair_is_refused_never_misread() {
    let data = payload(5000, 11);
    let enc = encode(&data, &opts("alien:9x9", 64, 0)).unwrap().to_vec();
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    for trial in 0..200 {
        let mut bad = enc.clone();
        // The same bits flipped in two of the three copies: beyond what the majority repairs.
        let (a, b) = match trial % 3 {
            0 => (0, 1),
            1 => (0, 2),
            _ => (1, 2),
        };
        for _ in 0..1 + trial % 5 {
            let bit = rng.gen_range(0..512);
            flip(&mut bad, a * 512 + bit);
            flip(&mut bad, b * 512 + bit);
        }
        match decode(&bad) {
            Err(Error::BadHeader { .. }) | Err(Error::NotTilecode { .. }) => {}
            Ok((out, _)) => assert_eq!(&out[..], &data[..], "misread on trial {trial}"),
            other => panic!("trial {trial}: {other:?}"),
        }
    }
    // Everything wiped: the first frame carries the whole layout, and decoding starts there.
    let mut bad = enc.clone();
    for x in bad.iter_mut().take(192) {
        *x = rng.r#gen();
    }
    let (out, rep) = decode(&bad).expect("decoded from its first frame");
    assert_eq!(&out[..], &data[..]);
    assert_eq!((rep.resyncs, rep.skipped_bytes), (1, 192));
    // A valid header for an unsupported version is refused as such (a version 1 stream has
    // no frames to start from instead).
    let o1 = Options {
        version: 1,
        ..opts("alien:9x9", 64, 1000)
    };
    let mut v3 = encode(&data, &o1).unwrap().to_vec();
    for copy in 0..3 {
        v3[copy * 64 + 8] = 3;
        let crc = crc32c::crc32c(&v3[copy * 64..copy * 64 + 60]);
        v3[copy * 64 + 60..copy * 64 + 64].copy_from_slice(&crc.to_le_bytes());
    }
    match decode(&v3) {
        Err(Error::BadHeader { reason }) => assert!(reason.contains("version 3"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

/// Flips two bits in one lane of one group of the data (detected, not corrected, by d = 4).
fn double_error(enc: &mut [u8], group: usize, lane: usize, rows: (usize, usize)) {
    let h = stream::read_header(enc).unwrap();
    let s = group_starts(enc, &h).0[group];
    let d = h.interleave;
    flip(enc, s * 8 + rows.0 * d + lane);
    flip(enc, s * 8 + rows.1 * d + lane);
}

#[test]
fn chunk_damage_is_reported_as_its_check_block() {
    let o = opts("alien:9x9", 64, 10_000);
    let data = payload(35_000, 21);
    let enc = encode(&data, &o).unwrap().to_vec();
    let h = stream::read_header(&enc).unwrap();
    let groups_per_chunk = h.chunk_bytes / h.group_bytes;
    for (group, lane, rows) in [
        (0, 0, (0, 1)),
        (5, 37, (3, 70)),
        (groups_per_chunk + 2, 63, (10, 64)),
    ] {
        let mut bad = enc.clone();
        double_error(&mut bad, group, lane, rows);
        match decode(&bad) {
            Err(Error::Corrupt { reason }) => {
                assert!(reason.contains("could not be restored"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
        let (out, rep) = decode_lenient(&bad).unwrap();
        assert_eq!(out.len(), data.len());
        assert_eq!(rep.status(), StreamStatus::Damaged);
        assert!(!rep.checksum_ok);
        assert_eq!(rep.uncorrectable_codewords, 1);
        assert_eq!(rep.damaged_chunks, 1);
        let wrong: Vec<usize> = (0..data.len()).filter(|&i| out[i] != data[i]).collect();
        assert!(!wrong.is_empty());
        for &i in &wrong {
            assert!(
                rep.damaged_ranges
                    .iter()
                    .any(|&(a, b)| a <= i as u64 && (i as u64) < b),
                "byte {i} is wrong but not reported: {:?}",
                rep.damaged_ranges
            );
        }
        // Exactly the failed check block: the third of the chunk of 10 000 bytes holding the
        // codeword's group.
        let c = group / groups_per_chunk * 10_000;
        let len = (data.len() - c).min(10_000);
        let gd = Layout::new(&o.code, 64, 10_000).unwrap().group_data;
        let blocks = Blocks::of(len, gd);
        assert!(matches!(blocks, Blocks::Thirds { .. }), "{blocks:?}");
        let at = group % groups_per_chunk * gd;
        let r = (0..3)
            .map(|b| blocks.range(b))
            .find(|r| r.contains(&at))
            .unwrap();
        assert_eq!(
            rep.damaged_ranges,
            vec![((c + r.start) as u64, (c + r.end) as u64)]
        );
        for w in rep.damaged_ranges.windows(2) {
            assert!(
                w[0].1 < w[1].0,
                "ranges sorted and merged: {:?}",
                rep.damaged_ranges
            );
        }
        // The rest of the data is intact.
        let reported = |i: usize| {
            rep.damaged_ranges
                .iter()
                .any(|&(a, b)| a <= i as u64 && (i as u64) < b)
        };
        assert!(
            (0..data.len())
                .filter(|&i| !reported(i))
                .all(|i| out[i] == data[i])
        );
    }
}

#[test]
fn strict_and_lenient_read_paths_agree_with_one_shot() {
    let o = opts("secded:72", 512, 6000);
    let data = payload(20_000, 31);
    let mut bad = encode(&data, &o).unwrap().to_vec();
    double_error(&mut bad, 3, 100, (2, 9));
    // Single flips elsewhere, which are repaired.
    let h = stream::read_header(&bad).unwrap();
    let g1 = group_starts(&bad, &h).0[1];
    for lane in 0..512 {
        flip(&mut bad, g1 * 8 + (lane % 72) * 512 + lane);
    }
    // One-shot lenient and Read lenient: same bytes, same report.
    let (one, rep) = decode_lenient(&bad).unwrap();
    for step in [1usize, 7, 4096, 1 << 20] {
        let (r, rep2) = read_all(&bad, true, step);
        assert_eq!(r.unwrap(), &one[..], "step {step}");
        assert_eq!(rep2.unwrap(), rep);
    }
    // Strict: the one-shot error and the Read error name the same failure.
    let strict = decode(&bad).unwrap_err();
    let (r, _) = read_all(&bad, false, 333);
    let e = r.unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    assert_eq!(e.to_string(), strict.to_string());
    // Reading again repeats the error.
    let mut dec = Decoder::new(&bad[..]).unwrap();
    let mut sink = Vec::new();
    let first = dec.read_to_end(&mut sink).unwrap_err();
    let again = dec.read(&mut [0u8; 10]).unwrap_err();
    assert_eq!(first.to_string(), again.to_string());
    // Strict reading delivered exactly the verified chunks before the damaged one.
    assert_eq!(&sink[..], &data[..sink.len()]);
}

#[test]
fn odd_reads_and_writes_give_the_same_stream() {
    let o = opts("alien:5x7", 128, 3000);
    let data = payload(17_777, 41);
    let one = encode(&data, &o).unwrap();
    for step in [1usize, 3, 1000, 2999, 3000, 3001, 100_000] {
        let mut e = Encoder::new(Vec::new(), &o).unwrap();
        for piece in data.chunks(step) {
            e.write_all(piece).unwrap();
        }
        let out = e.finish().unwrap();
        assert_eq!(&out[..], &one[..], "write step {step}");
        let (r, _) = read_all(&one, false, step);
        assert_eq!(r.unwrap(), data, "read step {step}");
    }
    // Drop finishes the stream too.
    let mut out = Vec::new();
    {
        let mut e = Encoder::new(&mut out, &o).unwrap();
        e.write_all(&data).unwrap();
    }
    assert_eq!(&out[..], &one[..]);
}

#[derive(Debug)]
struct ZeroWriter;

impl Write for ZeroWriter {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Ok(0)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_writer_that_accepts_nothing_is_write_zero() {
    let o = Options::default();
    let mut e = Encoder::new(ZeroWriter, &o).unwrap();
    let err = e.write_all(&payload(3 * o.chunk_size, 1)).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::WriteZero);
    let err = Encoder::new(ZeroWriter, &o).unwrap().finish().unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::WriteZero);
}

#[test]
fn bad_options_are_refused() {
    for d in [0, 63, 100, 65, (1 << 20) + 64, 1 << 21] {
        let o = Options::new(spec("alien:9x9"), d);
        assert!(o.validate().is_err(), "interleave {d}");
        assert!(Encoder::new(Vec::new(), &o).is_err());
        assert!(encode(b"x", &o).is_err());
    }
    for d in [64, 128, 4096, 65536, 1 << 20] {
        assert!(
            Options::new(spec("alien:9x9"), d).validate().is_ok(),
            "interleave {d}"
        );
    }
    let o = Options {
        chunk_size: 1 << 30,
        ..Options::default()
    };
    assert!(o.validate().is_err());
    let o = Options {
        code: Spec::Secded(2),
        ..Options::default()
    };
    assert!(o.validate().is_err());
}

#[test]
fn deep_interleave_roundtrips_and_repairs_a_burst() {
    let o = opts("alien:9x9", 65536, 0);
    let data = payload(600_000, 51);
    let mut enc = encode(&data, &o).unwrap().to_vec();
    let start = 8 * 1_000_000;
    for bit in start..start + 65536 {
        flip(&mut enc, bit);
    }
    let (dec, rep) = decode(&enc).unwrap();
    assert_eq!(&dec[..], &data[..]);
    assert_eq!(rep.corrected_bits, 65536);
    // The same burst over the first header copy, and over the last trailer copy, through
    // both paths.
    let clean = encode(&data, &o).unwrap().to_vec();
    let bits = clean.len() * 8;
    for start in [0, 8 * 60, bits - 65536, bits - 65536 - 8 * 100] {
        let mut bad = clean.clone();
        for bit in start..start + 65536 {
            flip(&mut bad, bit);
        }
        let (dec, _) = decode(&bad).unwrap_or_else(|e| panic!("burst at {start}: {e}"));
        assert_eq!(&dec[..], &data[..]);
        let (r, _) = read_all(&bad, false, 65536);
        assert_eq!(r.unwrap(), data, "burst at {start}");
    }
}

#[test]
fn codes_without_correction_detect_single_flips() {
    for s in ["parity:9", "alien:4x5", "alien:5x4"] {
        let data = payload(5000, 61);
        let mut enc = encode(&data, &opts(s, 64, 0)).unwrap().to_vec();
        let h = stream::read_header(&enc).unwrap();
        let first = group_starts(&enc, &h).0[0];
        flip(&mut enc, (first + 3) * 8 + 2);
        match decode(&enc) {
            Err(Error::Corrupt { .. }) => {}
            other => panic!("{s}: {other:?}"),
        }
        let (out, rep) = decode_lenient(&enc).unwrap();
        assert_eq!(out.len(), data.len());
        assert_eq!(rep.status(), StreamStatus::Damaged);
        assert_eq!(rep.uncorrectable_codewords, 1);
        // The failed check covers the first of the chunk's three check blocks.
        let gd = Layout::new(&s.parse().unwrap(), 64, 0).unwrap().group_data;
        let blocks = Blocks::of(data.len(), gd);
        let r = blocks.range(0);
        assert!(r.end < data.len(), "{blocks:?}");
        assert_eq!(rep.damaged_ranges, vec![(0, r.end as u64)]);
        assert_eq!(out[3], data[3] ^ 4);
    }
}

fn roundtrip_prop(data: Vec<u8>, which: u8, depth: u8, chunk: u16, step: u8) -> TestResult {
    let s = SPECS[which as usize % SPECS.len()];
    let d = 64 * (1 + depth as usize % 4);
    let o = opts(s, d, 1 + chunk as usize % 3000);
    let one = encode(&data, &o).unwrap();
    let step = 1 + step as usize;
    let mut e = Encoder::new(Vec::new(), &o).unwrap();
    for piece in data.chunks(step) {
        e.write_all(piece).unwrap();
    }
    let written = e.finish().unwrap();
    let (read, _) = read_all(&written, false, step);
    TestResult::from_bool(written[..] == one[..] && read.unwrap() == data)
}

#[test]
fn quickcheck_roundtrip_through_write_and_read_paths() {
    QuickCheck::new()
        .tests(150)
        .quickcheck(roundtrip_prop as fn(Vec<u8>, u8, u8, u16, u8) -> TestResult);
}

#[test]
#[ignore = "100 MiB; run with --release -- --ignored"]
fn hundred_mib_roundtrip_with_noise() {
    let data = stream::bench::random_payload(100 << 20, 1);
    let enc = encode(&data, &Options::default()).unwrap();
    let mut noisy = enc.to_vec();
    let flips = stream::bench::apply_ber(&mut noisy, 1e-6, 2);
    let (dec, rep) = decode(&noisy).unwrap();
    assert_eq!(&dec[..], &data[..]);
    assert_eq!(rep.corrected_bits, flips);
}

#[test]
fn regression_short_last_chunk_as_long_as_a_full_one() {
    // With D = 512, one group of alien:9x9 carries 4160 bytes: a full chunk of 4000 bytes and
    // a last chunk of 97 bytes both take one group; only the trailer tells them apart.
    let data = payload(4097, 1);
    let enc = encode(&data, &opts("alien:9x9", 512, 4000)).unwrap();
    assert_eq!(&decode(&enc).unwrap().0[..], &data[..]);
    let (r, _) = read_all(&enc, false, 100);
    assert_eq!(r.unwrap(), data);
}

/// A reader that hands out at most 3 bytes at a time and is interrupted every fifth call.
struct Trickle<'a> {
    data: &'a [u8],
    calls: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.calls.is_multiple_of(5) {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "try again"));
        }
        let n = buf.len().min(3).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// A writer that takes at most 5 bytes at a time and is interrupted every third call.
#[derive(Default)]
struct Sip {
    out: Vec<u8>,
    calls: usize,
}

impl Write for Sip {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.calls.is_multiple_of(3) {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "try again"));
        }
        let n = buf.len().min(5);
        self.out.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn short_and_interrupted_reads_and_writes() {
    let o = opts("hamming:31", 128, 2000);
    let data = payload(5_001, 71);
    let one = encode(&data, &o).unwrap();
    let mut e = Encoder::new(Sip::default(), &o).unwrap();
    let mut rest = &data[..];
    while !rest.is_empty() {
        match e.write(rest) {
            Ok(n) => rest = &rest[n..],
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => panic!("{err}"),
        }
    }
    loop {
        match e.try_finish() {
            Ok(()) => break,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => panic!("{err}"),
        }
    }
    let sip = e.finish().unwrap();
    assert_eq!(&sip.out[..], &one[..]);
    let mut dec = Decoder::new(Trickle {
        data: &one,
        calls: 0,
    })
    .unwrap();
    let mut out = Vec::new();
    dec.read_to_end(&mut out).unwrap();
    assert_eq!(out, data);
    assert_eq!(dec.report().bytes_in, one.len() as u64);
    assert_eq!(dec.header().code, spec("hamming:31"));
}

/// Seals a header block (the CRC over bytes 0..60 into 60..64) at `at`.
fn reseal(buf: &mut [u8], at: usize) {
    let crc = crc32c::crc32c(&buf[at..at + 60]);
    buf[at + 60..at + 64].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn random_damage_never_panics_or_misreads() {
    let mut rng = ChaCha8Rng::seed_from_u64(81);
    let data = payload(6000, 82);
    for trial in 0..400 {
        let s = SPECS[trial % SPECS.len()];
        let d = [64, 128, 512][trial % 3];
        let mut enc = encode(&data, &opts(s, d, 2500)).unwrap().to_vec();
        match trial % 4 {
            // Random bytes overwritten anywhere.
            0 => {
                for _ in 0..rng.gen_range(1..20) {
                    let i = rng.gen_range(0..enc.len());
                    enc[i] = rng.r#gen();
                }
            }
            // Bytes cut out of or inserted into the middle.
            1 => {
                let i = rng.gen_range(0..enc.len());
                if rng.gen_bool(0.5) {
                    let j = (i + rng.gen_range(1..100)).min(enc.len());
                    enc.drain(i..j);
                } else {
                    let junk: Vec<u8> = (0..rng.gen_range(1..100)).map(|_| rng.r#gen()).collect();
                    enc.splice(i..i, junk);
                }
            }
            // A sealed header with random fields, in all three copies.
            2 => {
                let field = rng.gen_range(8..32);
                let value: u8 = rng.r#gen();
                for copy in 0..3 {
                    let at = copy * h_slot(d);
                    enc[at + field] = value;
                    reseal(&mut enc, at);
                }
            }
            // Garbage after a valid stream.
            _ => enc.extend((0..rng.gen_range(1..300)).map(|_| rng.r#gen::<u8>())),
        }
        if let Ok((out, _)) = decode(&enc) {
            assert_eq!(
                &out[..],
                &data[..],
                "trial {trial}: strict decode accepted wrong data"
            );
        }
        let _ = decode_lenient(&enc);
        let (r, _) = read_all(&enc, true, 777);
        if let Ok(out) = r {
            assert!(out.len() <= data.len() + 4096, "trial {trial}");
        }
    }
}

/// The slot of one header copy for depth `d`.
fn h_slot(d: usize) -> usize {
    (d / 8).max(64)
}

#[test]
fn buffered_reading_yields_the_same_bytes_without_a_copy() {
    use std::io::BufRead;
    let data = payload(300_000, 9);
    let o = opts("alien:9x9", 64, 40_000);
    let enc = tilecode::stream::encode(&data, &o).unwrap();
    for take in [1usize, 777, 40_000, usize::MAX] {
        let mut dec = Decoder::new(&enc[..]).unwrap();
        let mut got = Vec::new();
        loop {
            let buf = dec.fill_buf().unwrap();
            if buf.is_empty() {
                break;
            }
            // A whole decoded chunk (or what is left of it) at a time.
            assert!(buf.len() <= 40_000);
            let n = take.min(buf.len());
            got.extend_from_slice(&buf[..n]);
            dec.consume(n);
        }
        assert_eq!(got, data, "consuming {take} at a time");
        assert!(dec.report().checksum_ok);
        assert_eq!(dec.fill_buf().unwrap(), &[] as &[u8]);
    }
    // Damage beyond repair: strict mode fails on fill_buf as it does on read, again and again.
    let mut bad = enc.to_vec();
    let h = tilecode::stream::read_header(&bad).unwrap();
    for b in &mut bad[h.region_bytes..h.region_bytes + 4000] {
        *b = !*b;
    }
    let mut dec = Decoder::new(&bad[..]).unwrap();
    let e1 = loop {
        match dec.fill_buf() {
            Ok([]) => panic!("damage went unnoticed"),
            Ok(b) => {
                let n = b.len();
                dec.consume(n)
            }
            Err(e) => break e,
        }
    };
    let e2 = dec.fill_buf().unwrap_err();
    assert_eq!(e1.to_string(), e2.to_string());
}
