//! The console in the browser: pages rendered here from the same catalog the API answers
//! from, with a small checked-in script (`assets/console.js`) for the forms that call the
//! API (login, search, the test form, rules, metrics). Nothing is built at build time.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde_json::Value;

use crate::api_catalog::{self, Search};
use crate::auth::session;
use crate::catalog;
use crate::consumers::{self, ConsumerEntry};
use crate::error::AdminError;
use crate::html::{escape, page, path_segment};
use crate::session::Session;
use crate::state::AdminState;

/// How many services the search page lists at most.
const SHOWN: usize = 500;

/// The script, checked in.
pub const SCRIPT: &str = include_str!("../assets/console.js");
/// The style sheet, checked in.
pub const STYLE: &str = include_str!("../assets/console.css");

/// `GET /assets/console.js`.
pub async fn script() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        SCRIPT,
    )
        .into_response()
}

/// `GET /assets/console.css`.
pub async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

/// The session, if the request has a valid one.
fn logged_in(state: &AdminState, headers: &HeaderMap) -> Option<Session> {
    session(state, headers).ok()
}

/// The answer that sends the browser to the login page.
fn to_login() -> Response {
    Redirect::to("/login").into_response()
}

fn user(s: &Session) -> Option<(&str, &str)> {
    Some((s.user.as_str(), s.role.as_str()))
}

fn error_page(s: &Session, e: &AdminError) -> Response {
    let body = format!(
        "<h1>Error</h1><p class=\"error\">[{}] {}</p>",
        e.code(),
        escape(&e.to_string())
    );
    (e.status(), Html(page("Error", user(s), &body))).into_response()
}

/// `GET /login`.
pub async fn login_page() -> Html<String> {
    Html(page(
        "Log in",
        None,
        "<h1>Log in</h1><form id=\"login\"><label>User <input name=\"username\" id=\"username\" autocomplete=\"username\"></label>\
<label>Password <input name=\"password\" id=\"password\" type=\"password\" autocomplete=\"current-password\"></label>\
<button type=\"submit\" id=\"login-button\">Log in</button><p class=\"error\" id=\"login-error\"></p></form>",
    ))
}

/// `GET /`: the service search.
pub async fn home(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    Query(q): Query<Search>,
) -> Response {
    let Some(s) = logged_in(&state, &headers) else {
        return to_login();
    };
    let catalog = match state.catalog().await {
        Ok(c) => c,
        Err(e) => return error_page(&s, &e),
    };
    let filter = q.filter.clone().unwrap_or_default();
    let pattern = q.pattern.clone().unwrap_or_else(|| "service".into());
    let services = match api_catalog::find_services(&catalog, &q) {
        Ok(found) => found,
        Err(e) => return error_page(&s, &e),
    };
    let mut rows = String::new();
    // A page of a browser holds a few hundred rows well; a narrower filter finds the rest.
    let all = api_catalog::services(&catalog);
    for sv in services.iter().take(SHOWN).map(|&n| &all[n]) {
        rows.push_str(&format!(
            "<tr class=\"service-row\"><td><a href=\"/service/{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            path_segment(&sv.service_key),
            escape(&sv.service),
            escape(&sv.version),
            escape(&sv.group),
            escape(&sv.applications.iter().cloned().collect::<Vec<_>>().join(", ")),
            escape(&sv.protocols.iter().cloned().collect::<Vec<_>>().join(", ")),
        ));
    }
    let selected = |p: &str| if p == pattern { " selected" } else { "" };
    let body = format!(
        "<h1>Services</h1><form id=\"search\" method=\"get\" action=\"/\"><select name=\"pattern\" id=\"pattern\">\
<option value=\"service\"{}>service</option><option value=\"application\"{}>application</option><option value=\"ip\"{}>ip</option></select>\
<input name=\"filter\" id=\"filter\" value=\"{}\" placeholder=\"part of a name\"><button type=\"submit\" id=\"search-button\">Search</button></form>\
<p id=\"count\">{} services{}</p><table id=\"services\"><tr><th>Service</th><th>Version</th><th>Group</th><th>Applications</th><th>Protocols</th></tr>{rows}</table>",
        selected("service"),
        selected("application"),
        selected("ip"),
        escape(&filter),
        services.len(),
        if services.len() > SHOWN {
            format!(", the first {SHOWN} shown")
        } else {
            String::new()
        }
    );
    Html(page("Services", user(&s), &body)).into_response()
}

/// A skeleton JSON value for a type of the definition, for the test form to start from.
fn skeleton(
    type_name: &str,
    types: &BTreeMap<String, BTreeMap<String, String>>,
    depth: u8,
) -> Value {
    let raw = type_name.split('<').next().unwrap_or(type_name);
    match raw {
        "java.lang.String" | "char" | "java.lang.Character" => Value::String(String::new()),
        "int" | "long" | "short" | "byte" | "java.lang.Integer" | "java.lang.Long"
        | "java.lang.Short" | "java.lang.Byte" => Value::from(0),
        "double" | "float" | "java.lang.Double" | "java.lang.Float" => Value::from(0.0),
        "boolean" | "java.lang.Boolean" => Value::Bool(false),
        t if t.ends_with("[]")
            || t.starts_with("java.util.List")
            || t.starts_with("java.util.Set") =>
        {
            Value::Array(Vec::new())
        }
        t if t.starts_with("java.util.Map") => Value::Object(Default::default()),
        t => match types.get(t) {
            Some(props) if depth < 4 => Value::Object(
                props
                    .iter()
                    .map(|(k, v)| (k.clone(), skeleton(v, types, depth + 1)))
                    .collect(),
            ),
            _ => Value::Null,
        },
    }
}

/// The input of one parameter of the test form.
fn parameter_input(
    method: usize,
    i: usize,
    ty: &str,
    types: &BTreeMap<String, BTreeMap<String, String>>,
) -> String {
    let id = format!("m{method}-p{i}");
    let label = escape(&catalog_short(ty));
    match skeleton(ty, types, 0) {
        Value::String(_) => format!(
            "<label>{label} <input class=\"arg\" id=\"{id}\" data-kind=\"string\"></label>"
        ),
        Value::Number(_) => format!(
            "<label>{label} <input class=\"arg\" id=\"{id}\" data-kind=\"number\" type=\"number\" step=\"any\" value=\"0\"></label>"
        ),
        Value::Bool(_) => format!(
            "<label>{label} <input class=\"arg\" id=\"{id}\" data-kind=\"boolean\" type=\"checkbox\"></label>"
        ),
        other => format!(
            "<label>{label} <textarea class=\"arg\" id=\"{id}\" data-kind=\"json\" rows=\"4\">{}</textarea></label>",
            escape(&serde_json::to_string_pretty(&other).unwrap_or_default())
        ),
    }
}

fn catalog_short(ty: &str) -> String {
    dubbo_cli::dubbo::describe::short(ty)
}

/// `GET /service/{key}`: providers, consumers, methods with their test forms, and the rules.
pub async fn service_page(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    Path(key): Path<String>,
) -> Response {
    let Some(s) = logged_in(&state, &headers) else {
        return to_login();
    };
    let catalog = match state.catalog().await {
        Ok(c) => c,
        Err(e) => return error_page(&s, &e),
    };
    let providers = match api_catalog::providers_of(&catalog, &key) {
        Ok(p) => p,
        Err(e) => return error_page(&s, &e),
    };
    let (service, version, group) = catalog::split_service_key(&key);
    let consumers =
        consumers::consumers(&state.ext, &state.registry_url, &service, &version, &group).await;
    let definitions = api_catalog::definitions(&state, &key).await;
    let mut body = format!(
        "<h1 id=\"service-name\" data-service=\"{}\" data-version=\"{}\" data-group=\"{}\">{}</h1>",
        escape(&service),
        escape(&version),
        escape(&group),
        escape(&key)
    );
    body.push_str("<h2>Providers</h2><table id=\"providers\"><tr><th>Application</th><th>Protocol</th><th>Address</th><th>Weight</th><th>Found by</th></tr>");
    for p in &providers {
        body.push_str(&format!(
            "<tr class=\"provider\" data-address=\"{}\" data-protocol=\"{}\"><td><a href=\"/application/{}\">{}</a></td><td>{}</td><td><a href=\"/instance/{}\">{}</a></td><td>{}</td><td>{}</td></tr>",
            escape(&p.address),
            escape(&p.protocol),
            path_segment(&p.application),
            escape(&p.application),
            escape(&p.protocol),
            path_segment(&p.address),
            escape(&p.address),
            p.weight,
            escape(&p.sources.iter().collect::<Vec<_>>().join(", ")),
        ));
    }
    body.push_str("</table><h2>Consumers</h2>");
    body.push_str(&consumers_section(&consumers));
    if state.settings.prometheus.is_some() {
        // Filled by the console's script from GET /api/v1/service/{key}/metrics/range.
        body.push_str(&format!(
            "<h2>Over time (Prometheus)</h2><div id=\"service-range\" data-key=\"{}\"></div>",
            escape(&key)
        ));
    }
    body.push_str(&methods_section(&definitions, &providers));
    body.push_str(&rules_section(&service, &version, &group, &providers));
    Html(page(&key, user(&s), &body)).into_response()
}

/// The consumers table: application, address and where each was found (the registered URLs
/// as the row's title).
fn consumers_section(consumers: &[ConsumerEntry]) -> String {
    if consumers.is_empty() {
        return "<p>No consumer registered at interface level nor in the metadata report.</p>"
            .to_owned();
    }
    let mut out = String::from(
        "<table id=\"consumers\"><tr><th>Application</th><th>Address</th><th>Found by</th></tr>",
    );
    for c in consumers {
        out.push_str(&format!(
            "<tr class=\"consumer\" data-application=\"{}\" data-sources=\"{}\" title=\"{}\"><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&c.application),
            escape(&c.sources.join(",")),
            escape(&c.urls.join("\n")),
            escape(&c.application),
            escape(&c.address),
            escape(&c.sources.join(", ")),
        ));
    }
    out.push_str("</table>");
    out
}

fn methods_section(definitions: &[Value], providers: &[catalog::ProviderEntry]) -> String {
    let mut out = String::from("<h2>Methods</h2>");
    let Some(first) = definitions.first() else {
        out.push_str("<p>No provider published a service definition.</p>");
        return out;
    };
    let def = &first["definition"];
    let mut types: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for t in def["types"].as_array().into_iter().flatten() {
        let props: BTreeMap<String, String> = t["properties"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(name) = t["type"].as_str() {
            types.insert(name.to_owned(), props);
        }
    }
    let mut targets = String::from("<option value=\"\">through the registry</option>");
    for p in providers {
        let url = format!("{}://{}", p.protocol, p.address);
        targets.push_str(&format!(
            "<option value=\"{}\">{} ({})</option>",
            escape(&url),
            escape(&url),
            escape(&p.application)
        ));
    }
    out.push_str(&format!(
        "<p>From the definition of {}. <label>Call <select id=\"target\">{targets}</select></label></p><table id=\"methods\"><tr><th>Method</th><th>Parameters</th><th>Returns</th></tr>",
        escape(first["application"].as_str().unwrap_or_default())
    ));
    let methods = def["methods"].as_array().cloned().unwrap_or_default();
    for (n, m) in methods.iter().enumerate() {
        let name = m["name"].as_str().unwrap_or_default();
        let params: Vec<String> = m["parameterTypes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str().map(str::to_owned))
            .collect();
        let inputs: String = params
            .iter()
            .enumerate()
            .map(|(i, p)| parameter_input(n, i, p, &types))
            .collect();
        let raw_types: Vec<String> = params
            .iter()
            .map(|p| p.split('<').next().unwrap_or(p).to_owned())
            .collect();
        out.push_str(&format!(
            "<tr class=\"method\" id=\"method-{name_attr}\"><td>{name_html}</td><td>{}</td><td>{}</td></tr>\
<tr><td colspan=\"3\"><form class=\"test-form\" data-method=\"{name_attr}\" data-types=\"{}\" data-index=\"{n}\">{inputs}\
<button type=\"submit\" class=\"invoke\">Call {name_html}</button><pre class=\"result\"></pre></form></td></tr>",
            escape(&params.iter().map(|p| catalog_short(p)).collect::<Vec<_>>().join(", ")),
            escape(&catalog_short(m["returnType"].as_str().unwrap_or_default())),
            escape(&serde_json::to_string(&raw_types).unwrap_or_default()),
            name_attr = escape(name),
            name_html = escape(name),
        ));
    }
    out.push_str("</table>");
    out
}

fn rules_section(
    service: &str,
    version: &str,
    group: &str,
    providers: &[catalog::ProviderEntry],
) -> String {
    let target = format!("{service}:{version}:{group}");
    let mut addresses = String::new();
    for p in providers
        .iter()
        .filter(|p| &*p.protocol == "dubbo" || &*p.protocol == "tri")
    {
        addresses.push_str(&format!(
            "<label><input type=\"checkbox\" class=\"weight-address\" value=\"{}\" data-address=\"{}\"> {} ({}, {})</label>",
            escape(&p.registered_address),
            escape(&p.address),
            escape(&p.address),
            escape(&p.application),
            escape(&p.protocol)
        ));
    }
    format!(
        "<h2>Rules</h2><form id=\"weight-form\" data-target=\"{t}\"><h3>Weight</h3>{addresses}\
<label>Weight <input type=\"number\" id=\"weight\" min=\"0\" value=\"0\"></label><button type=\"submit\" id=\"weight-save\">Write weight rule</button></form>\
<div class=\"rule-editor\" data-kind=\"override\" data-scope=\"service\" data-target=\"{t}\"></div>\
<div class=\"rule-editor\" data-kind=\"condition\" data-scope=\"service\" data-target=\"{t}\"></div>",
        t = escape(&target)
    )
}

/// `GET /rules?kind=K&scope=S&target=T`: one rule's editor (YAML, history, rollback).
pub async fn rules_page(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    Query(q): Query<BTreeMap<String, String>>,
) -> Response {
    let Some(s) = logged_in(&state, &headers) else {
        return to_login();
    };
    let get = |k: &str| escape(q.get(k).map(String::as_str).unwrap_or_default());
    let body = format!(
        "<h1>Rules</h1><form id=\"rule-pick\" method=\"get\" action=\"/rules\">\
<select name=\"kind\">{}</select><select name=\"scope\"><option>service</option><option>application</option></select>\
<input name=\"target\" value=\"{}\" placeholder=\"interface:version:group or application\"><button type=\"submit\">Open</button></form>{}",
        ["override", "weight", "condition", "tag", "migration"]
            .iter()
            .map(|k| format!("<option{}>{k}</option>", if get("kind") == *k { " selected" } else { "" }))
            .collect::<String>(),
        get("target"),
        if q.contains_key("target") {
            format!(
                "<div class=\"rule-editor\" data-kind=\"{}\" data-scope=\"{}\" data-target=\"{}\"></div>",
                get("kind"),
                get("scope"),
                get("target")
            )
        } else {
            String::new()
        }
    );
    Html(page("Rules", user(&s), &body)).into_response()
}

/// `GET /applications` and `GET /instances`: lists, filled by the script from the API.
pub async fn list_page(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Response {
    let Some(s) = logged_in(&state, &headers) else {
        return to_login();
    };
    let what = if uri.path().starts_with("/applications") {
        "applications"
    } else {
        "instances"
    };
    let body = format!("<h1>{what}</h1><div class=\"list\" data-what=\"{what}\"></div>");
    Html(page(what, user(&s), &body)).into_response()
}

/// `GET /application/{name}` and `GET /instance/{id}`: detail, filled by the script; an
/// instance page reads the instance's metrics every second.
pub async fn detail_page(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    Path(name): Path<String>,
) -> Response {
    let Some(s) = logged_in(&state, &headers) else {
        return to_login();
    };
    let what = if uri.path().starts_with("/application/") {
        "application"
    } else {
        "instance"
    };
    let body = format!(
        "<h1>{what} {}</h1><div class=\"detail\" data-what=\"{what}\" data-name=\"{}\"></div>",
        escape(&name),
        escape(&name)
    );
    Html(page(&name, user(&s), &body)).into_response()
}

/// Anything else.
pub async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        Html(page("Not found", None, "<h1>Not found</h1>")),
    )
        .into_response()
}
