//! The chunk coder, slice in and slice out: a code's kernels over the groups of a chunk, the
//! CRC-32C of its check blocks taken on the way, and the verdict on a decoded chunk. The
//! stream state machines ([`super::encode_core`], [`super::decode_core`], [`super::framed`])
//! drive it chunk by chunk.
//!
//! - this file: the [`Codec`] (the code, its kernels and the evidence of the CPU's features,
//!   taken once), the lane blocks of a row, and the pieces shared by both directions;
//! - `encode`: groups and chunks encoded (the deep path streams its output);
//! - `decode`: groups and chunks decoded, lanes corrected;
//! - `crcs`: where the CRC-32C chains run and how they are joined;
//! - `columns`, `deep_columns`: the column pass, a group of rows of 512 bytes and more in
//!   one pass, 64 bytes of every row at a time (groups in order, chunks of one group);
//! - `lines`: the line pass, a third of a chunk's groups of rows of 64 bytes to 1 KiB in one
//!   pass, single errors corrected in it;
//! - `verdict`: a decoded chunk checked against its tail, and the ranges it reports.

use super::crc::{Mender, Shift, Sse42};
use super::format::{CHECK_BLOCK, Layout};
use super::nt;
use crate::code;
use crate::cpu::Avx2;
use crate::slice::kernel::{Fast64, Fused64, Kernel, Plan, V};
use crate::slice::locate::{KEY_BITS, Locator};

/// A code with its kernel and the row/position maps of the bit-sliced layout.
#[derive(Debug)]
pub struct Codec {
    /// Sizes.
    pub layout: Layout,
    kernel: Kernel,
    /// The kernel as whole-row XORs, for rows of several lane blocks.
    plan: Plan,
    /// The lane block width in words ([`block_words`]).
    width: usize,
    /// Parity rows, `n - k`.
    r: usize,
    /// The per-lane decisions for nonzero syndromes, shared with the simulator: the
    /// single-error table (when decoding), else the code's decoder.
    locator: Locator,
    /// The CRC shifts a full chunk needs, prepared once ([`Codec::shift`]): over a third of
    /// its payload groups and over the rest after two thirds (its three chains); over a
    /// check block of [`CHECK_BLOCK`] bytes and over its last check block, for chunks whose
    /// check blocks are pieces ([`Codec::chunk_crc`]); and over the chains of those two
    /// pieces ([`nt::copy_crc3`]).
    shifts: Vec<Shift>,
    /// When the CPU has SSE4.2: the evidence for the three-chain CRC
    /// ([`crc::append3`](super::crc::append3)), taken once here.
    sse42: Option<Sse42>,
    /// When the kernel has a single-word fast path ([`Kernel::group64`]) on this CPU and
    /// rows are single words: the evidence, taken once here.
    fast: Option<Fast64>,
    /// When the kernel also takes the CRC of three groups at once
    /// ([`Kernel::group64_crc3`]) at `D = 64`: the evidence, taken once here.
    fused: Option<Fused64>,
    /// When the CPU has AVX2: the evidence under which the generic group kernels (every
    /// code, depth and block width without a hand-written path) run compiled for AVX2.
    avx2: Option<Avx2>,
    /// When decoding on a CPU with PCLMULQDQ and SSE4.2 (an encoder does not build its
    /// tables): mends the CRCs the decoder took of bytes it then corrected (a deep chunk's
    /// check blocks, [`Codec::decode_deep`]; a group's CRC chain in the fused kernels, which
    /// need the same features).
    mender: Option<&'static Mender>,
    /// Where the CPU and the rows allow it: the column pass ([`columns`]), which codes
    /// groups of rows of 512 bytes and more in order, in one pass each.
    #[cfg(target_arch = "x86_64")]
    columns: Option<columns::Columns>,
    /// Where the CPU and the rows allow it: the line pass ([`lines`]), which codes a
    /// third of a chunk's groups of 64-byte rows (`D = 512`) in one pass.
    #[cfg(target_arch = "x86_64")]
    lines: Option<lines::Lines>,
    /// Chunks of one group of at least `.0` bytes of data rows are fed to the plan in bands
    /// of `.1` bytes as their copy goes ([`bands`]).
    bands: (usize, usize),
}

/// The most groups with errors a run of the clean-run kernel keeps before they are mended
/// (`Codec::decode_run`).
const DIRTY: usize = 8;

/// Scratch space of the group kernels.
struct Scratch<const B: usize> {
    /// Parity (or syndrome) rows of one lane block.
    par: Vec<V<B>>,
    /// The kernel's own scratch.
    kernel: Vec<V<B>>,
    /// The accumulator strips of the whole-row kernel ([`Plan`]).
    acc: Vec<u64>,
    /// The whole-row kernel's parity rows (syndrome rows, when decoding).
    rows: Vec<u8>,
    /// The OR of the syndrome rows, word by word ([`Plan::syndrome`]).
    any: Vec<u64>,
    /// Parity rows of the single-word fast path.
    words: Vec<u64>,
    /// The syndromes of the groups with errors a run keeps ([`DIRTY`] at most;
    /// `Codec::decode_run`).
    dirty: Vec<V<B>>,
    /// A line (eight words) of each syndrome row a lane's key reads (at most
    /// [`KEY_BITS`] rows), for the whole-row decoder (`Codec::fix_rows`).
    lines: Vec<[u64; 8]>,
}

std::thread_local! {
    /// The whole-row buffers of the last [`Scratch`] this thread dropped, for the next one:
    /// a chunk of one group (`D = 4096` and deeper) is coded with a new scratch, and
    /// allocating and zeroing its buffers each time cost 10-15 % of the encoder's time.
    static SPARE: std::cell::Cell<(Vec<u64>, Vec<u8>, Vec<u64>)> =
        const { std::cell::Cell::new((Vec::new(), Vec::new(), Vec::new())) };
}

impl<const B: usize> Drop for Scratch<B> {
    fn drop(&mut self) {
        use std::mem::take;
        SPARE.set((
            take(&mut self.acc),
            take(&mut self.rows),
            take(&mut self.any),
        ));
    }
}

/// The block width (in 64-bit words) used for a row of `words` words in chunks of `groups`
/// groups. A decoder's row of exactly 64 words (`D = 4096`) in chunks of several groups is
/// one block: the clean-run kernel then reads the group's rows in place, one after the
/// other, with no second pass to copy the data rows (measured in docs/benchmarks.md,
/// "D = 4096 rows as one block"). Otherwise it is eight blocks, so that groups take the
/// whole-row kernel ([`Plan`]), and a chunk of one group the deep path (docs/benchmarks.md,
/// "The whole-row kernel", "Runs of rows and the copying fold"). Wider blocks for the
/// deeper depths would hold whole kilobyte rows in the kernel's accumulators.
fn block_words(words: usize, decoding: bool, groups: usize) -> usize {
    if words == 64 && decoding && groups > 1 {
        return 64;
    }
    [8, 4, 2, 1]
        .into_iter()
        .find(|b| words.is_multiple_of(*b))
        .expect("1 divides")
}

/// Calls `$codec.$f::<B>(args)` with `B` the codec's lane block width ([`block_words`]).
macro_rules! by_width {
    ($codec:ident . $f:ident ( $($a:expr),* )) => {{
        let codec = $codec;
        match codec.width {
            64 => codec.$f::<64>($($a),*),
            8 => codec.$f::<8>($($a),*),
            4 => codec.$f::<4>($($a),*),
            2 => codec.$f::<2>($($a),*),
            _ => codec.$f::<1>($($a),*),
        }
    }};
}

mod bands;
#[cfg(target_arch = "x86_64")]
mod columns;
mod crcs;
mod decode;
#[cfg(target_arch = "x86_64")]
mod deep_columns;
mod encode;
#[cfg(target_arch = "x86_64")]
mod lines;
mod verdict;

pub use decode::ChunkStats;
pub use verdict::{ChunkCheck, push_range};

impl Codec {
    /// Builds the codec for a layout; `decoding` also builds the single-error table.
    pub fn new(layout: Layout, decoding: bool) -> Codec {
        let code = code::build(&layout.spec);
        let kernel = Kernel::for_code(code.as_ref());
        let n = code.n();
        let k = code.k();
        let locator = Locator::new(code.as_ref(), &kernel, decoding);
        let third = layout.chunk_size / layout.group_data / 3 * layout.group_data;
        let last_piece = layout.chunk_size - (layout.chunk_size - 1) / CHECK_BLOCK * CHECK_BLOCK;
        let mut lens = vec![
            third,
            layout.chunk_size - 2 * third,
            CHECK_BLOCK,
            last_piece,
        ];
        for piece in [CHECK_BLOCK, last_piece] {
            let t = nt::chain(piece);
            lens.extend([t, piece - 2 * t]);
        }
        lens.sort_unstable();
        lens.dedup();
        let shifts = lens.into_iter().map(Shift::new).collect();
        let fast = kernel.fast64().filter(|_| layout.row_bytes == 8);
        let fused = kernel.fused64().filter(|_| fast.is_some());
        let plan = Plan::for_kernel(&kernel, k);
        Codec {
            sse42: Sse42::detect(),
            avx2: Avx2::detect(),
            fast,
            fused,
            mender: if decoding { Mender::detect() } else { None },
            #[cfg(target_arch = "x86_64")]
            columns: columns::Columns::detect(layout.row_bytes, &plan),
            #[cfg(target_arch = "x86_64")]
            lines: lines::Lines::detect(layout.row_bytes, &plan, &locator, decoding),
            bands: (bands::BANDED_FROM, bands::BAND),
            shifts,
            width: block_words(layout.row_bytes / 8, decoding, layout.chunk_groups),
            layout,
            plan,
            kernel,
            r: n - k,
            locator,
        }
    }

    /// Scratch space for the group kernels of lane blocks of `B` words.
    fn scratch<const B: usize>(&self) -> Scratch<B> {
        let (acc, rows, any) = SPARE.take();
        Scratch {
            par: vec![V::<B>::zero(); self.r],
            kernel: vec![V::<B>::zero(); self.kernel.scratch_len()],
            acc,
            rows,
            any,
            words: vec![0; self.r],
            dirty: Vec::new(),
            lines: vec![[0; 8]; self.r.min(KEY_BITS)],
        }
    }

    /// The parity rows of a group `g` of single-block rows into `s.par`: through the
    /// single-word fast path where the kernel has one ([`Kernel::group64`]), else through
    /// the lane-block kernel.
    fn block_parity<const B: usize>(&self, g: &[u8], s: &mut Scratch<B>) {
        if B == 1
            && let Some(fast) = &self.fast
            && self.kernel.group64::<false>(fast, g, &mut [], &mut s.words)
        {
            for (p, &w) in s.par.iter_mut().zip(&s.words) {
                p.0[0] = w;
            }
            return;
        }
        self.kernel
            .parity::<B>(self.avx2, g, &mut s.par, &mut s.kernel);
    }
}

/// Writes bytes `from..from + dst.len()` of a chunk's last region into `dst`: the region is
/// `rest` (the payload after the whole groups), zeros up to `at`, then `tail`.
fn fill_region(dst: &mut [u8], from: usize, rest: &[u8], at: usize, tail: &[u8]) {
    let to = from + dst.len();
    let clip = |a: usize, b: usize| a.clamp(from, to)..b.clamp(from, to);
    let (r, z, t) = (
        clip(0, rest.len()),
        clip(rest.len(), at),
        clip(at, at + tail.len()),
    );
    // Empty pieces are skipped: their clipped bounds may lie past the source.
    if !r.is_empty() {
        dst[r.start - from..r.end - from].copy_from_slice(&rest[r]);
    }
    dst[z.start - from..z.end - from].fill(0);
    if !t.is_empty() {
        dst[t.start - from..t.end - from].copy_from_slice(&tail[t.start - at..t.end - at]);
    }
}

/// The three pieces of `len` bytes at `0`, `step` and `2 step` of `buf`.
fn thirds(buf: &mut [u8], step: usize, len: usize) -> [&mut [u8]; 3] {
    let (a, rest) = buf.split_at_mut(step);
    let (b, c) = rest.split_at_mut(step);
    [&mut a[..len], &mut b[..len], &mut c[..len]]
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod micro;
