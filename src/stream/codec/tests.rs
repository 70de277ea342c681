//! The fast paths against the portable one and the per-codeword reference.

use super::*;
use crate::code::Spec;
use crate::stream::format::{Blocks, tail_bytes_v2};
use crate::stream::naive;
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

/// A small spec of any family, with every alien shape.
#[derive(Clone, Debug)]
struct AnySpec(Spec);

impl Arbitrary for AnySpec {
    fn arbitrary(g: &mut Gen) -> Self {
        let pick = |g: &mut Gen, lo: usize, hi: usize| lo + usize::arbitrary(g) % (hi - lo + 1);
        let spec = match u8::arbitrary(g) % 6 {
            0 | 1 => Spec::Alien {
                rows: pick(g, 1, 12),
                cols: pick(g, 1, 12),
            },
            2 => Spec::Secded(pick(g, 4, 140)),
            3 => Spec::Hamming(pick(g, 3, 140)),
            4 => Spec::Repetition(pick(g, 1, 9)),
            _ => Spec::Parity(pick(g, 2, 40)),
        };
        AnySpec(spec)
    }
}

fn layout(spec: &Spec, d: usize) -> Layout {
    Layout::new(spec, d, 0).unwrap()
}

fn bytes(seed: u64, len: usize) -> Vec<u8> {
    use rand::{RngCore, SeedableRng};
    let mut v = vec![0u8; len];
    rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut v);
    v
}

const DEPTHS: [usize; 8] = [64, 128, 192, 512, 1024, 4096, 8192, 12288];

/// Every fast path (the kernels that take the CRC themselves three groups at a time,
/// the single-word AVX2 kernels, the generic kernels compiled for AVX2, the SSE4.2 CRC)
/// gives the same encoded bytes, CRCs, decoded bytes and reports as the portable
/// group-by-group path, for codes with and without hand-written kernels and at depths
/// with one and several lane blocks per row, on clean chunks, at bit error rates up to
/// far past what the code corrects, and over garbage.
#[test]
fn fast_paths_match_the_portable_one() {
    let (mut fused_seen, mut matrix_seen, mut lines_seen) = (0, 0, 0);
    // (spec, D, whether chunks are one group: the default chunk of these layouts)
    for (spec, depth, one) in [
        ("secded:72", 64, false),
        ("alien:9x9", 64, false),
        ("alien:5x5", 512, false),
        ("secded:39", 1024, false),
        ("alien:4x5", 4096, false),
        ("alien:9x9", 4096, false),
        ("secded:72", 4096, false),
        ("hamming:15", 128, false),
        // Groups of 8 KiB of single-block rows, encoded in order with the copying fold.
        ("secded:137", 512, false),
        ("alien:33x33", 64, false),
        // Groups in order through the single-word fast path (the long Hamming kernel), and
        // a grid wider than the fixed widths, at D = 64.
        ("hamming:600", 64, false),
        ("alien:17x33", 64, false),
        // The alien grids' single-word kernels: four columns, 4q + 2 columns (a row's last
        // two words loaded over the four before), even-by-odd, odd-by-even, in groups of
        // 4 KiB and more (in order).
        ("alien:5x5", 64, false),
        // The generator matrix on AVX-512 (codes of at most eight check rows and 32 data
        // rows): odd-by-odd, even-by-odd, SECDED and Hamming.
        ("alien:3x3", 64, false),
        ("alien:4x3", 64, false),
        ("secded:16", 64, false),
        ("hamming:22", 64, false),
        ("alien:3x19", 64, false),
        ("alien:8x17", 64, false),
        ("alien:9x4", 64, false),
        ("alien:64x17", 64, false),
        // The line pass: single errors corrected in the pass (the first two), errors
        // detected (the third).
        ("alien:3x3", 512, false),
        ("secded:22", 512, false),
        ("alien:8x3", 512, false),
        // The line pass on rows of several lines (and alien:4x5 at 4096 above, detected).
        ("alien:3x3", 4096, false),
        ("secded:16", 4096, false),
        ("hamming:16", 8192, false),
        // Chunks of one group of 64 KiB of single-block rows: the encoder's deep path.
        ("alien:33x33", 512, true),
        ("secded:1024", 512, true),
    ] {
        let code = spec.parse().unwrap();
        // (Even-by-odd boards only detect.)
        let corrects = crate::code::build(&code).t() >= 1;
        // Otherwise chunks of several groups, so that the three CRC chains are exercised
        // at every depth (the default chunk of the deep layouts is one group).
        let mut l = layout(&code, depth);
        assert!(!one || l.chunk_size < l.group_data, "{spec}");
        if !one && l.chunk_size < 9 * l.group_data {
            l = Layout::new(&code, depth, 9 * l.group_data).unwrap();
        }
        let spec = format!("{spec} D={depth}");
        let fused = Codec::new(l.clone(), true);
        let mut plain = Codec::new(l.clone(), true);
        plain.fused = None;
        plain.fast = None;
        plain.sse42 = None;
        plain.avx2 = None;
        #[cfg(target_arch = "x86_64")]
        {
            lines_seen += usize::from(plain.lines.is_some());
            plain.lines = None;
        }
        fused_seen += usize::from(fused.fused.is_some());
        matrix_seen += usize::from(fused.fast.as_ref().is_some_and(|f| f.matrix().is_some()));
        let cs = l.chunk_size;
        let lens = if one {
            [cs, cs - 1, cs / 2 + 3, l.row_bytes * 3 + 1, 100]
        } else {
            [
                cs,
                cs - 1,
                cs - 7 * l.group_data - 3,
                3 * l.group_data + 5,
                100,
            ]
        };
        for (n, len) in lens.into_iter().enumerate() {
            let data = bytes(n as u64, len);
            let size = l.groups_for(len) * l.group_bytes;
            let (mut a, mut b) = (vec![0u8; size], vec![0u8; size]);
            let crc = fused.encode_chunk(&data, 9, &mut a);
            assert_eq!(crc, plain.encode_chunk(&data, 9, &mut b), "{spec} {len}");
            assert_eq!(crc, crc32c::crc32c(&data), "{spec} {len}");
            assert!(a == b, "{spec} {len}: encoded bytes differ");
            for (m, ber) in [0.0, 1e-4, 3e-3, 3e-2].into_iter().enumerate() {
                let mut enc = a.clone();
                crate::stream::bench::apply_ber(&mut enc, ber, (10 * n + m) as u64);
                if m == 3 {
                    let g = size / 3;
                    enc[g..(g + 5000).min(size)].fill(0x5A);
                }
                let out_len = l.groups_for(len) * l.group_data;
                let (mut x, mut y) = (vec![0u8; out_len], vec![0u8; out_len]);
                let cx = fused.decode_chunk(&enc, 9, len, &mut x);
                let cy = plain.decode_chunk(&enc, 9, len, &mut y);
                let what = format!("{spec} {len} BER {ber}");
                assert!(x == y, "{what}: decoded bytes differ");
                assert_eq!(
                    (cx.crc, cx.ok, cx.tail_ok),
                    (cy.crc, cy.ok, cy.tail_ok),
                    "{what}"
                );
                assert_eq!(cx.ranges, cy.ranges, "{what}");
                let st = |c: &ChunkCheck| {
                    let s = &c.stats;
                    (
                        s.codewords,
                        s.corrected_bits,
                        s.uncorrectable,
                        s.bad_lanes.clone(),
                    )
                };
                assert_eq!(st(&cx), st(&cy), "{what}");
                assert_eq!(cx.crc, crc32c::crc32c(&x[..len]), "{what}");
                if ber == 0.0 {
                    assert!(cx.ok && x[..len] == data[..], "{what}");
                } else if len > 100_000 && depth == 64 && ber < 1e-2 && corrects {
                    // (At 3 % alien:33x33's codewords hold some 33 errors each: none is
                    // corrected, rightly.)
                    assert!(cx.stats.corrected_bits > 0, "{what}");
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::features().avx2 && crate::cpu::features().sse42 {
        assert_eq!(fused_seen, 2, "both fused kernels exercised");
    }
    if crate::cpu::features().avx512f {
        assert_eq!(matrix_seen, 5, "the generator matrix exercised");
    }
    if crate::cpu::features().avx512vbmi && crate::stream::crc::Fold::detect().is_some() {
        assert_eq!(lines_seen, 8, "the line pass exercised");
    }
    let _ = (fused_seen, matrix_seen, lines_seen);
}

#[test]
fn fill_region_writes_any_window_of_the_region() {
    let (rest, tail) = ((1..=7).collect::<Vec<u8>>(), [0xA0, 0xA1, 0xA2]);
    for at in 7..12 {
        let mut region = rest.clone();
        region.resize(at, 0);
        region.extend_from_slice(&tail);
        for from in 0..region.len() {
            for len in 0..=region.len() - from {
                let mut dst = vec![0xEE; len];
                fill_region(&mut dst, from, &rest, at, &tail);
                assert_eq!(
                    dst,
                    region[from..from + len],
                    "at {at} from {from} len {len}"
                );
            }
        }
    }
}

/// Deep interleaving with the default chunk (one group, check blocks in pieces): the
/// payload written in place in the output, its parity taken from there, the chunk CRC
/// joined from the pieces' CRCs. The same for chunks of groups coded in order (the
/// decoder's CRC chains mended for its flips, or taken again past `MEND_MAX` of them).
/// Encoded bytes equal the per-codeword reference over the payload, zeros and a tail
/// built from the `crc32c` crate's CRCs; decoding damaged chunks equals the reference
/// decoder, and the CRCs are the crate's.
#[test]
fn deep_and_in_order_chunks_match_the_reference() {
    for (spec, depth) in [
        // Groups in order: of 2-24 KiB at D = 64, 512 and 4096.
        ("alien:17x17", 64),
        ("secded:266", 64),
        ("alien:9x9", 512),
        ("alien:5x5", 4096),
        ("alien:9x9", 32768),
        // One group a chunk whose syndrome's rows pass `IN_PLACE_ROWS` (33 of them).
        ("alien:17x17", 4096),
        ("secded:72", 8192),
        ("hamming:31", 12288),
        ("alien:4x5", 65536),
        ("alien:5x4", 8192),
        ("alien:4x4", 8192),
        ("parity:9", 16384),
    ] {
        let code: Spec = spec.parse().unwrap();
        let l = layout(&code, depth);
        let (gd, gb) = (l.group_data, l.group_bytes);
        let codec = Codec::new(l.clone(), true);
        let reference = code::build(&code);
        let lens = [l.chunk_size, l.chunk_size - 4093, 70_000, 5000, 1];
        for (n, len) in lens.into_iter().filter(|&n| n <= l.chunk_size).enumerate() {
            let what = format!("{spec} D={depth} len {len}");
            let data = bytes(n as u64, len);
            let groups = l.groups_for(len);
            let mut enc = vec![0u8; groups * gb];
            assert_eq!(
                codec.encode_chunk(&data, 3, &mut enc),
                crc32c::crc32c(&data)
            );
            let crcs = Blocks::of(len, gd).crcs(&data);
            let tail = tail_bytes_v2(3, len, &crcs);
            let mut area = data.clone();
            area.resize(groups * gd - tail.len(), 0);
            area.extend_from_slice(&tail);
            let naive: Vec<u8> = area
                .chunks(gd)
                .flat_map(|g| naive::encode_group(reference.as_ref(), depth, g))
                .collect();
            assert!(enc == naive, "{what}: encoded bytes differ");
            // Errors in every lane block, and errors only past the first lane block; in
            // most lanes (the CRCs of the check blocks are then taken again), and in a few
            // (they are mended).
            let half = l.interleave / 2;
            let runs = [(0, 0, 1), (1, 0, 1), (3, 0, 1), (1, half, 1), (3, half, 1)];
            let sparse = [(1, 0, 300), (3, 0, 300), (2, half, 1000)];
            for (errors, from, every) in runs.into_iter().chain(sparse) {
                let mut bad = enc.clone();
                for g in 0..groups {
                    let seed = n as u64 ^ 9 ^ from as u64 ^ u64::from(every);
                    let group = &mut bad[g * gb..(g + 1) * gb];
                    damage_from(group, &l, seed, errors, from, every);
                }
                let mut out = vec![0u8; groups * gd];
                let check = codec.decode_chunk(&bad, 3, len, &mut out);
                let want: Vec<u8> = bad
                    .chunks(gb)
                    .flat_map(|g| naive::decode_group(reference.as_ref(), depth, g).data)
                    .collect();
                assert!(
                    out == want,
                    "{what}, {errors} errors in 1 lane of {every} from {from}: decoded bytes differ"
                );
                let mut exact = vec![0u8; len];
                // A scratch buffer left dirty by an earlier chunk changes nothing.
                let mut scratch = vec![0xa5; l.area_for(len)];
                let part = codec.decode_chunk_exact(&bad, 3, len, &mut exact, &mut scratch);
                assert!(
                    exact[..] == want[..len],
                    "{what}, {errors} errors in 1 lane of {every} from {from}: exact differs"
                );
                assert_eq!((part.ok, part.crc), (check.ok, check.crc), "{what}");
                assert_eq!(check.crc, crc32c::crc32c(&out[..len]), "{what}");
                // Never silently wrong; clean chunks verify.
                let clean = out[..len] == data[..];
                assert!(
                    clean || !check.ok,
                    "{what}, {errors} errors in 1 lane of {every} from {from}: wrong and ok"
                );
                assert!(check.ok || errors > 0, "{what}: a clean chunk fails");
                // A chunk whose area (payload and tail) is repaired verifies.
                assert!(
                    check.ok || want != area,
                    "{what}, {errors} errors in 1 lane of {every} from {from}: repaired, failed"
                );
            }
        }
    }
}

fn encode_matches(spec: AnySpec, seed: u64, depth: u8, groups: u8) -> TestResult {
    let d = DEPTHS[depth as usize % DEPTHS.len()];
    let l = layout(&spec.0, d);
    let codec = Codec::new(l.clone(), false);
    let groups = 1 + groups as usize % 3;
    let data = bytes(seed, groups * l.group_data);
    let mut fast = vec![0u8; groups * l.group_bytes];
    codec.encode_groups(&data, &mut fast);
    let code = code::build(&spec.0);
    let naive: Vec<u8> = data
        .chunks(l.group_data)
        .flat_map(|g| naive::encode_group(code.as_ref(), d, g))
        .collect();
    TestResult::from_bool(fast == naive)
}

#[test]
fn bit_sliced_encoding_matches_the_per_codeword_reference() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(encode_matches as fn(AnySpec, u64, u8, u8) -> TestResult);
}

#[test]
fn every_family_and_shape_encodes_like_the_reference() {
    let mut specs: Vec<Spec> = Vec::new();
    for m in 1..=8 {
        for n in 1..=8 {
            specs.push(Spec::Alien { rows: m, cols: n });
        }
    }
    specs.extend((4..=80).map(Spec::Secded));
    specs.extend((3..=80).map(Spec::Hamming));
    specs.extend((1..=5).map(Spec::Repetition));
    specs.extend((2..=9).map(Spec::Parity));
    // Grids wider than the fixed widths (18 or more columns), and Hamming codes of more
    // than 256 grid rows (check rows past the kernel's fixed array).
    for (m, n) in [(3, 19), (4, 21), (5, 20), (2, 37)] {
        specs.push(Spec::Alien { rows: m, cols: n });
    }
    specs.extend([Spec::Hamming(2100), Spec::Secded(4500)]);
    for (i, spec) in specs.into_iter().enumerate() {
        assert!(
            !encode_matches(AnySpec(spec), i as u64, i as u8, 0).is_failure(),
            "{spec}"
        );
    }
}

/// Flips `errors[lane]` random bits of each lane of one group.
fn damage(enc: &mut [u8], l: &Layout, seed: u64, max_errors: usize) {
    damage_from(enc, l, seed, max_errors, 0, 1);
}

/// Up to `max_errors` flipped bits in one lane of every `every` (at random) of a group from
/// lane `from` on.
fn damage_from(enc: &mut [u8], l: &Layout, seed: u64, max_errors: usize, from: usize, every: u32) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for lane in from..l.interleave {
        if rng.gen_range(0..every) != 0 {
            continue;
        }
        let e = rng.gen_range(0..=max_errors);
        for _ in 0..e {
            let row = rng.gen_range(0..l.n);
            enc[row * l.row_bytes + lane / 8] ^= 1 << (lane % 8);
        }
    }
}

fn decode_matches(spec: AnySpec, seed: u64, depth: u8, max_errors: u8) -> TestResult {
    let d = DEPTHS[depth as usize % DEPTHS.len()];
    let l = layout(&spec.0, d);
    let codec = Codec::new(l.clone(), true);
    let data = bytes(seed, l.group_data);
    let mut enc = vec![0u8; l.group_bytes];
    codec.encode_groups(&data, &mut enc);
    damage(&mut enc, &l, seed ^ 1, max_errors as usize % 4);
    let mut out = vec![0u8; l.group_data];
    let mut stats = ChunkStats::default();
    codec.decode_groups(&enc, &mut out, &mut stats);
    let code = code::build(&spec.0);
    let reference = naive::decode_group(code.as_ref(), d, &enc);
    let lanes: Vec<usize> = stats
        .bad_lanes
        .iter()
        .flat_map(|(_, mask)| (0..d).filter(move |&lane| mask[lane / 64] >> (lane % 64) & 1 == 1))
        .collect();
    TestResult::from_bool(
        out == reference.data
            && stats.corrected_bits == reference.corrected_bits
            && stats.uncorrectable == reference.uncorrectable.len() as u64
            && lanes == reference.uncorrectable
            && stats.codewords == d as u64,
    )
}

#[test]
fn bit_sliced_decoding_matches_the_per_codeword_reference() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(decode_matches as fn(AnySpec, u64, u8, u8) -> TestResult);
}

/// Large boards, whose syndromes pass 64 bits or whose decoder corrects nothing, and long
/// Hamming codes: one to three errors a lane, decoded as the reference does.
#[test]
fn large_codes_decode_like_the_reference() {
    for spec in [
        "alien:33x35",
        "alien:63x63",
        "alien:64x63",
        "alien:17x64",
        "secded:1024",
    ] {
        let spec = AnySpec(spec.parse().unwrap());
        for (i, errors) in [1u8, 2, 3].into_iter().enumerate() {
            for depth in [0u8, 3] {
                let seed = 17 * i as u64 + depth as u64;
                assert!(
                    !decode_matches(spec.clone(), seed, depth, errors).is_failure(),
                    "{spec:?} at {} with {errors} errors",
                    DEPTHS[depth as usize]
                );
            }
        }
    }
}

/// A chunk decoded into exactly its payload's place (the threaded decoder's way at the end
/// of a run) gives the bytes and the verdict of a chunk decoded into its whole area, with
/// damage, with a tail that names another chunk, at any length.
fn exact_matches(spec: AnySpec, seed: u64, depth: u8, max_errors: u8) -> TestResult {
    let d = DEPTHS[depth as usize % DEPTHS.len()];
    let l = layout(&spec.0, d);
    let len = 1 + (seed as usize >> 8) % l.chunk_size.min(3 * l.group_data + 100);
    let codec = Codec::new(l.clone(), true);
    let data = bytes(seed, len);
    let mut enc = vec![0u8; l.groups_for(len) * l.group_bytes];
    codec.encode_chunk(&data, 7, &mut enc);
    let last = enc.len() - l.group_bytes;
    damage(
        &mut enc[..l.group_bytes],
        &l,
        seed ^ 1,
        max_errors as usize % 4,
    );
    damage(&mut enc[last..], &l, seed ^ 2, max_errors as usize % 4);
    let index = if seed.is_multiple_of(5) { 8 } else { 7 };
    let mut area = vec![0u8; l.area_for(len)];
    let whole = codec.decode_chunk(&enc, index, len, &mut area);
    let mut exact = vec![0u8; len];
    // A scratch buffer that an earlier chunk left dirty (and longer) changes nothing.
    let mut scratch = vec![0x5a; l.area_for(len) + 7];
    let part = codec.decode_chunk_exact(&enc, index, len, &mut exact, &mut scratch);
    TestResult::from_bool(area[..len] == exact[..] && format!("{whole:?}") == format!("{part:?}"))
}

#[test]
fn exact_decoding_matches_decoding_into_the_area() {
    QuickCheck::new()
        .tests(200)
        .quickcheck(exact_matches as fn(AnySpec, u64, u8, u8) -> TestResult);
}

/// Whole chunks of small groups, coded in runs of many groups per kernel call (the clean
/// run stopping at each damaged group and going on after it): every group's encoded bytes,
/// decoded bytes and corrections are those of the per-codeword reference. The same for
/// chunks of groups of a few KiB, which the decoder takes in order.
#[test]
fn chunks_of_small_groups_match_the_per_codeword_reference() {
    for (spec, depth) in [
        ("alien:3x3", 64),
        ("alien:5x5", 64),
        ("alien:4x17", 64),
        ("secded:16", 64),
        ("hamming:39", 64),
        ("alien:5x5", 512),
        ("alien:3x3", 4096), // rows of one 64-word block, in order
        // Groups of 2-4 KiB, decoded in order, the next group asked for over each copy.
        ("alien:5x9", 512),
        ("alien:9x33", 64),
        // Groups of 1-2 KiB of one-word rows, encoded in order (even boards, Hamming).
        ("alien:8x17", 64),
        ("secded:266", 64),
        // The clean-run kernel's runs, which keep the groups with errors and go on: one-word
        // rows (no fast path for three columns) and rows of four words.
        ("alien:9x3", 64),
        ("alien:63x3", 64),
        ("alien:9x3", 256),
    ] {
        let code = spec.parse().unwrap();
        let l = layout(&code, depth);
        let reference = code::build(&code);
        let (gd, gb) = (l.group_data, l.group_bytes);
        let codec = Codec::new(l.clone(), true);
        for (n, len) in [l.chunk_size, l.chunk_size - 1, 40 * gd + 3]
            .into_iter()
            .enumerate()
        {
            let data = bytes(n as u64, len);
            let groups = l.groups_for(len);
            let mut enc = vec![0u8; groups * gb];
            codec.encode_chunk(&data, 3, &mut enc);
            // The last group holds the tail; the others are payload only.
            let whole = groups - 1;
            for j in 0..whole {
                let want = naive::encode_group(reference.as_ref(), depth, &data[j * gd..][..gd]);
                assert!(
                    enc[j * gb..][..gb] == want[..],
                    "{spec} D={depth} {len}: group {j}"
                );
            }
            for (m, ber) in [1e-4, 2e-3].into_iter().enumerate() {
                let mut noisy = enc.clone();
                crate::stream::bench::apply_ber(&mut noisy, ber, (7 * n + m) as u64);
                let mut out = vec![0u8; groups * gd];
                let got = codec.decode_chunk(&noisy, 3, len, &mut out);
                let (mut corrected, mut uncorrectable) = (0, 0);
                for j in 0..groups {
                    let r = naive::decode_group(reference.as_ref(), depth, &noisy[j * gb..][..gb]);
                    corrected += r.corrected_bits;
                    uncorrectable += r.uncorrectable.len() as u64;
                    if j < whole {
                        assert!(out[j * gd..][..gd] == r.data[..], "{spec} {len} {ber}: {j}");
                    }
                }
                let s = &got.stats;
                let what = format!("{spec} D={depth} {len} BER {ber}");
                assert_eq!(s.corrected_bits, corrected, "{what}");
                assert_eq!(s.uncorrectable, uncorrectable, "{what}");
                assert_eq!(s.codewords, (groups * depth) as u64, "{what}");
                assert!(
                    corrected + uncorrectable > 0,
                    "{what}: damage reached the decoder"
                );
            }
        }
    }
}

#[test]
fn chunks_whose_payload_is_streamed_are_the_deep_and_in_order_ones() {
    // Where the CRC folds and the codec takes the CRC instruction (else nothing streams
    // but the deep path's chunks of wide rows).
    let wide = crate::stream::crc::folding();
    let folds = wide || crate::stream::crc::folds_narrow();
    if !(folds && crate::stream::crc::Sse42::detect().is_some()) {
        return;
    }
    let shapes: &[(&str, usize, bool)] = if wide {
        &[
            ("alien:9x9", 64, false),   // 520-byte groups, fused kernels
            ("alien:9x33", 64, false),  // 2 KiB groups of an odd board in runs
            ("alien:8x9", 64, false),   // 520-byte groups of an even board in runs
            ("alien:8x17", 64, true),   // 1 KiB groups of an even board in order
            ("secded:137", 64, false),  // 1 KiB Hamming groups in runs
            ("secded:266", 64, true),   // 2 KiB Hamming groups in order
            ("alien:5x5", 512, true),   // 1 KiB groups in order
            ("alien:9x9", 512, true),   // 4 KiB groups in order
            ("secded:72", 4096, true),  // 32 KiB groups in order
            ("alien:5x5", 32768, true), // one group a chunk: the deep path
        ]
    } else {
        // The 256-bit fold: groups from 4 KiB, at rows of 512 bytes up to 17 KiB.
        &[
            ("alien:9x9", 64, false),   // 520-byte groups
            ("secded:266", 64, false),  // 2 KiB groups in runs
            ("alien:33x33", 64, true),  // 8 KiB groups in order
            ("alien:5x5", 512, false),  // 1 KiB groups in runs
            ("alien:9x9", 512, true),   // 4 KiB groups in order
            ("alien:3x17", 4096, true), // 16 KiB groups in order
            ("secded:72", 4096, false), // 32 KiB groups in runs
            ("alien:5x5", 32768, true), // one group a chunk: the deep path
        ]
    };
    for &(spec, d, streamed) in shapes {
        let codec = Codec::new(layout(&spec.parse().unwrap(), d), false);
        assert_eq!(codec.streams_chunks(), streamed, "{spec} at D = {d}");
    }
    // Groups of 576 bytes: in runs, or through the line pass (in order) where the CPU has it.
    let codec = Codec::new(layout(&"alien:3x5".parse().unwrap(), 512), false);
    assert_eq!(
        codec.streams_chunks(),
        codec.has_lines(),
        "alien:3x5 at D = 512"
    );
}

/// The column pass (codes of few data rows at `D = 4096` to 32768, groups in order) writes its
/// output's lines from wherever the output starts: at every offset of the output from a
/// multiple of 64, encoded chunks equal the per-codeword reference, and damaged chunks decode
/// as the reference decoder does, with the same corrections and the `crc32c` crate's CRC.
/// (Codes and depths that the line pass does not take: at `D = 4096`, codes of fewer than
/// four data rows.)
#[test]
#[cfg(target_arch = "x86_64")]
fn the_column_pass_matches_the_reference_at_every_alignment() {
    // The codec takes the pass for alien:3x3 at `D = 32768` on either width of it.
    let cpu = crate::cpu::features();
    let c33 = Codec::new(layout(&"alien:3x3".parse().unwrap(), 32768), true);
    if cpu.avx512bw && crate::stream::crc::folding() || crate::stream::crc::folds_narrow() {
        assert!(
            c33.has_columns(),
            "alien:3x3 D=32768 through the column pass"
        );
    }
    for (spec, depth) in [
        ("alien:3x3", 32768),
        ("repetition:3", 4096),
        ("hamming:22", 8192),
        ("secded:22", 16384),
    ] {
        let l = layout(&spec.parse().unwrap(), depth);
        let codec = Codec::new(l.clone(), true);
        assert!(
            !codec.has_lines(),
            "{spec} D={depth}: the line pass decodes"
        );
        if codec.has_columns() {
            groups_in_order_match_the_reference(spec, depth, &[2e-5], false);
        }
        // And on 256-bit registers, which the codec takes on fewer shapes.
        if codec.with_narrow_columns().is_some() {
            groups_in_order_match_the_reference(spec, depth, &[2e-5], true);
        } else {
            eprintln!("{spec} D={depth}: no 256-bit fold on this CPU, nothing to check");
        }
    }
}

/// The line pass (codes of few data rows at `D = 512` to 8192, a third of a chunk's groups
/// in one pass), as the column pass above: at every offset of the input and the output from
/// a multiple of 64, with a group in three to every group damaged. Encoders take larger
/// codes than decoders.
#[test]
#[cfg(target_arch = "x86_64")]
fn the_line_pass_matches_the_reference_at_every_alignment() {
    // Both ways of deciding lanes: single errors corrected in the pass, every error
    // detected; codes only the encoder takes; rows of one line, of eight and of sixteen;
    // parity lines summed from the parity sets and through the plan's program (alien:3x9,
    // 9x3, 5x5 and 5x9).
    let mut programs = 0;
    for (spec, depth, decide) in [
        ("alien:3x3", 512, Some("singles")),
        ("secded:16", 512, Some("singles")),
        ("hamming:22", 512, Some("singles")),
        ("alien:5x5", 512, Some("singles")),
        ("alien:8x3", 512, Some("detect")),
        ("alien:4x5", 512, Some("detect")),
        ("alien:3x9", 512, Some("singles")),
        ("alien:5x9", 512, None),
        ("secded:72", 512, None),
        ("alien:3x3", 4096, Some("singles")),
        ("secded:22", 4096, Some("singles")),
        ("alien:8x3", 4096, Some("detect")),
        ("alien:9x3", 4096, Some("singles")),
        ("secded:39", 4096, None),
        ("alien:3x5", 8192, Some("singles")),
        ("hamming:16", 8192, Some("singles")),
    ] {
        let l = layout(&spec.parse().unwrap(), depth);
        let encoder = Codec::new(l.clone(), false);
        let Some(lines) = &encoder.lines else {
            eprintln!("{spec} D={depth}: no line pass on this CPU, nothing to check");
            continue;
        };
        programs += usize::from(lines.has_program());
        assert_eq!(
            Codec::new(l, true).line_decisions(),
            decide,
            "{spec} D={depth}"
        );
        groups_in_order_match_the_reference(spec, depth, &[1e-4, 2e-3], false);
    }
    assert!(
        programs == 0 || programs == 4,
        "{programs} codes summed by the program"
    );
}

/// Chunks of `spec` at depth `depth` of several groups, encoded from a buffer at every
/// offset from a multiple of 64 into one at every offset, equal the per-codeword reference;
/// at each bit error rate of `bers`, they decode as the reference decoder does, with the
/// same corrections and the `crc32c` crate's CRC, never wrong and verified.
#[cfg(target_arch = "x86_64")]
fn groups_in_order_match_the_reference(spec: &str, depth: usize, bers: &[f64], narrow: bool) {
    let code: Spec = spec.parse().unwrap();
    let l = layout(&code, depth);
    let (gd, gb) = (l.group_data, l.group_bytes);
    let (mut codec, mut encoder) = (Codec::new(l.clone(), true), Codec::new(l.clone(), false));
    if narrow {
        codec = codec
            .with_narrow_columns()
            .expect("the 256-bit column pass");
        encoder = encoder
            .with_narrow_columns()
            .expect("the 256-bit column pass");
    }
    assert!(l.chunk_groups >= 4, "{spec} D={depth}: groups in thirds");
    let reference = code::build(&code);
    let len = l.chunk_size;
    let data = bytes(depth as u64, len);
    let groups = l.groups_for(len);
    let whole = groups - 1;
    for off in [0, 1, 8, 16, 31, 48, 63] {
        let what = format!("{spec} D={depth} at {off} past a multiple of 64");
        let mut ibuf = vec![0u8; len + 128];
        let istart = ibuf.as_ptr().align_offset(64) + (off * 5) % 64;
        ibuf[istart..istart + len].copy_from_slice(&data);
        let mut buf = vec![0u8; groups * gb + 128];
        let start = buf.as_ptr().align_offset(64) + off;
        let enc = &mut buf[start..start + groups * gb];
        // The encoder's codec, then the decoder's (which may code otherwise), over it.
        let crc = encoder.encode_chunk(&ibuf[istart..istart + len], 3, enc);
        assert_eq!(crc, crc32c::crc32c(&data), "{what}");
        let first = enc.to_vec();
        let crc = codec.encode_chunk(&ibuf[istart..istart + len], 3, enc);
        assert_eq!(crc, crc32c::crc32c(&data), "{what}");
        assert!(enc[..] == first[..], "{what}: the two codecs' bytes differ");
        for j in 0..whole {
            let want = naive::encode_group(reference.as_ref(), depth, &data[j * gd..][..gd]);
            assert!(enc[j * gb..][..gb] == want[..], "{what}: group {j}");
        }
        // The last group: the payload's rest, zeros and the tail.
        let tail = tail_bytes_v2(3, len, &Blocks::of(len, gd).crcs(&data));
        let mut area = data[whole * gd..].to_vec();
        area.resize((groups - whole) * gd - tail.len(), 0);
        area.extend_from_slice(&tail);
        let want = naive::encode_group(reference.as_ref(), depth, &area);
        assert!(enc[whole * gb..] == want[..], "{what}: the last group");
        for &ber in bers {
            let what = format!("{what}, BER {ber}");
            let mut noisy = enc.to_vec();
            crate::stream::bench::apply_ber(&mut noisy, ber, off as u64);
            let mut obuf = vec![0u8; groups * gd + 128];
            let ostart = obuf.as_ptr().align_offset(64) + (off * 7) % 64;
            let out = &mut obuf[ostart..ostart + groups * gd];
            let check = codec.decode_chunk(&noisy, 3, len, out);
            let mut corrected = 0;
            for j in 0..groups {
                let r = naive::decode_group(reference.as_ref(), depth, &noisy[j * gb..][..gb]);
                corrected += r.corrected_bits;
                assert!(
                    out[j * gd..][..gd] == r.data[..],
                    "{what}: decoded group {j}"
                );
            }
            assert_eq!(check.stats.corrected_bits, corrected, "{what}");
            let found = corrected + check.stats.uncorrectable;
            assert!(found > 0, "{what}: damage reached the decoder");
            assert_eq!(check.crc, crc32c::crc32c(&out[..len]), "{what}");
            assert!(check.ok == (out[..len] == data[..]), "{what}: verdict");
            // The guard bytes around the output are left as they were.
            assert!(obuf[..ostart].iter().all(|&b| b == 0), "{what}: before");
            assert!(
                obuf[ostart + groups * gd..].iter().all(|&b| b == 0),
                "{what}: after"
            );
        }
        assert!(
            buf[..start].iter().all(|&b| b == 0),
            "{what}: before the encoded"
        );
        assert!(
            buf[start + groups * gb..].iter().all(|&b| b == 0),
            "{what}: after it"
        );
    }
}

/// Chunks of one group through the column pass (`deep_columns`): at every offset of the
/// output from a multiple of 64 and at lengths that end inside a row, on a row's end, in
/// the first row and in a second check block, the encoded bytes equal the per-codeword
/// reference over the payload, zeros and a tail of the `crc32c` crate's CRCs; damaged
/// chunks decode as the reference decoder does, with the crate's CRC, never wrong and
/// verified, and verified when repaired.
#[test]
#[cfg(target_arch = "x86_64")]
fn one_group_chunks_through_the_column_pass_match_the_reference() {
    for (spec, depth) in [
        ("secded:16", 32768),
        ("hamming:22", 32768),
        ("alien:5x3", 32768),
        ("alien:4x5", 32768),
        ("alien:3x3", 65536),
        ("secded:16", 65536),
        ("alien:3x3", 4096),
    ] {
        let code: Spec = spec.parse().unwrap();
        let codec = Codec::new(layout(&code, depth), true);
        let narrow = Codec::new(layout(&code, depth), true).with_narrow_columns();
        // The pass the codec takes, and the pass on 256-bit registers on every shape.
        for codec in [Some(codec), narrow].into_iter().flatten() {
            if codec.deep_columns().is_none() {
                eprintln!("{spec} D={depth}: no column pass here, nothing to check");
                continue;
            }
            one_group_chunks_match_the_reference(&codec, &code, &[0, 1, 16, 31, 63]);
        }
    }
}

/// Chunks of one group fed to the plan in bands (`bands`), of every family and of runs of
/// one row to whole grids (bands of a row, of a few, of 96 KiB), at a few offsets: as for
/// [`one_group_chunks_through_the_column_pass_match_the_reference`].
#[test]
fn one_group_chunks_fed_in_bands_match_the_reference() {
    for (spec, depth) in [
        ("alien:9x9", 32768),
        ("alien:6x5", 32768),
        ("alien:5x6", 32768),
        ("secded:72", 32768),
        ("hamming:39", 32768),
        ("alien:17x17", 4096),
    ] {
        let code: Spec = spec.parse().unwrap();
        for (band, offs) in [(1, &[0, 31][..]), (3 * depth / 8, &[63]), (96 << 10, &[1])] {
            let codec = Codec::new(layout(&code, depth), true).with_bands(0, band);
            if codec.deep_columns().is_some() || codec.layout.chunk_groups != 1 {
                panic!("{spec} D={depth}: not on the banded path");
            }
            one_group_chunks_match_the_reference(&codec, &code, offs);
        }
    }
}

/// Chunks of one group encoded and decoded by `codec`, a codec of `code`: at the offsets
/// `offs` of the output from a multiple of 64 and at lengths that end inside a row, on a row's
/// end, in the first row and in a second check block, the encoded bytes equal the
/// per-codeword reference over the payload, zeros and a tail of the `crc32c` crate's CRCs;
/// damaged chunks decode as the reference decoder does, with the crate's CRC, never wrong
/// and verified, and verified when repaired.
fn one_group_chunks_match_the_reference(codec: &Codec, code: &Spec, offs: &[usize]) {
    let (spec, l) = (code, &codec.layout);
    let depth = l.interleave;
    let (gd, gb, rb) = (l.group_data, l.group_bytes, l.row_bytes);
    let reference = code::build(code);
    let most = crate::stream::format::payload_in_groups(1, gd, l.version);
    let lens = [most, most - 4093, 70_000, 3 * rb, 5000, rb - 1, 1];
    for (n, len) in lens.into_iter().filter(|&n| n <= most).enumerate() {
        let data = bytes(n as u64 ^ depth as u64, len);
        assert_eq!(
            l.groups_for(len),
            1,
            "{spec} D={depth} len {len}: one group"
        );
        let crcs = Blocks::of(len, gd).crcs(&data);
        let tail = tail_bytes_v2(3, len, &crcs);
        let mut area = data.clone();
        area.resize(gd - tail.len(), 0);
        area.extend_from_slice(&tail);
        let want = naive::encode_group(reference.as_ref(), depth, &area);
        for &off in offs {
            let what = format!("{spec} D={depth} len {len} at {off} past 64");
            let mut buf = vec![0u8; gb + 128];
            let start = buf.as_ptr().align_offset(64) + off;
            let enc = &mut buf[start..start + gb];
            assert_eq!(codec.encode_chunk(&data, 3, enc), crc32c::crc32c(&data));
            assert!(enc[..] == want[..], "{what}: encoded bytes differ");
            for (errors, every) in [(0, 1), (1, 1), (2, 300), (3, 1)] {
                let mut bad = enc.to_vec();
                damage_from(&mut bad, l, n as u64 ^ off as u64, errors, 0, every);
                let mut obuf = vec![0u8; gd + 128];
                let ostart = obuf.as_ptr().align_offset(64) + (off * 7) % 64;
                let out = &mut obuf[ostart..ostart + gd];
                let check = codec.decode_chunk(&bad, 3, len, out);
                let r = naive::decode_group(reference.as_ref(), depth, &bad);
                let what = format!("{what}, {errors} errors in 1 lane of {every}");
                assert!(out[..] == r.data[..], "{what}: decoded bytes differ");
                assert_eq!(check.stats.corrected_bits, r.corrected_bits, "{what}");
                assert_eq!(check.crc, crc32c::crc32c(&out[..len]), "{what}");
                // Never silently wrong; clean and repaired chunks verify.
                let right = out[..len] == data[..];
                assert!(right || !check.ok, "{what}: wrong and ok");
                assert!(check.ok || r.data != area, "{what}: repaired, failed");
                assert!(check.ok || errors > 0, "{what}: a clean chunk fails");
            }
        }
    }
}
