//! The container format: header and trailer blocks, their triple copies, and the geometry
//! (group, chunk and region sizes) that follows from a header. `docs/format.md` is the
//! byte-level specification; this file is its implementation.

use super::crc;
use crate::code::Spec;
use crate::error::{Error, Result};

/// The first eight bytes of every tilecode stream (PNG-style: a high byte, then line endings
/// and `^Z`, so that text-mode mangling is noticed).
pub const MAGIC: [u8; 8] = *b"\x89TCD\r\n\x1a\n";
/// The first eight bytes of the trailer block.
pub const TRAILER_MAGIC: [u8; 8] = *b"\x89TCE\r\n\x1a\n";
/// The format version this crate writes (it reads versions 1 and 2).
pub const VERSION: u8 = 2;
/// The first format version: no frames, no recovery chunks, one CRC per chunk.
pub const VERSION_1: u8 = 1;
/// Payload bytes covered by one CRC-32C of a version 2 chunk tail (the last block of a chunk
/// may be shorter).
pub const CHECK_BLOCK: usize = 1 << 16;
/// Size of the header block and of the trailer block, in bytes.
pub const BLOCK: usize = 64;
/// Size of the per-chunk tail (chunk index, data length, CRC-32C), in bytes.
pub const TAIL: usize = 16;
/// Largest interleave depth (bits per row) a header may ask for.
pub const MAX_INTERLEAVE: usize = 1 << 20;
/// Largest encoded group (`n` rows of `D / 8` bytes) a header may ask for.
pub const MAX_GROUP_BYTES: usize = 64 << 20;
/// Largest chunk payload a header may ask for.
pub const MAX_CHUNK_SIZE: usize = 64 << 20;
/// Largest encoded chunk a header may ask for; with the header region this bounds the memory
/// a decoder allocates, whatever the stream says.
pub const MAX_ENCODED_CHUNK: usize = 256 << 20;
/// The payload size the default version 1 chunk size is rounded from.
pub const DEFAULT_CHUNK_TARGET: usize = 1 << 20;
/// Largest slot a header or trailer copy can occupy (`MAX_INTERLEAVE / 8`).
pub const MAX_SLOT: usize = MAX_INTERLEAVE / 8;

/// Code family numbers in the header.
const FAMILY_ALIEN: u8 = 1;
const FAMILY_SECDED: u8 = 2;
const FAMILY_HAMMING: u8 = 3;
const FAMILY_REPETITION: u8 = 4;
const FAMILY_PARITY: u8 = 5;

/// The slot each header (or trailer) copy occupies: at least one block, and at least one row
/// of `D` bits, so that a burst of `D` bits never hits the same bit of two copies.
pub fn slot_for(interleave: usize) -> usize {
    (interleave / 8).max(BLOCK)
}

/// Checks an interleave depth.
pub fn check_interleave(interleave: usize) -> std::result::Result<(), String> {
    if interleave == 0 || !interleave.is_multiple_of(64) || interleave > MAX_INTERLEAVE {
        return Err(format!(
            "interleave must be a multiple of 64 between 64 and {MAX_INTERLEAVE}, found {interleave}"
        ));
    }
    Ok(())
}

/// Re-checks a spec that may have been built directly rather than parsed.
pub fn check_spec(spec: &Spec) -> Result<Spec> {
    spec.to_string().parse::<Spec>()
}

/// Everything that follows from (code, interleave, chunk size): sizes in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The code.
    pub spec: Spec,
    /// Codeword length.
    pub n: usize,
    /// Message length.
    pub k: usize,
    /// Interleave depth `D` (bits per row, lanes per group).
    pub interleave: usize,
    /// Bytes per row, `D / 8`.
    pub row_bytes: usize,
    /// Payload bytes per group, `k * D / 8`.
    pub group_data: usize,
    /// Encoded bytes per group, `n * D / 8`.
    pub group_bytes: usize,
    /// Payload bytes of a full chunk.
    pub chunk_size: usize,
    /// Groups in a full chunk.
    pub chunk_groups: usize,
    /// Encoded bytes of a full chunk.
    pub chunk_bytes: usize,
    /// Bytes of one header or trailer slot.
    pub slot: usize,
    /// The format version (1 or 2); it fixes the chunk tail and the default chunk size.
    pub version: u8,
}

impl Layout {
    /// The layout for a code, interleave depth and chunk size (`0` picks the default), with
    /// every cap checked. Errors are `Error::Limit` with the reason; the header reader turns
    /// them into `BadHeader`.
    pub fn new(spec: &Spec, interleave: usize, chunk_size: usize) -> Result<Layout> {
        Layout::with_version(spec, interleave, chunk_size, VERSION)
    }

    /// [`Layout::new`] for a given format version.
    pub fn with_version(
        spec: &Spec,
        interleave: usize,
        chunk_size: usize,
        version: u8,
    ) -> Result<Layout> {
        let limit = |reason: String| Error::Limit {
            what: format!("stream layout for {spec}, interleave {interleave}"),
            reason,
        };
        check_interleave(interleave).map_err(limit)?;
        if let Spec::Product { .. } = spec {
            return Err(limit(format!(
                "{spec} is not supported by the stream codec (it has no stream header family)"
            )));
        }
        let n = spec.n();
        let row_bytes = interleave / 8;
        let group_bytes = n
            .checked_mul(row_bytes)
            .filter(|&g| g <= MAX_GROUP_BYTES)
            .ok_or_else(|| {
                limit(format!(
                    "a group of {n} rows of {row_bytes} bytes exceeds the cap of {MAX_GROUP_BYTES} bytes"
                ))
            })?;
        let k = k_of(spec);
        let group_data = k * row_bytes;
        let chunk_size = if chunk_size == 0 {
            default_chunk_size_for(group_data, version)
        } else {
            chunk_size
        };
        if chunk_size > MAX_CHUNK_SIZE {
            return Err(limit(format!(
                "chunk size {chunk_size} exceeds the cap of {MAX_CHUNK_SIZE} bytes"
            )));
        }
        let chunk_groups =
            (chunk_size + tail_len(chunk_size, group_data, version)).div_ceil(group_data);
        let chunk_bytes = chunk_groups * group_bytes;
        if chunk_bytes > MAX_ENCODED_CHUNK {
            return Err(limit(format!(
                "an encoded chunk of {chunk_bytes} bytes exceeds the cap of {MAX_ENCODED_CHUNK} bytes"
            )));
        }
        Ok(Layout {
            spec: *spec,
            n,
            k,
            interleave,
            row_bytes,
            group_data,
            group_bytes,
            chunk_size,
            chunk_groups,
            chunk_bytes,
            slot: slot_for(interleave),
            version,
        })
    }

    /// The layout a header or frame names, with every cap checked before anything is built
    /// from it (a huge code would allocate from an unchecked length).
    pub fn checked(
        spec: &Spec,
        interleave: usize,
        chunk_size: u64,
        version: u8,
    ) -> std::result::Result<Layout, String> {
        check_interleave(interleave)?;
        if chunk_size == 0 || chunk_size > MAX_CHUNK_SIZE as u64 {
            return Err(format!(
                "chunk size must be between 1 and {MAX_CHUNK_SIZE} bytes, found {chunk_size}"
            ));
        }
        let group = (spec.n() as u64) * (interleave as u64 / 8);
        if group > MAX_GROUP_BYTES as u64 {
            return Err(format!(
                "a group of {} rows of {} bytes exceeds the cap of {MAX_GROUP_BYTES} bytes",
                spec.n(),
                interleave / 8
            ));
        }
        Layout::with_version(spec, interleave, chunk_size as usize, version)
            .map_err(|e| e.to_string())
    }

    /// Bytes of the tail of a chunk carrying `len` payload bytes.
    pub fn tail(&self, len: usize) -> usize {
        tail_len(len, self.group_data, self.version)
    }

    /// Groups needed by a chunk carrying `len` payload bytes (plus its tail).
    pub fn groups_for(&self, len: usize) -> usize {
        (len + self.tail(len)).div_ceil(self.group_data)
    }

    /// Payload bytes of a chunk's area (its groups' data rows).
    pub fn area_for(&self, len: usize) -> usize {
        self.groups_for(len) * self.group_data
    }

    /// Bytes of the header region (three slots), also the size of the trailer region.
    pub fn region(&self) -> usize {
        3 * self.slot
    }

    /// Total encoded size of a stream carrying `len` payload bytes.
    pub fn encoded_len(&self, len: u64) -> u64 {
        let cs = self.chunk_size as u64;
        let full = len / cs;
        let rest = (len % cs) as usize;
        let last = if rest == 0 {
            0
        } else {
            self.groups_for(rest) * self.group_bytes
        };
        2 * self.region() as u64 + full * self.chunk_bytes as u64 + last as u64
    }
}

/// The dimension of a code, from its closed form (the header reader must not build a code
/// before the caps are checked).
fn k_of(spec: &Spec) -> usize {
    let ceil_log2 = |x: usize| (usize::BITS - (x - 1).leading_zeros()) as usize;
    match *spec {
        Spec::Alien { rows: m, cols: n } => match (m % 2, n % 2) {
            (0, 0) => m * n,
            (0, _) => m * n - m + 1,
            (_, 0) => m * n - n + 1,
            _ => m * n + 2 - m - n,
        },
        Spec::Secded(n) => n - ceil_log2(n) - 1,
        Spec::Hamming(n) => n - ceil_log2(n + 1),
        Spec::Repetition(_) => 1,
        Spec::Parity(n) => n - 1,
        Spec::Product { rows, cols } => (rows - 1) * (cols - 1),
    }
}

/// The check blocks of a version 2 chunk: the byte ranges of its payload that each carry one
/// CRC-32C in the tail. With `g = len / group_data` whole payload groups and `t = g / 3`, the
/// chunk is cut in **thirds** `[0, T)`, `[T, 2T)`, `[2T, len)` (`T = t · group_data`) when
/// `t ≥ 1` and each third is at most [`CHECK_BLOCK`] bytes: these are the ranges the codec's
/// three CRC chains cover as it codes, so their CRCs cost no extra pass. Otherwise (groups
/// larger than a block, chunks too long or too short for thirds) the blocks are **pieces** of
/// [`CHECK_BLOCK`] bytes, the last one shorter (one piece at least).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocks {
    /// Three blocks, the first two of `third` bytes.
    Thirds {
        /// Bytes of each of the first two blocks (`T`).
        third: usize,
        /// Payload bytes of the chunk.
        len: usize,
    },
    /// Consecutive pieces of [`CHECK_BLOCK`] bytes.
    Pieces {
        /// Payload bytes of the chunk.
        len: usize,
    },
}

impl Blocks {
    /// The blocks of a chunk carrying `len` payload bytes in groups of `group_data` bytes.
    pub fn of(len: usize, group_data: usize) -> Blocks {
        let third = len / group_data.max(1) / 3 * group_data;
        if third > 0 && third <= CHECK_BLOCK && len - 2 * third <= CHECK_BLOCK {
            Blocks::Thirds { third, len }
        } else {
            Blocks::Pieces { len }
        }
    }

    /// How many blocks (at least one).
    pub fn count(&self) -> usize {
        match *self {
            Blocks::Thirds { .. } => 3,
            Blocks::Pieces { len } => len.div_ceil(CHECK_BLOCK).max(1),
        }
    }

    /// The byte range of block `b` within the chunk payload.
    pub fn range(&self, b: usize) -> std::ops::Range<usize> {
        match *self {
            Blocks::Thirds { third, len } => {
                let a = b * third;
                a..if b == 2 { len } else { a + third }
            }
            Blocks::Pieces { len } => {
                let a = (b * CHECK_BLOCK).min(len);
                a..(a + CHECK_BLOCK).min(len)
            }
        }
    }

    /// The CRC-32C of each block of `payload` (the chunk's `len` bytes), in one pass each.
    pub fn crcs(&self, payload: &[u8]) -> Vec<u32> {
        (0..self.count())
            .map(|b| crc::checksum(&payload[self.range(b)]))
            .collect()
    }
}

/// Bytes of a chunk tail: 16 in version 1 (index, length, CRC); in version 2 four more for
/// every check block after the first ([`Blocks`]).
pub fn tail_len(len: usize, group_data: usize, version: u8) -> usize {
    if version == VERSION_1 {
        TAIL
    } else {
        TAIL + 4 * (Blocks::of(len, group_data).count() - 1)
    }
}

/// The most payload bytes whose chunk (payload and tail) fits in `groups` groups of
/// `group_data` bytes (zero when not even one byte does).
pub fn payload_in_groups(groups: usize, group_data: usize, version: u8) -> usize {
    let area = groups * group_data;
    let mut p = area.saturating_sub(TAIL);
    while p > 0 && p + tail_len(p, group_data, version) > area {
        p -= 1;
    }
    p
}

/// The default chunk size for groups of `group_data` payload bytes. Version 1: about 1 MiB,
/// rounded so that a full chunk (payload and tail) fills whole groups exactly. Version 2: the
/// longest chunk whose payload and tail fill whole groups exactly and whose check blocks are
/// three thirds of at most [`CHECK_BLOCK`] bytes (about 192 KiB); where groups are too large
/// for thirds, the most whole groups whose payload fits one check block (one group when a
/// group is larger).
fn default_chunk_size_for(group_data: usize, version: u8) -> usize {
    if version != VERSION_1 {
        let thirds_tail = TAIL + 8;
        let most = (3 * CHECK_BLOCK + thirds_tail) / group_data + 1;
        for groups in (1..=most).rev().take(8) {
            let Some(size) = (groups * group_data).checked_sub(thirds_tail) else {
                break;
            };
            if matches!(Blocks::of(size, group_data), Blocks::Thirds { .. }) {
                return size;
            }
        }
        let groups = ((CHECK_BLOCK + TAIL) / group_data).max(1);
        if groups * group_data > 2 * TAIL {
            let size = groups * group_data - TAIL;
            // A single group above one block carries several block CRCs in its tail.
            return size - 4 * (Blocks::of(size, group_data).count() - 1);
        }
        return 2 * group_data - TAIL;
    }
    let groups = (DEFAULT_CHUNK_TARGET + TAIL).div_ceil(group_data).max(1);
    let size = groups * group_data - TAIL;
    if size == 0 {
        // Only when a whole group carries exactly the tail: use two groups.
        2 * group_data - TAIL
    } else {
        size
    }
}

/// The default chunk size for a code and interleave depth.
pub fn default_chunk_size(spec: &Spec, interleave: usize) -> Result<usize> {
    Layout::new(spec, interleave, 0).map(|l| l.chunk_size)
}

/// Family number and two parameters of a spec.
pub(crate) fn spec_fields(spec: &Spec) -> (u8, u32, u32) {
    match *spec {
        Spec::Alien { rows, cols } => (FAMILY_ALIEN, rows as u32, cols as u32),
        Spec::Secded(n) => (FAMILY_SECDED, n as u32, 0),
        Spec::Hamming(n) => (FAMILY_HAMMING, n as u32, 0),
        Spec::Repetition(n) => (FAMILY_REPETITION, n as u32, 0),
        Spec::Parity(n) => (FAMILY_PARITY, n as u32, 0),
        Spec::Product { .. } => unreachable!("Layout::new refuses product codes"),
    }
}

pub(crate) fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

pub(crate) fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Seals a block: CRC-32C of bytes `0..60` into bytes `60..64`.
fn seal(block: &mut [u8; BLOCK]) {
    let crc = crc::checksum(&block[..BLOCK - 4]);
    block[BLOCK - 4..].copy_from_slice(&crc.to_le_bytes());
}

/// True when a block's stored CRC matches its contents.
fn sealed(block: &[u8]) -> bool {
    crc::checksum(&block[..BLOCK - 4]) == le32(block, BLOCK - 4)
}

/// The CRC a block stores.
pub fn block_crc(block: &[u8; BLOCK]) -> u32 {
    le32(block, BLOCK - 4)
}

/// What a version 2 header adds to the layout: the stream's id and its recovery shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamInfo {
    /// The random id every frame of the stream repeats.
    pub stream_id: u64,
    /// Data chunks per full stripe (0: no recovery chunks).
    pub stripe: u32,
    /// Recovery chunks per full stripe.
    pub recovery: u32,
}

/// The header block for a layout (and, in version 2, the stream's id and recovery shape).
pub fn header_block(layout: &Layout, info: &StreamInfo) -> [u8; BLOCK] {
    let mut b = [0u8; BLOCK];
    b[..8].copy_from_slice(&MAGIC);
    b[8] = layout.version;
    let (family, p1, p2) = spec_fields(&layout.spec);
    b[9] = family;
    b[12..16].copy_from_slice(&p1.to_le_bytes());
    b[16..20].copy_from_slice(&p2.to_le_bytes());
    b[20..24].copy_from_slice(&(layout.interleave as u32).to_le_bytes());
    b[24..32].copy_from_slice(&(layout.chunk_size as u64).to_le_bytes());
    if layout.version != VERSION_1 {
        b[32..40].copy_from_slice(&info.stream_id.to_le_bytes());
        b[40..44].copy_from_slice(&info.stripe.to_le_bytes());
        b[44..48].copy_from_slice(&info.recovery.to_le_bytes());
    }
    seal(&mut b);
    b
}

/// The stream id and recovery shape a version 2 header block states (zeros for version 1).
pub fn stream_info(block: &[u8; BLOCK]) -> StreamInfo {
    if block[8] == VERSION_1 {
        return StreamInfo::default();
    }
    StreamInfo {
        stream_id: le64(block, 32),
        stripe: le32(block, 40),
        recovery: le32(block, 44),
    }
}

/// The spec a family number and two parameters name.
pub(crate) fn spec_from_fields(family: u8, p1: u32, p2: u32) -> std::result::Result<Spec, String> {
    let (p1, p2) = (p1 as usize, p2 as usize);
    let spec = match family {
        FAMILY_ALIEN => Spec::Alien { rows: p1, cols: p2 },
        f @ (FAMILY_SECDED | FAMILY_HAMMING | FAMILY_REPETITION | FAMILY_PARITY) => {
            if p2 != 0 {
                return Err(format!(
                    "second code parameter must be 0 for family {f}, found {p2}"
                ));
            }
            match f {
                FAMILY_SECDED => Spec::Secded(p1),
                FAMILY_HAMMING => Spec::Hamming(p1),
                FAMILY_REPETITION => Spec::Repetition(p1),
                _ => Spec::Parity(p1),
            }
        }
        f => {
            return Err(format!(
                "unknown code family {f}, expected 1 (alien) to 5 (parity)"
            ));
        }
    };
    // (Built from the fields, not from their text: a frame header is parsed per chunk.)
    spec.checked().map_err(|e| format!("unsupported code: {e}"))
}

/// The three header or trailer copies, each padded with zeros to a slot.
pub fn region_bytes(block: &[u8; BLOCK], slot: usize, out: &mut Vec<u8>) {
    for _ in 0..3 {
        out.extend_from_slice(block);
        out.resize(out.len() + slot - BLOCK, 0);
    }
}

/// Bitwise majority of three blocks and the number of bits that disagreed with it.
pub fn majority(a: &[u8], b: &[u8], c: &[u8]) -> ([u8; BLOCK], u64) {
    let mut m = [0u8; BLOCK];
    let mut flips = 0u64;
    for i in 0..BLOCK {
        let v = (a[i] & b[i]) | (a[i] & c[i]) | (b[i] & c[i]);
        m[i] = v;
        flips +=
            ((a[i] ^ v).count_ones() + (b[i] ^ v).count_ones() + (c[i] ^ v).count_ones()) as u64;
    }
    (m, flips)
}

/// What a sealed header block says, with every cap checked.
fn parse_header_fields(b: &[u8]) -> Result<Layout> {
    let bad = |reason: String| Error::BadHeader { reason };
    let version = b[8];
    if version != VERSION_1 && version != VERSION {
        return Err(bad(format!(
            "unsupported format version {version}, expected {VERSION_1} or {VERSION}"
        )));
    }
    let reserved_from = if version == VERSION_1 { 32 } else { 48 };
    if b[10] != 0 || b[11] != 0 || b[reserved_from..60].iter().any(|&x| x != 0) {
        return Err(bad("reserved header bytes are not zero".into()));
    }
    let spec = spec_from_fields(b[9], le32(b, 12), le32(b, 16)).map_err(bad)?;
    Layout::checked(&spec, le32(b, 20) as usize, le64(b, 24), version).map_err(bad)
}

/// The result of looking for a header at the front of a stream.
#[derive(Debug)]
pub enum Probe {
    /// A header was found; the header region is `layout.region()` bytes.
    Found {
        /// The layout it describes.
        layout: Box<Layout>,
        /// The sealed header block (its CRC binds the trailer to it).
        block: [u8; BLOCK],
        /// Bits of the three copies that disagreed with the accepted block.
        corrected_bits: u64,
    },
    /// At least this many bytes are needed before deciding (unless the input ends).
    NeedMore(usize),
}

/// All slots a header copy can occupy, smallest first.
fn candidate_slots() -> impl Iterator<Item = usize> {
    std::iter::once(BLOCK).chain((BLOCK / 8 + 1..=MAX_SLOT / 8).map(|x| x * 8))
}

/// Bits in which `a` differs from the same-length prefix of `b`.
fn distance(a: &[u8], b: &[u8]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// True when `bytes` (possibly short) starts like a tilecode header: the magic, with at most a
/// few flipped bits.
fn looks_like_magic(bytes: &[u8]) -> bool {
    let n = bytes.len().min(8);
    n > 0 && distance(&bytes[..n], &MAGIC[..n]) <= 4.min(n as u32)
}

/// Counts the bits of the three copies at `slot` that differ from `block`.
fn disagreement(buf: &[u8], slot: usize, block: &[u8]) -> u64 {
    (0..3)
        .map(|i| distance(&buf[i * slot..i * slot + BLOCK], block) as u64)
        .sum()
}

/// Looks for the header at the front of `buf`; `eof` says whether `buf` is all there is.
///
/// A sealed first copy is accepted at once (a single burst cannot leave a wrong copy with a
/// valid CRC-32C). Otherwise every possible slot size is tried, smallest first, taking the
/// bitwise majority of the three copies; a majority is accepted only if it is sealed and names
/// the slot size it was found at.
pub fn probe_header(buf: &[u8], eof: bool) -> Result<Probe> {
    if buf.is_empty() && eof {
        return Err(Error::NotTilecode {
            reason: "empty input".into(),
        });
    }
    if buf.len() < BLOCK {
        if !eof {
            return Ok(Probe::NeedMore(BLOCK));
        }
        if looks_like_magic(buf) {
            return Err(Error::Truncated {
                reason: format!(
                    "expected at least {} header bytes, found {}",
                    3 * BLOCK,
                    buf.len()
                ),
            });
        }
        return Err(not_tilecode(buf));
    }
    let first = &buf[..BLOCK];
    if first[..8] == MAGIC && sealed(first) {
        let layout = parse_header_fields(first)?;
        let region = layout.region();
        if buf.len() < region {
            if !eof {
                return Ok(Probe::NeedMore(region));
            }
            return Err(Error::Truncated {
                reason: format!("expected {region} header bytes, found {}", buf.len()),
            });
        }
        let block: [u8; BLOCK] = first.try_into().expect("one block");
        let corrected_bits = disagreement(buf, layout.slot, &block);
        return Ok(Probe::Found {
            layout: Box::new(layout),
            block,
            corrected_bits,
        });
    }
    let want = 2 * MAX_SLOT + BLOCK;
    if buf.len() < want && !eof {
        return Ok(Probe::NeedMore(want));
    }
    for slot in candidate_slots() {
        if buf.len() < 2 * slot + BLOCK {
            break;
        }
        let (m, _) = majority(
            &buf[..BLOCK],
            &buf[slot..slot + BLOCK],
            &buf[2 * slot..2 * slot + BLOCK],
        );
        if m[..8] != MAGIC || !sealed(&m) {
            continue;
        }
        let Ok(layout) = parse_header_fields(&m) else {
            continue;
        };
        if layout.slot != slot {
            continue;
        }
        let region = layout.region();
        if buf.len() < region {
            // `want` covers every region, so only the end of the input gets here.
            return Err(Error::Truncated {
                reason: format!("expected {region} header bytes, found {}", buf.len()),
            });
        }
        let corrected_bits = disagreement(buf, slot, &m);
        return Ok(Probe::Found {
            layout: Box::new(layout),
            block: m,
            corrected_bits,
        });
    }
    let mut looks = looks_like_magic(buf);
    if buf.len() >= 3 * BLOCK {
        let (m, _) = majority(&buf[..BLOCK], &buf[BLOCK..], &buf[2 * BLOCK..]);
        looks |= looks_like_magic(&m) || looks_like_magic(&buf[BLOCK..]);
    }
    if looks {
        return Err(Error::BadHeader {
            reason: "header damaged beyond repair: no copy or majority of the 64-byte header block passes its crc-32c check".into(),
        });
    }
    Err(not_tilecode(buf))
}

fn not_tilecode(buf: &[u8]) -> Error {
    let n = buf.len().min(8);
    Error::NotTilecode {
        reason: format!(
            "expected magic {}, found {}",
            hex::encode(MAGIC),
            hex::encode(&buf[..n])
        ),
    }
}

/// What a trailer says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trailer {
    /// Original bytes in the stream.
    pub total_len: u64,
    /// Chunks in the stream.
    pub chunks: u64,
    /// CRC-32C of all original bytes.
    pub crc: u32,
}

/// The trailer block.
pub fn trailer_block(t: &Trailer, header_crc: u32) -> [u8; BLOCK] {
    let mut b = [0u8; BLOCK];
    b[..8].copy_from_slice(&TRAILER_MAGIC);
    b[8..16].copy_from_slice(&t.total_len.to_le_bytes());
    b[16..24].copy_from_slice(&t.chunks.to_le_bytes());
    b[24..28].copy_from_slice(&t.crc.to_le_bytes());
    b[28..32].copy_from_slice(&header_crc.to_le_bytes());
    seal(&mut b);
    b
}

/// Reads the trailer region (exactly `3 * slot` bytes). `None` when no sealed trailer for this
/// header is there (the stream was truncated, or the trailer damaged beyond repair).
pub fn read_trailer(region: &[u8], slot: usize, header_crc: u32) -> Option<(Trailer, u64)> {
    if region.len() != 3 * slot {
        return None;
    }
    let (m, flips) = majority(
        &region[..BLOCK],
        &region[slot..slot + BLOCK],
        &region[2 * slot..2 * slot + BLOCK],
    );
    if m[..8] != TRAILER_MAGIC || !sealed(&m) || le32(&m, 28) != header_crc {
        return None;
    }
    if m[32..60].iter().any(|&x| x != 0) {
        return None;
    }
    Some((
        Trailer {
            total_len: le64(&m, 8),
            chunks: le64(&m, 16),
            crc: le32(&m, 24),
        },
        flips,
    ))
}

/// The chunk tail: index, payload length and CRC-32C of the payload (version 1, and version 2
/// chunks of one check block).
pub fn tail_bytes(index: u64, len: usize, crc: u32) -> [u8; TAIL] {
    let mut t = [0u8; TAIL];
    t[..8].copy_from_slice(&index.to_le_bytes());
    t[8..12].copy_from_slice(&(len as u32).to_le_bytes());
    t[12..16].copy_from_slice(&crc.to_le_bytes());
    t
}

/// A version 2 tail for check-block CRCs `crcs` (one per block): the CRCs of all blocks but
/// the last, then index, length and the last block's CRC, so that the last 16 bytes read like
/// a version 1 tail.
pub fn tail_bytes_v2(index: u64, len: usize, crcs: &[u32]) -> Vec<u8> {
    let (last, rest) = crcs.split_last().expect("at least one block");
    let mut t: Vec<u8> = rest.iter().flat_map(|c| c.to_le_bytes()).collect();
    t.extend_from_slice(&tail_bytes(index, len, *last));
    t
}

/// Splits a tail into (index, length, crc).
pub fn parse_tail(t: &[u8]) -> (u64, u32, u32) {
    (le64(t, 0), le32(t, 8), le32(t, 12))
}

/// What the tail at the end of a decoded chunk area says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tail {
    /// Chunk index.
    pub index: u64,
    /// Payload bytes.
    pub len: usize,
    /// CRC-32C of each check block (one in version 1).
    pub crcs: Vec<u32>,
}

/// Reads the tail at the end of `area` (a chunk's decoded data rows); `None` when the length
/// it states cannot be that of a chunk of this many groups.
pub fn read_tail(area: &[u8], layout: &Layout) -> Option<Tail> {
    read_tail_end(area, area.len(), layout)
}

/// [`read_tail`] from the last `end.len()` bytes of an area of `area` bytes (`None` also
/// when the tail it states is longer than `end`).
pub fn read_tail_end(end: &[u8], area: usize, layout: &Layout) -> Option<Tail> {
    let (index, len, last) = parse_tail(&end[end.len().checked_sub(TAIL)?..]);
    let len = len as usize;
    if len == 0 || len > layout.chunk_size || layout.area_for(len) != area {
        return None;
    }
    let t = layout.tail(len);
    let mut crcs: Vec<u32> = end[end.len().checked_sub(t)?..end.len() - TAIL]
        .chunks_exact(4)
        .map(|c| le32(c, 0))
        .collect();
    crcs.push(last);
    Some(Tail { index, len, crcs })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(spec: &str, d: usize) -> Layout {
        Layout::new(&spec.parse().unwrap(), d, 0).unwrap()
    }

    #[test]
    fn default_chunks_fill_whole_groups() {
        for (spec, d) in [
            ("alien:9x9", 64),
            ("secded:72", 512),
            ("repetition:3", 64),
            ("alien:31x33", 64),
            ("hamming:7", 128),
        ] {
            let v1 = Layout::with_version(&spec.parse().unwrap(), d, 0, VERSION_1).unwrap();
            assert_eq!((v1.chunk_size + TAIL) % v1.group_data, 0, "{spec}");
            assert!(v1.chunk_size >= DEFAULT_CHUNK_TARGET - v1.group_data);
            let l = layout(spec, d);
            let tail = l.tail(l.chunk_size);
            assert_eq!((l.chunk_size + tail) % l.group_data, 0, "{spec}");
            // Three check blocks, each at most CHECK_BLOCK, and no longer chunk of whole
            // groups has them.
            let b = Blocks::of(l.chunk_size, l.group_data);
            assert!(matches!(b, Blocks::Thirds { .. }), "{spec}: {b:?}");
            assert!((0..3).all(|i| b.range(i).len() <= CHECK_BLOCK), "{spec}");
            assert!(l.chunk_size > 3 * CHECK_BLOCK - 4 * l.group_data, "{spec}");
            let longer = l.chunk_size + l.group_data;
            assert!(
                !matches!(Blocks::of(longer, l.group_data), Blocks::Thirds { .. }),
                "{spec}: as many groups as fit"
            );
        }
        // A group larger than a check block: one group, several block CRCs in its tail.
        let l = layout("alien:9x9", 65536);
        assert_eq!(l.chunk_groups, 1);
        assert_eq!(l.chunk_size + l.tail(l.chunk_size), l.group_data);
        assert!(l.tail(l.chunk_size) > TAIL);
        let l = layout("alien:9x9", 64);
        assert_eq!(l.group_data, 520);
        assert_eq!(l.group_bytes, 648);
        assert_eq!(l.chunk_size, 376 * 520 - 24);
    }

    #[test]
    fn check_blocks_tile_the_payload() {
        for gd in [1usize, 8, 24, 520, 4096, 33000, 70000] {
            for len in (1..400_000)
                .step_by(997)
                .chain([gd, 3 * gd, 3 * gd + 1, 196_608])
            {
                let b = Blocks::of(len, gd);
                let mut at = 0;
                for i in 0..b.count() {
                    let r = b.range(i);
                    assert_eq!(r.start, at, "gd {gd} len {len} {b:?}");
                    assert!(r.len() <= CHECK_BLOCK && !r.is_empty());
                    at = r.end;
                }
                assert_eq!(at, len, "gd {gd} len {len}");
                // Thirds are exactly the codec's three chains: whole groups, a third of
                // the payload's whole groups each.
                if let Blocks::Thirds { third, .. } = b {
                    assert_eq!(third, len / gd / 3 * gd);
                    assert_eq!(third % gd, 0);
                }
            }
        }
    }

    #[test]
    fn header_roundtrip_and_every_single_flip() {
        let l = layout("alien:5x7", 128);
        let block = header_block(&l, &StreamInfo::default());
        let mut buf = Vec::new();
        region_bytes(&block, l.slot, &mut buf);
        for bit in 0..buf.len() * 8 {
            let mut b = buf.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            match probe_header(&b, true).unwrap() {
                Probe::Found {
                    layout,
                    corrected_bits,
                    ..
                } => {
                    assert_eq!(*layout, l);
                    assert_eq!(corrected_bits, 1);
                }
                Probe::NeedMore(_) => panic!("need more at eof"),
            }
        }
    }

    #[test]
    fn header_survives_a_burst_of_d_bits_anywhere() {
        for d in [64, 512, 4096] {
            let l = layout("secded:72", d);
            let block = header_block(&l, &StreamInfo::default());
            let mut buf = Vec::new();
            region_bytes(&block, l.slot, &mut buf);
            buf.extend(std::iter::repeat_n(0xA5u8, 3 * l.slot));
            let step = if d > 512 { 97 } else { 1 };
            for start in (0..l.region() * 8).step_by(step) {
                let mut b = buf.clone();
                for bit in start..start + d {
                    b[bit / 8] ^= 1 << (bit % 8);
                }
                match probe_header(&b, true) {
                    Ok(Probe::Found { layout, .. }) => assert_eq!(*layout, l, "d={d} at {start}"),
                    other => panic!("d={d} burst at {start}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn classification() {
        assert!(matches!(
            probe_header(b"", true),
            Err(Error::NotTilecode { .. })
        ));
        assert!(matches!(
            probe_header(
                b"hello world, this is plain text and not a stream at all..........",
                true
            ),
            Err(Error::NotTilecode { .. })
        ));
        assert!(matches!(
            probe_header(&MAGIC[..5], true),
            Err(Error::Truncated { .. })
        ));
        let l = layout("alien:9x9", 64);
        let block = header_block(&l, &StreamInfo::default());
        let mut buf = Vec::new();
        region_bytes(&block, l.slot, &mut buf);
        assert!(matches!(
            probe_header(&buf[..100], true),
            Err(Error::Truncated { .. })
        ));
        assert!(matches!(
            probe_header(&buf[..100], false),
            Ok(Probe::NeedMore(192))
        ));
        // Two copies destroyed at the same bytes: detected, never misread.
        let mut b = buf.clone();
        for i in 20..30 {
            b[i] ^= 0xFF;
            b[64 + i] ^= 0xFF;
        }
        assert!(matches!(
            probe_header(&b, true),
            Err(Error::BadHeader { .. })
        ));
    }

    #[test]
    fn header_caps_are_refused() {
        let l = layout("alien:9x9", 64);
        let mut block = header_block(&l, &StreamInfo::default());
        block[20..24].copy_from_slice(&(1u32 << 30).to_le_bytes());
        seal(&mut block);
        let mut buf = Vec::new();
        region_bytes(&block, 64, &mut buf);
        assert!(matches!(
            probe_header(&buf, true),
            Err(Error::BadHeader { .. })
        ));
        let mut block = header_block(&l, &StreamInfo::default());
        block[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        seal(&mut block);
        let mut buf = Vec::new();
        region_bytes(&block, 64, &mut buf);
        assert!(matches!(
            probe_header(&buf, true),
            Err(Error::BadHeader { .. })
        ));
        // A huge code with a huge interleave.
        let mut block = header_block(&l, &StreamInfo::default());
        block[12..20].copy_from_slice(&[0, 16, 0, 0, 0, 16, 0, 0]);
        block[20..24].copy_from_slice(&(1u32 << 20).to_le_bytes());
        seal(&mut block);
        let mut buf = Vec::new();
        region_bytes(&block, 64, &mut buf);
        assert!(matches!(
            probe_header(&buf, true),
            Err(Error::BadHeader { .. })
        ));
    }

    #[test]
    fn trailer_roundtrip() {
        let t = Trailer {
            total_len: 12345,
            chunks: 3,
            crc: 0xDEAD_BEEF,
        };
        let block = trailer_block(&t, 77);
        let mut buf = Vec::new();
        region_bytes(&block, 128, &mut buf);
        assert_eq!(read_trailer(&buf, 128, 77), Some((t, 0)));
        assert_eq!(read_trailer(&buf, 128, 78), None);
        buf[5] ^= 4;
        assert_eq!(read_trailer(&buf, 128, 77), Some((t, 1)));
    }
}
