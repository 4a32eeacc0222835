//! REST on the Triple port, over HTTP/1.1 and HTTP/2 (h2c) alike: services mapped to plain
//! HTTP requests, as Java Dubbo 3.3's "triple rest" serves them.
//!
//! A request is routed in this order:
//!
//! 1. A method mapped with a verb and path template (`#[get("/users/{id}")]`): its arguments
//!    come from the path, query, headers, cookies, form fields and body as the mapping says.
//!    A path that matches only with other verbs is a 405 with `Allow`.
//! 2. The default form `/{interface}/{method}` (GET or POST) of every exported service: a
//!    JSON array body holds the arguments in order, a JSON object body names them, and with
//!    no body they are query parameters by name (`?name=world`). Overloads are told apart
//!    by Java's `~` suffix of parameter types (`/{interface}/add~ll`; see `overload.rs`).
//! 3. Otherwise 404.
//!
//! Group and version come from `tri-service-group`/`tri-service-version` or the
//! `rest-service-*` forms, as in Java; a timeout from `tri-service-timeout` (ms). Each
//! argument stays the JSON or text the request carried ([`dubbo_core::JsonArg`]) until the
//! service's typed dispatch decodes it into its parameter's type, so a body is read once,
//! straight into the Rust type. Calls go through the provider's filter chain like every other
//! call.
//!
//! Answers: the result in the negotiated media type (`produces`, `?format=`, `Accept`: JSON,
//! `text/plain`, `application/octet-stream`) with the mapping's status and headers, and the
//! response attachments as headers (a method sets `Location` with
//! `ctx.set_response_attachment("location", ...)`). Errors are a status with the JSON body
//! `{"status": "...", "message": "..."}`: 404 no route, 405 wrong verb, 415 unreadable content
//! type, 406 no acceptable answer, 400 a missing or unconvertible argument or malformed JSON,
//! 413 a body over the limit; framework errors by their gRPC code (499 cancelled, 504 timeout,
//! 403, 429, 501, 503, 401...), and a business exception is 500 with its class in
//! `"exception"`.
//!
//! `GET /dubbo/openapi/api-docs` answers the OpenAPI 3 document of every mapped export (with
//! the server's CORS policy, so that a Swagger UI of another origin can load it).
//!
//! CORS ([`TripleConfig::rest_cors`](crate::TripleConfig::rest_cors), see `cors`): a
//! preflight to a served path is answered (204 or 403) without calling anything; an actual
//! request that found its service is refused (403) or answered with its CORS headers.

mod args;
mod cors;
mod form;
pub(crate) mod h2;
mod negotiate;
mod openapi;
mod overload;
pub(crate) mod routes;
mod status;
mod template;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use dubbo_core::rest::RestMethod;
use dubbo_core::{
    Attachments, ConnectionAddrs, ErrorCode, Invocation, Invoker, MethodSignature, RpcError,
    ServiceKey,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};

use super::routing::split_path;
use super::ServerShared;
use crate::cors::CorsPolicy;
use crate::headers::{
    core_attachments, put_core_attachments, REST_SERVICE_GROUP, REST_SERVICE_VERSION,
    TRI_SERVICE_GROUP, TRI_SERVICE_TIMEOUT, TRI_SERVICE_VERSION,
};
use args::Inputs;
pub(crate) use cors::OverTls;
use negotiate::{body_kind, media_type, BodyKind};
use routes::Lookup;
pub(crate) use status::json_error;
pub use status::{http_status_of, http_status_of_grpc};

/// A status and the message of its JSON body.
pub(crate) type HttpError = (StatusCode, String);

/// The answer to one request (its body already whole).
pub(crate) type Reply = http::Response<Bytes>;

/// Serves one request whose body was read (or failed to be: too large, cut off).
pub(crate) async fn handle(
    shared: &ServerShared,
    parts: http::request::Parts,
    body: Result<Bytes, HttpError>,
    addrs: Arc<ConnectionAddrs>,
) -> Reply {
    let head = parts.method == Method::HEAD;
    let mut extra = HeaderMap::new();
    let mut reply = match route(shared, parts, body, addrs, &mut extra).await {
        Ok(r) => r,
        Err((status, message)) => json_error(status, &message),
    };
    cors::apply(&mut reply, extra);
    if head {
        *reply.body_mut() = Bytes::new();
    }
    reply
}

// The request headers read for every call, as `HeaderName`s: a lookup by `&str` parses the
// name again each time (about a third of the cost of the lookups).
const GROUP_HEADERS: [HeaderName; 2] = [
    HeaderName::from_static(TRI_SERVICE_GROUP),
    HeaderName::from_static(REST_SERVICE_GROUP),
];
const VERSION_HEADERS: [HeaderName; 2] = [
    HeaderName::from_static(TRI_SERVICE_VERSION),
    HeaderName::from_static(REST_SERVICE_VERSION),
];
const TIMEOUT_HEADER: HeaderName = HeaderName::from_static(TRI_SERVICE_TIMEOUT);

/// A request header's text, the first of `names` present and not empty.
fn header(headers: &HeaderMap, names: &[HeaderName]) -> Option<String> {
    names.iter().find_map(|n| {
        headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    })
}

/// Routes a request and calls its service; `cors` receives the CORS headers of its answer.
async fn route(
    shared: &ServerShared,
    parts: http::request::Parts,
    body: Result<Bytes, HttpError>,
    addrs: Arc<ConnectionAddrs>,
    cors: &mut HeaderMap,
) -> Result<Reply, HttpError> {
    let path = parts.uri.path().to_owned();
    if let Some(page) = crate::swagger_ui::page(&path) {
        return swagger_page(shared, &parts.method, page).await;
    }
    let query = form::parse_pairs(parts.uri.query().unwrap_or(""));
    let group = header(&parts.headers, &GROUP_HEADERS);
    let version = header(&parts.headers, &VERSION_HEADERS);
    let media = media_type(
        parts
            .headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
    );
    let mut kind = body_kind(media.as_deref());
    // A YAML body is read as the JSON document it stands for.
    let body = if media.as_deref().is_some_and(crate::yaml_body::is_yaml) {
        kind = BodyKind::Json;
        body.and_then(|b| {
            crate::yaml_body::to_json(&b)
                .map_err(|e| (StatusCode::BAD_REQUEST, format!("malformed YAML body: {e}")))
        })
    } else {
        body
    };
    let selects = |k: &ServiceKey| {
        group.as_deref().is_none_or(|g| k.group() == Some(g))
            && version.as_deref().is_none_or(|v| k.version() == Some(v))
    };

    let global = shared.config.rest_cors.as_deref();
    let is_api_docs = path.trim_end_matches('/') == openapi::PATH;
    if cors::is_preflight(&parts) {
        // A preflight asks about a path whatever verbs it is served with, and is answered by
        // the policy of the route its actual request would take (a method's own
        // `#[cross_origin]`), else by the server's.
        let asked = parts
            .headers
            .get(cors::REQUEST_METHOD)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let route_cors = match shared.rest.find(asked, &path) {
            Lookup::Found(found) => found
                .into_iter()
                .find(|(r, _)| selects(&r.key) && shared.exporters.get(&r.key).is_some())
                .map(|(r, _)| r.cors.clone()),
            _ => None,
        };
        let routable = route_cors.is_some()
            || is_api_docs
            || match shared.rest.find(parts.method.as_str(), &path) {
                Lookup::Found(_) | Lookup::WrongVerb(_) => true,
                Lookup::None => split_path(&path).is_some_and(|(service, _)| {
                    default_target(shared, service, group.as_deref(), version.as_deref()).is_some()
                }),
            };
        if !routable {
            return Err((
                StatusCode::NOT_FOUND,
                format!("no route for OPTIONS {path}"),
            ));
        }
        let policy = match &route_cors {
            Some(own) => own.as_deref(),
            None => global,
        };
        return match cors::gate(policy, &parts) {
            cors::Gate::Answer(r) => Ok(r),
            cors::Gate::Pass(_) => Err((StatusCode::FORBIDDEN, "Invalid CORS request".into())),
        };
    }
    // An actual request: CORS (the route's policy, else the server's) refuses it before the
    // service is called, or names the headers its answer carries.
    let mut admit = |policy: Option<&CorsPolicy>| match cors::gate(policy, &parts) {
        cors::Gate::Answer(r) => Some(r),
        cors::Gate::Pass(headers) => {
            *cors = headers;
            None
        }
    };
    if is_api_docs && (parts.method == Method::GET || parts.method == Method::HEAD) {
        // The server's CORS policy, so that a Swagger UI of another origin can load it.
        if let Some(refused) = admit(global) {
            return Ok(refused);
        }
        let live: Vec<_> = shared
            .rest
            .exports()
            .iter()
            .filter(|e| shared.exporters.get(&e.key).is_some())
            .map(|e| (e.key.clone(), e.service))
            .collect();
        let document = openapi::document(&live);
        let (text, media) = if openapi::wants_yaml(&query, &parts.headers) {
            let yaml = serde_yaml_ng::to_string(&document).map_err(|e| {
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the OpenAPI document does not write as YAML: {e}"),
                )
            })?;
            (yaml, openapi::YAML)
        } else {
            (document.to_string(), negotiate::JSON)
        };
        let mut r = http::Response::new(Bytes::from(text));
        r.headers_mut()
            .insert(http::header::CONTENT_TYPE, HeaderValue::from_static(media));
        return Ok(r);
    }
    match shared.rest.find(parts.method.as_str(), &path) {
        Lookup::Found(found) => {
            // The most specific route of an export that is (still) served and that the
            // group/version headers select.
            let chosen = found.into_iter().find_map(|(r, vars)| {
                if !selects(&r.key) {
                    return None;
                }
                shared.exporters.get(&r.key).map(|inv| (r, vars, inv))
            });
            let Some((route, vars, invoker)) = chosen else {
                return Err((
                    StatusCode::NOT_FOUND,
                    format!(
                        "no service serves {} {path} with the group and version asked",
                        parts.method
                    ),
                ));
            };
            if let Some(refused) = admit(route.cors.as_deref()) {
                return Ok(refused);
            }
            let m = route.method;
            if !m.consumes.is_empty() && media.is_some() {
                let ct = media.as_deref().unwrap_or("");
                if !m.consumes.iter().any(|c| c.eq_ignore_ascii_case(ct)) {
                    return Err((
                        StatusCode::UNSUPPORTED_MEDIA_TYPE,
                        format!(
                            "content type {ct:?} not accepted; send {}",
                            m.consumes.join(" or ")
                        ),
                    ));
                }
            } else if kind == BodyKind::Other {
                return Err(unsupported(media.as_deref()));
            }
            let produced = choose(m, &parts.headers, &query)?;
            let body = body?;
            let inputs = Inputs {
                vars,
                query,
                headers: &parts.headers,
                body,
                body_kind: kind,
            };
            let args = args::mapped(m, &inputs)?;
            let key = route.key.clone();
            let signature = if route.signature.parameter_types().len() == args.len() {
                route.signature.clone()
            } else {
                object_signature(m.java_name, args.len())
            };
            invoke(
                invoker,
                key,
                signature,
                args,
                &parts.headers,
                addrs,
                m,
                produced,
            )
            .await
        }
        Lookup::WrongVerb(allowed) => {
            let mut r = json_error(
                StatusCode::METHOD_NOT_ALLOWED,
                &format!(
                    "{} is not served at {path}; use {}",
                    parts.method,
                    allowed.join(", ")
                ),
            );
            if let Ok(v) = HeaderValue::from_str(&allowed.join(", ")) {
                r.headers_mut().insert(http::header::ALLOW, v);
            }
            Ok(r)
        }
        Lookup::None => {
            if parts.method != Method::POST && parts.method != Method::GET {
                return Err((
                    StatusCode::METHOD_NOT_ALLOWED,
                    format!("method {} not allowed; use POST or GET", parts.method),
                ));
            }
            if !matches!(kind, BodyKind::Json | BodyKind::Form) {
                return Err(unsupported(media.as_deref()));
            }
            let Some((service, method)) = split_path(&path) else {
                return Err((
                    StatusCode::NOT_FOUND,
                    format!("no route for {} {path}", parts.method),
                ));
            };
            let key = ServiceKey::new(service, group.as_deref(), version.as_deref());
            let found = default_target(shared, service, group.as_deref(), version.as_deref());
            let Some((invoker, key)) = found else {
                return Err((
                    StatusCode::NOT_FOUND,
                    format!(
                        "no route for {} {path}: service {key} not found",
                        parts.method
                    ),
                ));
            };
            if let Some(refused) = admit(global) {
                return Ok(refused);
            }
            // The mapping of the export found (by interface: the fallback may have chosen a
            // group/version the headers did not name), borrowed from the route table.
            let exports = shared.rest.exports();
            let export = exports
                .iter()
                .find(|e| e.key.interface() == key.interface() && selects(&e.key));
            // Overloads share the path; a `~` suffix of parameter types names one.
            let (method, suffix) = overload::split_suffix(method);
            let candidates = export.map_or(&[][..], |e| e.defaults(method));
            let chosen = if candidates.is_empty() {
                None
            } else {
                let query_names = distinct_names(&query);
                match overload::choose(candidates, suffix, query_names, &path) {
                    overload::Choice::One(r) => Some(r),
                    overload::Choice::NoSuch => {
                        return Err((
                            StatusCode::NOT_FOUND,
                            format!(
                                "no route for {} {path}: {} has no method {method} with parameter types ~{}",
                                parts.method,
                                key.interface(),
                                suffix.unwrap_or("")
                            ),
                        ))
                    }
                    overload::Choice::Ambiguous(message) => {
                        return Err((StatusCode::INTERNAL_SERVER_ERROR, message))
                    }
                }
            };
            let m = chosen.map(|r| r.method);
            let produced = choose(m.unwrap_or(&DEFAULT_METHOD), &parts.headers, &query)?;
            let inputs = Inputs {
                vars: Vec::new(),
                query,
                headers: &parts.headers,
                body: body?,
                body_kind: kind,
            };
            // Without the method's mapping (a hand-written service, or a name the service
            // does not have: its dispatch says so, 404) only the body gives arguments.
            let args = args::default_form(m.map(|m| m.params), &inputs)?;
            // The signature made at registration (an overload's Java parameter types, so the
            // service's dispatch takes the one chosen here); other calls by name and arity.
            let signature = match chosen {
                Some(r) => r.signature_for(args.len()),
                None => object_signature(method, args.len()),
            };
            drop(exports);
            invoke(
                invoker,
                key,
                signature,
                args,
                &parts.headers,
                addrs,
                m.unwrap_or(&DEFAULT_METHOD),
                produced,
            )
            .await
        }
    }
}

/// A page of Swagger UI (`crate::swagger_ui`): the HTML shell, its configuration, or a file of
/// the configured `swagger-ui-dist` directory.
async fn swagger_page(
    shared: &ServerShared,
    method: &Method,
    page: crate::swagger_ui::Page<'_>,
) -> Result<Reply, HttpError> {
    use crate::swagger_ui::{Page, SwaggerUi, PATH};
    if method != Method::GET && method != Method::HEAD {
        return Err((
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{method} is not served at {PATH}; use GET"),
        ));
    }
    let ui = &shared.config.swagger_ui;
    let (status, body, media) = match page {
        Page::Root => {
            let mut r = http::Response::new(Bytes::new());
            *r.status_mut() = StatusCode::FOUND;
            r.headers_mut().insert(
                http::header::LOCATION,
                HeaderValue::from_static("/dubbo/openapi/swagger-ui/index.html"),
            );
            return Ok(r);
        }
        Page::Index => (
            StatusCode::OK,
            Bytes::from(ui.index_html()),
            "text/html; charset=utf-8",
        ),
        Page::Config => (
            StatusCode::OK,
            Bytes::from(SwaggerUi::config_json()),
            negotiate::JSON,
        ),
        Page::Asset(name) => match ui.asset(name).await {
            Ok((bytes, media)) => (StatusCode::OK, Bytes::from(bytes), media),
            Err(message) => return Err((StatusCode::NOT_FOUND, message)),
        },
        Page::Unknown => {
            return Err((
                StatusCode::NOT_FOUND,
                format!("Swagger UI serves {PATH}/index.html, swagger-config and assets/"),
            ))
        }
    };
    let mut r = http::Response::new(body);
    *r.status_mut() = status;
    r.headers_mut()
        .insert(http::header::CONTENT_TYPE, HeaderValue::from_static(media));
    Ok(r)
}

/// The export answering the default form `/{service}/{method}`: the export of `service`
/// with the group and version asked (or the only one); with several exports and none asked,
/// the first exported with a mapping (the export table's own fallback refuses to guess); a
/// context path in front of the interface is allowed.
fn default_target(
    shared: &ServerShared,
    service: &str,
    group: Option<&str>,
    version: Option<&str>,
) -> Option<(Arc<dyn Invoker>, ServiceKey)> {
    let selects = |k: &ServiceKey| {
        group.is_none_or(|g| k.group() == Some(g)) && version.is_none_or(|v| k.version() == Some(v))
    };
    let first_mapped = |interface: &str| {
        shared.rest.exports().iter().find_map(|e| {
            (e.key.interface() == interface && selects(&e.key))
                .then(|| shared.exporters.get(&e.key).map(|i| (i, e.key.clone())))
                .flatten()
        })
    };
    let key = ServiceKey::new(service, group, version);
    shared
        .exporters
        .get_with_fallback(&key)
        .map(|i| (i, key.clone()))
        .or_else(|| first_mapped(service))
        .or_else(|| {
            let (_, last) = service.rsplit_once('/')?;
            let key = ServiceKey::new(last, group, version);
            shared
                .exporters
                .get_with_fallback(&key)
                .map(|i| (i, key))
                .or_else(|| first_mapped(last))
        })
}

/// The answer settings of a method without a mapping: JSON (or what is asked), 200.
static DEFAULT_METHOD: RestMethod = RestMethod {
    java_name: "",
    verb: None,
    path: "",
    params: &[],
    consumes: &[],
    produces: &[],
    status: 0,
    headers: &[],
    returns: "",
    returns_schema: None,
    cors: None,
    overloaded: false,
};

/// How many different names `pairs` has.
fn distinct_names(pairs: &[(String, String)]) -> usize {
    let mut names: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}

fn unsupported(media: Option<&str>) -> HttpError {
    (
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        format!(
            "unsupported content type {:?}; send application/json, application/x-www-form-urlencoded, text/plain or application/octet-stream",
            media.unwrap_or("")
        ),
    )
}

fn choose(
    m: &'static RestMethod,
    headers: &HeaderMap,
    query: &[(String, String)],
) -> Result<&'static str, HttpError> {
    let accept = header(headers, &[http::header::ACCEPT]);
    let format = query
        .iter()
        .find(|(k, _)| k == "format")
        .map(|(_, v)| v.as_str());
    negotiate::choose(m.produces, accept.as_deref(), format)
        .map_err(|e| (StatusCode::NOT_ACCEPTABLE, e))
}

/// The signature a REST call carries: `arity` parameters typed `java.lang.Object`; the service
/// resolves the method by name and arity, then decodes each argument into its declared type.
pub(crate) fn object_signature(method: &str, arity: usize) -> Arc<MethodSignature> {
    let types = vec!["java.lang.Object"; arity];
    Arc::new(MethodSignature::new(method, &types, "java.lang.Object"))
}

#[allow(clippy::too_many_arguments)]
async fn invoke(
    invoker: Arc<dyn Invoker>,
    key: ServiceKey,
    signature: Arc<MethodSignature>,
    args: Vec<dubbo_core::Payload>,
    headers: &HeaderMap,
    addrs: Arc<ConnectionAddrs>,
    m: &'static RestMethod,
    produced: &'static str,
) -> Result<Reply, HttpError> {
    let mut inv = Invocation::with_payloads(key.clone(), signature, args);
    let mut attachments = Attachments::new();
    core_attachments(headers, &mut attachments);
    attachments.insert_service(&key);
    *inv.attachments_mut() = attachments;
    inv.context_mut().set_connection_addrs(addrs);
    let timeout = header(headers, &[TIMEOUT_HEADER])
        .and_then(|t| t.trim().parse::<u64>().ok())
        .map(Duration::from_millis);
    if let Some(t) = timeout {
        inv.context_mut().set_timeout(t);
    }
    let call = invoker.invoke(inv);
    let result = match timeout {
        Some(t) => tokio::time::timeout(t, call).await.unwrap_or_else(|_| {
            Err(RpcError::framework(
                ErrorCode::Timeout,
                format!("call timed out after {t:?}"),
            ))
        }),
        None => call.await,
    };
    match result {
        Ok(resp) => {
            let status = StatusCode::from_u16(m.status).unwrap_or(StatusCode::OK);
            let body = if status == StatusCode::NO_CONTENT {
                Bytes::new()
            } else {
                negotiate::encode(&resp.value, produced)
                    .map_err(|e| (StatusCode::NOT_ACCEPTABLE, e))?
            };
            let mut r = http::Response::new(body);
            *r.status_mut() = status;
            let h = r.headers_mut();
            if status != StatusCode::NO_CONTENT {
                h.insert(
                    http::header::CONTENT_TYPE,
                    HeaderValue::from_static(produced),
                );
            }
            for (name, value) in m.headers {
                if let (Ok(n), Ok(v)) = (
                    http::HeaderName::from_bytes(name.as_bytes()),
                    HeaderValue::from_str(value),
                ) {
                    h.append(n, v);
                }
            }
            let mut extra = HeaderMap::new();
            put_core_attachments(&mut extra, &resp.attachments);
            for (k, v) in extra.iter() {
                h.append(k.clone(), v.clone());
            }
            Ok(r)
        }
        Err(RpcError::Business(b)) => {
            // A service's HttpStatusException chooses the status; other exceptions are 500.
            if let Some(status) = dubbo_core::rest::http_status_of_business(&b)
                .and_then(|s| StatusCode::from_u16(s).ok())
            {
                return Ok(json_error(status, b.message.as_deref().unwrap_or("")));
            }
            let body = serde_json::json!({
                "status": "500",
                "message": b.message.clone().unwrap_or_default(),
                "exception": b.class_name,
            });
            let mut r = http::Response::new(Bytes::from(body.to_string()));
            *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            r.headers_mut().insert(
                http::header::CONTENT_TYPE,
                HeaderValue::from_static(negotiate::JSON),
            );
            Ok(r)
        }
        Err(e) => Err((http_status_of(&e), e.message().to_owned())),
    }
}
