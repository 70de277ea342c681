//! The page: HTML, CSS and JavaScript embedded in the binary, served as they are.

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

/// Each asset: its path, content type and text.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("page/index.html"),
    ),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("page/style.css"),
    ),
    ("/common.js", JS, include_str!("page/common.js")),
    ("/board.js", JS, include_str!("page/board.js")),
    ("/game.js", JS, include_str!("page/game.js")),
    ("/code.js", JS, include_str!("page/code.js")),
    ("/stream.js", JS, include_str!("page/stream.js")),
];

const JS: &str = "text/javascript; charset=utf-8";

/// `GET` routes for every asset.
pub fn routes() -> Router {
    ASSETS
        .iter()
        .fold(Router::new(), |router, &(path, kind, text)| {
            router.route(
                path,
                get(move || async move { ([(header::CONTENT_TYPE, kind)], text).into_response() }),
            )
        })
}
