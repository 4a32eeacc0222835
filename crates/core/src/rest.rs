//! The HTTP (REST) mapping of a service: which request reaches which method, and where each
//! argument is taken from. `#[dubbo_rs::service]` writes one for every service
//! ([`ServiceHandler::rest`](crate::ServiceHandler::rest)) from the `#[get("/users/{id}")]`
//! style attributes of its methods; a protocol that serves HTTP (Triple) builds its route
//! table from it.
//!
//! Everything is `'static` data so the macro can emit it as one `static` per service.

/// Adds a type's named schemas to a document's and answers the type's schema.
pub type SchemaFn = fn(&mut crate::rest_schema::RestSchemas) -> serde_json::Value;

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
    /// The result's JSON schema for the API document (the `#[service]` macro's, from the
    /// type's [`RestSchema`](crate::rest_schema::RestSchema) or its name); `None`: made from
    /// `returns`.
    pub returns_schema: Option<SchemaFn>,
    /// The method's own CORS settings (`#[cross_origin(...)]`, Spring's `@CrossOrigin`);
    /// `None`: the server's.
    pub cors: Option<&'static RestCors>,
    /// Whether another method of the service without a verb has the same Java name: the
    /// default mapping then names this one with the `~` suffix of its parameter types
    /// (`/{interface}/add~ll`, see [`overload_suffix`]).
    pub overloaded: bool,
}

/// The `~` suffix naming an overload in the default mapping, as Java Dubbo 3.3 writes it: one
/// character per parameter, the first of its class's simple name in `Class.getName()` form
/// (`long` `l`, `java.lang.String` `S`, `java.util.Map` `M`, `[B` (`byte[]`) `[`,
/// `[Ljava.lang.String;` `S`); `None` without parameters. `class_names` are in
/// `Class.getName()` form, as a [`MethodSignature`](crate::MethodSignature) keeps them.
pub fn overload_suffix<S: AsRef<str>>(class_names: &[S]) -> Option<String> {
    if class_names.is_empty() {
        return None;
    }
    Some(
        class_names
            .iter()
            .map(|n| {
                let n = n.as_ref();
                let simple = n.rsplit_once('.').map_or(n, |(_, s)| s);
                simple.chars().next().unwrap_or('?')
            })
            .collect(),
    )
}

/// The CORS settings of one mapped method (`#[cross_origin(...)]`, Spring's `@CrossOrigin`).
/// Each one set replaces the server's `triple.rest.cors` setting of the same name for the
/// method's route; the others are the server's (or Java's defaults). Empty lists and `None`
/// are "not set".
#[derive(Debug, Default)]
pub struct RestCors {
    /// `origins`: `*`, origins or origin patterns (`allowed-origins`).
    pub origins: &'static [&'static str],
    /// `methods`: `*` or HTTP methods (`allowed-methods`).
    pub methods: &'static [&'static str],
    /// `allowed_headers`: `*` or request headers a preflight may ask for.
    pub allowed_headers: &'static [&'static str],
    /// `exposed_headers`: response headers shown to the page.
    pub exposed_headers: &'static [&'static str],
    /// `allow_credentials`.
    pub allow_credentials: Option<bool>,
    /// `max_age`: seconds a browser may keep a preflight answer.
    pub max_age: Option<u64>,
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
    /// Its JSON schema for the API document (see [`RestMethod::returns_schema`]); `None`: made
    /// from `rust_type`.
    pub schema: Option<SchemaFn>,
    /// The Java type the method's signature gives the parameter (what
    /// `JavaType::java_type_name` or `#[dubbo(java_type = "...")]` says), read when the
    /// default mapping tells overloads apart (`/{interface}/{method}~{suffix}`).
    pub java_type: fn() -> std::borrow::Cow<'static, str>,
}

impl RestMethod {
    /// Whether the method has an explicit verb and path (rather than only the default
    /// mapping).
    pub fn is_mapped(&self) -> bool {
        self.verb.is_some()
    }

    /// The verb a consumer sends: the mapped one, else `POST` (the default mapping's arguments
    /// travel as a JSON array body).
    pub fn client_verb(&self) -> &'static str {
        self.verb.unwrap_or("POST")
    }
}

/// Whether an HTTP verb may be sent twice with the effect of once (RFC 9110 §9.2.2): `GET`,
/// `HEAD`, `PUT`, `DELETE`, `OPTIONS` (and `TRACE`).
pub fn is_idempotent(verb: &str) -> bool {
    matches!(
        verb.to_ascii_uppercase().as_str(),
        "GET" | "HEAD" | "PUT" | "DELETE" | "OPTIONS" | "TRACE"
    )
}

/// Whether a call sent over REST (the `rest` protocol) that failed with `error` may be sent
/// again to another base URL: only when the connection failed (the request may never have
/// arrived, `ErrorCode::Network`) and only for an idempotent verb, so that a `POST` is never
/// made twice and an HTTP answer (which is the service's word) is never retried.
pub fn may_retry_rest(invocation: &crate::Invocation, error: &crate::RpcError) -> bool {
    let verb = invocation
        .method()
        .rest()
        .map_or("POST", RestMethod::client_verb);
    error.code() == Some(crate::ErrorCode::Network) && is_idempotent(verb)
}

/// Java's `org.apache.dubbo.remoting.http12.exception.HttpStatusException`: the exception a
/// service throws to answer a REST request with a status of its choosing.
pub const HTTP_STATUS_EXCEPTION: &str =
    "org.apache.dubbo.remoting.http12.exception.HttpStatusException";

/// An error that a REST request is answered with as `status` (for example 404) and the JSON
/// body `{"status": "404", "message": message}`. Over Dubbo's other forms it is the business
/// exception Java's `HttpStatusException` (its `statusCode` field included), so a Java
/// consumer sees the same.
pub fn http_status_error(status: u16, message: impl Into<String>) -> crate::RpcError {
    use dubbo_hessian2::Value;
    let message = message.into();
    crate::RpcError::Business(crate::BusinessError {
        class_name: HTTP_STATUS_EXCEPTION.to_owned(),
        message: Some(message.clone()),
        raw: Some(Value::object(
            HTTP_STATUS_EXCEPTION,
            [
                ("detailMessage", Value::String(message)),
                ("statusCode", Value::Int(i32::from(status))),
            ],
        )),
    })
}

/// The status an [`http_status_error`] (or a Java `HttpStatusException`) asks for.
pub fn http_status_of_business(e: &crate::BusinessError) -> Option<u16> {
    if e.class_name != HTTP_STATUS_EXCEPTION {
        return None;
    }
    match e.raw.as_ref()?.get("statusCode")? {
        dubbo_hessian2::Value::Int(n) => u16::try_from(*n).ok().filter(|n| (100..=599).contains(n)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_errors() {
        let crate::RpcError::Business(b) = http_status_error(404, "no user -1") else {
            panic!("a business error")
        };
        assert_eq!(http_status_of_business(&b), Some(404));
        assert_eq!(b.message.as_deref(), Some("no user -1"));
        let other = crate::BusinessError::new("java.lang.IllegalStateException", "x");
        assert_eq!(http_status_of_business(&other), None);
    }

    #[test]
    fn overload_suffixes() {
        let types = [
            "long",
            "java.lang.String",
            "java.util.Map",
            "[B",
            "[Ljava.lang.String;",
            "org.example.Outer$Inner",
        ];
        assert_eq!(overload_suffix(&types).as_deref(), Some("lSM[SO"));
        assert_eq!(overload_suffix::<&str>(&[]), None);
    }
}
