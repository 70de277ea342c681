//! Per-group costs, the data in cache (the table in `docs/benchmarks.md`):
//! `cargo test --release --lib micro_kernel -- --ignored --nocapture`.

use super::*;
use crate::slice::prefetch;
use crate::stream::crc;

/// Best of 40 runs of `f`, in nanoseconds per group of the `groups` it handles.
fn best(groups: usize, mut f: impl FnMut()) -> f64 {
    (0..40)
        .map(|_| {
            let t = std::time::Instant::now();
            f();
            t.elapsed().as_nanos() as f64 / groups as f64
        })
        .fold(f64::MAX, f64::min)
}

/// Encode, clean decode and decode at BER 1e-4 of `data` (whole chunks, in cache), ns per
/// group: the best of 40 runs each.
fn chunk_times(codec: &Codec, data: &[u8], sink: &mut u64) -> [f64; 3] {
    let l = &codec.layout;
    let chunks = data.len() / l.chunk_size;
    let groups = chunks * l.chunk_groups;
    let mut enc = vec![0u8; chunks * l.chunk_bytes];
    let encode = best(groups, || {
        for (c, o) in data
            .chunks_exact(l.chunk_size)
            .zip(enc.chunks_exact_mut(l.chunk_bytes))
        {
            *sink ^= u64::from(codec.encode_chunk(std::hint::black_box(c), 0, o));
        }
    });
    let mut dec = vec![0u8; chunks * l.chunk_groups * l.group_data];
    let mut dec_chunks = |enc: &[u8]| {
        // Every chunk was encoded as chunk 0.
        for (c, o) in enc
            .chunks_exact(l.chunk_bytes)
            .zip(dec.chunks_exact_mut(l.chunk_groups * l.group_data))
        {
            *sink ^= u64::from(!codec.decode_chunk(c, 0, l.chunk_size, o).ok);
        }
    };
    let decode = best(groups, || dec_chunks(std::hint::black_box(&enc)));
    let mut noisy = enc.clone();
    crate::stream::bench::apply_ber(&mut noisy, 1e-4, 3);
    let decode_noisy = best(groups, || dec_chunks(std::hint::black_box(&noisy)));
    [encode, decode, decode_noisy]
}

/// Encoding 256 chunks with its input and its output each either in memory (a fresh
/// chunk every time) or in cache (the same chunk over and over), against a memcpy of the
/// 256 chunks timed just before: where the in-memory time goes.
#[test]
#[ignore = "a measurement, not a check"]
fn memory_decomposition() {
    for spec in ["alien:9x9", "secded:72"] {
        let l = Layout::new(&spec.parse().unwrap(), 64, 0).unwrap();
        let codec = Codec::new(l.clone(), true);
        let chunks = 256;
        let data = crate::stream::bench::random_payload(chunks * l.chunk_size, 1);
        let mut copy = vec![0u8; data.len()];
        let mut enc = vec![0u8; chunks * l.chunk_bytes];
        let mut ratios: [Vec<f64>; 4] = Default::default();
        for _ in 0..7 {
            let t = std::time::Instant::now();
            copy.copy_from_slice(std::hint::black_box(&data));
            let memcpy = t.elapsed().as_secs_f64();
            for (r, (in_mem, out_mem)) in
                ratios
                    .iter_mut()
                    .zip([(true, true), (true, false), (false, true), (false, false)])
            {
                let t = std::time::Instant::now();
                for c in 0..chunks {
                    let (ci, co) = (usize::from(in_mem) * c, usize::from(out_mem) * c);
                    let input = &data[ci * l.chunk_size..(ci + 1) * l.chunk_size];
                    let out = &mut enc[co * l.chunk_bytes..(co + 1) * l.chunk_bytes];
                    codec.encode_chunk(std::hint::black_box(input), 0, out);
                }
                r.push(memcpy / t.elapsed().as_secs_f64());
            }
        }
        let [a, b, c, d] = ratios.map(|mut v| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        });
        println!(
            "{spec} encode / memcpy (medians of 7): input and output in memory {a:.3}, \
             input in memory {b:.3}, output in memory {c:.3}, both in cache {d:.3}"
        );
    }
}

#[test]
#[ignore = "a measurement, not a check"]
fn micro_kernel() {
    for spec in ["alien:9x9", "secded:72"] {
        let l = Layout::new(&spec.parse().unwrap(), 64, 0).unwrap();
        let codec = Codec::new(l.clone(), true);
        // Two whole chunks (2 MiB): in the last-level cache.
        let data = crate::stream::bench::random_payload(2 * l.chunk_size, 1);
        let groups = 2 * l.chunk_groups;
        let mut sink = 0u64;
        let mut copy = vec![0u8; data.len()];
        let memcpy = best(groups, || copy.copy_from_slice(std::hint::black_box(&data)));
        let crc = best(groups, || {
            sink ^= u64::from(crc32c::crc32c(std::hint::black_box(&data)))
        });
        let folded = best(groups, || {
            for run in data.chunks(8192) {
                sink ^= u64::from(crc::append(0, std::hint::black_box(run)));
            }
        });
        let third = data.len() / 3;
        let crc3 = best(groups, || {
            let d = std::hint::black_box(&data);
            let c = crc::append3(
                codec.sse42,
                [0; 3],
                &d[..third],
                &d[third..2 * third],
                &d[2 * third..3 * third],
            );
            sink ^= u64::from(c[0]);
        });
        let mut par = vec![V::<1>::zero(); codec.r];
        let mut scr = vec![V::<1>::zero(); codec.kernel.scratch_len()];
        let mut odata = vec![0u8; l.group_data];
        let portable = best(groups, || {
            for g in data.chunks_exact(l.group_data) {
                let g = std::hint::black_box(g);
                codec
                    .kernel
                    .parity_copy::<1, true>(None, g, &mut odata, &mut par, &mut scr);
                sink ^= par[0].0[0];
            }
        });
        let mut words = vec![0u64; codec.r];
        let f64 = codec.fast.clone().expect("a fast kernel on this CPU");
        let fast = best(groups, || {
            for g in data.chunks_exact(l.group_data) {
                let g = std::hint::black_box(g);
                assert!(
                    codec
                        .kernel
                        .group64::<true>(&f64, g, &mut odata, &mut words)
                );
                sink ^= words[0];
            }
        });
        let [encode, decode, decode_noisy] = chunk_times(&codec, &data, &mut sink);
        std::hint::black_box((sink, &copy));
        println!(
            "{spec} ns/group: memcpy {memcpy:.1}, crc32c crate {crc:.1}, crc x3 {crc3:.1}, \
             crc::append by 8 KiB {folded:.1}, \
             portable kernel+copy {portable:.1}, fast kernel+copy {fast:.1}, encode {encode:.1}, \
             decode {decode:.1}, decode at BER 1e-4 {decode_noisy:.1}"
        );
    }
}

/// Encode, clean decode and decode at BER 1e-4 of two chunks in cache, ns per group, for
/// the codes in `TILECODE_MICRO_SPECS` (comma-separated; default a few short ones) at depth
/// `TILECODE_MICRO_DEPTH` (default 64).
#[test]
#[ignore = "a measurement, not a check"]
fn micro_codec() {
    let specs = std::env::var("TILECODE_MICRO_SPECS")
        .unwrap_or_else(|_| "alien:4x17,alien:5x5,alien:5x33,secded:16".into());
    let depth = std::env::var("TILECODE_MICRO_DEPTH").map_or(64, |d| d.parse().unwrap());
    for spec in specs.split(',') {
        let l = Layout::new(&spec.parse().unwrap(), depth, 0).unwrap();
        let codec = Codec::new(l.clone(), true);
        let data = crate::stream::bench::random_payload(2 * l.chunk_size, 1);
        let mut copy = vec![0u8; data.len()];
        let memcpy = best(2 * l.chunk_groups, || {
            copy.copy_from_slice(std::hint::black_box(&data))
        });
        let mut sink = 0u64;
        let [encode, decode, noisy] = chunk_times(&codec, &data, &mut sink);
        println!(
            "{spec} ns/group: memcpy {memcpy:.1}, encode {encode:.1}, decode {decode:.1}, \
             decode at BER 1e-4 {noisy:.1}"
        );
        if codec.fast.is_some() {
            let mut generic = Codec::new(l.clone(), true);
            generic.fast = None;
            let [encode, decode, noisy] = chunk_times(&generic, &data, &mut sink);
            println!(
                "{spec} without the one-word fast path: encode {encode:.1}, decode {decode:.1}, \
                 decode at BER 1e-4 {noisy:.1}"
            );
        }
        std::hint::black_box((sink, &copy));
    }
}

/// One group's kernel, in cache: encode's (`parity_copy`) against the clean decoder's
/// (`clean_run` of one group, and of 64), portable and compiled for AVX2, ns per group,
/// for `TILECODE_MICRO_SPECS` at `D = 64`.
#[test]
#[ignore = "a measurement, not a check"]
fn micro_group_kernels() {
    let specs = std::env::var("TILECODE_MICRO_SPECS").unwrap_or_else(|_| "alien:4x17".into());
    for spec in specs.split(',') {
        let l = Layout::new(&spec.parse().unwrap(), 64, 0).unwrap();
        let codec = Codec::new(l.clone(), true);
        let (gd, gb) = (l.group_data, l.group_bytes);
        let data = crate::stream::bench::random_payload(64 * gd, 1);
        let mut enc = vec![0u8; 64 * gb];
        codec.encode_groups(&data, &mut enc);
        let mut s = codec.scratch::<1>();
        let mut out = vec![0u8; 64 * gd];
        let mut sink = 0u64;
        let k = &codec.kernel;
        let mut line = format!("{spec} ns/group:");
        for (name, avx2) in [("portable", None), ("avx2", codec.avx2)] {
            let encode = best(64 * 1000, || {
                for _ in 0..1000 {
                    for (g, o) in data.chunks_exact(gd).zip(out.chunks_exact_mut(gd)) {
                        k.parity_copy::<1, true>(avx2, g, o, &mut s.par, &mut s.kernel);
                        sink ^= s.par[0].0[0];
                    }
                }
            });
            let one = best(64 * 1000, || {
                for _ in 0..1000 {
                    for (e, o) in enc.chunks_exact(gb).zip(out.chunks_exact_mut(gd)) {
                        let (syn, scr) = (&mut s.par, &mut s.kernel);
                        let (done, _) = k.clean_run::<1>(avx2, e, o, gd, gb, syn, &mut [0], scr);
                        sink ^= done as u64;
                    }
                }
            });
            let run = best(64 * 1000, || {
                for _ in 0..1000 {
                    let (syn, scr) = (&mut s.par, &mut s.kernel);
                    let (done, _) =
                        k.clean_run::<1>(avx2, &enc, &mut out, gd, gb, syn, &mut [0], scr);
                    sink ^= done as u64;
                }
            });
            line += &format!(
                " {name}: parity_copy {encode:.1}, clean_run of one {one:.1}, of 64 {run:.1};"
            );
        }
        std::hint::black_box(sink);
        println!("{line}");
    }
}

/// 64 MiB (`TILECODE_MICRO_MIB` MiB) of random payload in whole chunks and its encoding, for
/// the code in `TILECODE_MICRO_SPECS` (else `spec`) at `TILECODE_MICRO_DEPTH` (else `depth`):
/// the spec, the depth, the codec (decoding), the payload and the encoded chunks (each
/// encoded as chunk 0).
fn encoded_in_memory(spec: &str, depth: usize) -> (String, usize, Codec, Vec<u8>, Vec<u8>) {
    let spec = std::env::var("TILECODE_MICRO_SPECS").unwrap_or_else(|_| spec.into());
    let depth = std::env::var("TILECODE_MICRO_DEPTH").map_or(depth, |d| d.parse().unwrap());
    let l = Layout::new(&spec.parse().unwrap(), depth, 0).unwrap();
    let codec = Codec::new(l.clone(), true);
    let mib: usize = std::env::var("TILECODE_MICRO_MIB").map_or(64, |m| m.parse().unwrap());
    let chunks = (mib << 20) / l.chunk_size;
    let data = crate::stream::bench::random_payload(chunks * l.chunk_size, 1);
    let mut enc = vec![0u8; chunks * l.chunk_bytes];
    for (c, o) in data
        .chunks_exact(l.chunk_size)
        .zip(enc.chunks_exact_mut(l.chunk_bytes))
    {
        codec.encode_chunk(c, 0, o);
    }
    (spec, depth, codec, data, enc)
}

/// Decoding 64 MiB (`TILECODE_MICRO_MIB` MiB) of chunks in memory at BER
/// `TILECODE_MICRO_BER` (default 1e-4), for `perf`: `TILECODE_MICRO_SPECS` (one code) at
/// `TILECODE_MICRO_DEPTH`.
#[test]
#[ignore = "a measurement, not a check"]
fn memory_decode() {
    let ber = std::env::var("TILECODE_MICRO_BER").map_or(1e-4, |d| d.parse().unwrap());
    let (spec, depth, codec, data, mut enc) = encoded_in_memory("alien:3x3", 512);
    let l = &codec.layout;
    let chunks = data.len() / l.chunk_size;
    crate::stream::bench::apply_ber(&mut enc, ber, 3);
    let mut dec = vec![0u8; chunks * l.chunk_groups * l.group_data];
    let mut copy = vec![0u8; data.len()];
    let mut ratios = Vec::new();
    for _ in 0..15 {
        let t = std::time::Instant::now();
        copy.copy_from_slice(std::hint::black_box(&data));
        let m = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        for (c, o) in enc
            .chunks_exact(l.chunk_bytes)
            .zip(dec.chunks_exact_mut(l.chunk_groups * l.group_data))
        {
            std::hint::black_box(codec.decode_chunk(c, 0, l.chunk_size, o).ok);
        }
        ratios.push(m / t.elapsed().as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "{spec} D={depth} BER {ber}: decode / memcpy {:.3}",
        ratios[7]
    );
}

/// What the traffic of a decode allows, in memory: each group's data rows copied (through
/// the cache, streamed, or streamed with the CRC folded on the way, as the decoder in order
/// copies) and its parity rows read, with no kernel; against memcpy and the decoder itself,
/// medians of 9. `TILECODE_MICRO_SPECS` (one code) at `TILECODE_MICRO_DEPTH` (default 4096).
#[test]
#[ignore = "a measurement, not a check"]
fn memory_roof() {
    let (spec, depth, codec, data, enc) = encoded_in_memory("alien:3x9", 4096);
    let l = &codec.layout;
    let chunks = data.len() / l.chunk_size;
    let (gd, gb) = (l.group_data, l.group_bytes);
    let mut dec = vec![0u8; chunks * l.chunk_groups * gd];
    let mut copy = vec![0u8; data.len()];
    let groups = (enc.len() / gb).min(dec.len() / gd);
    // 0: cached copy, 1: streamed, 2: streamed with the CRC, 3: the decoder.
    let mut ratios: [Vec<f64>; 4] = Default::default();
    for _ in 0..9 {
        let t = std::time::Instant::now();
        copy.copy_from_slice(std::hint::black_box(&data));
        let m = t.elapsed().as_secs_f64();
        for (way, r) in ratios.iter_mut().enumerate() {
            let t = std::time::Instant::now();
            if way == 3 {
                for (c, o) in enc
                    .chunks_exact(l.chunk_bytes)
                    .zip(dec.chunks_exact_mut(l.chunk_groups * gd))
                {
                    std::hint::black_box(codec.decode_chunk(c, 0, l.chunk_size, o).ok);
                }
            } else {
                let (mut x, mut c) = (0u64, 0u32);
                for g in 0..groups {
                    let e = &enc[g * gb..(g + 1) * gb];
                    let o = &mut dec[g * gd..(g + 1) * gd];
                    match way {
                        0 => {
                            prefetch::read(e.as_ptr(), gb);
                            o.copy_from_slice(&e[..gd]);
                        }
                        1 => {
                            prefetch::read(e.as_ptr(), gb);
                            crate::stream::nt::stream(o, &e[..gd]);
                        }
                        _ => {
                            let ahead = enc.get((g + 1) * gb..(g + 2) * gb).unwrap_or(&[]);
                            c = crc::copy_append(c, o, &e[..gd], ahead);
                        }
                    }
                    x = e[gd..]
                        .as_chunks::<8>()
                        .0
                        .iter()
                        .fold(x, |x, w| x ^ u64::from_le_bytes(*w));
                }
                crate::stream::nt::fence();
                std::hint::black_box((x, c));
            }
            r.push(m / t.elapsed().as_secs_f64());
        }
    }
    let [cached, streamed, crc, decode] = ratios.map(|mut r| {
        r.sort_by(f64::total_cmp);
        r[4]
    });
    println!(
        "{spec} D={depth} / memcpy: copy {cached:.3}, streamed {streamed:.3}, \
         streamed with the CRC {crc:.3}; the decoder {decode:.3}"
    );
}
