//! A request's arguments, taken from where the mapping says, each left as the request carried
//! it ([`JsonArg`]) for the service's dispatch to decode straight into its parameter's type.

use bytes::Bytes;
use dubbo_core::rest::{ParamSource, RestMethod, RestParam};
use dubbo_core::{JsonArg, Payload};
use http::{HeaderMap, StatusCode};
use serde_json::value::RawValue;

use super::form::{parse_cookies, parse_pairs};
use super::negotiate::BodyKind;
use super::HttpError;

/// Everything a request offers arguments from.
pub(crate) struct Inputs<'a> {
    pub(crate) vars: Vec<(String, String)>,
    pub(crate) query: Vec<(String, String)>,
    pub(crate) headers: &'a HeaderMap,
    pub(crate) body: Bytes,
    pub(crate) body_kind: BodyKind,
}

impl Inputs<'_> {
    fn form(&self) -> Vec<(String, String)> {
        if self.body_kind == BodyKind::Form {
            parse_pairs(&String::from_utf8_lossy(&self.body))
        } else {
            Vec::new()
        }
    }

    fn body_is_blank(&self) -> bool {
        self.body.iter().all(u8::is_ascii_whitespace)
    }
}

/// Every value of `name` in `pairs`, comma-joined (how a repeated query parameter reaches a
/// `Vec`); `None` when there is none.
fn joined(pairs: &[(String, String)], name: &str) -> Option<String> {
    let mut values = pairs
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.as_str());
    let first = values.next()?;
    Some(values.fold(first.to_owned(), |acc, v| acc + "," + v))
}

fn missing(p: &RestParam) -> HttpError {
    let place = match p.source {
        ParamSource::Body => return (StatusCode::BAD_REQUEST, "missing request body".into()),
        other => other.name(),
    };
    (
        StatusCode::BAD_REQUEST,
        format!("missing {place} parameter {:?}", p.name),
    )
}

/// A text value, its default, or null (an absent `Option`); a required one that is absent is
/// a 400.
fn text_or_default(p: &RestParam, value: Option<String>) -> Result<Payload, HttpError> {
    match value.or_else(|| p.default.map(str::to_owned)) {
        Some(v) => Ok(Payload::Json(JsonArg::text(v))),
        None if p.required => Err(missing(p)),
        None => Ok(Payload::null()),
    }
}

/// The body as one argument, read by its content type.
fn body_arg(p: &RestParam, inputs: &Inputs<'_>) -> Result<Payload, HttpError> {
    if inputs.body.is_empty() || (inputs.body_kind == BodyKind::Json && inputs.body_is_blank()) {
        return if p.required {
            Err(missing(p))
        } else {
            Ok(Payload::null())
        };
    }
    Ok(Payload::Json(match inputs.body_kind {
        BodyKind::Json => {
            check_json(&inputs.body)?;
            JsonArg::Json(inputs.body.clone())
        }
        _ => JsonArg::Text(inputs.body.clone()),
    }))
}

/// Refuses a body that is not JSON at all with 400 here, so that a 400 says "malformed JSON"
/// rather than "does not fit the parameter".
fn check_json(body: &[u8]) -> Result<(), HttpError> {
    serde_json::from_slice::<&RawValue>(body)
        .map(|_| ())
        .map_err(|e| (StatusCode::BAD_REQUEST, format!("malformed JSON body: {e}")))
}

/// The arguments of a mapped method.
pub(crate) fn mapped(method: &RestMethod, inputs: &Inputs<'_>) -> Result<Vec<Payload>, HttpError> {
    let form = inputs.form();
    let mut cookies = None;
    method
        .params
        .iter()
        .map(|p| match p.source {
            ParamSource::Path => text_or_default(
                p,
                inputs
                    .vars
                    .iter()
                    .find(|(k, _)| k == p.name)
                    .map(|(_, v)| v.clone()),
            ),
            ParamSource::Query => text_or_default(
                p,
                joined(&inputs.query, p.name).or_else(|| joined(&form, p.name)),
            ),
            ParamSource::Form => text_or_default(
                p,
                joined(&form, p.name).or_else(|| joined(&inputs.query, p.name)),
            ),
            ParamSource::Header => {
                let values: Vec<&str> = inputs
                    .headers
                    .get_all(p.name)
                    .iter()
                    .filter_map(|v| v.to_str().ok())
                    .collect();
                text_or_default(p, (!values.is_empty()).then(|| values.join(",")))
            }
            ParamSource::Cookie => {
                let jar = cookies.get_or_insert_with(|| {
                    inputs
                        .headers
                        .get_all(http::header::COOKIE)
                        .iter()
                        .filter_map(|v| v.to_str().ok())
                        .flat_map(parse_cookies)
                        .collect::<Vec<_>>()
                });
                text_or_default(p, joined(jar, p.name))
            }
            ParamSource::Body => body_arg(p, inputs),
        })
        .collect()
}

/// The arguments of the default `/{interface}/{method}` form: a JSON array body holds them in
/// order, a JSON object body by parameter name (when the service's mapping names them), any
/// other JSON body is the one argument; with no body they are query (or form) parameters by
/// name. `params` is `None` for a service without a mapping (then only the body counts).
pub(crate) fn default_form(
    params: Option<&'static [RestParam]>,
    inputs: &Inputs<'_>,
) -> Result<Vec<Payload>, HttpError> {
    // `curl -d '["world"]'` labels JSON as a form; no form body starts with `[` or `{`.
    let json_as_form = inputs.body_kind == BodyKind::Form
        && matches!(
            inputs.body.iter().find(|b| !b.is_ascii_whitespace()),
            Some(b'[' | b'{')
        );
    if (inputs.body_kind == BodyKind::Form && !json_as_form) || inputs.body_is_blank() {
        let Some(params) = params else {
            return Ok(Vec::new());
        };
        let form = inputs.form();
        return params
            .iter()
            .map(|p| {
                text_or_default(
                    p,
                    joined(&inputs.query, p.name).or_else(|| joined(&form, p.name)),
                )
            })
            .collect();
    }
    let body = &inputs.body;
    let first = body.iter().find(|b| !b.is_ascii_whitespace()).copied();
    let bad = |e: serde_json::Error| (StatusCode::BAD_REQUEST, format!("malformed JSON body: {e}"));
    let arity = params.map(<[RestParam]>::len);
    let raw =
        |r: &RawValue| Payload::Json(JsonArg::json(Bytes::copy_from_slice(r.get().as_bytes())));
    match first {
        Some(b'[') => {
            let items: Vec<Box<RawValue>> = serde_json::from_slice(body).map_err(bad)?;
            // A one-parameter method given an array of another length takes it whole (a
            // list argument), as the array cannot be its argument list.
            if arity == Some(1) && items.len() != 1 {
                return Ok(vec![Payload::Json(JsonArg::Json(body.clone()))]);
            }
            Ok(items.iter().map(|r| raw(r)).collect())
        }
        Some(b'{') => {
            let members: std::collections::HashMap<String, Box<RawValue>> =
                serde_json::from_slice(body).map_err(bad)?;
            match params {
                Some(ps) if ps.iter().any(|p| members.contains_key(p.name)) || ps.len() > 1 => ps
                    .iter()
                    .map(|p| match members.get(p.name) {
                        Some(r) => Ok(raw(r)),
                        None if p.required => Err(missing(p)),
                        None => Ok(Payload::null()),
                    })
                    .collect(),
                _ => Ok(vec![Payload::Json(JsonArg::Json(body.clone()))]),
            }
        }
        _ => {
            check_json(body)?;
            Ok(vec![Payload::Json(JsonArg::Json(body.clone()))])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn java_object() -> std::borrow::Cow<'static, str> {
        "java.lang.Object".into()
    }

    static A: RestParam = RestParam {
        name: "a",
        source: ParamSource::Query,
        default: None,
        required: true,
        rust_type: "i32",
        schema: None,
        java_type: java_object,
    };
    static B: RestParam = RestParam {
        name: "b",
        source: ParamSource::Query,
        default: None,
        required: false,
        rust_type: "Option<i32>",
        schema: None,
        java_type: java_object,
    };
    static TWO: [RestParam; 2] = [RestParam { ..A }, RestParam { ..B }];

    fn inputs<'a>(headers: &'a HeaderMap, query: &str, body: &str, kind: BodyKind) -> Inputs<'a> {
        Inputs {
            vars: Vec::new(),
            query: parse_pairs(query),
            headers,
            body: Bytes::copy_from_slice(body.as_bytes()),
            body_kind: kind,
        }
    }

    fn ints(args: Vec<Payload>) -> Vec<Option<i32>> {
        args.into_iter().map(|p| p.decode().unwrap()).collect()
    }

    #[test]
    fn the_default_form() {
        let h = HeaderMap::new();
        let two = Some(&TWO[..]);
        let run = |q, b, k| default_form(two, &inputs(&h, q, b, k));
        assert_eq!(
            ints(run("", "[1, 2]", BodyKind::Json).unwrap()),
            [Some(1), Some(2)]
        );
        assert_eq!(
            ints(run("", r#"{"b": 2, "a": 1}"#, BodyKind::Json).unwrap()),
            [Some(1), Some(2)]
        );
        assert_eq!(
            ints(run("", r#"{"a": 1}"#, BodyKind::Json).unwrap()),
            [Some(1), None]
        );
        assert_eq!(
            run("", r#"{"b": 1}"#, BodyKind::Json).unwrap_err().0,
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            ints(run("a=3&b=4", "", BodyKind::Json).unwrap()),
            [Some(3), Some(4)]
        );
        assert_eq!(
            ints(run("", "a=5", BodyKind::Form).unwrap()),
            [Some(5), None]
        );
        // JSON labelled as a form (curl -d).
        assert_eq!(
            ints(run("", "[6, 7]", BodyKind::Form).unwrap()),
            [Some(6), Some(7)]
        );
        let bad = run("", "[1,", BodyKind::Json).unwrap_err();
        assert_eq!(bad.0, StatusCode::BAD_REQUEST);
        assert!(bad.1.starts_with("malformed JSON body"), "{}", bad.1);
        assert_eq!(
            run("b=1", "", BodyKind::Json).unwrap_err().1,
            "missing query parameter \"a\""
        );
        // One parameter: an object it is not named in, or an array of another length, is the
        // argument itself.
        let one = Some(&TWO[..1]);
        let whole = default_form(one, &inputs(&h, "", r#"{"x": 1}"#, BodyKind::Json)).unwrap();
        assert_eq!(
            whole[0].clone().decode::<serde_json::Value>().unwrap()["x"],
            1
        );
        let list = default_form(one, &inputs(&h, "", "[1, 2, 3]", BodyKind::Json)).unwrap();
        assert_eq!(list[0].clone().decode::<Vec<i32>>().unwrap(), [1, 2, 3]);
        // No mapping: only the body.
        assert!(default_form(None, &inputs(&h, "a=1", "", BodyKind::Json))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn mapped_places() {
        static PARAMS: [RestParam; 4] = [
            RestParam {
                name: "x-who",
                source: ParamSource::Header,
                default: None,
                required: true,
                rust_type: "String",
                schema: None,
                java_type: java_object,
            },
            RestParam {
                name: "sid",
                source: ParamSource::Cookie,
                default: None,
                required: false,
                rust_type: "Option<String>",
                schema: None,
                java_type: java_object,
            },
            RestParam {
                name: "tags",
                source: ParamSource::Query,
                default: Some("none"),
                required: false,
                rust_type: "Vec<String>",
                schema: None,
                java_type: java_object,
            },
            RestParam {
                name: "body",
                source: ParamSource::Body,
                default: None,
                required: false,
                rust_type: "Option<String>",
                schema: None,
                java_type: java_object,
            },
        ];
        static METHOD: RestMethod = RestMethod {
            java_name: "m",
            verb: Some("POST"),
            path: "/m",
            params: &PARAMS,
            consumes: &[],
            produces: &[],
            status: 0,
            headers: &[],
            returns: "()",
            returns_schema: None,
            cors: None,
            overloaded: false,
        };
        let mut h = HeaderMap::new();
        h.insert("x-who", "ann".parse().unwrap());
        h.insert(http::header::COOKIE, "a=1; sid=s9".parse().unwrap());
        let args = mapped(&METHOD, &inputs(&h, "tags=a&tags=b", "hi", BodyKind::Text)).unwrap();
        assert_eq!(args[0].clone().decode::<String>().unwrap(), "ann");
        assert_eq!(
            args[1]
                .clone()
                .decode::<Option<String>>()
                .unwrap()
                .as_deref(),
            Some("s9")
        );
        assert_eq!(args[2].clone().decode::<Vec<String>>().unwrap(), ["a", "b"]);
        assert_eq!(
            args[3]
                .clone()
                .decode::<Option<String>>()
                .unwrap()
                .as_deref(),
            Some("hi")
        );
        // Defaults and absences.
        let mut only_who = HeaderMap::new();
        only_who.insert("x-who", "bo".parse().unwrap());
        let args = mapped(&METHOD, &inputs(&only_who, "", "", BodyKind::Json)).unwrap();
        assert!(args[1].is_null() && args[3].is_null());
        assert_eq!(args[2].clone().decode::<Vec<String>>().unwrap(), ["none"]);
        let err = mapped(&METHOD, &inputs(&HeaderMap::new(), "", "", BodyKind::Json)).unwrap_err();
        assert_eq!(err.1, "missing header parameter \"x-who\"");
    }
}
