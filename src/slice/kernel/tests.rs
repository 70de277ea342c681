//! The fast kernels against the portable ones.

use super::*;
use crate::code;
use rand::{RngCore, SeedableRng};

/// secded:72 takes its own compiled plan (so `fast_kernels_match_the_portable_ones`
/// checks that plan), and no other code does.
#[test]
fn secded72_has_its_fixed_plan() {
    let fixed = |spec: Spec| {
        matches!(
            Kernel::for_code(code::build(&spec).as_ref()),
            Kernel::Hamming { secded72: true, .. }
        )
    };
    assert!(fixed(Spec::Secded(72)));
    for n in (4..=130).filter(|&n| n != 72) {
        assert!(!fixed(Spec::Secded(n)), "secded:{n}");
    }
    for n in 3..=130 {
        assert!(!fixed(Spec::Hamming(n)), "hamming:{n}");
    }
}

/// Every code with a single-word fast path: its parity rows and copy equal the portable
/// kernel's, on random groups.
#[test]
fn fast_kernels_match_the_portable_ones() {
    // Alien boards of every shape up to 19 by 19 (grids of 4q and 4q + 2 columns, one to
    // four registers a row), the tallest, and wider ones (which take the portable kernel).
    let mut specs: Vec<Spec> = (2..=19)
        .flat_map(|m| (2..=19).map(move |n| Spec::Alien { rows: m, cols: n }))
        .collect();
    for (m, n) in [(64, 5), (64, 19), (63, 18), (63, 19), (3, 21), (4, 63)] {
        specs.push(Spec::Alien { rows: m, cols: n });
    }
    specs.extend((4..=130).map(Spec::Secded));
    specs.extend((3..=130).map(Spec::Hamming));
    // Long codes: grids of any length, check rows added four grid rows at a time.
    let long = [
        131, 137, 200, 255, 256, 266, 300, 511, 523, 1000, 1024, 2100, 4500,
    ];
    specs.extend(
        long.iter()
            .flat_map(|&n| [Spec::Secded(n), Spec::Hamming(n)]),
    );
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let mut fast_paths = 0;
    for spec in specs {
        let code = code::build(&spec);
        let kernel = Kernel::for_code(code.as_ref());
        let (k, r) = (code.k(), code.n() - code.k());
        let Some(fast) = kernel.fast64() else {
            continue;
        };
        for _ in 0..20 {
            let mut rows = vec![0u8; 8 * k];
            rng.fill_bytes(&mut rows);
            let mut copy = vec![0u8; 8 * k];
            let mut par = vec![0u64; r];
            if !kernel.group64::<true>(&fast, &rows, &mut copy, &mut par) {
                break;
            }
            let mut bare = vec![0u64; r];
            assert!(kernel.group64::<false>(&fast, &rows, &mut [], &mut bare));
            let mut want = vec![V::<1>::zero(); r];
            let mut scratch = vec![V::<1>::zero(); kernel.scratch_len()];
            let mut want_copy = vec![0u8; 8 * k];
            kernel.parity_copy::<1, true>(None, &rows, &mut want_copy, &mut want, &mut scratch);
            let want: Vec<u64> = want.iter().map(|v| v.0[0]).collect();
            assert_eq!(par, want, "{spec}");
            assert_eq!(bare, want, "{spec}");
            assert_eq!(copy, rows, "{spec}");
            assert_eq!(want_copy, rows, "{spec}");
            fast_paths += 1;
        }
    }
    if crate::cpu::features().avx2 && crate::cpu::features().popcnt {
        assert!(fast_paths > 6000, "{fast_paths}");
    }
    let _ = fast_paths;
}

/// `copy_short` is `copy_from_slice` at every length through the last of its fixed sizes and
/// past it, at every start in a word; `store_blocks` writes what `V::store` writes block by
/// block.
#[test]
fn short_copies_and_block_stores_match_the_plain_ones() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let mut src = vec![0u8; 300];
    rng.fill_bytes(&mut src);
    for len in 8..=290 {
        for start in 0..8 {
            let mut got = vec![0xAAu8; 300];
            let mut want = got.clone();
            copy_short(&mut got[start..start + len], &src[..len]);
            want[start..start + len].copy_from_slice(&src[..len]);
            assert_eq!(got, want, "len {len} start {start}");
        }
    }
    for rows in 1..=40 {
        let vs: Vec<V<2>> = (0..rows)
            .map(|_| V([rng.next_u64(), rng.next_u64()]))
            .collect();
        let mut got = vec![0u8; 16 * rows];
        store_blocks(&vs, &mut got);
        let mut want = vec![0u8; 16 * rows];
        for (v, d) in vs.iter().zip(want.chunks_exact_mut(16)) {
            v.store(d);
        }
        assert_eq!(got, want, "{rows} rows");
        let words: Vec<u64> = (0..rows).map(|_| rng.next_u64()).collect();
        let mut got = vec![0u8; 8 * rows];
        store_blocks(as_blocks(&words), &mut got);
        let want: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(got, want, "{rows} words");
        let mut parity = vec![0u8; 8 * rows];
        store_parity(as_blocks(&words), &mut parity);
        assert_eq!(parity, want, "{rows} parity words");
        let mut blocks = vec![0u8; 16 * rows];
        store_parity(&vs, &mut blocks);
        assert_eq!(blocks, got_blocks(&vs), "{rows} parity blocks");
    }
}

/// Lane blocks as `V::store` writes them, one after the other.
fn got_blocks<const B: usize>(vs: &[V<B>]) -> Vec<u8> {
    let mut out = vec![0u8; 8 * B * vs.len()];
    for (v, d) in vs.iter().zip(out.chunks_exact_mut(8 * B)) {
        v.store(d);
    }
    out
}
