//! Where a chunk's CRC-32C chains run and how they are joined: three chains over the thirds
//! of its payload groups beside the kernels, or one per check block where a chunk is one
//! group, joined with shifts prepared once per codec.

use super::Codec;
use super::decode::ChunkStats;
use crate::slice::kernel::Kernel;
use crate::stream::crc::{self, Shift};
use crate::stream::format::Blocks;
use crate::stream::nt;

/// Payload bytes of consecutive groups of each third coded before their CRC is taken
/// (their runs through [`Kernel::encode_run`](crate::slice::kernel::Kernel::encode_run) and
/// [`Kernel::clean_run`](crate::slice::kernel::Kernel::clean_run)): 128 KiB a third, so
/// that each of the three input and three output streams runs long before the coder turns
/// to the next, while the three runs stay in L2 for the CRC. With 8 KiB, the earlier
/// choice, groups of up to 2 KiB coded 10-45 % slower on the Zen 5 machine of
/// docs/benchmarks.md (clean decode of alien:5x5 at `D = 4096` 0.25 -> 0.37x memcpy, of
/// hamming:137 at `D = 64` 0.49 -> 0.66; "Runs of 128 KiB"); 1 KiB ran short codes slower
/// still, the clean decoder at about half speed.
const RUN_BYTES: usize = 128 * 1024;

/// Groups of single-block rows at least this large are encoded in order with the copying
/// fold, and wide groups larger than this are encoded and decoded so ([`Codec::in_order`]):
/// encoding at D = 64 and 512, secded:266 0.34 -> 0.53x memcpy, alien:33x33 0.30 -> 0.42;
/// groups of 2 KiB did not gain (alien:5x9 at D = 512, 0.36 -> 0.37, or 0.37 -> 0.32 in
/// another round), each group's copy ending in a store fence (docs/benchmarks.md, "Groups
/// in order").
const IN_ORDER_FROM: usize = 4096;

/// The encoder's [`IN_ORDER_FROM`] for groups of rows of one 64-byte block (`D = 512`;
/// for rows of one word see [`Codec::encode_in_order_from_d64`]):
/// since a group in order no longer ends in a store fence, groups of 2 KiB gained there
/// (alien:5x9 0.39 -> 0.69x memcpy, alien:9x5 0.42 -> 0.65, secded:39 0.36 -> 0.55), and
/// since the next group's payload is asked for over each group's copy, groups of 1 KiB too
/// (alien:3x9 0.50 -> 0.74, alien:8x3 0.53 -> 0.80, alien:5x5 0.57 -> 0.78), which had
/// fallen without it (alien:3x9 0.53 -> 0.29). Groups of 576 bytes gain nothing (alien:3x5,
/// 5x3, 4x3), those of 320 lose (alien:3x3 0.50 -> 0.34); so do groups of 2 KiB at
/// `D = 64` for the odd alien boards (alien:9x33 0.46 -> 0.40, alien:9x63 0.49 -> 0.41),
/// which stay in runs (docs/benchmarks.md, "Decoding in order from 2 KiB, the next group
/// asked for on the way").
const ENCODE_IN_ORDER_FROM: usize = 1024;

/// The decoder's [`IN_ORDER_FROM`]: groups of 2 KiB, the next group asked for over the copy
/// of each (`Codec::decode_in_order`); clean decode went 0.43 -> 0.72x memcpy for alien:5x9
/// at `D = 512`, 0.31 -> 0.61 for alien:3x17, and at `D = 64` 0.42 -> 0.52 for alien:9x33.
/// From 1 KiB the clean decode gained too, but the decode at BER 1e-4 lost as often as it
/// gained (secded:22 at `D = 512` 0.43 -> 0.36x, alien:8x3 0.35 -> 0.44), and groups of 1
/// KiB at `D = 64` lost both (alien:9x17 0.64 -> 0.42) (docs/benchmarks.md, "Decoding in
/// order from 2 KiB, the next group asked for on the way").
pub(super) const DECODE_IN_ORDER_FROM: usize = 2048;

/// Where the CRC folds with 256-bit registers only ([`crc::folds_narrow`]: AMD Zen 3), the
/// largest groups of rows of 512 bytes or more that the codec copies with the CRC folded
/// on the way ([`Codec::copies_folding`]); measured in docs/benchmarks.md ("The CRC
/// folded with 256-bit registers").
const NARROW_IN_ORDER_MAX: usize = 17 << 10;

/// Encoding groups larger than this goes one group at a time, each kernel beside a third
/// of the CRC work (measured faster for `alien:4x17` and longer codes at `D = 64`), except
/// where the codec copies with the CRC folded ([`Codec::copies_folding`]): there runs and
/// one fold per run are faster.
const ENCODE_ONE_ABOVE: usize = 512;

impl Codec {
    /// The operator appending `len` zero bytes to a CRC: prepared for the lengths of a full
    /// chunk, built for others.
    pub(super) fn shift(&self, len: usize) -> Shift {
        self.shifts
            .iter()
            .find(|s| s.bytes() == len)
            .copied()
            .unwrap_or_else(|| Shift::new(len))
    }

    /// Whether the check blocks of a chunk of `len` payload bytes are several pieces and
    /// the chunk has fewer than three whole groups (so no CRC chains run beside the
    /// kernels): the whole chunk's CRC is then joined from the pieces' CRCs
    /// ([`Codec::chunk_crc`]) instead of being taken in a pass of its own. This is the case
    /// of deep interleaving, where a chunk is one group.
    /// `area` is the payload area of the chunk's groups (a claimed `len` past it never is).
    pub(super) fn by_pieces(&self, len: usize, area: usize) -> bool {
        let b = Blocks::of(len, self.layout.group_data);
        let few = len / self.layout.group_data < 3 && len <= area;
        matches!(b, Blocks::Pieces { .. }) && b.count() > 1 && few
    }

    /// The CRC-32C of a chunk's `payload` and, when they are taken on the way, of its check
    /// blocks. With `pieces` ([`Codec::by_pieces`]) each block's CRC is taken in one pass
    /// over the bytes and the whole one joined from them; otherwise the whole one is joined
    /// from the three chains `c` (as for [`Codec::join`], the first two over `third` bytes)
    /// and the blocks' CRCs are left to [`Codec::block_crcs`]. `known`, the blocks' CRCs when
    /// the decoder took them already ([`Codec::decode_deep`]), are joined whatever `pieces`
    /// says.
    pub(super) fn chunk_crc(
        &self,
        pieces: bool,
        c: [u32; 3],
        third: usize,
        payload: &[u8],
        known: Option<Vec<u32>>,
    ) -> (Option<Vec<u32>>, u32) {
        let b = Blocks::of(payload.len(), self.layout.group_data);
        let crcs = match known {
            Some(crcs) => crcs,
            None if pieces => b.crcs(payload),
            None => return (None, self.join(c, third, payload.len())),
        };
        let whole = self.join_blocks(&b, &crcs);
        (Some(crcs), whole)
    }

    /// The CRC-32C of a chunk's payload from the CRCs of its check blocks `b`.
    pub(super) fn join_blocks(&self, b: &Blocks, crcs: &[u32]) -> u32 {
        crcs.iter().enumerate().skip(1).fold(crcs[0], |a, (i, &c)| {
            self.shift(b.range(i).len()).combine(a, c)
        })
    }

    /// The CRC-32C of `src`, taken while it is streamed into `dst` ([`nt::copy_crc3`], which
    /// asks for the lines of `ahead` on the way).
    pub(super) fn copy_crc(&self, dst: &mut [u8], src: &[u8], ahead: &[u8]) -> u32 {
        let (t, c) = nt::copy_crc3(self.sse42, dst, src, ahead);
        self.join(c, t, src.len())
    }

    /// The CRC-32C of a chunk's `len` payload bytes from its three chains: `c[0]` and `c[1]`
    /// over the first two thirds of `third` bytes each, `c[2]` over the rest.
    pub(super) fn join(&self, c: [u32; 3], third: usize, len: usize) -> u32 {
        if third == 0 {
            return c[2];
        }
        let first_two = self.shift(third).combine(c[0], c[1]);
        self.shift(len - 2 * third).combine(first_two, c[2])
    }

    /// The CRC-32C of each check block of a chunk's payload `data`, from the three chains
    /// `c` (as for [`Codec::join`]) when the blocks are the thirds, or from `crc`, the whole
    /// payload's, when there is one block; another pass over `data` otherwise.
    pub(super) fn block_crcs(&self, data: &[u8], c: [u32; 3], crc: u32) -> Vec<u32> {
        match Blocks::of(data.len(), self.layout.group_data) {
            Blocks::Thirds { .. } => c.to_vec(),
            b if b.count() == 1 => vec![crc],
            b => b.crcs(data),
        }
    }

    /// Groups of each third of a chunk encoded before their CRC is taken: one group of
    /// more than [`ENCODE_ONE_ABOVE`] bytes (its kernel then overlaps a third of the CRC
    /// work), else [`RUN_BYTES`] of payload in one kernel call.
    pub(super) fn encode_batch(&self) -> usize {
        match self.layout.group_data {
            gd if gd > ENCODE_ONE_ABOVE && !self.copies_folding() => 1,
            gd => (RUN_BYTES / gd).max(1),
        }
    }

    /// Whether the coder takes the groups of a chunk's thirds in order, each payload
    /// copied with the CRC of its third folded on the way ([`crc::copy_append`],
    /// streaming stores) and its parity read from the payload in cache (the decoder: the
    /// syndrome from the rows in cache after the copy, and the lines with errors streamed
    /// again, corrected, with the CRC mended). Where the CRC folds and the codec takes the
    /// CRC instruction (the portable codec of the tests does not): groups of rows spanning
    /// several lane blocks (`wide`, the whole-row kernel's) larger than [`IN_ORDER_FROM`],
    /// other groups of
    /// [`IN_ORDER_FROM`] bytes or more when encoding (through the single-word fast path
    /// where there is one, as for hamming:523 and longer at `D = 64`: docs/benchmarks.md,
    /// "Wide grids at `D = 64`"). (Wide groups of
    /// 513 bytes to 4 KiB were taken in order too until the runs of [`RUN_BYTES`] grew to
    /// 128 KiB; since then runs encode the smallest faster, alien:3x3 at `D = 4096` 0.19 ->
    /// 0.25x memcpy, and those of 4 KiB, alien:3x5, 5x3 and 4x3, alike.) The encoder takes
    /// groups of rows of 64 bytes in order from [`ENCODE_IN_ORDER_FROM`] bytes, those of
    /// one-word rows from a size by family ([`Codec::encode_in_order_from_d64`]), the decoder
    /// groups of single-block rows from [`DECODE_IN_ORDER_FROM`].
    pub(super) fn in_order(&self, wide: bool, encoding: bool) -> bool {
        let gd = self.layout.group_data;
        let big = match (wide, encoding) {
            (true, _) => gd > IN_ORDER_FROM,
            (false, true) if self.layout.row_bytes == 64 => gd >= ENCODE_IN_ORDER_FROM,
            (false, true) if self.layout.row_bytes == 8 => gd >= self.encode_in_order_from_d64(),
            (false, true) => gd >= IN_ORDER_FROM,
            (false, false) => gd >= DECODE_IN_ORDER_FROM,
        };
        big && self.sse42.is_some() && self.copies_folding()
    }

    /// Whether the codec copies payload with its CRC folded on the way ([`crc::copy_append`]:
    /// [`Codec::in_order`], [`Codec::deep`], [`Codec::encode_batch`]): where the CRC folds
    /// with 512-bit registers ([`crc::folding`]); where it folds with 256-bit ones only
    /// ([`crc::folds_narrow`]), for groups of [`IN_ORDER_FROM`] bytes of data rows or more
    /// whose rows are shorter than 512 bytes (`D` up to 2048), or which are at most
    /// [`NARROW_IN_ORDER_MAX`] bytes.
    pub(super) fn copies_folding(&self) -> bool {
        let l = &self.layout;
        crc::folding()
            || crc::folds_narrow()
                && l.group_data >= IN_ORDER_FROM
                && (l.row_bytes < 512 || l.group_data <= NARROW_IN_ORDER_MAX)
    }

    /// Whether the codec codes the groups of a chunk's thirds in order through the column
    /// pass (`Codec::encode_columns`, `Codec::decode_columns`), whatever their size: codes
    /// of few data rows at `D = 4096` to 65536 where the CPU has AVX-512 BW and VPCLMULQDQ,
    /// and on fewer shapes where it has AVX2 and VPCLMULQDQ only.
    pub(super) fn has_columns(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.columns.is_some();
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// Whether the codec codes the groups of a chunk's thirds through the line pass
    /// (`lines`: codes of few data rows at `D = 512` where the CPU has AVX-512 VBMI and
    /// VPCLMULQDQ), each third in one pass.
    pub(super) fn has_lines(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.lines.is_some();
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// Encodes the first `3 * third` groups of a chunk through the line pass, when the
    /// codec has it, and returns the three CRC chains.
    pub(super) fn encode_by_lines(
        &self,
        data: &[u8],
        third: usize,
        out: &mut [u8],
    ) -> Option<[u32; 3]> {
        #[cfg(target_arch = "x86_64")]
        if let Some(lines) = &self.lines {
            return Some(self.encode_line_thirds(lines, data, third, out));
        }
        let _ = (data, third, out);
        None
    }

    /// Decodes the first `3 * third` groups of a chunk through the line pass, when the
    /// codec has it, and returns the three CRC chains.
    pub(super) fn decode_by_lines(
        &self,
        enc: &[u8],
        third: usize,
        out: &mut [u8],
        stats: &mut ChunkStats,
    ) -> Option<[u32; 3]> {
        #[cfg(target_arch = "x86_64")]
        if let Some(lines) = &self.lines
            && let Some(decide) = lines.decide()
        {
            return Some(self.decode_line_thirds(lines, decide, enc, third, out, stats));
        }
        let _ = (enc, third, out, stats);
        None
    }

    /// The encoder's [`IN_ORDER_FROM`] for groups of one-word rows (`D = 64`), by family:
    /// the Alien boards with an even side from 1 KiB (alien:64x5 0.44 -> 0.88x memcpy,
    /// alien:32x9 0.54 -> 0.83, alien:16x17 0.64 -> 0.91, alien:5x64 0.43 -> 0.76; groups of
    /// 520 bytes lost, alien:16x5 0.60 -> 0.46), the Hamming and SECDED codes from 2 KiB
    /// (secded:266 0.62 -> 0.76; groups of 1 KiB lost, hamming:137 0.64 -> 0.50), the odd
    /// Alien boards, whose runs through the fast path stay faster (alien:9x33 0.46 -> 0.40 in
    /// order), and the rest from [`IN_ORDER_FROM`] (docs/benchmarks.md, "Eight lines a row in
    /// flight, the encoder in order at D = 64 by family, ..."). Since `D = 64` has no
    /// prefetch hints (`prefetch::group`), the even boards of three and five columns (grid
    /// rows of two and four words) encode faster in runs: alien:64x3 0.45-0.54 -> 0.78-0.79,
    /// alien:32x5 0.58-0.75 -> 0.91-0.94, alien:64x5 0.56-0.62 -> 0.87-0.93, while the wider
    /// ones keep their gain in order (alien:16x33 1.02-1.03 in runs against 1.19-1.33,
    /// alien:8x63 0.96-0.97 against 1.23-1.26; docs/benchmarks.md, "No prefetch hints at
    /// `D = 64`").
    fn encode_in_order_from_d64(&self) -> usize {
        match self.kernel {
            Kernel::AlienEvenOdd { n, .. } if n <= 5 => IN_ORDER_FROM,
            Kernel::AlienEvenOdd { .. } | Kernel::AlienOddEven { .. } => 1024,
            Kernel::Hamming { .. } => 2048,
            _ => IN_ORDER_FROM,
        }
    }

    /// Whether a chunk of `groups` groups goes through the deep paths ([`Codec::encode_deep`],
    /// [`Codec::decode_deep`]: the payload streamed with its check blocks' CRCs taken on the
    /// way, then the kernel from the rows in cache): a chunk of one group whose rows span
    /// several lane blocks (`wide`), or, where the CRC folds and the codec takes the CRC
    /// instruction (as for [`Codec::in_order`]), one of [`IN_ORDER_FROM`] bytes or more
    /// (encoding alien:33x33 at D = 512: 0.40 -> 0.50x memcpy; its clean decode gains a
    /// little, with the syndrome through the lane-block kernel, `Codec::group_flips`).
    pub(super) fn deep(&self, groups: usize, wide: bool) -> bool {
        let gd = self.layout.group_data;
        let big = gd >= IN_ORDER_FROM && self.sse42.is_some() && self.copies_folding();
        groups == 1 && (wide || big)
    }

    /// Groups of each third of a chunk decoded before their CRC is taken: [`RUN_BYTES`] of
    /// payload in one call of the clean-run kernel, or one larger group.
    pub(super) fn decode_batch(&self) -> usize {
        (RUN_BYTES / self.layout.group_data).max(1)
    }

    /// A group's payload cut in three pieces of whole words.
    pub(super) fn cuts(&self) -> [usize; 4] {
        let gd = self.layout.group_data;
        let a = gd / 24 * 8;
        [0, a, 2 * a, gd]
    }
}

/// The CRC-32C sums a decoder took of a chunk's payload, for [`Codec::verdict`]: the three
/// chains (the first two over `third` bytes each), and the check blocks' CRCs when it took
/// them ([`Codec::decode_deep`]).
pub(super) struct Sums {
    pub(super) c: [u32; 3],
    pub(super) third: usize,
    pub(super) crcs: Option<Vec<u32>>,
}
