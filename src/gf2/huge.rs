//! Large matrices in transparent huge pages.
//!
//! The blocked eliminator walks down the rows of a chunk of words: one cache line per row, a
//! row often a page or more from the next. With 4 KiB pages nearly every such step misses the
//! TLB; with 2 MiB pages a few hundred rows share one entry. On Linux, [`with_huge_pages`] runs
//! the work on a copy in memory advised for huge pages (`madvise(MADV_HUGEPAGE)`, honoured where
//! transparent huge pages are enabled as `always` or `madvise`) and copies the result back; the
//! two copies cost a few percent of one elimination. Elsewhere, or if the advice is refused, it
//! runs on the data in place.

/// Copies are made from this many words on (16 MiB): below, the TLB covers the matrix.
const MIN_WORDS: usize = 1 << 21;

/// Runs `f` on `data`, or on a copy of it in huge pages that is copied back afterwards.
pub(super) fn with_huge_pages<R>(data: &mut [u64], f: impl FnOnce(&mut [u64]) -> R) -> R {
    if data.len() < MIN_WORDS {
        return f(data);
    }
    match huge_copy(data) {
        Some((mut buf, start)) => {
            let copy = &mut buf[start..start + data.len()];
            let result = f(copy);
            data.copy_from_slice(copy);
            result
        }
        None => f(data),
    }
}

/// A buffer holding `data` from word `start` on, that start aligned to 2 MiB and the memory
/// after it advised for huge pages before it was first written.
#[cfg(target_os = "linux")]
fn huge_copy(data: &[u64]) -> Option<(Vec<u64>, usize)> {
    const HUGE: usize = 2 << 20;
    const MADV_HUGEPAGE: i32 = 14;
    unsafe extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    let mut buf: Vec<u64> = Vec::with_capacity(data.len() + HUGE / 8);
    let addr = buf.as_mut_ptr() as usize;
    let start = (addr.next_multiple_of(HUGE) - addr) / 8;
    let len = (data.len() * 8).next_multiple_of(HUGE);
    // SAFETY: madvise only changes how the kernel backs the pages of this range, which lies
    // inside the buffer's allocation (start + len / 8 <= capacity); no memory is read or written.
    let rc = unsafe {
        madvise(
            (addr + 8 * start) as *mut std::ffi::c_void,
            len.min(8 * (buf.capacity() - start)),
            MADV_HUGEPAGE,
        )
    };
    if rc != 0 {
        return None;
    }
    buf.resize(start, 0);
    buf.extend_from_slice(data);
    Some((buf, start))
}

#[cfg(not(target_os = "linux"))]
fn huge_copy(_data: &[u64]) -> Option<(Vec<u64>, usize)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_on_a_faithful_copy() {
        let mut data: Vec<u64> = (0..MIN_WORDS as u64 + 5).collect();
        let sum = with_huge_pages(&mut data, |d| {
            let s: u64 = d.iter().sum();
            d[3] = 99;
            s
        });
        assert_eq!(sum, (0..MIN_WORDS as u64 + 5).sum::<u64>());
        assert_eq!((data[2], data[3], data[4]), (2, 99, 4));
        let mut small = vec![1u64; 10];
        with_huge_pages(&mut small, |d| d[0] = 7);
        assert_eq!(small[0], 7);
    }
}
