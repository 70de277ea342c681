//! The routes: the page, and `POST /api/<command>` for the game and code commands (the stream
//! commands are in [`super::data`]). Request keys are the CLI's argument and option names;
//! answers are the objects the CLI's `--json` prints.

use super::super::analyze::{analyze, report_json};
use super::super::info::{parse_spec, report_json as info_json};
use super::super::random::{random_board, random_json};
use super::super::solve::{GameArgs, Method, outcome_json, solve};
use super::super::word::{decode_json, encode_json};
use super::error::ApiError;
use super::limits::{self, MAX_CODE_N, MAX_DATA_BODY, MAX_SMALL_BODY, blocking, check_game};
use super::{data, page};
use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use clap::ValueEnum;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tilecode::code::analysis::report;
use tilecode::code::build;
use tilecode::game::Game;

/// Every route of the playground.
pub fn router() -> Router {
    let small = Router::new()
        .route("/api/analyze", post(|b| handle(b, analyze_route)))
        .route("/api/solve", post(|b| handle(b, solve_route)))
        .route("/api/random", post(|b| handle(b, random_route)))
        .route("/api/info", post(|b| handle(b, info_route)))
        .route("/api/word/encode", post(|b| handle(b, word_encode)))
        .route("/api/word/decode", post(|b| handle(b, word_decode)))
        .layer(DefaultBodyLimit::max(MAX_SMALL_BODY));
    let large = Router::new()
        .route("/api/encode", post(|b| handle(b, data::encode)))
        .route("/api/corrupt", post(|b| handle(b, data::corrupt)))
        .route("/api/decode", post(|b| handle(b, data::decode)))
        .layer(DefaultBodyLimit::max(MAX_DATA_BODY));
    page::routes().merge(small).merge(large).fallback(not_found)
}

async fn not_found() -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: "no such route: expected GET / or POST /api/<command> with <command> one of \
                  analyze, solve, random, info, word/encode, word/decode, encode, corrupt, decode"
            .into(),
    }
}

/// Reads the body as JSON of type `T`, runs `work` on the blocking pool and answers with its
/// object, or with the error as JSON.
async fn handle<T, F>(body: Result<Bytes, BytesRejection>, work: F) -> Response
where
    T: DeserializeOwned + Send + 'static,
    F: FnOnce(T) -> Result<Value, ApiError> + Send + 'static,
{
    let result = async {
        let body = body.map_err(|e| ApiError {
            status: e.status(),
            message: format!(
                "cannot read the request body: {}",
                e.body_text().to_lowercase()
            ),
        })?;
        let request: T = serde_json::from_slice(&body).map_err(|e| {
            ApiError::bad(format!(
                "bad request body: expected a JSON object with the command's keys: {e}"
            ))
        })?;
        blocking(move || work(request)).await
    }
    .await;
    match result {
        Ok(v) => axum::Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

/// The keys of `analyze`: the game.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GameKeys {
    game: String,
    #[serde(default)]
    torus: bool,
    #[serde(default = "two")]
    states: u32,
}

fn two() -> u32 {
    2
}

/// The game the keys name, within the server's caps.
fn make_game(game: &str, torus: bool, states: u32) -> Result<Game, ApiError> {
    let game = GameArgs {
        game: game.to_string(),
        torus,
        states,
    }
    .game()?;
    check_game(&game)?;
    Ok(game)
}

fn analyze_route(keys: GameKeys) -> Result<Value, ApiError> {
    let game = make_game(&keys.game, keys.torus, keys.states)?;
    Ok(report_json(&game, &analyze(&game)?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SolveKeys {
    game: String,
    #[serde(default)]
    torus: bool,
    #[serde(default = "two")]
    states: u32,
    board: String,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    shortest: bool,
}

fn solve_route(keys: SolveKeys) -> Result<Value, ApiError> {
    let game = make_game(&keys.game, keys.torus, keys.states)?;
    let method = match keys.method.as_deref() {
        None => Method::Auto,
        Some(m) => Method::from_str(m, false).map_err(|_| {
            let names: Vec<&str> = Method::value_variants().iter().map(|m| m.name()).collect();
            ApiError::bad(format!(
                "bad method {m:?}: expected one of {}",
                names.join(", ")
            ))
        })?,
    };
    let limits = limits::shortest_limits();
    let out = solve(
        &game,
        &keys.board,
        method,
        keys.shortest.then_some(&limits),
        false,
    )?;
    Ok(outcome_json(&game, &out))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RandomKeys {
    game: String,
    #[serde(default)]
    torus: bool,
    #[serde(default = "two")]
    states: u32,
    #[serde(default)]
    seed: Option<u64>,
}

fn random_route(keys: RandomKeys) -> Result<Value, ApiError> {
    let game = make_game(&keys.game, keys.torus, keys.states)?;
    let (board, seed) = random_board(&game, keys.seed);
    Ok(random_json(&game, &board, seed))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecKeys {
    spec: String,
}

/// Refuses codes longer than [`MAX_CODE_N`].
fn check_code(spec: &str) -> Result<(), ApiError> {
    let n = build(&parse_spec(spec)?).n();
    if n > MAX_CODE_N {
        return Err(ApiError::too_large(format!(
            "code too long: expected n <= {MAX_CODE_N} here, found n = {n}"
        )));
    }
    Ok(())
}

fn info_route(keys: SpecKeys) -> Result<Value, ApiError> {
    check_code(&keys.spec)?;
    let code = build(&parse_spec(&keys.spec)?);
    Ok(info_json(&report(code.as_ref())))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WordKeys {
    spec: String,
    bits: String,
    #[serde(default)]
    hex: bool,
}

fn word_encode(keys: WordKeys) -> Result<Value, ApiError> {
    check_code(&keys.spec)?;
    Ok(encode_json(&keys.spec, &keys.bits, keys.hex)?)
}

fn word_decode(keys: WordKeys) -> Result<Value, ApiError> {
    check_code(&keys.spec)?;
    Ok(decode_json(&keys.spec, &keys.bits, keys.hex)?.0)
}
