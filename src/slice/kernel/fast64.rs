//! The single-word fast path (`D = 64`) over runs of groups: the AVX2 group kernel of a code
//! (the `avx2` module) chosen once for the run, and the loop over the run's groups compiled
//! with it, so that a group costs no call, no dispatch on the kernel and no spill of the
//! kernel's arguments. With a call to [`Kernel::group64`] and the syndrome compared by the
//! codec for each group, the decoder of `alien:3x9` at `D = 64` spent more time around the
//! kernel than in it (docs/benchmarks.md, "The fast path's group loop").

#[cfg(target_arch = "x86_64")]
use super::{DynPlans, Kernel, SCALAR_COMPARE, Secded72, as_blocks, avx2, grid64, store_blocks};

/// [`run`]: one group (`src` its data words; `out` their copy when copying, else empty).
pub(super) const ONE: u8 = 0;
/// [`run`]: groups encoded (`src` their payloads of `gd` bytes, `out` the groups of `gb`
/// bytes: the data words copied, the parity words after them).
pub(super) const ENCODE: u8 = 1;
/// [`run`]: received groups (`src` of `gb` bytes each) decoded while their syndrome is zero
/// (`out` their data words, `gd` bytes a group).
pub(super) const CLEAN: u8 = 2;

/// The loop of [`run`] over its groups, the group kernel `$call` (of the data words `$s`,
/// their copy `$c` and the parity words `$p`) pasted into it: through a closure, LLVM kept
/// the kernel a call per group.
#[cfg(target_arch = "x86_64")]
macro_rules! groups {
    ($mode:ident, $src:ident, $out:ident, $gd:ident, $gb:ident, $words:ident,
     |$s:ident, $c:ident, $p:ident| $call:expr) => {{
        let r = ($gb - $gd) / 8;
        match $mode {
            ONE => {
                let ($s, $c, $p) = ($src, &mut *$out, &mut *$words);
                $call;
                1
            }
            ENCODE => {
                for (g, o) in $src.chunks_exact($gd).zip($out.chunks_exact_mut($gb)) {
                    let (od, op) = o.split_at_mut($gd);
                    let ($s, $c, $p) = (g, od, &mut *$words);
                    $call;
                    store_blocks(as_blocks(&$words[..r]), op);
                }
                $src.len() / $gd
            }
            _ => {
                let mut clean = $src.len() / $gb;
                let runs = $src.chunks_exact($gb).zip($out.chunks_exact_mut($gd));
                for (i, (e, o)) in runs.enumerate() {
                    let (ed, ep) = e.split_at($gd);
                    let ($s, $c, $p) = (ed, o, &mut *$words);
                    $call;
                    let ep = ep.as_chunks::<8>().0;
                    // As the portable clean run: few check rows word by word, with an early
                    // exit, more of them OR-ed (vectorised).
                    let add = |(w, p): (&u64, &[u8; 8])| w ^ u64::from_le_bytes(*p);
                    let dirty = if r <= SCALAR_COMPARE {
                        !$words[..r].iter().zip(ep).all(|x| add(x) == 0)
                    } else {
                        $words[..r].iter().zip(ep).fold(0, |a, x| a | add(x)) != 0
                    };
                    if dirty {
                        for (w, p) in $words[..r].iter_mut().zip(ep) {
                            *w ^= u64::from_le_bytes(*p);
                        }
                        clean = i;
                        break;
                    }
                }
                clean
            }
        }
    }};
}

/// Runs the fast kernel of `kernel` over `src` as `MODE` says ([`ONE`], [`ENCODE`],
/// [`CLEAN`]), copying the data words when `COPY` (always, but for [`ONE`]). The parity
/// words of the last group are left in `words`, or for [`CLEAN`] the syndrome of the first
/// group whose syndrome is not zero. Returns the number of groups done (for [`CLEAN`], the
/// clean ones before the first that is not), or `None`, having done nothing, for a family
/// without a kernel here. Which sizes of a family have one is `Kernel::has_group64_path`'s
/// to say, and the caller's to check first.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn run<const COPY: bool, const MODE: u8>(
    kernel: &Kernel,
    src: &[u8],
    out: &mut [u8],
    gd: usize,
    gb: usize,
    words: &mut [u64],
) -> Option<usize> {
    // SAFETY (every kernel call below): the caller shows that the CPU has AVX2. The alien
    // boards' sizes are those `Kernel::has_group64_path` admits (checked by the caller; the
    // kernels assert them).
    let done = match *kernel {
        Kernel::AlienOddOdd { m, n } => {
            groups!(MODE, src, out, gd, gb, words, |s, c, p| unsafe {
                grid64::alien_odd_odd::<COPY>(s, c, m, n, p)
            })
        }
        Kernel::AlienEvenOdd { m, n } => {
            groups!(MODE, src, out, gd, gb, words, |s, c, p| unsafe {
                grid64::alien_even_odd::<COPY>(s, c, m, n, p)
            })
        }
        Kernel::AlienOddEven { m, n } => {
            groups!(MODE, src, out, gd, gb, words, |s, c, p| unsafe {
                grid64::alien_odd_even::<COPY>(s, c, m, n, p)
            })
        }
        Kernel::Hamming { secded72: true, .. } => {
            groups!(MODE, src, out, gd, gb, words, |s, c, p| unsafe {
                avx2::hamming_plan::<COPY, _>(s, c, Secded72, p)
            })
        }
        Kernel::Hamming {
            plan: Some(ref plan),
            checks,
            overall,
            ..
        } if (3..=7).contains(&checks) && plan.len() <= 16 => {
            let plans = DynPlans {
                rows: plan,
                checks,
                overall,
            };
            groups!(MODE, src, out, gd, gb, words, |s, c, p| unsafe {
                avx2::hamming_plan::<COPY, _>(s, c, plans, p)
            })
        }
        Kernel::Hamming {
            ref grid,
            ref starts,
            checks,
            overall,
            ..
        } if (3..=7).contains(&checks) => {
            groups!(MODE, src, out, gd, gb, words, |s, c, p| unsafe {
                avx2::hamming::<COPY, 2>(s, c, grid, starts, checks, overall, p)
            })
        }
        Kernel::Hamming {
            ref grid,
            ref starts,
            checks,
            overall,
            ..
        } if (8..=avx2::MAX_CHECKS).contains(&checks) => {
            const LONG: usize = avx2::MAX_CHECKS - 5;
            groups!(MODE, src, out, gd, gb, words, |s, c, p| unsafe {
                avx2::hamming::<COPY, LONG>(s, c, grid, starts, checks, overall, p)
            })
        }
        _ => return None,
    };
    Some(done)
}
