//! Hostile headers: a stream of a few hundred bytes whose header (or frame) asks for the
//! largest chunks, groups and stripes the caps allow must not make the decoder allocate
//! anything near that size. A counting allocator measures the peak.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use tilecode::stream::format::{self, Layout, StreamInfo};
use tilecode::stream::frame::{Frame, Kind};
use tilecode::stream::stripe::Plan;
use tilecode::stream::{self, Decoder};

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: AllocLayout) -> *mut u8 {
        let now = NOW.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: AllocLayout) {
        NOW.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Peak bytes allocated (above what was live before) while decoding `bytes` both ways.
fn peak_while_decoding(bytes: &[u8]) -> usize {
    let base = NOW.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let _ = stream::decode_lenient(bytes);
    if let Ok(d) = Decoder::new(bytes) {
        let mut d = d.keep_damaged(true);
        let mut sink = Vec::new();
        let _ = d.read_to_end(&mut sink);
    }
    PEAK.load(Ordering::Relaxed) - base
}

#[test]
fn crafted_headers_cannot_ask_for_memory() {
    let biggest = [
        ("alien:9x9", 1 << 20, 64 << 20),
        ("secded:1024", 512 << 10, 64 << 20),
        ("repetition:3", 64, 64 << 20),
        // Large codes: the decoder must not build big matrices for them either.
        ("alien:255x255", 64, 1 << 20),
        ("alien:128x255", 512, 1 << 20),
        ("secded:4096", 64, 1 << 20),
        ("hamming:65535", 64, 1 << 20),
    ];
    for version in [format::VERSION_1, format::VERSION] {
        for (spec, d, cs) in biggest {
            let spec = spec.parse().unwrap();
            let Ok(l) = Layout::with_version(&spec, d, cs, version) else {
                continue;
            };
            let info = StreamInfo {
                stream_id: 9,
                stripe: 240,
                recovery: 16,
            };
            let block = format::header_block(&l, &info);
            let mut bytes = Vec::new();
            format::region_bytes(&block, l.slot, &mut bytes);
            bytes.truncate(200);
            // And a frame that names the same layout, with a chunk of the largest size.
            let plan = Plan::checked(240, 16, 65536);
            assert!(plan.is_some(), "the largest stripe the caps allow");
            let mut f = Frame::new(Kind::Data, &l, plan, 9);
            f.length = cs as u64;
            let mut framed = f.to_bytes().to_vec();
            framed.extend_from_slice(&[0x55; 136]);
            for input in [&bytes, &framed] {
                let peak = peak_while_decoding(input);
                assert!(
                    peak < 16 << 20,
                    "version {version} {spec} D={d} chunk {cs}: {} MiB allocated for {} bytes",
                    peak >> 20,
                    input.len()
                );
            }
        }
    }
}
