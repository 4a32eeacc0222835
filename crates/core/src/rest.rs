//! The HTTP (REST) mapping of a service: which request reaches which method, and where each
//! argument is taken from. `#[dubbo_rs::service]` writes one for every service
//! ([`ServiceHandler::rest`](crate::ServiceHandler::rest)) from the `#[get("/users/{id}")]`
//! style attributes of its methods; a protocol that serves HTTP (Triple) builds its route
//! table from it.
//!
//! Everything is `'static` data so the macro can emit it as one `static` per service.

/// How every method of one service is reached over HTTP.
#[derive(Debug)]
pub struct RestService {
    /// The Java interface name.
    pub interface: &'static str,
    /// One entry per method, in declaration order.
    pub methods: &'static [RestMethod],
}

/// How one method is reached.
#[derive(Debug)]
pub struct RestMethod {
    /// The Java method name (the name the invocation carries).
    pub java_name: &'static str,
    /// The HTTP verb of an annotated method (`"GET"`, `"POST"`...); `None` for a method with
    /// only the default mapping, `/{interface}/{method}` with any verb, its arguments a JSON
    /// array (or an object by parameter name) body, or query parameters by name.
    pub verb: Option<&'static str>,
    /// The path template (`/users/{id}`, `/files/**`, `/v/{n:\d+}`); empty for the default
    /// mapping.
    pub path: &'static str,
    /// The parameters that travel on the wire, in order.
    pub params: &'static [RestParam],
    /// Media types the request body may have; empty: any the server reads.
    pub consumes: &'static [&'static str],
    /// Media types the answer may have, preferred first; empty: JSON, or what `Accept` asks.
    pub produces: &'static [&'static str],
    /// The status of a successful answer; 0: 200.
    pub status: u16,
    /// Fixed headers of a successful answer (name, value).
    pub headers: &'static [(&'static str, &'static str)],
    /// Rust type name of the result (`User`, `Vec<User>`, `()`), for the API document.
    pub returns: &'static str,
}

/// Where one argument comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamSource {
    /// A path variable of the template (`{id}`).
    Path,
    /// A query parameter.
    Query,
    /// A request header.
    Header,
    /// A cookie.
    Cookie,
    /// A field of an `application/x-www-form-urlencoded` body (or of the query).
    Form,
    /// The whole request body (JSON, text or bytes by its content type).
    Body,
}

impl ParamSource {
    /// The OpenAPI / JAX-RS name of the place (`path`, `query`, `header`, `cookie`, `form`,
    /// `body`).
    pub fn name(self) -> &'static str {
        match self {
            ParamSource::Path => "path",
            ParamSource::Query => "query",
            ParamSource::Header => "header",
            ParamSource::Cookie => "cookie",
            ParamSource::Form => "form",
            ParamSource::Body => "body",
        }
    }
}

/// One parameter of a mapped method.
#[derive(Debug)]
pub struct RestParam {
    /// Its name in its place: the path variable, query parameter, header, cookie or form
    /// field (for the default mapping: the lowerCamelCase of the Rust name, as Java names it).
    pub name: &'static str,
    /// Where it comes from.
    pub source: ParamSource,
    /// The text used when the request does not carry it.
    pub default: Option<&'static str>,
    /// Whether a request without it (and without a default) is refused with 400; `Option`
    /// parameters are not required.
    pub required: bool,
    /// The Rust type as written, for the API document.
    pub rust_type: &'static str,
}

impl RestMethod {
    /// Whether the method has an explicit verb and path (rather than only the default
    /// mapping).
    pub fn is_mapped(&self) -> bool {
        self.verb.is_some()
    }
}
