//! What one request may ask for, and the pool the heavy work runs on.

use super::error::ApiError;
use axum::http::StatusCode;
use std::sync::{Arc, LazyLock, OnceLock};
use std::time::Duration;
use tilecode::game::Game;
use tilecode::game::shortest::Limits;
use tokio::sync::Semaphore;

/// Largest request body of the game and code routes.
pub const MAX_SMALL_BODY: usize = 64 * 1024;
/// Largest request body of the stream routes (base64 data inside JSON).
pub const MAX_DATA_BODY: usize = 8 * 1024 * 1024;
/// Largest file `encode` takes (its stream, in base64, still fits [`MAX_DATA_BODY`]).
pub const MAX_FILE: usize = 4 * 1024 * 1024;
/// Largest number of rows or columns of a game.
pub const MAX_SIDE: usize = 32;
/// Most states per cell.
pub const MAX_STATES: u32 = 16;
/// Longest code (`info`, `word`).
pub const MAX_CODE_N: usize = 4096;
/// Longest a request may wait for and use the pool, unless `--time-limit` says otherwise.
pub const TIME_LIMIT: Duration = Duration::from_secs(20);

/// The time limit in force, set once at startup.
static TIME: OnceLock<Duration> = OnceLock::new();

/// Sets the time limit (the first call wins; the default is [`TIME_LIMIT`]).
pub fn set_time_limit(limit: Duration) {
    let _ = TIME.set(limit);
}

fn time_limit() -> Duration {
    *TIME.get_or_init(|| TIME_LIMIT)
}

/// The shortest-solution search's limits here: far below the CLI's, so a search ends in well
/// under a second; past them the answer says `optimal: false` with a lower bound.
pub fn shortest_limits() -> Limits {
    Limits {
        gray_max_nullity: 20,
        probe: true,
        node_budget: 1 << 20,
        alien_max_enum_bits: 20,
    }
}

/// Refuses games larger than [`MAX_SIDE`] a side or with more than [`MAX_STATES`] states.
pub fn check_game(game: &Game) -> Result<(), ApiError> {
    if game.rows > MAX_SIDE || game.cols > MAX_SIDE {
        return Err(ApiError::too_large(format!(
            "board too large: expected at most {MAX_SIDE}x{MAX_SIDE} here, found {}x{} \
             (the command line has no such limit)",
            game.rows, game.cols
        )));
    }
    if game.states > MAX_STATES {
        return Err(ApiError::too_large(format!(
            "too many states: expected at most {MAX_STATES} here, found {}",
            game.states
        )));
    }
    Ok(())
}

/// Jobs on the blocking pool at once: one per core, at least two.
static POOL: LazyLock<Arc<Semaphore>> = LazyLock::new(|| {
    let n = std::thread::available_parallelism().map_or(2, |n| n.get().max(2));
    Arc::new(Semaphore::new(n))
});

/// Runs `job` on the blocking pool once a slot is free, within the time limit. The async
/// workers only wait, so requests that need no slot (the page, quick errors) are served
/// meanwhile. A job past the limit is answered 503 but runs to its end (a thread cannot be
/// stopped), keeping its slot until then: the caps on sizes keep that end near.
pub async fn blocking<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let run = async {
        let permit = POOL
            .clone()
            .acquire_owned()
            .await
            .expect("the pool's semaphore is never closed");
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            job()
        })
        .await
        .map_err(|e| ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: format!("the job failed: {e}"),
        })?
    };
    let limit = time_limit();
    tokio::time::timeout(limit, run).await.unwrap_or_else(|_| {
        Err(ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: format!(
                "no answer within {} s: the server is busy or the request is too heavy",
                limit.as_secs_f64()
            ),
        })
    })
}
