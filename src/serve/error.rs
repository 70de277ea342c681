//! Errors of the API: a status and one lowercase message, sent as `{"error": "..."}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// A request the API refuses or could not answer.
#[derive(Debug)]
pub struct ApiError {
    /// 400 bad input, 404 no such route, 413 too large, 422 data that is not a stream,
    /// 503 out of time.
    pub status: StatusCode,
    /// What was expected and what was found.
    pub message: String,
}

impl ApiError {
    /// A 400: the request is malformed or asks for something that does not exist.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    /// A 413: the request asks for more than the server does per request.
    pub fn too_large(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: message.into(),
        }
    }
}

/// Library and CLI errors are the caller's: a bad spec, board or option. Causes are joined
/// with `: ` as the CLI prints them.
impl From<anyhow::Error> for ApiError {
    fn from(e: anyhow::Error) -> ApiError {
        let parts: Vec<String> = e
            .chain()
            .map(|c| c.to_string())
            .filter(|s| !s.is_empty())
            .collect();
        ApiError::bad(parts.join(": "))
    }
}

impl From<tilecode::Error> for ApiError {
    fn from(e: tilecode::Error) -> ApiError {
        ApiError::from(anyhow::Error::from(e))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}
