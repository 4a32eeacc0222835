//! The write side of the API (`/api/v1`), for the admin role, every action in the audit log:
//! generic invocation (over dubbo:// or tri://, at one provider or through the registry) and
//! rules (read, validated write, delete, rollback).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::Json;
use dubbo_cli::dubbo::call::{self, CallRequest};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::{admin, session};
use crate::error::AdminError;
use crate::rules::{self, Kind, RuleId};
use crate::state::AdminState;

/// How long a call from the console may take unless the request says.
const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// A generic call, as the console's test form sends it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvokeRequest {
    /// The interface.
    pub service: String,
    /// The method.
    pub method: String,
    /// The arguments: a JSON array, one element per parameter.
    #[serde(default)]
    pub args: Vec<Value>,
    /// The Java parameter types; from the published definition when left out.
    #[serde(default)]
    pub parameter_types: Option<Vec<String>>,
    /// The version.
    #[serde(default)]
    pub version: Option<String>,
    /// The group.
    #[serde(default)]
    pub group: Option<String>,
    /// One provider to call, `dubbo://host:port` or `tri://host:port`; through the registry
    /// (with its load balancing and rules) when left out.
    #[serde(default)]
    pub address: Option<String>,
    /// The protocol to call through the registry (`dubbo` unless said).
    #[serde(default)]
    pub protocol: Option<String>,
    /// Attachments sent with the call.
    #[serde(default)]
    pub attachments: Vec<(String, String)>,
    /// The timeout in milliseconds.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// `POST /api/v1/invoke`: calls a method generically and answers its result.
pub async fn invoke(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    Json(req): Json<InvokeRequest>,
) -> Result<Json<Value>, AdminError> {
    let who = admin(&state, &headers, "calling a service")?;
    let target = match &req.address {
        Some(a) if call::is_direct(a) => a.clone(),
        Some(a) => {
            return Err(AdminError::BadRequest(format!(
                "address {a:?} is not dubbo://HOST:PORT or tri://HOST:PORT"
            )))
        }
        None => state.registry_url.to_full_string(),
    };
    let request = CallRequest {
        target: target.clone(),
        service: req.service.clone(),
        method: req.method.clone(),
        args: Value::Array(req.args.clone()).to_string(),
        types: req.parameter_types.clone(),
        attachments: req.attachments.clone(),
        version: req.version.clone().filter(|v| !v.is_empty()),
        group: req.group.clone().filter(|g| !g.is_empty()),
        timeout_ms: req
            .timeout_ms
            .unwrap_or(DEFAULT_CALL_TIMEOUT.as_millis() as u64),
        protocol: req.protocol.clone(),
    };
    let outcome = call::invoke_with(&state.ext, "dubbo-admin", &request, &state.settings.tls).await;
    let details = json!({
        "service": req.service, "method": req.method, "version": req.version,
        "group": req.group, "target": target, "args": req.args,
        "error": outcome.as_ref().err().map(|e| e.to_string()),
    });
    state
        .audit
        .record(&who.user, "invoke", details, outcome.is_ok())?;
    let answer = outcome?;
    Ok(Json(json!({
        "result": answer.result,
        "parameterTypes": answer.parameter_types,
        "elapsedMs": answer.elapsed.as_secs_f64() * 1000.0,
        "target": target,
    })))
}

/// The rule in the path: `/api/v1/rules/{kind}/{scope}/{target}`.
fn rule_id(path: &(String, String, String)) -> Result<RuleId, AdminError> {
    RuleId::parse(&path.0, &path.1, &path.2)
}

/// `GET /api/v1/rules/{kind}/{scope}/{target}`: the rule in force and the versions it
/// replaced.
pub async fn get_rule(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    Path(path): Path<(String, String, String)>,
) -> Result<Json<Value>, AdminError> {
    session(&state, &headers)?;
    let id = rule_id(&path)?;
    let store = state.rules().await?;
    let view = store.get(&id).await;
    store.close().await;
    Ok(Json(serde_json::to_value(view?).unwrap_or_default()))
}

/// The body of a rule write: the YAML text (`content`), or for a weight rule `weight` and
/// the provider `addresses` it applies to.
#[derive(Debug, Clone, Deserialize)]
pub struct RuleWrite {
    /// The rule, YAML.
    #[serde(default)]
    pub content: Option<String>,
    /// A weight rule's weight.
    #[serde(default)]
    pub weight: Option<u32>,
    /// A weight rule's provider addresses (`host:port`).
    #[serde(default)]
    pub addresses: Vec<String>,
}

async fn write_rule(
    state: &AdminState,
    headers: &HeaderMap,
    path: &(String, String, String),
    action: &str,
    body: Option<RuleWrite>,
) -> Result<Json<Value>, AdminError> {
    let who = admin(state, headers, "changing rules")?;
    let id = rule_id(path)?;
    let text = match (&body, id.kind) {
        (None, _) => None,
        (
            Some(RuleWrite {
                content: Some(c), ..
            }),
            _,
        ) => Some(c.clone()),
        (
            Some(RuleWrite {
                weight: Some(w),
                addresses,
                ..
            }),
            Kind::Weight,
        ) => {
            if addresses.is_empty() {
                return Err(AdminError::BadRequest(
                    "a weight rule needs the addresses it applies to".into(),
                ));
            }
            Some(rules::weight_rule(
                id.service_scope,
                &id.key()?.0.replace(".configurators", ""),
                *w,
                addresses,
            ))
        }
        (Some(_), _) => {
            return Err(AdminError::BadRequest(
                "give the rule as content (YAML), or weight and addresses for a weight rule".into(),
            ))
        }
    };
    let store = state.rules().await?;
    let outcome = match (action, &text) {
        ("put", Some(t)) => store.put(&id, t, &who.user).await,
        ("delete", _) => store.delete(&id, &who.user).await,
        _ => store.rollback(&id).await,
    };
    store.close().await;
    let details = json!({
        "rule": path, "content": text,
        "error": outcome.as_ref().err().map(|e| e.to_string()),
    });
    state.audit.record(
        &who.user,
        &format!("rule-{action}"),
        details,
        outcome.is_ok(),
    )?;
    Ok(Json(serde_json::to_value(outcome?).unwrap_or_default()))
}

/// `PUT /api/v1/rules/{kind}/{scope}/{target}`: validates and writes the rule.
pub async fn put_rule(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    Path(path): Path<(String, String, String)>,
    Json(body): Json<RuleWrite>,
) -> Result<Json<Value>, AdminError> {
    write_rule(&state, &headers, &path, "put", Some(body)).await
}

/// `DELETE /api/v1/rules/{kind}/{scope}/{target}`.
pub async fn delete_rule(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    Path(path): Path<(String, String, String)>,
) -> Result<Json<Value>, AdminError> {
    write_rule(&state, &headers, &path, "delete", None).await
}

/// `POST /api/v1/rules/{kind}/{scope}/{target}/rollback`: puts back the version the last
/// write replaced.
pub async fn rollback_rule(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    Path(path): Path<(String, String, String)>,
) -> Result<Json<Value>, AdminError> {
    write_rule(&state, &headers, &path, "rollback", None).await
}

/// `?limit=N` of the audit log.
#[derive(Debug, Deserialize)]
pub struct Limit {
    /// How many entries, newest last (default 100).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `GET /api/v1/audit`: the last entries of the audit log (admin role).
pub async fn audit(
    State(state): State<Arc<AdminState>>,
    headers: HeaderMap,
    Query(q): Query<Limit>,
) -> Result<Json<Value>, AdminError> {
    admin(&state, &headers, "reading the audit log")?;
    Ok(Json(Value::Array(
        state.audit.tail(q.limit.unwrap_or(100))?,
    )))
}
