//! The `tilecode` command-line tool; everything lives in the library's `cli` module.

fn main() -> std::process::ExitCode {
    tilecode_cli::main()
}

#[path = "cli/mod.rs"]
mod tilecode_cli;
