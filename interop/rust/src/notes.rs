//! `org.apache.dubbo.interop.rest.NoteResource`: a REST service beside the contract's, with CORS
//! settings for the whole service (`#[cross_origin]` on the trait, Spring's class-level
//! `@CrossOrigin`) and one method's own over them. Exported by `interop-server --notes`, for
//! the REST group's CORS checks.

use dubbo_rs::core::RpcError;

/// Notes by number.
#[dubbo_rs::service(interface = "org.apache.dubbo.interop.rest.NoteResource")]
#[cross_origin(
    origins = "https://notes.example",
    allowed_headers = "X-Note",
    max_age = 120
)]
pub trait NoteResource {
    /// `GET /notes/{id}`: `note {id}` as text, under the service's CORS settings.
    #[get("/notes/{id}", produces = "text/plain")]
    async fn get_note(&self, id: i64) -> Result<String, RpcError>;

    /// `PUT /notes/{id}` with a text body: `{id}={text}`; its own origins and methods over
    /// the service's settings (whose headers and max age it keeps).
    #[put("/notes/{id}", consumes = "text/plain", produces = "text/plain")]
    #[cross_origin(origins = "https://editor.example", methods = "PUT")]
    async fn put_note(&self, id: i64, #[body] text: String) -> Result<String, RpcError>;
}

/// The notes service's behaviour.
#[derive(Debug, Clone, Copy, Default)]
pub struct Notes;

impl NoteResource for Notes {
    async fn get_note(&self, id: i64) -> Result<String, RpcError> {
        Ok(format!("note {id}"))
    }

    async fn put_note(&self, id: i64, text: String) -> Result<String, RpcError> {
        Ok(format!("{id}={text}"))
    }
}
