//! `tilecode encode`: protect a file or a pipe with an error-correcting code.

use super::fileio::{
    BUF_SIZE, Block, ReadAhead, Sink, Source, is_stdout, note_terminal_input,
    refuse_terminal_output,
};
use super::progress;
use anyhow::{Context, bail};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tilecode::code::Spec;
use tilecode::stream::format::default_chunk_size;
use tilecode::stream::parallel;
use tilecode::stream::{Encoder, Options};

/// Arguments of `tilecode encode`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input file; absent or `-` reads standard input.
    file: Option<PathBuf>,
    /// Output file (default FILE.tc, or standard output when reading standard input); `-` is
    /// standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The code: alien:MxN, secded:N, hamming:N, repetition:N or parity:N.
    #[arg(long, default_value = "alien:9x9", value_name = "SPEC")]
    code: String,
    /// Interleaving depth D (codewords per group, a multiple of 64): a burst of up to D bits
    /// is corrected.
    #[arg(long, value_name = "D")]
    interleave: Option<usize>,
    /// Payload bytes per chunk (each chunk carries its own checksum).
    #[arg(long, value_name = "BYTES")]
    chunk_size: Option<usize>,
    /// Recovery chunks, percent of the data chunks (0 to 100): Reed-Solomon chunks that rebuild
    /// chunks lost to sectors, cuts or insertions. 0 writes none (the fastest).
    #[arg(long, value_name = "PERCENT", default_value_t = tilecode::stream::DEFAULT_RECOVERY)]
    recovery: f64,
    /// Stream format version to write: 2, or 1 for older readers (needs --recovery 0).
    #[arg(long, value_name = "V", default_value_t = tilecode::stream::format::VERSION)]
    format_version: u8,
    /// Threads that encode: 0 uses every core, 1 encodes on one thread. The stream is the
    /// same for every count.
    #[arg(short = 'T', long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// Replace an existing output file; write to a terminal.
    #[arg(long)]
    force: bool,
    /// No summary on stderr (warnings are still printed).
    #[arg(short, long)]
    quiet: bool,
    /// Summary as one JSON object on stderr.
    #[arg(long)]
    json: bool,
}

/// The options the arguments ask for, validated: the chunk size defaults to the one that
/// fits the code and depth.
pub fn options(
    code: &str,
    interleave: Option<usize>,
    chunk_size: Option<usize>,
) -> anyhow::Result<Options> {
    let spec: Spec = code.parse()?;
    let mut opts = Options::new(spec, interleave.unwrap_or(Options::default().interleave));
    if let Some(cs) = chunk_size {
        opts.chunk_size = cs;
    }
    opts.validate()?;
    if opts.chunk_size == 0 {
        opts.chunk_size = default_chunk_size(&opts.code, opts.interleave)?;
    }
    Ok(opts)
}

/// What the stream records of an input file: its name, mode and modification time.
fn file_metadata(path: &Path) -> tilecode::stream::Metadata {
    let meta = std::fs::metadata(path).ok();
    let mtime = meta
        .as_ref()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| (d.as_secs() as i64, d.subsec_nanos()));
    #[cfg(unix)]
    let mode = meta.as_ref().map(|m| {
        use std::os::unix::fs::PermissionsExt;
        m.permissions().mode() & 0o7777
    });
    #[cfg(not(unix))]
    let mode = None;
    tilecode::stream::Metadata {
        name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
        mode,
        mtime,
    }
}

/// The default output of `encode FILE`: `FILE.tc`.
pub fn default_output(input: &Path) -> PathBuf {
    let mut s = input.as_os_str().to_owned();
    s.push(".tc");
    PathBuf::from(s)
}

/// Copies `input` through an encoder into `out`; returns the bytes read and the writer.
///
/// The encoder encodes straight from buffers of whole chunks (no gathering copy) while the
/// next buffer is being read; each buffer holds at least a batch of chunks for the
/// encoder's threads ([`Options::threads`]). On one thread the input is read ahead on a
/// thread of its own ([`ReadAhead`]). On several, one of the encoder's threads reads the
/// next buffer and then joins in encoding the current one ([`parallel::Workers::join`]):
/// a reading thread beside them made three busy threads on two cores, and a cached
/// 256 MiB file encoded at 0.70x the speed of `cat` that way against 0.73x now (0.73 ->
/// 0.83x without recovery; docs/benchmarks.md, "Two threads: decoding ahead bounded").
pub fn encode_stream<W: Write + Send>(
    input: Box<dyn Read + Send>,
    out: W,
    opts: &Options,
) -> anyhow::Result<(u64, W)> {
    let mut enc = Encoder::new(out, opts)?;
    // Buffers of a decoder-sized batch (16 chunks, 3 MiB, on two threads), not of the
    // encoder's longer batches: they stay in cache between the reading thread and the
    // encoder. Five encodes of a cached 256 MiB file to /dev/null on two threads took
    // 44-47 ms each this way, 60-64 ms with buffers of the encoder's batch (12.6 MiB).
    let chunk = enc.chunk_size();
    let workers = parallel::Workers::new(opts.threads);
    let size = chunk * (BUF_SIZE / chunk).max(workers.batch_of(chunk));
    let total = if workers.threads() == 1 {
        let mut input = ReadAhead::new(input, size, 3);
        let mut total = 0u64;
        while let Some(buf) = input.next_buf() {
            let buf = buf.context("cannot read the input")?;
            total += buf.len() as u64;
            enc.write_all(&buf).context("cannot write the output")?;
            input.recycle(buf);
        }
        total
    } else {
        encode_sharing(input, &mut enc, size, &workers)?
    };
    let out = enc.finish().context("cannot write the output")?;
    Ok((total, out))
}

/// The input read in buffers of `size` bytes and encoded, the next buffer read while the
/// current one is encoded, both on the encoder's threads (`workers`); returns the bytes
/// read. Bytes read before an error are encoded before it is returned, as with
/// [`ReadAhead`].
fn encode_sharing<W: Write + Send>(
    mut input: Box<dyn Read + Send>,
    enc: &mut Encoder<W>,
    size: usize,
    workers: &parallel::Workers,
) -> anyhow::Result<u64> {
    let (mut cur, mut next) = (Block::new(size), Block::new(size));
    let mut error = cur.fill(&mut *input, 0, size);
    let mut total = 0u64;
    while !cur.is_empty() {
        let more = cur.len() == size && error.is_none();
        let read_next = || {
            if more {
                next.fill(&mut *input, total + size as u64, size)
            } else {
                next.clear();
                None
            }
        };
        let (read, wrote) = workers.join(read_next, || enc.write_all(&cur));
        wrote.context("cannot write the output")?;
        total += cur.len() as u64;
        if let Some(e) = error {
            return Err(e).context("cannot read the input");
        }
        error = read;
        std::mem::swap(&mut cur, &mut next);
    }
    match error {
        Some(e) => Err(e).context("cannot read the input"),
        None => Ok(total),
    }
}

/// Counts the bytes written through it.
struct Counting<W> {
    inner: W,
    count: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The summary `encode --json` prints (and the playground's encode answers with).
pub fn summary_json(opts: &Options, bytes_in: u64, bytes_out: u64) -> serde_json::Value {
    let code = tilecode::code::build(&opts.code);
    serde_json::json!({
        "code": opts.code.to_string(),
        "n": code.n(),
        "k": code.k(),
        "interleave": opts.interleave,
        "chunk_size": opts.chunk_size,
        "recovery": opts.recovery,
        "version": opts.version,
        "bytes_in": bytes_in,
        "bytes_out": bytes_out,
    })
}

/// Runs `tilecode encode`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut opts = options(&args.code, args.interleave, args.chunk_size)?;
    opts.recovery = args.recovery;
    opts.version = args.format_version;
    opts.threads = args.threads;
    opts.validate()?;
    for w in tilecode::code::build(&opts.code).warnings() {
        eprintln!("tilecode: warning: {w}");
    }
    let source = Source::from_arg(args.file.as_deref());
    let dest = match (&args.output, &source) {
        (Some(o), _) => Some(o.clone()).filter(|o| !is_stdout(Some(o))),
        (None, Source::File(p)) => Some(default_output(p)),
        (None, Source::Stdin) => None,
    };
    if let (Some(d), Source::File(p)) = (&dest, &source)
        && d == p
    {
        bail!(
            "output `{}` is the input file; choose another output",
            d.display()
        );
    }
    if let (Source::File(p), 2) = (&source, opts.version) {
        opts.metadata = Some(file_metadata(p));
    }
    refuse_terminal_output(dest.is_none(), args.force)?;
    note_terminal_input(&source);
    let (input, size) = source.open()?;
    if let (Some(len), None) = (size, args.chunk_size) {
        opts = opts.for_input_len(len);
    }
    let mut sink = match &dest {
        Some(d) => Sink::file(d, args.force, source.path())?,
        None => Sink::stdout(),
    };
    let bar = progress::bar(size, args.quiet);
    let input = progress::wrap(input, bar.as_ref());
    let counting = Counting {
        inner: sink.writer(),
        count: 0,
    };
    let (bytes_in, counting) = encode_stream(input, counting, &opts)
        .with_context(|| format!("encoding {}", source.display()))?;
    let bytes_out = counting.count;
    sink.commit()?;
    if let Some(pb) = bar {
        pb.finish_and_clear();
    }

    let code = tilecode::code::build(&opts.code);
    if args.json {
        eprintln!("{}", summary_json(&opts, bytes_in, bytes_out));
    } else if !args.quiet {
        let to = dest
            .as_ref()
            .map(|d| format!("`{}`", d.display()))
            .unwrap_or_else(|| "standard output".into());
        eprintln!(
            "tilecode encode: {bytes_in} bytes -> {bytes_out} bytes to {to} ({}, n = {}, k = {}, interleave {}, chunks of {} bytes)",
            opts.code,
            code.n(),
            code.k(),
            opts.interleave,
            opts.chunk_size
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives `ok` bytes of a pattern in reads of at most 70 000, then fails.
    struct Failing {
        ok: usize,
        at: usize,
    }

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.at == self.ok {
                return Err(io::Error::other("the disk went away"));
            }
            let n = buf.len().min(70_000).min(self.ok - self.at);
            for (i, b) in buf[..n].iter_mut().enumerate() {
                *b = ((self.at + i) * 7 % 251) as u8;
            }
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_ends_the_encode_with_that_error() {
        // Inside the first buffer, in a later one, and at a buffer's end, on one thread
        // (the read-ahead thread) and on two (reading on the encoder's threads).
        for threads in [1, 2] {
            let mut opts = options("alien:9x9", None, Some(10_000)).unwrap();
            opts.threads = threads;
            let size =
                10_000 * (BUF_SIZE / 10_000).max(parallel::Workers::new(threads).batch_of(10_000));
            for ok in [5, 2 * size + 12_345, 2 * size] {
                let input = Box::new(Failing { ok, at: 0 });
                let e = encode_stream(input, Vec::new(), &opts).unwrap_err();
                assert_eq!(
                    e.to_string(),
                    "cannot read the input",
                    "{threads} threads, {ok}"
                );
                assert_eq!(e.root_cause().to_string(), "the disk went away");
            }
        }
    }

    #[test]
    fn default_output_appends_tc() {
        assert_eq!(
            default_output(Path::new("a/b.txt")),
            PathBuf::from("a/b.txt.tc")
        );
    }

    #[test]
    fn chunk_size_defaults_per_code() {
        for (spec, d) in [
            ("alien:9x9", 64),
            ("secded:72", 512),
            ("repetition:3", 4096),
        ] {
            let o = options(spec, Some(d), None).unwrap();
            assert_eq!(o, Options::new(spec.parse().unwrap(), d));
        }
    }

    #[test]
    fn bad_options_are_refused() {
        assert!(options("alien:9", None, None).is_err());
        assert!(options("alien:9x9", Some(63), None).is_err());
        assert!(options("alien:9x9", Some(64), None).is_ok());
        assert!(options("alien:9x9", None, Some(0)).unwrap().chunk_size > 0);
        assert_eq!(
            options("alien:9x9", None, Some(4096)).unwrap().chunk_size,
            4096
        );
    }
}
