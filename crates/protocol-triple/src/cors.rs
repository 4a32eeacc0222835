//! CORS of the REST forms on the Triple port: which cross-origin requests a browser may make,
//! with Java Dubbo 3.3's settings (`dubbo.protocol.triple.rest.cors.*`) and decisions.
//!
//! [`CorsSettings`] holds the six settings as configured; [`CorsSettings::policy`] checks them
//! and fills in Java's defaults, giving the [`CorsPolicy`] a server applies:
//!
//! - no setting at all: no CORS (no `Access-Control-*` header on any answer, and a preflight
//!   is refused with 403, as Java does without a CORS configuration);
//! - any setting: CORS on, the others at their defaults: any origin, methods `GET`, `HEAD`,
//!   `POST`, any requested header, a max age of 1800 s, no credentials.
//!
//! An allowed origin is `*`, an exact origin (`https://a.example`, compared without case and
//! without a trailing `/`), or a pattern: `*` stands for any text (`https://*.a.example`) and a
//! `:[8080,8081]` or `:[*]` suffix names the allowed ports.
//!
//! A mapped method may carry its own settings (`#[cross_origin(...)]`, Spring's
//! `@CrossOrigin`): [`route_policy`] puts each one it sets in place of the server's.

use std::sync::Arc;

/// The default `max-age` (s) of a preflight answer, Java's.
pub const DEFAULT_MAX_AGE: u64 = 1800;

/// The methods allowed when `allowed-methods` is not set, Java's.
pub const DEFAULT_METHODS: &[&str] = &["GET", "HEAD", "POST"];

/// The methods `allowed-methods` may name (besides `*`).
const KNOWN_METHODS: &[&str] = &[
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE",
];

const ANY: &str = "*";

/// CORS settings as configured (Java's `CorsConfig`, keys
/// `dubbo.protocol.triple.rest.cors.<key>`); empty lists and `None` are "not set".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CorsSettings {
    /// `allowed-origins`: `*`, origins (`https://a.example`) or origin patterns
    /// (`https://*.a.example`, `http://localhost:[*]`).
    pub allowed_origins: Vec<String>,
    /// `allowed-methods`: `*` or HTTP methods (`GET`, `PUT`...).
    pub allowed_methods: Vec<String>,
    /// `allowed-headers`: `*` or the request headers a preflight may ask for.
    pub allowed_headers: Vec<String>,
    /// `exposed-headers`: response headers the browser shows to the page.
    pub exposed_headers: Vec<String>,
    /// `allow-credentials`: whether the page may send cookies and credentials.
    pub allow_credentials: Option<bool>,
    /// `max-age`: how long (s) a browser may keep a preflight answer.
    pub max_age: Option<u64>,
}

/// A CORS setting that cannot be applied: `key` is its name under
/// `dubbo.protocol.triple.rest.cors` (`allowed-methods`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {reason}")]
pub struct CorsError {
    /// The setting's key (`allowed-origins`, `allowed-methods`, ...).
    pub key: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

impl CorsError {
    /// The stable code of the error.
    pub fn code(&self) -> &'static str {
        "triple.rest_cors"
    }

    fn new(key: &'static str, reason: impl Into<String>) -> Self {
        CorsError {
            key,
            reason: reason.into(),
        }
    }
}

impl CorsSettings {
    /// Whether nothing is set (CORS off).
    pub fn is_empty(&self) -> bool {
        self.allowed_origins.is_empty()
            && self.allowed_methods.is_empty()
            && self.allowed_headers.is_empty()
            && self.exposed_headers.is_empty()
            && self.allow_credentials.is_none()
            && self.max_age.is_none()
    }

    /// The policy these settings give, Java's defaults filled in; `None` when nothing is set.
    /// A value that could never match a request, or credentials with any origin (which
    /// browsers refuse), is an error naming its key.
    pub fn policy(&self) -> Result<Option<Arc<CorsPolicy>>, CorsError> {
        if self.is_empty() {
            return Ok(None);
        }
        let origins = distinct(&self.allowed_origins, format_origin);
        let credentials = self.allow_credentials == Some(true);
        let mut patterns = Vec::new();
        for o in origins.iter().filter(|o| *o != ANY) {
            patterns.push(OriginPattern::parse(o)?);
        }
        if credentials && (origins.is_empty() || origins.iter().any(|o| o == ANY)) {
            return Err(CorsError::new(
                "allowed-origins",
                "allow-credentials is true, so the origins must be listed: \"*\" (the default) \
                 cannot be answered to a request with credentials",
            ));
        }
        let methods = distinct(&self.allowed_methods, |m| m.trim().to_ascii_uppercase());
        if let Some(m) = methods
            .iter()
            .find(|m| *m != ANY && !KNOWN_METHODS.contains(&m.as_str()))
        {
            return Err(CorsError::new(
                "allowed-methods",
                format!("{m:?} is not an HTTP method; expected \"*\" or some of {KNOWN_METHODS:?}"),
            ));
        }
        let headers = distinct(&self.allowed_headers, |h| h.trim().to_owned());
        let exposed = distinct(&self.exposed_headers, |h| h.trim().to_owned());
        for (key, list) in [("allowed-headers", &headers), ("exposed-headers", &exposed)] {
            if let Some(h) = list
                .iter()
                .find(|h| *h != ANY && http::HeaderName::from_bytes(h.as_bytes()).is_err())
            {
                return Err(CorsError::new(key, format!("{h:?} is not a header name")));
            }
        }
        let any_origin = origins.is_empty() || origins.iter().any(|o| o == ANY);
        Ok(Some(Arc::new(CorsPolicy {
            settings: self.clone(),
            any_origin,
            origins: if any_origin { Vec::new() } else { origins },
            patterns,
            any_method: methods.iter().any(|m| m == ANY),
            methods: if methods.is_empty() {
                DEFAULT_METHODS.iter().map(|m| (*m).to_owned()).collect()
            } else {
                methods
            },
            any_header: headers.is_empty() || headers.iter().any(|h| h == ANY),
            headers,
            exposed,
            credentials,
            max_age: self.max_age.unwrap_or(DEFAULT_MAX_AGE),
        })))
    }
}

impl CorsSettings {
    /// These settings with each one that `over` sets in its place.
    pub fn overridden_by(&self, over: &CorsSettings) -> CorsSettings {
        let pick = |mine: &Vec<String>, theirs: &Vec<String>| {
            if theirs.is_empty() {
                mine.clone()
            } else {
                theirs.clone()
            }
        };
        CorsSettings {
            allowed_origins: pick(&self.allowed_origins, &over.allowed_origins),
            allowed_methods: pick(&self.allowed_methods, &over.allowed_methods),
            allowed_headers: pick(&self.allowed_headers, &over.allowed_headers),
            exposed_headers: pick(&self.exposed_headers, &over.exposed_headers),
            allow_credentials: over.allow_credentials.or(self.allow_credentials),
            max_age: over.max_age.or(self.max_age),
        }
    }
}

/// The policy of one route with settings of its own (`over`, from `#[cross_origin]`): the
/// server's settings (`global`, `None` without any) with each one `over` sets in its place.
/// CORS is on for the route even when neither sets anything; when neither names the methods,
/// the route's own `verb` is allowed (with `HEAD` for `GET`), as Spring's `@CrossOrigin`
/// allows the methods of its mapping. An error names the setting that cannot be applied
/// (credentials with any origin, which the server's origins may bring).
pub(crate) fn route_policy(
    global: Option<&CorsPolicy>,
    over: &CorsSettings,
    verb: &str,
) -> Result<Arc<CorsPolicy>, CorsError> {
    let mut settings = global
        .map(|p| p.settings.clone())
        .unwrap_or_default()
        .overridden_by(over);
    if settings.allowed_methods.is_empty() {
        settings.allowed_methods = match verb {
            "GET" => vec!["GET".to_owned(), "HEAD".to_owned()],
            v => vec![v.to_owned()],
        };
    }
    settings
        .policy()?
        .ok_or_else(|| CorsError::new("allowed-methods", "no setting at all"))
}

/// The values of a list setting, each formatted, empty ones dropped, each once, in order;
/// `*` stands for all (Java's builder).
fn distinct(values: &[String], format: impl Fn(&str) -> String) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        let v = format(v);
        if v.is_empty() {
            continue;
        }
        if v == ANY {
            return vec![ANY.to_owned()];
        }
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// An origin as compared: trimmed, without a trailing `/`.
fn format_origin(value: &str) -> String {
    let v = value.trim();
    v.strip_suffix('/').unwrap_or(v).to_owned()
}

/// The ports an origin pattern allows after its host.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ports {
    /// None named: the pattern's own text decides.
    Unnamed,
    /// `:[*]`: any port, or none.
    Any,
    /// `:[8080,8081]`: one of these.
    List(Vec<String>),
}

/// One allowed origin as a pattern: `*` matches any text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OriginPattern {
    parts: Vec<String>,
    ports: Ports,
}

impl OriginPattern {
    fn parse(origin: &str) -> Result<Self, CorsError> {
        let bad = |why: &str| {
            CorsError::new(
                "allowed-origins",
                format!(
                    "{origin:?} {why}; expected \"*\", an origin (https://a.example) or a \
                     pattern (https://*.a.example, http://localhost:[8080,8081])"
                ),
            )
        };
        if !origin.contains("://") || origin.chars().any(char::is_whitespace) {
            return Err(bad("is not an origin"));
        }
        let (glob, ports) = match origin.strip_suffix(']').and_then(|o| o.rsplit_once(":[")) {
            Some((glob, "*")) => (glob, Ports::Any),
            Some((glob, list)) => {
                let ports: Vec<String> = list.split(',').map(str::to_owned).collect();
                if ports
                    .iter()
                    .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
                {
                    return Err(bad("names ports that are not numbers"));
                }
                (glob, Ports::List(ports))
            }
            None => (origin, Ports::Unnamed),
        };
        Ok(OriginPattern {
            parts: glob.split('*').map(str::to_owned).collect(),
            ports,
        })
    }

    fn matches(&self, origin: &str) -> bool {
        match &self.ports {
            Ports::Unnamed => glob_matches(&self.parts, origin),
            Ports::Any => {
                glob_matches(&self.parts, origin)
                    || split_port(origin).is_some_and(|(host, _)| glob_matches(&self.parts, host))
            }
            Ports::List(ports) => split_port(origin).is_some_and(|(host, port)| {
                ports.iter().any(|p| p == port) && glob_matches(&self.parts, host)
            }),
        }
    }
}

/// `origin` cut before its last `:` when only digits follow.
fn split_port(origin: &str) -> Option<(&str, &str)> {
    let (host, port) = origin.rsplit_once(':')?;
    (!port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())).then_some((host, port))
}

/// Whether `text` is the literal `parts` with any text between them (a `*` glob, anchored).
fn glob_matches(parts: &[String], text: &str) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return text.is_empty();
    };
    let Some(mut left) = text.strip_prefix(first.as_str()) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return left.is_empty();
    };
    for part in middle {
        match left.find(part.as_str()) {
            Some(at) => left = &left[at + part.len()..],
            None => return false,
        }
    }
    left.len() >= last.len() && left.ends_with(last.as_str())
}

/// Checked CORS settings with Java's defaults filled in (see [`CorsSettings::policy`]), and
/// its decisions (Java's `CorsHeaderFilter`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorsPolicy {
    /// The settings it was made from.
    settings: CorsSettings,
    any_origin: bool,
    origins: Vec<String>,
    patterns: Vec<OriginPattern>,
    any_method: bool,
    methods: Vec<String>,
    any_header: bool,
    headers: Vec<String>,
    exposed: Vec<String>,
    credentials: bool,
    max_age: u64,
}

/// The `Access-Control-*` headers of an allowed request, lower-case names first.
pub type CorsHeaders = Vec<(&'static str, String)>;

impl CorsPolicy {
    /// The `Access-Control-Allow-Origin` answered to `origin`: `*` when any origin is allowed,
    /// else the origin itself (trimmed, without a trailing `/`) when it is allowed; `None`
    /// when it is not.
    pub fn allow_origin(&self, origin: &str) -> Option<String> {
        let origin = format_origin(origin);
        if origin.is_empty() {
            return None;
        }
        if self.any_origin {
            return Some(ANY.to_owned());
        }
        let listed = self.origins.iter().any(|o| o.eq_ignore_ascii_case(&origin));
        (listed || self.patterns.iter().any(|p| p.matches(&origin))).then_some(origin)
    }

    /// The `Access-Control-Allow-Methods` answered for `method`: that method alone when any
    /// is allowed, every allowed method when it is one of them; `None` when it is not.
    pub fn allow_method(&self, method: &str) -> Option<Vec<String>> {
        let method = method.trim();
        if method.is_empty() {
            return None;
        }
        if self.any_method {
            return Some(vec![method.to_owned()]);
        }
        self.methods
            .iter()
            .any(|m| m.eq_ignore_ascii_case(method))
            .then(|| self.methods.clone())
    }

    /// The `Access-Control-Allow-Headers` answered for the headers a preflight asks for
    /// (`Access-Control-Request-Headers` values, each a comma-separated list): the asked
    /// headers that are allowed, empty when none was asked; `None` when headers were asked
    /// and none is allowed.
    pub fn allow_headers<'a>(
        &self,
        requested: impl IntoIterator<Item = &'a str>,
    ) -> Option<Vec<String>> {
        let asked: Vec<&str> = requested
            .into_iter()
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .collect();
        if asked.is_empty() {
            return Some(Vec::new());
        }
        let allowed: Vec<String> = asked
            .into_iter()
            .filter(|h| self.any_header || self.headers.iter().any(|a| a.eq_ignore_ascii_case(h)))
            .map(str::to_owned)
            .collect();
        (!allowed.is_empty()).then_some(allowed)
    }

    /// The headers of an answer to a preflight from `origin` asking for `method` and
    /// `requested` headers, or why it is refused.
    pub fn preflight<'a>(
        &self,
        origin: &str,
        method: &str,
        requested: impl IntoIterator<Item = &'a str>,
    ) -> Result<CorsHeaders, String> {
        let allow_origin = self
            .allow_origin(origin)
            .ok_or_else(|| format!("origin {origin:?} is not allowed"))?;
        let methods = self
            .allow_method(method)
            .ok_or_else(|| format!("method {method:?} is not allowed"))?;
        let headers = self
            .allow_headers(requested)
            .ok_or_else(|| "none of the requested headers is allowed".to_owned())?;
        let mut out = self.common(allow_origin);
        out.push(("access-control-allow-methods", methods.join(", ")));
        if !headers.is_empty() {
            out.push(("access-control-allow-headers", headers.join(", ")));
        }
        out.push(("access-control-max-age", self.max_age.to_string()));
        Ok(out)
    }

    /// The headers of the answer to an actual (not preflight) request from `origin` with
    /// `method`, or why it is refused.
    pub fn actual(&self, origin: &str, method: &str) -> Result<CorsHeaders, String> {
        let allow_origin = self
            .allow_origin(origin)
            .ok_or_else(|| format!("origin {origin:?} is not allowed"))?;
        self.allow_method(method)
            .ok_or_else(|| format!("method {method:?} is not allowed"))?;
        Ok(self.common(allow_origin))
    }

    /// Allow-Origin, Expose-Headers and Allow-Credentials, as both kinds of answer carry them.
    fn common(&self, allow_origin: String) -> CorsHeaders {
        let mut out = vec![("access-control-allow-origin", allow_origin)];
        if !self.exposed.is_empty() {
            out.push(("access-control-expose-headers", self.exposed.join(", ")));
        }
        if self.credentials {
            out.push(("access-control-allow-credentials", "true".to_owned()));
        }
        out
    }
}

#[cfg(test)]
#[path = "cors_tests.rs"]
mod tests;
