//! Format v2 frames: the 64-byte header in front of every chunk, recovery chunk, metadata and
//! end copy. Each names its stream (a random id) and carries the whole layout, so that a
//! decoder can find the next frame at any byte offset after damage and start decoding from
//! any frame, even when the stream header is lost (`docs/format.md`, "Frames").

use super::format::{BLOCK, Layout, le32, le64, spec_fields, spec_from_fields};
use super::stripe::Plan;
use crate::code::Spec;

/// The first eight bytes of every frame.
pub const FRAME_MAGIC: [u8; 8] = *b"\x89TCF\r\n\x1a\n";
/// Size of a frame header.
pub const FRAME: usize = BLOCK;

/// What a frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A data chunk: `index` is the chunk number, `length` its payload bytes.
    Data,
    /// A recovery chunk: `index` is the stripe number; `length` packs the stripe's data
    /// chunks `K'`, its recovery chunks `R'` and this chunk's number `r`; `check` is the
    /// CRC-32C of the recovery shard.
    Recovery,
    /// Optional metadata (file name, mode, modification time): `length` body bytes follow
    /// the header, `check` is their CRC-32C.
    Meta,
    /// One of the three copies of the end frame: `index` is the number of data chunks,
    /// `length` the payload length, `check` the CRC-32C of the whole payload.
    End,
}

impl Kind {
    fn code(self) -> u8 {
        match self {
            Kind::Data => 1,
            Kind::Recovery => 2,
            Kind::Meta => 3,
            Kind::End => 4,
        }
    }

    fn from_code(c: u8) -> Option<Kind> {
        Some(match c {
            1 => Kind::Data,
            2 => Kind::Recovery,
            3 => Kind::Meta,
            4 => Kind::End,
            _ => return None,
        })
    }
}

/// A frame header, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// What follows.
    pub kind: Kind,
    /// The end frame's copy number (0, 1, 2); zero for the others.
    pub copy: u8,
    /// The stream's code.
    pub spec: Spec,
    /// Interleave depth.
    pub interleave: u32,
    /// Payload bytes of a full chunk.
    pub chunk_size: u32,
    /// Data chunks in a full stripe (0: no recovery chunks).
    pub stripe: u16,
    /// Recovery chunks of a full stripe.
    pub recovery: u16,
    /// The stream's random id.
    pub stream_id: u64,
    /// Chunk number, stripe number or chunk count (see [`Kind`]).
    pub index: u64,
    /// Payload bytes, packed stripe shape or total length (see [`Kind`]).
    pub length: u64,
    /// A CRC-32C (see [`Kind`]); zero for data chunks.
    pub check: u32,
}

/// The shape of a stripe as its recovery frames state it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StripeShape {
    /// Data chunks in this stripe (`K'`, at most the full stripe's `K`).
    pub data: u16,
    /// Recovery chunks of this stripe (`R'`).
    pub recovery: u16,
    /// This recovery chunk's number, `0..R'`.
    pub number: u16,
}

impl StripeShape {
    /// Packs the shape into a frame's `length`.
    pub fn pack(self) -> u64 {
        self.data as u64 | (self.recovery as u64) << 16 | (self.number as u64) << 32
    }

    /// Unpacks a frame's `length`.
    pub fn unpack(x: u64) -> StripeShape {
        StripeShape {
            data: x as u16,
            recovery: (x >> 16) as u16,
            number: (x >> 32) as u16,
        }
    }
}

impl Frame {
    /// A frame of `kind` for a stream with this layout, stripe size and id.
    pub fn new(kind: Kind, layout: &Layout, plan: Option<Plan>, stream_id: u64) -> Frame {
        let (stripe, recovery) = plan.map_or((0, 0), |p| (p.stripe as u16, p.recovery as u16));
        Frame {
            kind,
            copy: 0,
            spec: layout.spec,
            interleave: layout.interleave as u32,
            chunk_size: layout.chunk_size as u32,
            stripe,
            recovery,
            stream_id,
            index: 0,
            length: 0,
            check: 0,
        }
    }

    /// The 64 bytes of this header, sealed with its CRC-32C.
    pub fn to_bytes(&self) -> [u8; FRAME] {
        let mut b = [0u8; FRAME];
        b[..8].copy_from_slice(&FRAME_MAGIC);
        b[8] = self.kind.code();
        b[9] = super::format::VERSION;
        let (family, p1, p2) = spec_fields(&self.spec);
        b[10] = family;
        b[11] = self.copy;
        b[12..16].copy_from_slice(&p1.to_le_bytes());
        b[16..20].copy_from_slice(&p2.to_le_bytes());
        b[20..24].copy_from_slice(&self.interleave.to_le_bytes());
        b[24..28].copy_from_slice(&self.chunk_size.to_le_bytes());
        b[28..30].copy_from_slice(&self.stripe.to_le_bytes());
        b[30..32].copy_from_slice(&self.recovery.to_le_bytes());
        b[32..40].copy_from_slice(&self.stream_id.to_le_bytes());
        b[40..48].copy_from_slice(&self.index.to_le_bytes());
        b[48..56].copy_from_slice(&self.length.to_le_bytes());
        b[56..60].copy_from_slice(&self.check.to_le_bytes());
        let crc = crc32c::crc32c(&b[..FRAME - 4]);
        b[FRAME - 4..].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Parses a sealed frame header (`None` if the magic, the CRC or any field is wrong).
    /// The layout it names is not checked against the caps here: see [`Frame::layout`].
    pub fn parse(b: &[u8]) -> Option<Frame> {
        if b.len() < FRAME || b[..8] != FRAME_MAGIC {
            return None;
        }
        if crc32c::crc32c(&b[..FRAME - 4]) != le32(b, FRAME - 4) {
            return None;
        }
        let kind = Kind::from_code(b[8])?;
        if b[9] != super::format::VERSION || (b[11] != 0 && kind != Kind::End) || b[11] > 2 {
            return None;
        }
        let spec = spec_from_fields(b[10], le32(b, 12), le32(b, 16)).ok()?;
        Some(Frame {
            kind,
            copy: b[11],
            spec,
            interleave: le32(b, 20),
            chunk_size: le32(b, 24),
            stripe: le32(b, 28) as u16,
            recovery: (le32(b, 28) >> 16) as u16,
            stream_id: le64(b, 32),
            index: le64(b, 40),
            length: le64(b, 48),
            check: le32(b, 56),
        })
    }

    /// Parses a header that may have one flipped bit: as it is, else with the one bit
    /// flipped whose change to the CRC-32C is the difference between the CRC of the bytes
    /// and the one they carry (a CRC-32C tells every single flip in 64 bytes apart, so at
    /// most one bit can repair a header: `flip_of`). Used only where a frame is
    /// expected, never while scanning.
    pub fn parse_repairing(b: &[u8]) -> Option<(Frame, u64)> {
        if b.len() < FRAME {
            return None;
        }
        if let Some(f) = Frame::parse(b) {
            return Some((f, 0));
        }
        let bit = flip_of(crc32c::crc32c(&b[..FRAME - 4]) ^ le32(b, FRAME - 4))?;
        let mut c: [u8; FRAME] = b[..FRAME].try_into().expect("one frame");
        c[bit / 8] ^= 1 << (bit % 8);
        Frame::parse(&c).map(|f| (f, 1))
    }

    /// The layout this frame names, with every cap checked (`None` if out of range).
    pub fn layout(&self) -> Option<Layout> {
        Layout::checked(
            &self.spec,
            self.interleave as usize,
            self.chunk_size as u64,
            super::format::VERSION,
        )
        .ok()
    }

    /// Whether two frames belong to the same stream (same id and layout).
    pub fn same_stream(&self, other: &Frame) -> bool {
        self.stream_id == other.stream_id
            && self.spec == other.spec
            && self.interleave == other.interleave
            && self.chunk_size == other.chunk_size
            && self.stripe == other.stripe
            && self.recovery == other.recovery
    }

    /// The recovery plan the frame names (`None` without recovery chunks or when the numbers
    /// are out of range).
    pub fn plan(&self) -> Option<Plan> {
        Plan::checked(
            self.stripe as usize,
            self.recovery as usize,
            self.chunk_size as usize,
        )
    }
}

/// The offset of the first sealed frame header in `buf` at or after `from` that `accept`
/// takes, searching for the magic with a fast substring search.
pub fn find(buf: &[u8], from: usize, accept: impl Fn(&Frame) -> bool) -> Option<(usize, Frame)> {
    let finder = memchr::memmem::Finder::new(&FRAME_MAGIC);
    let mut at = from;
    while at < buf.len() {
        let i = at + finder.find(&buf[at..])?;
        if buf.len() - i < FRAME {
            return None;
        }
        if let Some(f) = Frame::parse(&buf[i..i + FRAME])
            && accept(&f)
        {
            return Some((i, f));
        }
        at = i + 1;
    }
    None
}

/// The bit of a header (`0..512`) whose flip changes the difference between the CRC-32C
/// of its first 60 bytes and the CRC it carries by `diff`, if one does. A flip in the
/// carried CRC changes it by that one bit; a flip of bit `i` of the covered bytes by the
/// CRC of the bit pattern alone (the CRC is affine), taken once for every bit. No two bits
/// change it alike (the CRC detects every double flip at this length), so the answer is
/// the only single flip that can seal the header again.
fn flip_of(diff: u32) -> Option<usize> {
    const COVERED: usize = FRAME - 4;
    static CHANGES: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    if diff == 0 {
        return None;
    }
    if diff.is_power_of_two() {
        return Some(8 * COVERED + diff.trailing_zeros() as usize);
    }
    let changes = CHANGES.get_or_init(|| {
        let zero = crc32c::crc32c(&[0; COVERED]);
        (0..8 * COVERED)
            .map(|bit| {
                let mut e = [0u8; COVERED];
                e[bit / 8] = 1 << (bit % 8);
                crc32c::crc32c(&e) ^ zero
            })
            .collect()
    });
    changes.iter().position(|&c| c == diff)
}

/// The largest metadata body a reader accepts.
pub const MAX_META: usize = 4096;

/// What the metadata frame records of the input file.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Metadata {
    /// The input's file name (its last component), if it had one.
    pub name: Option<String>,
    /// Unix permission bits.
    pub mode: Option<u32>,
    /// Modification time: seconds and nanoseconds since the Unix epoch.
    pub mtime: Option<(i64, u32)>,
}

impl Metadata {
    /// The body: flags (1 name, 2 mode, 4 mtime), mode u32, seconds i64, nanoseconds u32,
    /// name length u16 and the name's UTF-8 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let flags = self.name.is_some() as u8
            | (self.mode.is_some() as u8) << 1
            | (self.mtime.is_some() as u8) << 2;
        let mut b = vec![flags];
        b.extend_from_slice(&self.mode.unwrap_or(0).to_le_bytes());
        let (s, ns) = self.mtime.unwrap_or((0, 0));
        b.extend_from_slice(&s.to_le_bytes());
        b.extend_from_slice(&ns.to_le_bytes());
        let name = self.name.as_deref().unwrap_or("").as_bytes();
        let name = &name[..name.len().min(MAX_META - 32)];
        b.extend_from_slice(&(name.len() as u16).to_le_bytes());
        b.extend_from_slice(name);
        b
    }

    /// Parses a body (`None` when malformed).
    pub fn parse(b: &[u8]) -> Option<Metadata> {
        if b.len() < 19 || b[0] > 7 {
            return None;
        }
        let n = u16::from_le_bytes([b[17], b[18]]) as usize;
        if b.len() != 19 + n {
            return None;
        }
        let name = String::from_utf8(b[19..].to_vec()).ok()?;
        Some(Metadata {
            name: (b[0] & 1 != 0).then_some(name),
            mode: (b[0] & 2 != 0).then(|| le32(b, 1)),
            mtime: (b[0] & 4 != 0).then(|| (le64(b, 5) as i64, le32(b, 13))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn frame() -> Frame {
        let l = Layout::new(&"alien:9x9".parse().unwrap(), 64, 0).unwrap();
        let plan = Plan {
            stripe: 124,
            recovery: 3,
        };
        let mut f = Frame::new(Kind::Data, &l, Some(plan), 0x1234_5678_9abc_def0);
        f.index = 77;
        f.length = 65504;
        f
    }

    #[test]
    fn frames_round_trip_and_repair_one_flip() {
        let f = frame();
        let b = f.to_bytes();
        assert_eq!(Frame::parse(&b), Some(f));
        for bit in 0..8 * FRAME {
            let mut d = b;
            d[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(Frame::parse(&d), None, "bit {bit}");
            assert_eq!(Frame::parse_repairing(&d), Some((f, 1)), "bit {bit}");
        }
        let mut d = b;
        d[3] ^= 1;
        d[40] ^= 1;
        assert_eq!(Frame::parse_repairing(&d), None);
    }

    /// The repair by trying every flip, the oracle of [`Frame::parse_repairing`].
    fn repair_by_trying(b: &[u8; FRAME]) -> Option<(Frame, u64)> {
        if let Some(f) = Frame::parse(b) {
            return Some((f, 0));
        }
        (0..8 * FRAME).find_map(|bit| {
            let mut c = *b;
            c[bit / 8] ^= 1 << (bit % 8);
            Frame::parse(&c).map(|f| (f, 1))
        })
    }

    #[test]
    fn repairing_agrees_with_trying_every_flip() {
        let b = frame().to_bytes();
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let mut next = |m: usize| rng.gen_range(0..m);
        let mut repaired = 0;
        for round in 0..3000 {
            let mut d = b;
            // One to three flips, or a byte overwritten, or (a tenth) a header of junk.
            match round % 10 {
                0 => d.iter_mut().skip(8).for_each(|v| *v = next(256) as u8),
                9 => d[next(FRAME)] = next(256) as u8,
                r => {
                    for _ in 0..1 + r % 3 {
                        let bit = next(8 * FRAME);
                        d[bit / 8] ^= 1 << (bit % 8);
                    }
                }
            }
            let got = Frame::parse_repairing(&d);
            assert_eq!(got, repair_by_trying(&d), "round {round}");
            repaired += usize::from(got.is_some_and(|(_, n)| n == 1));
        }
        assert!(
            repaired > 500,
            "the single flips were repaired ({repaired})"
        );
    }

    #[test]
    fn find_skips_false_magics() {
        let f = frame();
        let mut buf = vec![0u8; 300];
        buf[10..18].copy_from_slice(&FRAME_MAGIC); // a magic without a valid header
        buf[100..164].copy_from_slice(&f.to_bytes());
        assert_eq!(find(&buf, 0, |_| true), Some((100, f)));
        assert_eq!(find(&buf, 101, |_| true), None);
        assert_eq!(find(&buf, 0, |g| g.stream_id != f.stream_id), None);
        assert_eq!(find(&buf[..150], 0, |_| true), None);
    }

    #[test]
    fn metadata_round_trips() {
        let m = Metadata {
            name: Some("photo.jpg".into()),
            mode: Some(0o644),
            mtime: Some((1_700_000_000, 123)),
        };
        assert_eq!(Metadata::parse(&m.to_bytes()), Some(m));
        assert_eq!(
            Metadata::parse(&Metadata::default().to_bytes()),
            Some(Metadata::default())
        );
        assert_eq!(Metadata::parse(&[9; 5]), None);
    }

    #[test]
    fn stripe_shape_packs() {
        let s = StripeShape {
            data: 124,
            recovery: 3,
            number: 2,
        };
        assert_eq!(StripeShape::unpack(s.pack()), s);
    }
}
