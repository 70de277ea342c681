//! Helpers shared by the subcommands: error reporting and exit codes.

use std::io::{self, Write};
use std::process::ExitCode;
use tilecode::Error;

/// Exit code: verified exact (corrections may have been made).
pub const EXIT_OK: u8 = 0;
/// Exit code: usage or other error.
pub const EXIT_USAGE: u8 = 1;
/// Exit code: damage that could not be repaired, or a checksum mismatch.
pub const EXIT_DAMAGED: u8 = 2;
/// Exit code: not a tilecode stream, bad header or truncated.
pub const EXIT_FORMAT: u8 = 3;

/// The exit code for one library error.
pub fn exit_code_for_error(err: &Error) -> u8 {
    match err {
        Error::NotTilecode { .. } | Error::BadHeader { .. } | Error::Truncated { .. } => {
            EXIT_FORMAT
        }
        Error::Corrupt { .. } | Error::Checksum { .. } => EXIT_DAMAGED,
        Error::Io(io) if io.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        _ => EXIT_USAGE,
    }
}

/// The exit code for an error, found by walking its chain (library errors may travel inside
/// `io::Error`s from the Read/Write adapters).
pub fn exit_code_for(e: &anyhow::Error) -> u8 {
    for cause in e.chain() {
        if let Some(err) = cause.downcast_ref::<Error>() {
            return exit_code_for_error(err);
        }
        if let Some(io) = cause.downcast_ref::<io::Error>() {
            if io.kind() == io::ErrorKind::BrokenPipe {
                return EXIT_OK;
            }
            if let Some(inner) = io.get_ref().and_then(|i| i.downcast_ref::<Error>()) {
                return exit_code_for_error(inner);
            }
        }
    }
    EXIT_USAGE
}

/// Prints `tilecode: <error>` on one line (causes joined with `: `) and returns its exit code.
pub fn report_error(e: &anyhow::Error) -> ExitCode {
    let code = exit_code_for(e);
    if code != EXIT_OK {
        let msg: Vec<String> = e
            .chain()
            .map(|c| c.to_string())
            .filter(|s| !s.is_empty())
            .collect();
        eprintln!("tilecode: {}", msg.join(": "));
    }
    ExitCode::from(code)
}

/// Prints a report to stdout: the JSON object on one line when `json`, else the text `text`
/// formats.
pub fn print_report(
    json: bool,
    value: impl FnOnce() -> serde_json::Value,
    text: impl FnOnce(&mut String) -> std::fmt::Result,
) -> anyhow::Result<ExitCode> {
    use std::io::Write as _;
    let out = if json {
        format!("{}\n", value())
    } else {
        let mut s = String::new();
        text(&mut s).expect("formatting into a string");
        s
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Writes a command's whole output to standard output and flushes it: success.
pub fn print_output(out: &str) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}
