//! The OpenAPI 3 document of every REST-mapped export, served at `GET /dubbo/openapi/api-docs`
//! (JSON, or YAML with `?format=yaml` or `Accept: application/yaml`), generated from the mappings the service macro wrote: each mapped method's verb,
//! path, parameters, body, status and media types, and each method's default-mapping form.
//!
//! Schemas come from the types' `RestSchema` (`#[derive(dubbo_rs::RestSchema)]`: a struct's
//! fields, an enum's names) and, for types without one, from their names as the mapping
//! records them: numbers, strings, booleans, bytes, `Vec`, maps and `Option` fully, any other
//! type a named object in `components.schemas` without its fields.

use std::collections::BTreeMap;

use dubbo_core::rest::{ParamSource, RestMethod, RestParam, RestService};
use dubbo_core::rest_schema::{by_type_name, RestSchemas};
use dubbo_core::ServiceKey;
use serde_json::{json, Map, Value};

/// Where the document is served.
pub(crate) const PATH: &str = "/dubbo/openapi/api-docs";

/// The media type of the YAML form.
pub(crate) const YAML: &str = "application/yaml";

/// Whether a request for the document asks for YAML: `?format=yaml` (or `yml`), else an
/// `Accept` naming `application/yaml`, `application/x-yaml` or `text/yaml` (and not JSON first).
pub(crate) fn wants_yaml(query: &[(String, String)], headers: &http::HeaderMap) -> bool {
    if let Some((_, f)) = query.iter().find(|(k, _)| k == "format") {
        return matches!(f.to_ascii_lowercase().as_str(), "yaml" | "yml");
    }
    let accept = headers
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let first = accept.split(',').next().unwrap_or("");
    crate::yaml_body::is_yaml(first.split(';').next().unwrap_or("").trim())
}

/// The document for `services` (the live exports with a mapping), in export order.
pub(crate) fn document(services: &[(ServiceKey, &'static RestService)]) -> Value {
    let mut paths: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    let mut schemas = RestSchemas::new();
    for (key, service) in services {
        let simple = service
            .interface
            .rsplit('.')
            .next()
            .unwrap_or(service.interface);
        for m in service.methods {
            let op_id = format!("{simple}.{}", m.java_name);
            match m.verb {
                Some(verb) => {
                    let path = openapi_path(m.path);
                    let entry = paths.entry(path).or_default();
                    let op = mapped_operation(key, m, &op_id, &mut schemas);
                    entry.entry(verb.to_ascii_lowercase()).or_insert(op);
                }
                None => {
                    // Overloads share a name: each is documented at its `~` suffix.
                    let overloaded = service
                        .methods
                        .iter()
                        .filter(|o| o.verb.is_none() && o.java_name == m.java_name)
                        .count()
                        > 1;
                    let name = match super::overload::signature(m) {
                        Some(sig) if overloaded => format!("{}~{sig}", m.java_name),
                        _ => m.java_name.to_owned(),
                    };
                    let op_id = format!("{simple}.{name}");
                    let path = format!("/{}/{name}", service.interface);
                    let entry = paths.entry(path).or_default();
                    let (get, post) = default_operations(key, m, &op_id, &mut schemas);
                    entry.entry("get".to_owned()).or_insert(get);
                    entry.entry("post".to_owned()).or_insert(post);
                }
            }
        }
    }
    let paths: Map<String, Value> = paths
        .into_iter()
        .map(|(k, v)| (k, Value::Object(v)))
        .collect();
    let tags: Vec<Value> = services
        .iter()
        .map(|(k, _)| json!({"name": k.interface(), "description": format!("Dubbo service {k}")}))
        .collect();
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "Dubbo REST services",
            "version": "1.0",
            "description": "The REST mappings and default /{interface}/{method} forms of the services served on this Triple port."
        },
        "tags": dedup(tags),
        "paths": paths,
        "components": {"schemas": schemas.into_map()},
    })
}

fn dedup(mut tags: Vec<Value>) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    tags.retain(|t| seen.insert(t["name"].to_string()));
    tags
}

/// `/v/{n:\d+}` → `/v/{n}`, `{*rest}` → `{rest}`: OpenAPI templates name variables only.
fn openapi_path(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut depth = 0usize;
    let mut skipping = false;
    for c in template.chars() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    out.push('{');
                    skipping = false;
                    continue;
                }
            }
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    out.push('}');
                    continue;
                }
            }
            ':' if depth == 1 => skipping = true,
            '*' if depth == 1 => continue,
            _ => {}
        }
        if !(skipping && depth >= 1) {
            out.push(c);
        }
    }
    out
}

fn mapped_operation(
    key: &ServiceKey,
    m: &'static RestMethod,
    op_id: &str,
    schemas: &mut RestSchemas,
) -> Value {
    let mut params = Vec::new();
    let mut form = Map::new();
    let mut form_required = Vec::new();
    let mut body = None;
    for p in m.params {
        let schema = with_default(param_schema(p, schemas), p);
        match p.source {
            ParamSource::Body => body = Some((schema, p.required)),
            ParamSource::Form => {
                form.insert(p.name.to_owned(), schema);
                if p.required {
                    form_required.push(json!(p.name));
                }
            }
            place => params.push(json!({
                "name": p.name,
                "in": place.name(),
                "required": place == ParamSource::Path || p.required,
                "schema": schema,
            })),
        }
    }
    let mut op = json!({
        "operationId": op_id,
        "tags": [key.interface()],
        "parameters": params,
        "responses": responses(m, schemas),
    });
    let consumes: Vec<&str> = if m.consumes.is_empty() {
        vec!["application/json"]
    } else {
        m.consumes.to_vec()
    };
    if let Some((schema, required)) = body {
        let content: Map<String, Value> = consumes
            .iter()
            .map(|c| ((*c).to_owned(), json!({"schema": schema})))
            .collect();
        op["requestBody"] = json!({"required": required, "content": content});
    } else if !form.is_empty() {
        let mut schema = json!({"type": "object", "properties": form});
        if !form_required.is_empty() {
            schema["required"] = Value::Array(form_required);
        }
        op["requestBody"] = json!({
            "required": true,
            "content": {"application/x-www-form-urlencoded": {"schema": schema}},
        });
    }
    op
}

/// The GET (query parameters by name) and POST (JSON array of the arguments) forms of a
/// method with the default mapping.
fn default_operations(
    key: &ServiceKey,
    m: &'static RestMethod,
    op_id: &str,
    schemas: &mut RestSchemas,
) -> (Value, Value) {
    let params: Vec<Value> = m
        .params
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "in": "query",
                "required": p.required,
                "schema": param_schema(p, schemas),
            })
        })
        .collect();
    let items: Vec<Value> = m.params.iter().map(|p| param_schema(p, schemas)).collect();
    let n = items.len();
    let array = json!({
        "type": "array",
        "description": "the arguments in order",
        "minItems": n,
        "maxItems": n,
        "items": if items.is_empty() { json!({}) } else { json!({"oneOf": items}) },
    });
    let get = json!({
        "operationId": format!("{op_id}.get"),
        "tags": [key.interface()],
        "parameters": params,
        "responses": responses(m, schemas),
    });
    let post = json!({
        "operationId": format!("{op_id}.post"),
        "tags": [key.interface()],
        "requestBody": {"required": false, "content": {"application/json": {"schema": array}}},
        "responses": responses(m, schemas),
    });
    (get, post)
}

fn responses(m: &'static RestMethod, schemas: &mut RestSchemas) -> Value {
    let status = if m.status == 0 { 200 } else { m.status };
    let mut ok = json!({"description": "the result"});
    if status != 204 && m.returns != "()" {
        let produces: Vec<&str> = if m.produces.is_empty() {
            vec!["application/json"]
        } else {
            m.produces.to_vec()
        };
        let schema = match m.returns_schema {
            Some(f) => f(schemas),
            None => by_type_name(m.returns, schemas),
        };
        let content: Map<String, Value> = produces
            .iter()
            .map(|p| ((*p).to_owned(), json!({"schema": schema})))
            .collect();
        ok["content"] = Value::Object(content);
    }
    let error = json!({
        "description": "an error: {\"status\": \"...\", \"message\": \"...\"}",
        "content": {"application/json": {"schema": {
            "type": "object",
            "properties": {
                "status": {"type": "string"},
                "message": {"type": "string"},
                "exception": {"type": "string"},
            },
        }}},
    });
    json!({ status.to_string(): ok, "default": error })
}

fn with_default(mut schema: Value, p: &RestParam) -> Value {
    if let (Some(d), Some(obj)) = (p.default, schema.as_object_mut()) {
        if !obj.contains_key("$ref") {
            let typed = match obj.get("type").and_then(Value::as_str) {
                Some("integer") => d.parse::<i64>().map(Value::from).ok(),
                Some("number") => d.parse::<f64>().ok().map(Value::from),
                Some("boolean") => d.parse::<bool>().ok().map(Value::from),
                _ => Some(Value::from(d)),
            };
            if let Some(v) = typed {
                obj.insert("default".to_owned(), v);
            }
        }
    }
    schema
}

/// A parameter's schema: the macro's (the type's `RestSchema`, or its written name), else
/// made from the written name.
fn param_schema(p: &RestParam, schemas: &mut RestSchemas) -> Value {
    match p.schema {
        Some(f) => f(schemas),
        None => by_type_name(p.rust_type, schemas),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_is_asked_by_format_or_accept() {
        let q = |f: &str| vec![("format".to_owned(), f.to_owned())];
        let none = http::HeaderMap::new();
        assert!(wants_yaml(&q("yaml"), &none));
        assert!(wants_yaml(&q("YML"), &none));
        assert!(!wants_yaml(&q("json"), &none));
        assert!(!wants_yaml(&[], &none));
        let mut h = http::HeaderMap::new();
        h.insert(
            "accept",
            "application/yaml, application/json".parse().unwrap(),
        );
        assert!(wants_yaml(&[], &h));
        h.insert(
            "accept",
            "application/json, application/yaml".parse().unwrap(),
        );
        assert!(!wants_yaml(&[], &h));
        // ?format= wins over Accept.
        assert!(!wants_yaml(&q("json"), &h) && wants_yaml(&q("yaml"), &h));
    }

    #[test]
    fn paths() {
        assert_eq!(openapi_path(r"/v/{n:\d{2}}/x"), "/v/{n}/x");
        assert_eq!(openapi_path("/raw/{*rest}"), "/raw/{rest}");
        assert_eq!(openapi_path("/users/{id}"), "/users/{id}");
    }
}
