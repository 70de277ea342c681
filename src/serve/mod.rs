//! `tilecode serve`: the local web playground.
//!
//! One self-contained page (HTML, CSS and JavaScript embedded in the binary, nothing fetched
//! from elsewhere) and a JSON API that mirrors the CLI: `POST /api/<command>` with the CLI's
//! argument and option names as keys, answered with the object the command's `--json` prints.
//! Every request's body, board size and work are capped ([`limits`]); the heavy work runs on
//! tokio's blocking pool, a few jobs at a time, so a slow request cannot stall the others.

mod api;
mod data;
mod error;
mod limits;
mod page;

use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;

/// Arguments of `tilecode serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// TCP port to listen on (0 picks a free one; the URL printed says which).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on. The default serves this machine only; anything else exposes the
    /// playground (and its CPU time) to the network.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    bind: IpAddr,
    /// Open the page in the default browser (xdg-open, open or explorer).
    #[arg(long)]
    open: bool,
    /// Seconds a request may wait for and use the worker pool before it is answered 503.
    #[arg(long, value_name = "SECS", default_value_t = 20.0)]
    time_limit: f64,
}

/// Runs `tilecode serve` until interrupted.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !(args.time_limit > 0.0 && args.time_limit <= 86_400.0) {
        anyhow::bail!(
            "bad --time-limit {}: expected seconds between 0 and 86400",
            args.time_limit
        );
    }
    limits::set_time_limit(std::time::Duration::from_secs_f64(args.time_limit));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(args))?;
    Ok(ExitCode::SUCCESS)
}

async fn serve(args: Args) -> anyhow::Result<()> {
    let addr = SocketAddr::new(args.bind, args.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr()?;
    let url = format!("http://{local}/");
    // The one line a script (or the browser tests) waits for; flushed at once.
    println!("tilecode serve: listening on {url} (Ctrl-C stops)");
    use std::io::Write as _;
    std::io::stdout().flush()?;
    if args.open {
        open_browser(&url);
    }
    // Ctrl-C ends the process through the CLI's signal handler (exit 130), like every command.
    axum::serve(listener, api::router()).await?;
    Ok(())
}

/// Asks the desktop to open `url`; a failure is reported, not fatal (the URL is printed).
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("tilecode serve: cannot start {opener} to open the page ({e}); open {url}");
    }
}
