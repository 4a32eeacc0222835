//! The contract's `org.apache.dubbo.interop.rest.UserResource` (CONTRACT.md §5): users over
//! plain HTTP on the tri port, mapped with the service macro's REST attributes.

use dubbo_rs::core::rest::http_status_error;
use dubbo_rs::core::{RequestContext, RpcError};

use crate::service::User;

/// How far `GET /users` looks for names with the prefix asked, so that a prefix no user has
/// answers an empty list rather than searching for ever.
const SEARCH_LIMIT: i64 = 100_000;

/// Users as resources.
#[dubbo_rs::service(interface = "org.apache.dubbo.interop.rest.UserResource")]
pub trait UserResource {
    /// `GET /users/{id}`: the user with that id as `listUsers` builds it; 404 for id < 0.
    #[get("/users/{id}")]
    async fn get_user(&self, id: i64) -> Result<User, RpcError>;

    /// `GET /users?limit=N&prefix=P`: the first N users whose name starts with P.
    #[get("/users")]
    async fn find_users(
        &self,
        #[query(default = "10")] limit: i32,
        #[query(default = "user-")] prefix: String,
    ) -> Result<Vec<User>, RpcError>;

    /// `POST /users` with a JSON user: 201, the user back, `Location: /users/{id}`.
    #[post("/users", status = 201, consumes = "application/json")]
    async fn create_user(&self, ctx: &mut RequestContext, user: User) -> Result<User, RpcError>;

    /// `POST /users/form` with form fields `id`, `name`, `age`: that user.
    #[post("/users/form", consumes = "application/x-www-form-urlencoded")]
    async fn create_user_form(
        &self,
        #[form] id: i64,
        #[form] name: String,
        #[form] age: i32,
    ) -> Result<User, RpcError>;

    /// `GET /users/{id}/greeting`: `Bonjour user-{id}` for `Accept-Language: fr`, else
    /// `Hello user-{id}`, as text. Pages of `https://greet.example` may call it from a
    /// browser (its own CORS settings, in place of the server's).
    #[get("/users/{id}/greeting", produces = "text/plain")]
    #[cross_origin(
        origins = "https://greet.example",
        allowed_headers = "Accept-Language",
        max_age = 60
    )]
    async fn greeting(
        &self,
        id: i64,
        #[header("Accept-Language")] language: Option<String>,
    ) -> Result<String, RpcError>;

    /// `DELETE /users/{id}`: 204, no body.
    #[delete("/users/{id}", status = 204)]
    async fn delete_user(&self, id: i64) -> Result<(), RpcError>;
}

/// The user with id `id`, built as `listUsers` builds user `i`.
pub fn user(id: i64) -> User {
    User {
        id,
        name: Some(format!("user-{id}")),
        age: i32::try_from(20 + id.rem_euclid(50)).unwrap_or(20),
        tags: Some(vec![format!("t{id}")]),
        attrs: Some(std::collections::HashMap::from([(
            "k".to_owned(),
            format!("v{id}"),
        )])),
    }
}

/// The contract's behaviour.
#[derive(Debug, Clone, Copy, Default)]
pub struct ContractUsers;

impl UserResource for ContractUsers {
    async fn get_user(&self, id: i64) -> Result<User, RpcError> {
        if id < 0 {
            return Err(http_status_error(404, format!("no user with id {id}")));
        }
        Ok(user(id))
    }

    async fn find_users(&self, limit: i32, prefix: String) -> Result<Vec<User>, RpcError> {
        let limit = usize::try_from(limit.clamp(0, 10_000)).unwrap_or(0);
        Ok((0..SEARCH_LIMIT)
            .filter(|i| format!("user-{i}").starts_with(&prefix))
            .take(limit)
            .map(user)
            .collect())
    }

    async fn create_user(&self, ctx: &mut RequestContext, user: User) -> Result<User, RpcError> {
        // A response attachment is a response header over HTTP.
        ctx.set_response_attachment("location", format!("/users/{}", user.id));
        Ok(user)
    }

    async fn create_user_form(&self, id: i64, name: String, age: i32) -> Result<User, RpcError> {
        Ok(User {
            id,
            name: Some(name),
            age,
            tags: None,
            attrs: None,
        })
    }

    async fn greeting(&self, id: i64, language: Option<String>) -> Result<String, RpcError> {
        let french = language
            .as_deref()
            .is_some_and(|l| l.trim().to_ascii_lowercase().starts_with("fr"));
        Ok(if french {
            format!("Bonjour user-{id}")
        } else {
            format!("Hello user-{id}")
        })
    }

    async fn delete_user(&self, _id: i64) -> Result<(), RpcError> {
        Ok(())
    }
}
