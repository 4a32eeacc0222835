//! Logging in and out, and who a request comes from: the signed session cookie, checked on
//! every API call and page; writes and calls need the admin role.

use std::sync::Arc;

use axum::extract::{FromRequestParts, State};
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;

use crate::error::AdminError;
use crate::session::{now_seconds, Session, COOKIE as COOKIE_NAME, SESSION_SECONDS};
use crate::state::AdminState;
use crate::users::Role;

/// The login form.
#[derive(Debug, Deserialize)]
pub struct Login {
    /// The user name.
    pub username: String,
    /// The password.
    pub password: String,
}

/// The session cookie's value in `headers`, if any.
fn cookie_value(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|kv| {
            let (k, v) = kv.trim().split_once('=')?;
            (k == COOKIE_NAME).then(|| v.to_owned())
        })
}

/// The session of the request, if it carries a valid one of a user still configured.
pub fn session(state: &AdminState, headers: &HeaderMap) -> Result<Session, AdminError> {
    let value = cookie_value(headers).ok_or(AdminError::Unauthenticated)?;
    let session = state
        .key
        .verify(&value, now_seconds())
        .ok_or(AdminError::Unauthenticated)?;
    // A user removed from the configuration, or whose role changed, loses the session.
    let user = state
        .users
        .iter()
        .find(|u| u.name == session.user)
        .ok_or(AdminError::Unauthenticated)?;
    if user.role != session.role {
        return Err(AdminError::Unauthenticated);
    }
    Ok(session)
}

/// A request with a valid session, as a handler's argument: the handler runs only for a
/// logged-in user, others get 401.
pub struct LoggedIn(pub Session);

impl FromRequestParts<Arc<AdminState>> for LoggedIn {
    type Rejection = AdminError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AdminState>,
    ) -> Result<Self, Self::Rejection> {
        session(state, &parts.headers).map(LoggedIn)
    }
}

/// The session of the request, which must have the admin role to do `what`.
pub fn admin(state: &AdminState, headers: &HeaderMap, what: &str) -> Result<Session, AdminError> {
    let s = session(state, headers)?;
    if s.role != Role::Admin {
        return Err(AdminError::Forbidden(format!(
            "{what} needs the admin role; {} is read-only",
            s.user
        )));
    }
    Ok(s)
}

/// `POST /api/v1/auth/login`: checks the password and sets the session cookie.
pub async fn login(
    State(state): State<Arc<AdminState>>,
    Json(form): Json<Login>,
) -> Result<Response, AdminError> {
    let user = state
        .users
        .iter()
        .find(|u| u.name == form.username)
        .filter(|u| u.check(&form.password));
    let Some(user) = user else {
        // Unknown users and wrong passwords answer alike.
        return Err(AdminError::Unauthenticated);
    };
    let session = Session {
        user: user.name.clone(),
        role: user.role,
        expires: now_seconds() + SESSION_SECONDS,
    };
    let cookie = format!(
        "{COOKIE_NAME}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age={SESSION_SECONDS}",
        state.key.sign(&session)
    );
    let mut response =
        Json(json!({ "user": user.name, "role": user.role.as_str() })).into_response();
    if let Ok(v) = cookie.parse() {
        response.headers_mut().insert(SET_COOKIE, v);
    }
    Ok(response)
}

/// `POST /api/v1/auth/logout`: clears the cookie.
pub async fn logout() -> Response {
    let mut response = Json(json!({ "ok": true })).into_response();
    if let Ok(v) = format!("{COOKIE_NAME}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0").parse() {
        response.headers_mut().insert(SET_COOKIE, v);
    }
    response
}

/// `GET /api/v1/auth/me`: who is logged in.
pub async fn me(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, AdminError> {
    let s = session(&state, &headers)?;
    Ok(Json(
        json!({ "user": s.user, "role": s.role.as_str(), "expires": s.expires }),
    ))
}
