//! The HTTP request of one call: its method's mapping (verb, path template, where each
//! argument goes) filled with the call's arguments.

use bytes::Bytes;
use dubbo_core::rest::{overload_suffix, ParamSource, RestMethod};
use dubbo_core::{ErrorCode, Invocation, RpcError};

/// What a request is made of, before it meets a connection.
#[derive(Debug)]
pub(crate) struct Plan {
    /// `GET`, `POST`...
    pub verb: &'static str,
    /// The path and query (`/ctx/users/7?limit=3`), percent-encoded.
    pub path_and_query: String,
    /// Headers in order (names lower case).
    pub headers: Vec<(String, String)>,
    /// The body and its content type, if any.
    pub body: Option<(Bytes, String)>,
}

/// Characters a path segment keeps as written (RFC 3986 `pchar` minus the ones that delimit).
fn keep_in_segment(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&c)
}

/// Characters a query or form name or value keeps as written.
fn keep_in_query(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~".contains(&c)
}

/// `%XX`-escapes every byte of `s` that `keep` does not keep.
pub(crate) fn percent_encode(s: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if keep(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The text values of one argument's JSON: none for `null`, each element of an array (a
/// repeated query parameter), a string's own text, any other value as its JSON.
fn texts(json: &[u8]) -> Result<Vec<String>, serde_json::Error> {
    let value: serde_json::Value = serde_json::from_slice(json)?;
    Ok(match value {
        serde_json::Value::Null => Vec::new(),
        serde_json::Value::Array(items) => items.into_iter().filter_map(text_of).collect(),
        other => text_of(other).into_iter().collect(),
    })
}

fn text_of(v: serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

fn codec(invocation: &Invocation, what: &str, e: impl std::fmt::Display) -> RpcError {
    RpcError::framework(
        ErrorCode::Codec,
        format!(
            "{} of {}: {what}: {e}",
            invocation.method_name(),
            invocation.service().interface()
        ),
    )
}

/// Whether a media type is read as text rather than JSON.
fn is_text(media: &str) -> bool {
    media.starts_with("text/")
}

/// The request for `invocation` under `context_path` (empty, or `/api`).
pub(crate) fn plan(invocation: &Invocation, context_path: &str) -> Result<Plan, RpcError> {
    let args = invocation.args();
    let mapping = invocation.method().rest().filter(|m| m.is_mapped());
    let Some(mapping) = mapping else {
        return default_plan(invocation, context_path);
    };
    if mapping.params.len() != args.len() {
        return Err(RpcError::framework(
            ErrorCode::BadRequest,
            format!(
                "{} of {} maps {} parameters but the call has {} arguments",
                invocation.method_name(),
                invocation.service().interface(),
                mapping.params.len(),
                args.len()
            ),
        ));
    }
    let mut path_values: Vec<(&str, String)> = Vec::new();
    let mut query: Vec<String> = Vec::new();
    let mut form: Vec<String> = Vec::new();
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut cookies: Vec<String> = Vec::new();
    let mut body = None;
    for (param, arg) in mapping.params.iter().zip(args) {
        let json = arg
            .to_json()
            .map_err(|e| codec(invocation, param.name, e))?;
        if param.source == ParamSource::Body {
            body = Some(body_of(mapping, json).map_err(|e| codec(invocation, param.name, e))?);
            continue;
        }
        let values = texts(&json).map_err(|e| codec(invocation, param.name, e))?;
        // `None` where the mapping needs a value (an empty list is a value: no repeats).
        if json.as_slice() == b"null" && param.required && param.default.is_none() {
            return Err(RpcError::framework(
                ErrorCode::BadRequest,
                format!(
                    "{} of {}: the required {} parameter `{}` has no value",
                    invocation.method_name(),
                    invocation.service().interface(),
                    param.source.name(),
                    param.name
                ),
            ));
        }
        let name = percent_encode(param.name, keep_in_query);
        match param.source {
            ParamSource::Path => {
                path_values.push((param.name, values.join(",")));
            }
            ParamSource::Query => query.extend(
                values
                    .iter()
                    .map(|v| format!("{name}={}", percent_encode(v, keep_in_query))),
            ),
            ParamSource::Form => form.extend(
                values
                    .iter()
                    .map(|v| format!("{name}={}", percent_encode(v, keep_in_query))),
            ),
            ParamSource::Header => {
                for v in values {
                    headers.push((param.name.to_ascii_lowercase(), v));
                }
            }
            ParamSource::Cookie => cookies.extend(
                values
                    .iter()
                    .map(|v| format!("{}={}", param.name, percent_encode(v, keep_in_query))),
            ),
            ParamSource::Body => {}
        }
    }
    let path = fill_template(mapping.path, &path_values).map_err(|m| {
        RpcError::framework(
            ErrorCode::BadRequest,
            format!(
                "{} of {}: {m}",
                invocation.method_name(),
                invocation.service().interface()
            ),
        )
    })?;
    let mut path_and_query = format!("{context_path}{path}");
    if !query.is_empty() {
        path_and_query.push('?');
        path_and_query.push_str(&query.join("&"));
    }
    if !cookies.is_empty() {
        headers.push(("cookie".to_owned(), cookies.join("; ")));
    }
    if !form.is_empty() {
        body = Some((
            Bytes::from(form.join("&")),
            "application/x-www-form-urlencoded".to_owned(),
        ));
    }
    let accept = if mapping.produces.is_empty() {
        "application/json".to_owned()
    } else {
        mapping.produces.join(", ")
    };
    headers.push(("accept".to_owned(), accept));
    Ok(Plan {
        verb: mapping.client_verb(),
        path_and_query,
        headers,
        body,
    })
}

/// A body argument: its YAML for a method that consumes YAML first, the text itself for one
/// that consumes text, else its JSON.
fn body_of(mapping: &RestMethod, json: Vec<u8>) -> Result<(Bytes, String), String> {
    Ok(match mapping.consumes.first() {
        Some(media) if crate::yaml_body::is_yaml(media) => {
            (crate::yaml_body::from_json(&json)?, (*media).to_owned())
        }
        Some(media) if is_text(media) => {
            let text = match serde_json::from_slice::<serde_json::Value>(&json) {
                Ok(serde_json::Value::String(s)) => Bytes::from(s),
                _ => Bytes::from(json),
            };
            (text, format!("{media}; charset=utf-8"))
        }
        Some(media) if media.contains("json") => (Bytes::from(json), (*media).to_owned()),
        _ => (Bytes::from(json), "application/json".to_owned()),
    })
}

/// The default mapping of a method without a verb (or of a signature without a mapping):
/// `POST /{interface}/{method}` with the arguments as a JSON array; an overloaded method is
/// named with the `~` suffix of its parameter types (`/{interface}/add~ll`), as the server
/// tells overloads apart.
fn default_plan(invocation: &Invocation, context_path: &str) -> Result<Plan, RpcError> {
    let mut body = Vec::from(&b"["[..]);
    for (i, arg) in invocation.args().iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        let json = arg
            .to_json()
            .map_err(|e| codec(invocation, &format!("argument {i}"), e))?;
        body.extend_from_slice(&json);
    }
    body.push(b']');
    let suffix = invocation
        .method()
        .rest()
        .filter(|m| m.overloaded)
        .and_then(|_| overload_suffix(invocation.method().parameter_types()))
        .map(|s| format!("~{s}"))
        .unwrap_or_default();
    Ok(Plan {
        verb: "POST",
        path_and_query: format!(
            "{context_path}/{}/{}{suffix}",
            invocation.service().interface(),
            invocation.method_name()
        ),
        headers: vec![("accept".to_owned(), "application/json".to_owned())],
        body: Some((Bytes::from(body), "application/json".to_owned())),
    })
}

/// `template` with each `{name}`, `{name:regex}` and `{*name}` replaced by its value,
/// percent-encoded (a `{*name}` keeps its `/`). Wildcards (`*`, `**`) match many paths on a
/// server but name none for a client, so a template with one is refused.
pub(crate) fn fill_template(template: &str, values: &[(&str, String)]) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let literal = &rest[..open];
        check_literal(template, literal)?;
        out.push_str(literal);
        // A regex may hold braces of its own (`{n:\d{2}}`): find the matching close.
        let mut depth = 0usize;
        let mut close = None;
        for (j, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        close = Some(open + j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else {
            return Err(format!("the path {template:?} has `{{` without `}}`"));
        };
        let inner = &rest[open + 1..close];
        let name = inner.split_once(':').map_or(inner, |(n, _)| n);
        let (name, whole_rest) = match name.strip_prefix('*') {
            Some(n) => (n, true),
            None => (name, false),
        };
        let Some((_, value)) = values.iter().find(|(n, _)| *n == name) else {
            return Err(format!("the path variable `{{{name}}}` has no argument"));
        };
        if whole_rest {
            let segments: Vec<String> = value
                .split('/')
                .map(|s| percent_encode(s, keep_in_segment))
                .collect();
            out.push_str(&segments.join("/"));
        } else {
            out.push_str(&percent_encode(value, keep_in_segment));
        }
        rest = &rest[close + 1..];
    }
    check_literal(template, rest)?;
    out.push_str(rest);
    Ok(out)
}

fn check_literal(template: &str, literal: &str) -> Result<(), String> {
    if literal.contains('*') {
        return Err(format!(
            "the path {template:?} has a wildcard, which names no single path to call: map the \
             method with variables ({{name}}) instead"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill_and_encode() {
        let v = |n: &'static str, s: &str| (n, s.to_owned());
        assert_eq!(
            fill_template("/users/{id}", &[v("id", "7")]).unwrap(),
            "/users/7"
        );
        assert_eq!(
            fill_template(r"/v/{n:\d{2}}/x", &[v("n", "12")]).unwrap(),
            "/v/12/x"
        );
        assert_eq!(
            fill_template("/f/{*rest}", &[v("rest", "a b/c")]).unwrap(),
            "/f/a%20b/c"
        );
        assert_eq!(
            fill_template("/u/{id}", &[v("id", "a/b?c")]).unwrap(),
            "/u/a%2Fb%3Fc"
        );
        assert!(fill_template("/files/**", &[]).is_err());
        assert!(fill_template("/u/{id}", &[]).is_err());
    }

    #[test]
    fn bodies_by_what_the_method_consumes() {
        let method = |consumes: &'static [&'static str]| RestMethod {
            java_name: "put",
            verb: Some("PUT"),
            path: "/x",
            params: &[],
            consumes,
            produces: &[],
            status: 0,
            headers: &[],
            returns: "()",
            returns_schema: None,
            cors: None,
            overloaded: false,
        };
        let json = br#"{"id":7,"tags":["a"]}"#.to_vec();
        let (body, media) = body_of(&method(&["application/yaml"]), json.clone()).unwrap();
        assert_eq!(
            (&body[..], media.as_str()),
            (&b"id: 7\ntags:\n- a\n"[..], "application/yaml")
        );
        let (body, media) = body_of(&method(&[]), json.clone()).unwrap();
        assert_eq!((&body[..], media.as_str()), (&json[..], "application/json"));
        let (body, _) = body_of(&method(&["text/plain"]), b"\"hi\"".to_vec()).unwrap();
        assert_eq!(&body[..], b"hi");
    }

    #[test]
    fn texts_of_arguments() {
        assert_eq!(texts(b"\"a b\"").unwrap(), vec!["a b"]);
        assert_eq!(texts(b"42").unwrap(), vec!["42"]);
        assert!(texts(b"null").unwrap().is_empty());
        assert_eq!(texts(b"[1,\"x\",null]").unwrap(), vec!["1", "x"]);
        assert_eq!(
            percent_encode("a&b=c é", keep_in_query),
            "a%26b%3Dc%20%C3%A9"
        );
    }
}
