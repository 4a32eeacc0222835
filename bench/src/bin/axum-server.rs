//! The axum peer of the REST rows: `GET /users/{id}` and `POST /users` written the obvious way
//! with axum (extractors, `Json`), the same answers as dubbo-rs REST serves in `bench-server`
//! (bench/src/rest.rs), on 127.0.0.1 over HTTP/1.1 and h2c. Prints READY once serving; exits on
//! SIGTERM or SIGINT.
//!
//! `axum-server [--port 18080]`

// mimalloc, like every binary of this suite, so that the servers compared share an allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use dubbo_bench::rest::user_by_id;
use dubbo_bench::service::User;

async fn get_user(Path(id): Path<i64>) -> Response {
    match user_by_id(id) {
        Some(user) => Json(user).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(serde_json::json!({"status": "404", "message": format!("no user with id {id}")})),
        )
            .into_response(),
    }
}

async fn create_user(Json(user): Json<User>) -> Response {
    let location = format!("/users/{}", user.id);
    (
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(user),
    )
        .into_response()
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port: u16 = match args.as_slice() {
        [] => 18080,
        [flag, p] if flag == "--port" => match p.parse() {
            Ok(p) => p,
            Err(_) => {
                eprintln!("axum-server: bad port {p:?}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: axum-server [--port 18080]");
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("axum-server: bind 127.0.0.1:{port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let app = Router::new()
        .route("/users/{id}", get(get_user))
        .route("/users", post(create_user));
    println!("READY");
    let served = axum::serve(listener, app)
        .with_graceful_shutdown(dubbo_rs::wait_for_signal())
        .await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("axum-server: {e}");
            ExitCode::FAILURE
        }
    }
}
