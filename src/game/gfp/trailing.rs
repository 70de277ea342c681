//! The trailing update of one panel of the packed elimination (see the parent module): the
//! rows right of a panel take all of its pivot rows at once, tile by tile.

use super::kernels::Kernels;

/// Columns per tile of a trailing update (the panel's pivot rows' tiles stay in cache).
const TILE: usize = 2048;

/// The largest `p` whose trailing updates add precomputed multiples in bytes.
const BYTE_MODE: u8 = 16;

/// The trailing update of one panel: each row takes `sum g_k U_k` over the panel's pivot
/// rows `U_k` (right of the panel), reduced only every `cap` terms. For `p <= 16` the
/// multiples `g U_k mod p` are computed once per panel and added bytewise in place; for larger
/// `p` the products are summed in 16-bit lanes.
pub(super) struct Trailing {
    k: Kernels,
    /// The panel's end: the trailing columns start here.
    c1: usize,
    /// The trailing parts of the panel's pivot rows, one after the other.
    ubuf: Vec<u8>,
    /// Where each pivot row's part starts in `ubuf`, and its length.
    parts: Vec<(usize, usize)>,
    acc: Vec<u16>,
    /// Terms that fit a lane: `(p - 1) + cap (p - 1) < 2^8` in byte mode,
    /// `(p - 1) + cap (p - 1)^2 < 2^16` otherwise.
    cap: usize,
    bytes: bool,
    /// The panel's width right of `c1` (byte mode pads every part to it).
    width: usize,
}

impl Trailing {
    pub(super) fn new(k: Kernels) -> Trailing {
        let q = k.p() as usize - 1;
        let bytes = k.p() <= BYTE_MODE;
        Trailing {
            k,
            c1: 0,
            ubuf: Vec::new(),
            parts: Vec::new(),
            acc: vec![0; TILE],
            cap: if bytes {
                (255 - q) / q
            } else {
                ((65535 - q) / (q * q)).max(1)
            },
            bytes,
            width: 0,
        }
    }

    /// Starts a panel ending at column `c1` whose pivot rows end at `c1 + width` at most.
    pub(super) fn start(&mut self, c1: usize, width: usize) {
        self.c1 = c1;
        self.width = width;
        self.ubuf.clear();
        self.parts.clear();
    }

    /// Records the next pivot row's trailing part (in byte mode, its multiples by `1..p`,
    /// each padded with zeros to the panel's width so that every term covers the same span).
    pub(super) fn push(&mut self, part: &[u8]) {
        self.parts.push((self.ubuf.len(), part.len()));
        if !self.bytes {
            self.ubuf.extend_from_slice(part);
            return;
        }
        let p = self.k.p();
        for g in 1..p {
            self.ubuf.extend(
                part.iter()
                    .map(|&v| ((g as u16 * v as u16) % p as u16) as u8),
            );
            self.ubuf
                .resize(self.ubuf.len() + self.width - part.len(), 0);
        }
    }

    /// Updates `row` (nonzero before `hi`) with the panel's pivot rows: its multiplier for the
    /// `s`-th is at column `pcols[s]`.
    pub(super) fn update(&mut self, row: &mut [u8], hi: usize, pcols: &[usize]) {
        let (c1, p) = (self.c1, self.k.p());
        let terms: Vec<(u8, usize, usize)> = pcols
            .iter()
            .zip(&self.parts)
            .filter(|&(&j, &(_, len))| row[j] != 0 && len > 0)
            .map(|(&j, &(off, len))| (p - row[j], off, len))
            .collect();
        if terms.is_empty() {
            return;
        }
        if self.bytes {
            // Every padded part covers `c1..c1 + width`, and each pivot row this row takes ends
            // before `hi`.
            let (w, h) = (self.width, hi.min(c1 + self.width));
            for t0 in (c1..h).step_by(TILE) {
                let t1 = (t0 + TILE).min(h);
                // The terms' sources on this tile, in fours.
                let full: Vec<&[u8]> = terms
                    .iter()
                    .map(|&(g, off, _)| {
                        let off = off + (g as usize - 1) * w;
                        &self.ubuf[off + t0 - c1..off + t1 - c1]
                    })
                    .collect();
                let mut n = 0;
                let mut fours = full.chunks_exact(4);
                for four in fours.by_ref() {
                    if n + 4 > self.cap {
                        self.k.reduce8(&mut row[t0..t1]);
                        n = 0;
                    }
                    self.k
                        .add8x4(&mut row[t0..t1], [four[0], four[1], four[2], four[3]]);
                    n += 4;
                }
                for &x in fours.remainder() {
                    if n == self.cap {
                        self.k.reduce8(&mut row[t0..t1]);
                        n = 0;
                    }
                    self.k.add8(&mut row[t0..t0 + x.len()], x);
                    n += 1;
                }
                self.k.reduce8(&mut row[t0..t1]);
            }
            return;
        }
        for t0 in (c1..hi).step_by(TILE) {
            let t1 = (t0 + TILE).min(hi);
            let acc = &mut self.acc[..t1 - t0];
            for (x, &v) in acc.iter_mut().zip(&row[t0..t1]) {
                *x = v as u16;
            }
            let mut n = 0;
            for &(g, off, len) in &terms {
                let e = t1.min(c1 + len);
                if e <= t0 {
                    continue;
                }
                if n == self.cap {
                    self.k.reduce16(acc);
                    n = 0;
                }
                let src = &self.ubuf[off + t0 - c1..off + e - c1];
                self.k.madd16(&mut acc[..e - t0], src, g);
                n += 1;
            }
            self.k.store16(&mut row[t0..t1], acc);
        }
    }
}
