//! CORS on the REST answers: the [`CorsPolicy`] of the server applied to a request that found
//! its route, as Java's `CorsHeaderFilter` applies it.
//!
//! - Without a policy: nothing is added, and a preflight (`OPTIONS` with `Origin` and
//!   `Access-Control-Request-Method`) is refused with 403.
//! - With one: every answer carries `Vary: origin, access-control-request-method,
//!   access-control-request-headers`. A request without `Origin`, or from the server's own
//!   origin, is not a CORS request and gets nothing more. A preflight is answered 204 with
//!   `Access-Control-Allow-Origin`/`-Methods`/`-Headers`/`-Max-Age` (and `-Expose-Headers`,
//!   `-Allow-Credentials` when set), or 403 when its origin, method or headers are not
//!   allowed. An actual request from a disallowed origin or with a disallowed method is
//!   refused with 403 before the service is called; an allowed one is answered as usual with
//!   `Access-Control-Allow-Origin` (and `-Expose-Headers`, `-Allow-Credentials`).

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, VARY};
use http::{HeaderMap, Method, StatusCode};

use super::{json_error, Reply};
use crate::cors::{CorsHeaders, CorsPolicy};

const ORIGIN: &str = "origin";
pub(crate) const REQUEST_METHOD: &str = "access-control-request-method";
const REQUEST_HEADERS: &str = "access-control-request-headers";

/// The `Vary` names a CORS answer depends on.
const VARY_NAMES: [&str; 3] = [ORIGIN, REQUEST_METHOD, REQUEST_HEADERS];

/// Marks a request that came over TLS without naming its scheme (HTTP/1.1): its scheme is
/// `https` when its origin is compared with the request's own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OverTls;

/// What CORS makes of a routed request.
pub(crate) enum Gate {
    /// Go on; add these headers to the answer, whatever it is.
    Pass(HeaderMap),
    /// Answer this now (a preflight's answer, or a refusal), without calling the service.
    Answer(Reply),
}

/// Whether the request is a CORS preflight.
pub(crate) fn is_preflight(parts: &http::request::Parts) -> bool {
    parts.method == Method::OPTIONS
        && parts.headers.contains_key(ORIGIN)
        && parts.headers.contains_key(REQUEST_METHOD)
}

/// The CORS decision for a request whose route exists.
pub(crate) fn gate(policy: Option<&CorsPolicy>, parts: &http::request::Parts) -> Gate {
    let preflight = is_preflight(parts);
    let Some(policy) = policy else {
        return if preflight {
            Gate::Answer(refusal(HeaderMap::new(), "CORS is not configured"))
        } else {
            Gate::Pass(HeaderMap::new())
        };
    };
    let mut extra = HeaderMap::new();
    extra.insert(VARY, HeaderValue::from_static(VARY_VALUE));
    let text = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
    let Some(origin) = text(ORIGIN) else {
        return Gate::Pass(extra);
    };
    if !preflight && same_origin(parts, origin) {
        return Gate::Pass(extra);
    }
    let decision = if preflight {
        let requested = parts
            .headers
            .get_all(REQUEST_HEADERS)
            .iter()
            .filter_map(|v| v.to_str().ok());
        policy.preflight(origin, text(REQUEST_METHOD).unwrap_or(""), requested)
    } else {
        policy.actual(origin, parts.method.as_str())
    };
    match decision {
        Err(why) => Gate::Answer(refusal(extra, &why)),
        Ok(headers) => {
            put(&mut extra, headers);
            if preflight {
                let mut r = http::Response::new(Bytes::new());
                *r.status_mut() = StatusCode::NO_CONTENT;
                *r.headers_mut() = extra;
                Gate::Answer(r)
            } else {
                Gate::Pass(extra)
            }
        }
    }
}

const VARY_VALUE: &str = "origin, access-control-request-method, access-control-request-headers";

/// Adds `extra` to an answer; `Vary` names are merged with the answer's own.
pub(crate) fn apply(reply: &mut Reply, extra: HeaderMap) {
    for (name, value) in extra.iter() {
        if name == VARY {
            merge_vary(reply.headers_mut());
        } else {
            reply.headers_mut().insert(name.clone(), value.clone());
        }
    }
}

fn merge_vary(headers: &mut HeaderMap) {
    let mut names: Vec<String> = headers
        .get_all(VARY)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect();
    for n in VARY_NAMES {
        if !names.iter().any(|have| have.eq_ignore_ascii_case(n)) {
            names.push(n.to_owned());
        }
    }
    if let Ok(v) = HeaderValue::from_str(&names.join(", ")) {
        headers.insert(VARY, v);
    }
}

fn put(headers: &mut HeaderMap, values: CorsHeaders) {
    for (name, value) in values {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), v);
        }
    }
}

/// 403 with the JSON error body and `extra` (the `Vary` of a configured policy).
fn refusal(extra: HeaderMap, why: &str) -> Reply {
    let mut r = json_error(
        StatusCode::FORBIDDEN,
        &format!("Invalid CORS request: {why}"),
    );
    r.headers_mut().extend(extra);
    r
}

/// Whether `origin` is the request's own scheme, host and port (not a CORS request).
fn same_origin(parts: &http::request::Parts, origin: &str) -> bool {
    let authority = parts.uri.authority().map(|a| a.as_str()).or_else(|| {
        parts
            .headers
            .get(http::header::HOST)
            .and_then(|v| v.to_str().ok())
    });
    let Some(authority) = authority else {
        return false;
    };
    let scheme = parts.uri.scheme_str().unwrap_or_else(|| {
        if parts.extensions.get::<OverTls>().is_some() {
            "https"
        } else {
            "http"
        }
    });
    let Some((o_scheme, o_authority)) = origin.trim().split_once("://") else {
        return false;
    };
    o_scheme.eq_ignore_ascii_case(scheme)
        && with_port(o_authority, o_scheme).eq_ignore_ascii_case(&with_port(authority, scheme))
}

/// `host:port`, the scheme's default port filled in.
fn with_port(authority: &str, scheme: &str) -> String {
    let authority = authority.trim_end_matches('/');
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if has_port {
        return authority.to_owned();
    }
    let port = if scheme.eq_ignore_ascii_case("https") {
        443
    } else {
        80
    };
    format!("{authority}:{port}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::cors::CorsSettings;

    fn request(method: &str, headers: &[(&str, &str)]) -> http::request::Parts {
        let mut b = http::Request::builder()
            .method(method)
            .uri("/users/1")
            .header("host", "127.0.0.1:8080");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(()).unwrap().into_parts().0
    }

    fn policy() -> std::sync::Arc<CorsPolicy> {
        CorsSettings {
            allowed_origins: vec!["https://a.example".into()],
            allowed_headers: vec!["X-Token".into()],
            ..Default::default()
        }
        .policy()
        .unwrap()
        .unwrap()
    }

    #[test]
    fn without_a_policy_only_preflights_are_refused() {
        let pre = request(
            "OPTIONS",
            &[("origin", "https://a.example"), (REQUEST_METHOD, "GET")],
        );
        match gate(None, &pre) {
            Gate::Answer(r) => {
                assert_eq!(r.status(), 403);
                assert!(r.headers().get("access-control-allow-origin").is_none());
            }
            Gate::Pass(_) => panic!("a preflight without CORS passed"),
        }
        match gate(None, &request("GET", &[("origin", "https://a.example")])) {
            Gate::Pass(h) => assert!(h.is_empty()),
            Gate::Answer(_) => panic!("refused"),
        }
    }

    #[test]
    fn preflight_allowed_and_refused() {
        let p = policy();
        let pre = request(
            "OPTIONS",
            &[
                ("origin", "https://a.example"),
                (REQUEST_METHOD, "POST"),
                (REQUEST_HEADERS, "x-token"),
            ],
        );
        let Gate::Answer(r) = gate(Some(&p), &pre) else {
            panic!("not answered")
        };
        assert_eq!(r.status(), 204);
        let h = r.headers();
        assert_eq!(h["access-control-allow-origin"], "https://a.example");
        assert_eq!(h["access-control-allow-methods"], "GET, HEAD, POST");
        assert_eq!(h["access-control-allow-headers"], "x-token");
        assert_eq!(h["access-control-max-age"], "1800");
        assert_eq!(h[VARY], VARY_VALUE);
        let bad = request(
            "OPTIONS",
            &[("origin", "https://a.example"), (REQUEST_METHOD, "DELETE")],
        );
        let Gate::Answer(r) = gate(Some(&p), &bad) else {
            panic!("not answered")
        };
        assert_eq!(r.status(), 403);
        assert_eq!(r.headers()[VARY], VARY_VALUE);
        assert!(r.headers().get("access-control-allow-origin").is_none());
    }

    #[test]
    fn actual_requests() {
        let p = policy();
        let Gate::Pass(h) = gate(
            Some(&p),
            &request("GET", &[("origin", "https://a.example")]),
        ) else {
            panic!("refused")
        };
        assert_eq!(h["access-control-allow-origin"], "https://a.example");
        // No Origin, or the server's own: only Vary.
        for r in [
            request("GET", &[]),
            request("GET", &[("origin", "http://127.0.0.1:8080")]),
        ] {
            let Gate::Pass(h) = gate(Some(&p), &r) else {
                panic!("refused")
            };
            assert_eq!(h.len(), 1);
            assert!(h.contains_key(VARY));
        }
        // Over TLS (HTTP/1.1 names no scheme) the server's own origin is https, and the
        // same host over http is another origin.
        let mut tls = request("GET", &[("origin", "https://127.0.0.1:8080")]);
        tls.extensions.insert(OverTls);
        let Gate::Pass(h) = gate(Some(&p), &tls) else {
            panic!("the server's own https origin was refused")
        };
        assert_eq!(h.len(), 1);
        let mut plain_origin = request("GET", &[("origin", "http://127.0.0.1:8080")]);
        plain_origin.extensions.insert(OverTls);
        assert!(matches!(gate(Some(&p), &plain_origin), Gate::Answer(_)));
        let Gate::Answer(r) = gate(
            Some(&p),
            &request("GET", &[("origin", "https://b.example")]),
        ) else {
            panic!("passed")
        };
        assert_eq!(r.status(), 403);
        let Gate::Answer(r) = gate(
            Some(&p),
            &request("PUT", &[("origin", "https://a.example")]),
        ) else {
            panic!("passed")
        };
        assert_eq!(r.status(), 403);
    }

    #[test]
    fn vary_merges_with_the_answers_own() {
        let mut reply = http::Response::new(Bytes::new());
        reply
            .headers_mut()
            .insert(VARY, HeaderValue::from_static("accept, Origin"));
        let mut extra = HeaderMap::new();
        extra.insert(VARY, HeaderValue::from_static(VARY_VALUE));
        apply(&mut reply, extra);
        assert_eq!(
            reply.headers()[VARY],
            "accept, Origin, access-control-request-method, access-control-request-headers"
        );
    }
}
