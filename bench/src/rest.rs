//! The REST rows' endpoints (`scripts/bench.sh --rest-only`): `GET /users/{id}` and
//! `POST /users`, served by dubbo-rs REST on the Triple port of `bench-server` (through the
//! provider's filter chain, as every call) and by `axum-server`, the same work written the
//! obvious way with axum. Both answer the same JSON: the [`User`] that `listUsers` builds.

use dubbo_rs::core::rest::http_status_error;
use dubbo_rs::core::{RequestContext, RpcError};

use crate::service::User;

/// Users as HTTP resources (the interop contract's `UserResource`, reduced to the two
/// endpoints measured).
#[dubbo_rs::service(interface = "org.apache.dubbo.bench.UserResource")]
pub trait UserResource {
    /// `GET /users/{id}`: user `id` as `listUsers` builds it; 404 for a negative id.
    #[get("/users/{id}")]
    async fn get_user(&self, id: i64) -> Result<User, RpcError>;

    /// `POST /users` with a JSON user: 201, the user back, `Location: /users/{id}`.
    #[post("/users", status = 201, consumes = "application/json")]
    async fn create_user(&self, ctx: &mut RequestContext, user: User) -> Result<User, RpcError>;
}

/// User `id`, as [`User::numbered`] builds user `i`; `None` for a negative id or one beyond
/// `i32`.
pub fn user_by_id(id: i64) -> Option<User> {
    i32::try_from(id)
        .ok()
        .filter(|i| *i >= 0)
        .map(User::numbered)
}

/// The provider of [`UserResource`].
#[derive(Debug, Default, Clone, Copy)]
pub struct RestUsers;

impl UserResource for RestUsers {
    async fn get_user(&self, id: i64) -> Result<User, RpcError> {
        user_by_id(id).ok_or_else(|| http_status_error(404, format!("no user with id {id}")))
    }

    async fn create_user(&self, ctx: &mut RequestContext, user: User) -> Result<User, RpcError> {
        ctx.set_response_attachment("location", format!("/users/{}", user.id));
        Ok(user)
    }
}
