//! Content negotiation: what a request body is (by `Content-Type`), which media type the
//! answer takes (by the method's `produces`, `?format=` and `Accept`), and the answer's bytes
//! in it.

use bytes::Bytes;
use dubbo_core::Payload;

/// JSON: the default of both directions.
pub(crate) const JSON: &str = "application/json";
const TEXT: &str = "text/plain";
const OCTETS: &str = "application/octet-stream";
const FORM: &str = "application/x-www-form-urlencoded";
const YAML: &str = crate::yaml_body::YAML;

/// What a request body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// JSON (also when no `Content-Type` is given).
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
    /// `text/*`.
    Text,
    /// `application/octet-stream`.
    Bytes,
    /// Anything else: refused with 415.
    Other,
}

/// The media type of a `Content-Type` value, lowercased, without parameters.
pub(crate) fn media_type(content_type: Option<&str>) -> Option<String> {
    content_type
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|v| !v.is_empty())
}

/// What a body of `media` is.
pub(crate) fn body_kind(media: Option<&str>) -> BodyKind {
    match media {
        None => BodyKind::Json,
        Some(m) if m == JSON || m == "text/json" || m.ends_with("+json") => BodyKind::Json,
        Some(FORM) => BodyKind::Form,
        Some(OCTETS) => BodyKind::Bytes,
        Some(m) if m.starts_with("text/") => BodyKind::Text,
        Some(_) => BodyKind::Other,
    }
}

/// The media type `?format=` names.
fn format_type(format: &str) -> Option<&'static str> {
    Some(match format.to_ascii_lowercase().as_str() {
        "json" => JSON,
        "text" | "plain" | "txt" => TEXT,
        "bytes" | "binary" | "octet-stream" => OCTETS,
        "yaml" | "yml" => YAML,
        _ => return None,
    })
}

/// The answer's media type: among the method's `produces` (or JSON, text, bytes and YAML), the
/// first that `?format=` or `Accept` (by quality) takes; `Err` (406) with the reason when
/// none is.
pub(crate) fn choose(
    produces: &'static [&'static str],
    accept: Option<&str>,
    format: Option<&str>,
) -> Result<&'static str, String> {
    const DEFAULT: &[&str] = &[JSON, TEXT, OCTETS, YAML];
    let available = if produces.is_empty() {
        DEFAULT
    } else {
        produces
    };
    let wanted: Vec<String> = if let Some(f) = format {
        match format_type(f) {
            Some(t) => vec![t.to_owned()],
            None => {
                return Err(format!(
                    "format {f:?} is not one of json, text, bytes, yaml"
                ))
            }
        }
    } else {
        let mut ranges: Vec<(String, f32)> = accept
            .unwrap_or("")
            .split(',')
            .filter_map(|r| {
                let mut parts = r.split(';');
                let t = parts.next()?.trim().to_ascii_lowercase();
                let q = parts
                    .filter_map(|p| p.trim().strip_prefix("q="))
                    .find_map(|q| q.trim().parse::<f32>().ok())
                    .unwrap_or(1.0);
                (!t.is_empty() && q > 0.0).then_some((t, q))
            })
            .collect();
        if ranges.is_empty() {
            return Ok(available[0]);
        }
        ranges.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranges.into_iter().map(|(t, _)| t).collect()
    };
    for w in &wanted {
        let hit = available.iter().find(|a| {
            w == "*/*"
                || a.eq_ignore_ascii_case(w)
                || w.strip_suffix("/*")
                    .is_some_and(|ty| a.split('/').next() == Some(ty))
        });
        if let Some(a) = hit {
            return Ok(a);
        }
    }
    Err(format!(
        "cannot answer with {}; this method answers with {}",
        wanted.join(", "),
        available.join(", ")
    ))
}

/// The answer `value` in `media`: JSON for JSON types, the text itself for text types (a
/// JSON string unquoted, anything else as its JSON), the bytes themselves for
/// `application/octet-stream` (a byte array or a string), its YAML for YAML types. `Err`
/// (406) when the value has no such form.
pub(crate) fn encode(value: &Payload, media: &str) -> Result<Bytes, String> {
    let json = value
        .to_json()
        .map_err(|e| format!("the result does not convert to JSON: {e}"))?;
    if body_kind(Some(media)) == BodyKind::Json {
        return Ok(Bytes::from(json));
    }
    if crate::yaml_body::is_yaml(media) {
        return crate::yaml_body::from_json(&json)
            .map_err(|e| format!("the result does not convert to YAML: {e}"));
    }
    let tree: Option<serde_json::Value> = serde_json::from_slice(&json).ok();
    if media == OCTETS {
        return match tree {
            Some(serde_json::Value::String(s)) => Ok(Bytes::from(s)),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .map(|i| i.as_u64().and_then(|n| u8::try_from(n).ok()))
                .collect::<Option<Vec<u8>>>()
                .map(Bytes::from)
                .ok_or_else(|| "the result is not bytes: ask for JSON".to_owned()),
            Some(serde_json::Value::Null) => Ok(Bytes::new()),
            _ => Err("the result is not bytes: ask for JSON".to_owned()),
        };
    }
    match tree {
        Some(serde_json::Value::String(s)) => Ok(Bytes::from(s)),
        Some(serde_json::Value::Null) => Ok(Bytes::new()),
        _ => Ok(Bytes::from(json)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choosing() {
        assert_eq!(choose(&[], None, None), Ok(JSON));
        assert_eq!(choose(&[], Some("*/*"), None), Ok(JSON));
        assert_eq!(choose(&[], Some("text/plain, */*;q=0.1"), None), Ok(TEXT));
        assert_eq!(
            choose(&[], Some("text/*;q=0.5, application/json"), None),
            Ok(JSON)
        );
        assert_eq!(
            choose(&[], Some("application/json"), Some("text")),
            Ok(TEXT)
        );
        assert!(choose(&[], Some("application/xml"), None).is_err());
        assert!(choose(&[], None, Some("xml")).is_err());
        assert_eq!(choose(&[], Some("application/yaml"), None), Ok(YAML));
        assert_eq!(choose(&[], None, Some("yml")), Ok(YAML));
        assert_eq!(choose(&["text/plain"], None, None), Ok(TEXT));
        assert!(choose(&["text/plain"], Some("application/json"), None).is_err());
        assert_eq!(
            body_kind(media_type(Some("Application/JSON; charset=utf-8")).as_deref()),
            BodyKind::Json
        );
        assert_eq!(body_kind(Some(FORM)), BodyKind::Form);
        assert_eq!(body_kind(Some("image/png")), BodyKind::Other);
    }

    #[test]
    fn encoding() {
        let s = Payload::typed("Hello".to_owned());
        assert_eq!(encode(&s, JSON).unwrap(), "\"Hello\"");
        assert_eq!(encode(&s, TEXT).unwrap(), "Hello");
        assert_eq!(encode(&s, OCTETS).unwrap(), "Hello");
        let n = Payload::typed(vec![1u8, 2]);
        assert_eq!(&encode(&n, OCTETS).unwrap()[..], &[1, 2]);
        assert_eq!(encode(&Payload::typed(5), TEXT).unwrap(), "5");
        assert!(encode(&Payload::typed(5), OCTETS).is_err());
        assert_eq!(
            encode(&Payload::typed(vec![1, 2]), YAML).unwrap(),
            "- 1\n- 2\n"
        );
    }
}
