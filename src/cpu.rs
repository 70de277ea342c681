//! The CPU's instruction-set extensions, detected once for the whole crate.
//!
//! Every fast path compiled with `#[target_feature(enable = ...)]` (the stream's group kernels,
//! CRC and GF(256) paths, the GF(2) table builders, the shortest-solution walks) is chosen by
//! a flag of [`features`], and its `unsafe` call is justified by that flag: this module is the
//! only place that asks the CPU (through `std::arch::is_x86_feature_detected!`). The answer is
//! taken on the first call and kept; a call after that is one load.
//!
//! Code that runs a path per group or per chunk reads the flag once, when it builds the object
//! that runs it (a codec's kernel evidence, a set of GF(2) tables), not on every call.

use std::sync::OnceLock;

/// The extensions the crate's fast paths use; all `false` on other architectures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// SSE4.2 (the CRC-32C instruction).
    pub sse42: bool,
    /// PCLMULQDQ (carry-less multiplication: CRC shifts).
    pub pclmulqdq: bool,
    /// VPCLMULQDQ (carry-less multiplication in every 128-bit lane of a vector: CRC
    /// folding).
    pub vpclmulqdq: bool,
    /// POPCNT.
    pub popcnt: bool,
    /// AVX2.
    pub avx2: bool,
    /// AVX-512 Foundation.
    pub avx512f: bool,
    /// AVX-512 Byte and Word.
    pub avx512bw: bool,
    /// AVX-512 VBMI (byte permutes across a whole register).
    pub avx512vbmi: bool,
    /// GFNI (Galois-field affine and multiply instructions).
    pub gfni: bool,
}

impl Features {
    /// Asks the CPU (every call; [`features`] keeps the first answer).
    pub fn detect() -> Features {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            Features {
                sse42: has!("sse4.2"),
                pclmulqdq: has!("pclmulqdq"),
                vpclmulqdq: has!("vpclmulqdq"),
                popcnt: has!("popcnt"),
                avx2: has!("avx2"),
                avx512f: has!("avx512f"),
                avx512bw: has!("avx512bw"),
                avx512vbmi: has!("avx512vbmi"),
                gfni: has!("gfni"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Features::default()
    }
}

/// This CPU's extensions, detected on the first call.
///
/// A `target_feature` function may be called when the flags of the features it enables are
/// set here: they are the processor's own answer. (A [`Features`] built by hand proves
/// nothing; nothing in the crate takes one in place of this.)
#[inline]
pub fn features() -> &'static Features {
    static FEATURES: OnceLock<Features> = OnceLock::new();
    FEATURES.get_or_init(Features::detect)
}

/// Evidence that the CPU has AVX2, taken from [`features`] (the only way to build one).
///
/// It lets portable code be compiled a second time for AVX2 (`avx2_twins!`): the `unsafe`
/// call of the AVX2 build is sound because this evidence exists.
#[derive(Clone, Copy, Debug)]
pub struct Avx2(());

impl Avx2 {
    /// The evidence when the CPU has AVX2.
    pub fn detect() -> Option<Avx2> {
        (cfg!(target_arch = "x86_64") && features().avx2).then_some(Avx2(()))
    }
}

/// Evidence that the CPU has AVX-512 F (and with it AVX2), taken from [`features`] (the only
/// way to build one).
#[derive(Clone, Copy, Debug)]
pub struct Avx512(());

impl Avx512 {
    /// The evidence when the CPU has AVX-512 F and AVX2.
    pub fn detect() -> Option<Avx512> {
        let f = features();
        (cfg!(target_arch = "x86_64") && f.avx512f && f.avx2).then_some(Avx512(()))
    }
}

/// Kernels written once in portable Rust and run compiled for AVX2 where the CPU has it.
///
/// For each `fn name<const ...>(args) -> R = body;` it defines `name(avx2, args) -> R`, with
/// `avx2: Option<Avx2>`: with the evidence it calls `body` through a
/// `#[target_feature(enable = "avx2")]` twin, so that `body` (marked `#[inline(always)]` down
/// to its loops) is inlined there and vectorised with 256-bit registers; without it, `body` as
/// it is. Keep the twins at the level of a kernel call (a row operation, one group's parity),
/// not of whole chunk drivers: every twin is a second full optimisation of everything inlined
/// into it, and build time grows with it.
macro_rules! avx2_twins {
    ($(
        $(#[$meta:meta])*
        $vis:vis fn $name:ident $(<$(const $g:ident: $gt:ty),*>)?
            ($($a:ident: $t:ty),* $(,)?) $(-> $r:ty)? = $($body:ident)::+;
    )*) => {$(
        $(#[$meta])*
        $vis fn $name $(<$(const $g: $gt),*>)? (
            avx2: Option<$crate::cpu::Avx2>,
            $($a: $t),*
        ) $(-> $r)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn wide $(<$(const $g: $gt),*>)? ($($a: $t),*) $(-> $r)? {
                    $($body)::+ $(::<$($g),*>)? ($($a),*)
                }
                if avx2.is_some() {
                    // SAFETY: the `Avx2` evidence shows that the CPU has AVX2.
                    return unsafe { wide $(::<$($g),*>)? ($($a),*) };
                }
            }
            let _ = avx2;
            $($body)::+ $(::<$($g),*>)? ($($a),*)
        }
    )*};
}
pub(crate) use avx2_twins;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_are_the_cpus_answer_and_kept() {
        let f = features();
        assert_eq!(*f, Features::detect());
        assert!(std::ptr::eq(f, features()));
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(f.avx2, std::arch::is_x86_feature_detected!("avx2"));
            assert_eq!(f.sse42, std::arch::is_x86_feature_detected!("sse4.2"));
            assert_eq!(f.gfni, std::arch::is_x86_feature_detected!("gfni"));
        }
    }
}
