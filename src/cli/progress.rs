//! A progress bar on stderr for long runs: only when stderr is a terminal and the input is
//! known to be large, so pipes and logs stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Read};

/// Inputs larger than this get a progress bar.
pub const LARGE_INPUT: u64 = 64 << 20;

/// Should a run over `size` input bytes show a bar, given whether stderr is a terminal?
pub fn wanted(size: Option<u64>, stderr_is_terminal: bool, quiet: bool) -> bool {
    !quiet && stderr_is_terminal && size.is_some_and(|s| s > LARGE_INPUT)
}

/// A byte-counting bar for `size` input bytes, or `None` when it is not wanted.
pub fn bar(size: Option<u64>, quiet: bool) -> Option<ProgressBar> {
    if !wanted(size, std::io::stderr().is_terminal(), quiet) {
        return None;
    }
    let pb = ProgressBar::with_draw_target(size, ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    pb.set_style(style);
    Some(pb)
}

/// Wraps a reader so reading advances the bar (when there is one).
pub fn wrap(reader: Box<dyn Read + Send>, bar: Option<&ProgressBar>) -> Box<dyn Read + Send> {
    match bar {
        Some(pb) => Box::new(pb.wrap_read(reader)),
        None => reader,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_large_inputs_on_a_terminal() {
        assert!(wanted(Some(LARGE_INPUT + 1), true, false));
        assert!(!wanted(Some(LARGE_INPUT), true, false));
        assert!(!wanted(Some(LARGE_INPUT + 1), false, false));
        assert!(!wanted(Some(LARGE_INPUT + 1), true, true));
        assert!(!wanted(None, true, false));
    }

    #[test]
    fn wrapped_reader_counts_bytes() {
        let pb = ProgressBar::hidden();
        pb.set_length(10);
        let mut r = wrap(Box::new(&b"0123456789"[..]), Some(&pb));
        let mut v = Vec::new();
        r.read_to_end(&mut v).unwrap();
        assert_eq!(v.len(), 10);
        assert_eq!(pb.position(), 10);
    }
}
