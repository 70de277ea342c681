//! Interrupted jobs leave nothing behind: SIGINT, SIGTERM and SIGHUP remove every temporary
//! output file still being written, then exit with 128 + the signal number (130, 143, 129),
//! as shells expect.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files to remove if the process is interrupted.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Starts the thread that handles the signals (once, at start-up).
pub fn install() {
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            let pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
            for p in pending.iter() {
                let _ = std::fs::remove_file(p);
            }
            std::process::exit(128 + sig);
        }
    });
}

/// Removes `path` if the process is interrupted, until [`forget`] is called for it.
pub fn remove_on_signal(path: &Path) {
    PENDING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(path.to_path_buf());
}

/// Stops watching `path` (it was renamed into place or removed).
pub fn forget(path: &Path) {
    PENDING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| p != path);
}
