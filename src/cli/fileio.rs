//! Inputs and outputs of the stream subcommands: stdin/stdout or files, large buffers, and
//! outputs that appear under their final name only when they are complete.

use anyhow::{Context, bail};
use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Buffer size for every reader and writer: large, so the codec sees whole groups and the
/// system calls stay few.
pub const BUF_SIZE: usize = 1 << 20;

/// Where data comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// `None` and `-` mean stdin.
    pub fn from_arg(arg: Option<&Path>) -> Source {
        match arg {
            None => Source::Stdin,
            Some(p) if p.as_os_str() == "-" => Source::Stdin,
            Some(p) => Source::File(p.to_path_buf()),
        }
    }

    /// The path, unless this is stdin.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::Stdin => None,
            Source::File(p) => Some(p),
        }
    }

    /// How to name this input in messages.
    pub fn display(&self) -> String {
        match self {
            Source::Stdin => "standard input".into(),
            Source::File(p) => format!("`{}`", p.display()),
        }
    }

    /// Opens the input (read-only) and tells its size when it is a regular file.
    pub fn open(&self) -> anyhow::Result<(Box<dyn Read + Send>, Option<u64>)> {
        match self {
            Source::Stdin => {
                let stdin = io::stdin();
                widen_pipe(stdin.as_fd());
                Ok((Box::new(stdin), None))
            }
            Source::File(p) => {
                let f = File::open(p).with_context(|| format!("cannot open `{}`", p.display()))?;
                let meta = f
                    .metadata()
                    .with_context(|| format!("cannot stat `{}`", p.display()))?;
                if meta.is_dir() {
                    bail!("`{}` is a directory, expected a file", p.display());
                }
                let size = meta.is_file().then_some(meta.len());
                Ok((Box::new(f), size))
            }
        }
    }
}

/// The size [`widen_pipe`] asks for: Linux's default ceiling for an unprivileged process
/// (`/proc/sys/fs/pipe-max-size`).
const PIPE_SIZE: i32 = 1 << 20;

/// Widens the pipe behind `fd` (standard input or output) to [`PIPE_SIZE`] when it is one,
/// so that the two processes on its ends trade megabytes rather than the default 64 KiB per
/// wake-up. On anything else the call fails and changes nothing, as it does under a lower
/// system limit; the failure is ignored.
pub fn widen_pipe(fd: std::os::fd::BorrowedFd<'_>) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: `fcntl` with `F_SETPIPE_SZ` takes an integer argument and only changes a
        // pipe's capacity (other files refuse it); `fd` is open for the whole call (it is
        // borrowed).
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_SIZE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

/// Where data goes: stdout, or a temporary file beside the final name that is renamed into
/// place by [`Sink::commit`] (and removed if the sink is dropped uncommitted).
pub struct Sink {
    writer: BufWriter<Box<dyn Write + Send>>,
    target: Target,
}

enum Target {
    /// Standard output or a device: nothing to rename.
    Stdout,
    File {
        tmp: PathBuf,
        dest: PathBuf,
        done: bool,
    },
}

/// Says so on stderr when the input is a terminal, which waits for typing (as gzip does).
pub fn note_terminal_input(source: &Source) {
    use std::io::IsTerminal;
    if matches!(source, Source::Stdin) && io::stdin().is_terminal() {
        eprintln!("tilecode: reading from the terminal (end with Ctrl-D, or name a file)");
    }
}

/// Refuses to write a binary stream to a terminal, as zstd does, unless forced.
pub fn refuse_terminal_output(to_stdout: bool, force: bool) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    if to_stdout && !force && io::stdout().is_terminal() {
        bail!(
            "refusing to write a binary stream to the terminal (use -o FILE, a pipe, or --force)"
        );
    }
    Ok(())
}

/// Gives a decoded file the mode and modification time its stream records (best effort:
/// an error here does not undo the decode, it is printed as a warning). Only for a file the
/// decoder created ([`Sink::commit`]): never for a device such as `/dev/null`, whose mode
/// was once set to the original file's (`-rw-r--r--`, and no user but root could write to
/// it any more).
pub fn restore_metadata(dest: &Path, meta: &tilecode::stream::Metadata) {
    #[cfg(unix)]
    if let Some(mode) = meta.mode {
        use std::os::unix::fs::PermissionsExt;
        if let Err(e) = fs::set_permissions(dest, fs::Permissions::from_mode(mode & 0o7777)) {
            eprintln!(
                "tilecode: warning: cannot set the mode of `{}`: {e}",
                dest.display()
            );
        }
    }
    if let Some((secs, nanos)) = meta.mtime {
        let at = if secs >= 0 {
            std::time::UNIX_EPOCH + std::time::Duration::new(secs as u64, nanos)
        } else {
            std::time::UNIX_EPOCH - std::time::Duration::from_secs(secs.unsigned_abs())
        };
        let r = fs::OpenOptions::new()
            .write(true)
            .open(dest)
            .and_then(|f| f.set_modified(at));
        if let Err(e) = r {
            eprintln!(
                "tilecode: warning: cannot set the time of `{}`: {e}",
                dest.display()
            );
        }
    }
}

/// `None` means: the caller decides the default; `-` means stdout.
pub fn is_stdout(arg: Option<&Path>) -> bool {
    matches!(arg, Some(p) if p.as_os_str() == "-")
}

/// True when `a` and `b` name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

impl Sink {
    /// Standard output, buffered.
    pub fn stdout() -> Sink {
        widen_pipe(io::stdout().as_fd());
        Sink {
            writer: BufWriter::with_capacity(BUF_SIZE, Box::new(io::stdout())),
            target: Target::Stdout,
        }
    }

    /// A file at `dest`, written under a temporary name beside it. Refuses an existing `dest`
    /// unless `force`, and refuses to replace the input file in any case.
    pub fn file(dest: &Path, force: bool, input: Option<&Path>) -> anyhow::Result<Sink> {
        if let Some(inp) = input
            && same_file(inp, dest)
        {
            bail!(
                "output `{}` is the input file; choose another output",
                dest.display()
            );
        }
        // Devices and pipes (`/dev/null`, a FIFO) are written in place: there is nothing to
        // overwrite, and renaming a file over them would replace them.
        if let Ok(meta) = fs::metadata(dest)
            && !meta.is_file()
            && !meta.is_dir()
        {
            let f = fs::OpenOptions::new()
                .write(true)
                .open(dest)
                .with_context(|| format!("cannot open `{}`", dest.display()))?;
            return Ok(Sink {
                writer: BufWriter::with_capacity(BUF_SIZE, Box::new(f)),
                target: Target::Stdout,
            });
        }
        if dest.exists() && !force {
            bail!(
                "refusing to overwrite `{}` (it exists; use --force)",
                dest.display()
            );
        }
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest
            .file_name()
            .with_context(|| format!("output `{}` is not a file name", dest.display()))?
            .to_string_lossy()
            .into_owned();
        let mut attempt = 0u32;
        let (tmp, file) = loop {
            let tmp = dir.join(format!(".{name}.{}.{attempt}.tmp", std::process::id()));
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
            {
                Ok(f) => break (tmp, f),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                    attempt += 1;
                }
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("cannot create a temporary file in `{}`", dir.display())
                    });
                }
            }
        };
        super::signals::remove_on_signal(&tmp);
        Ok(Sink {
            writer: BufWriter::with_capacity(BUF_SIZE, Box::new(file)),
            target: Target::File {
                tmp,
                dest: dest.to_path_buf(),
                done: false,
            },
        })
    }

    /// The buffered writer.
    pub fn writer(&mut self) -> &mut BufWriter<Box<dyn Write + Send>> {
        &mut self.writer
    }

    /// Flushes, and for a file renames the temporary file to its final name; returns that
    /// name (`None` for standard output and devices, which are written in place).
    pub fn commit(mut self) -> anyhow::Result<Option<PathBuf>> {
        self.writer.flush().context("cannot write the output")?;
        if let Target::File { tmp, dest, done } = &mut self.target {
            fs::rename(&*tmp, &*dest).with_context(|| {
                format!("cannot rename `{}` to `{}`", tmp.display(), dest.display())
            })?;
            super::signals::forget(tmp);
            *done = true;
            return Ok(Some(dest.clone()));
        }
        Ok(None)
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Target::File {
            tmp, done: false, ..
        } = &self.target
        {
            let _ = fs::remove_file(tmp);
            super::signals::forget(tmp);
        }
    }
}

/// Bytes per memory page (and the alignment [`Block`] keeps).
const PAGE: usize = 4096;

/// A buffer of input read ahead, placed so that each byte sits at the same offset within a
/// memory page as within the input. The kernel then copies a cached file page to page; with
/// the source and destination a few bytes apart within a page instead (a malloc'd buffer,
/// 16 bytes past a page boundary, reading at file offsets that are multiples of a page),
/// `read` ran four times slower on the machine measured (docs/benchmarks.md).
#[derive(Debug)]
pub struct Block {
    mem: Vec<u8>,
    start: usize,
    len: usize,
}

impl Block {
    /// An empty block for up to `size` bytes.
    pub fn new(size: usize) -> Block {
        Block {
            mem: vec![0u8; size + PAGE],
            start: 0,
            len: 0,
        }
    }

    /// Empties the block.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Fills the block with the next `size` bytes of `input`, those from offset `pos` on
    /// (fewer at its end); returns the error that stopped it, after which the block holds
    /// what was read before it.
    pub fn fill(&mut self, input: &mut dyn Read, pos: u64, size: usize) -> Option<io::Error> {
        let space = self.space(pos, size);
        let mut got = 0;
        let mut error = None;
        while got < size {
            match input.read(&mut space[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        self.len = got;
        error
    }

    /// Up to `size` bytes of space for the input from offset `pos` on, congruent to it
    /// modulo the page size; empties the block.
    fn space(&mut self, pos: u64, size: usize) -> &mut [u8] {
        if self.mem.len() < size + PAGE {
            self.mem.resize(size + PAGE, 0);
        }
        let base = self.mem.as_ptr() as usize % PAGE;
        self.start = ((pos % PAGE as u64) as usize + PAGE - base) % PAGE;
        self.len = 0;
        &mut self.mem[self.start..self.start + size]
    }
}

impl std::ops::Deref for Block {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.mem[self.start..self.start + self.len]
    }
}

/// Reads ahead on a thread: while the codec works on one buffer the next is being read, so
/// the wall time is the larger of reading and coding rather than their sum.
///
/// Buffers are `size` bytes, filled completely except the last; at most `depth` exist.
pub struct ReadAhead {
    full: Receiver<io::Result<Block>>,
    empty: SyncSender<Block>,
    thread: Option<JoinHandle<()>>,
    /// The buffer `Read` is handing out, and how far.
    current: Block,
    pos: usize,
}

impl ReadAhead {
    /// Starts reading `input` in buffers of `size` bytes, `depth` of them in flight.
    pub fn new(mut input: Box<dyn Read + Send>, size: usize, depth: usize) -> ReadAhead {
        let depth = depth.max(1);
        let (full_tx, full) = sync_channel::<io::Result<Block>>(depth);
        let (empty, empty_rx) = sync_channel::<Block>(depth);
        let thread = std::thread::spawn(move || {
            let mut spare = depth;
            let mut pos = 0u64;
            loop {
                let mut buf = if spare > 0 {
                    spare -= 1;
                    Block::new(size)
                } else {
                    match empty_rx.recv() {
                        Ok(b) => b,
                        Err(_) => return,
                    }
                };
                let error = buf.fill(&mut *input, pos, size);
                let got = buf.len;
                pos += got as u64;
                let last = got < size;
                if got > 0 && full_tx.send(Ok(buf)).is_err() {
                    return;
                }
                if let Some(e) = error {
                    let _ = full_tx.send(Err(e));
                    return;
                }
                if last {
                    return;
                }
            }
        });
        ReadAhead {
            full,
            empty,
            thread: Some(thread),
            current: Block::new(0),
            pos: 0,
        }
    }

    /// The next filled buffer (only the last may be short), `None` at the end of the input.
    pub fn next_buf(&mut self) -> Option<io::Result<Block>> {
        self.full.recv().ok()
    }

    /// Hands a buffer back for reuse.
    pub fn recycle(&mut self, buf: Block) {
        let _ = self.empty.try_send(buf);
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.current.len() {
            match self.next_buf() {
                None => return Ok(0),
                Some(Err(e)) => return Err(e),
                Some(Ok(b)) => {
                    let old = std::mem::replace(&mut self.current, b);
                    self.recycle(old);
                    self.pos = 0;
                }
            }
        }
        let n = out.len().min(self.current.len() - self.pos);
        out[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        // Unblock the thread (it may wait to send or for a buffer), then let it end. A thread
        // stuck in a read of a pipe is left to end with the process.
        let (_, rx) = sync_channel(0);
        drop(std::mem::replace(&mut self.full, rx));
        let (tx, _) = sync_channel(0);
        drop(std::mem::replace(&mut self.empty, tx));
        if let Some(t) = self.thread.take()
            && t.is_finished()
        {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The capacity of the pipe behind `fd`.
    #[cfg(target_os = "linux")]
    fn pipe_size(fd: std::os::fd::BorrowedFd<'_>) -> i32 {
        use std::os::fd::AsRawFd;
        // SAFETY: `F_GETPIPE_SZ` reads the capacity of an open pipe.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ) }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn pipes_are_widened_and_files_left_alone() {
        let (reader, writer) = io::pipe().unwrap();
        let before = pipe_size(reader.as_fd());
        widen_pipe(reader.as_fd());
        let after = pipe_size(reader.as_fd());
        // Both ends share the pipe; under a system limit below 1 MiB an unprivileged
        // process is refused and the pipe stays as it was.
        assert_eq!(pipe_size(writer.as_fd()), after);
        let limit: i32 = fs::read_to_string("/proc/sys/fs/pipe-max-size")
            .map_or(0, |s| s.trim().parse().unwrap_or(0));
        if limit >= PIPE_SIZE {
            assert!(after >= PIPE_SIZE, "{before} -> {after}");
        } else {
            assert!(after >= before, "{before} -> {after}");
        }
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("f")).unwrap();
        widen_pipe(file.as_fd());
        assert_eq!(pipe_size(file.as_fd()), -1, "a file has no pipe size");
    }

    #[test]
    fn dash_and_none_are_stdin() {
        assert_eq!(Source::from_arg(None), Source::Stdin);
        assert_eq!(Source::from_arg(Some(Path::new("-"))), Source::Stdin);
        assert_eq!(
            Source::from_arg(Some(Path::new("a.tc"))),
            Source::File("a.tc".into())
        );
        assert!(is_stdout(Some(Path::new("-"))));
        assert!(!is_stdout(None));
    }

    #[test]
    fn sink_appears_only_on_commit_and_cleans_up_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.bin");
        let mut s = Sink::file(&dest, false, None).unwrap();
        s.writer().write_all(b"hello").unwrap();
        s.writer().flush().unwrap();
        assert!(!dest.exists());
        s.commit().unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"hello");

        // Existing output: refused without force.
        let err = Sink::file(&dest, false, None).err().unwrap();
        assert!(err.to_string().contains("refusing to overwrite"), "{err}");

        // Dropped uncommitted: no temporary file left, destination untouched.
        let mut s = Sink::file(&dest, true, None).unwrap();
        s.writer().write_all(b"other").unwrap();
        drop(s);
        assert_eq!(fs::read(&dest).unwrap(), b"hello");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn read_ahead_delivers_everything_in_order() {
        for (len, size, depth) in [
            (0usize, 7usize, 1usize),
            (1, 7, 2),
            (100, 7, 3),
            (70, 7, 2),
            (5000, 1024, 4),
        ] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 % 256) as u8).collect();
            // As whole buffers.
            let mut ra = ReadAhead::new(Box::new(io::Cursor::new(data.clone())), size, depth);
            let mut got = Vec::new();
            let mut sizes = Vec::new();
            let mut starts = Vec::new();
            while let Some(b) = ra.next_buf() {
                let b = b.unwrap();
                starts.push((b.as_ptr() as usize, got.len()));
                sizes.push(b.len());
                got.extend_from_slice(&b);
                ra.recycle(b);
            }
            assert_eq!(got, data);
            assert!(sizes.iter().rev().skip(1).all(|&s| s == size), "{sizes:?}");
            assert!(
                starts.iter().all(|&(at, pos)| at % PAGE == pos % PAGE),
                "{starts:?}"
            );
            assert!(sizes.iter().all(|&s| s > 0));
            // Through Read, in odd pieces.
            let mut ra = ReadAhead::new(Box::new(io::Cursor::new(data.clone())), size, depth);
            let mut got = Vec::new();
            let mut piece = [0u8; 5];
            loop {
                let n = ra.read(&mut piece).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&piece[..n]);
            }
            assert_eq!(got, data);
        }
    }

    #[test]
    fn read_ahead_passes_errors_and_can_be_dropped_early() {
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::other("disk on fire"));
                }
                let n = self.0.min(buf.len()).min(3);
                self.0 -= n;
                Ok(n)
            }
        }
        let mut ra = ReadAhead::new(Box::new(Failing(10)), 4, 2);
        let mut v = Vec::new();
        let err = ra.read_to_end(&mut v).unwrap_err();
        assert_eq!(err.to_string(), "disk on fire");
        assert_eq!(v.len(), 10);
        let ra = ReadAhead::new(Box::new(io::repeat(1)), 16, 2);
        drop(ra);
    }

    #[test]
    fn devices_are_written_in_place() {
        let mut s = Sink::file(Path::new("/dev/null"), false, None).unwrap();
        s.writer().write_all(b"gone").unwrap();
        s.commit().unwrap();
        assert!(!fs::metadata("/dev/null").unwrap().is_file());
    }

    #[test]
    fn output_equal_to_input_is_refused_even_with_force() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        fs::write(&p, b"data").unwrap();
        let err = Sink::file(&p, true, Some(&p)).err().unwrap();
        assert!(err.to_string().contains("is the input file"), "{err}");
        assert_eq!(fs::read(&p).unwrap(), b"data");
    }
}
