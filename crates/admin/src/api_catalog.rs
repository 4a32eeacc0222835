//! The read side of the API (`/api/v1`): services, applications and instances, searched and
//! paginated as Java's Dubbo Admin answers; a service's providers, consumers and methods (from
//! the published `FullServiceDefinition`); an instance's metrics; Prometheus discovery.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::Json;
use dubbo_cli::dubbo::describe::{self, Wanted};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::auth::LoggedIn;
use crate::catalog::{self, Catalog, InstanceEntry, ProviderEntry};
use crate::error::AdminError;
use crate::page::{Page, PageRequest};
use crate::state::AdminState;

/// Search parameters: `pattern` (`service`, `application` or `ip`), `filter` (a substring,
/// `*` or empty for everything), and the page.
#[derive(Debug, Clone, Deserialize)]
pub struct Search {
    /// What `filter` is matched against.
    #[serde(default)]
    pub pattern: Option<String>,
    /// The text searched for, case-insensitively.
    #[serde(default)]
    pub filter: Option<String>,
    /// The page number, from 0.
    #[serde(default)]
    pub page: usize,
    /// Entries per page.
    #[serde(default = "ten")]
    pub size: usize,
}

fn ten() -> usize {
    10
}

impl Search {
    fn page(&self) -> PageRequest {
        PageRequest {
            page: self.page,
            size: self.size,
        }
    }

    fn matches(&self, text: &str) -> bool {
        match self.filter.as_deref().map(str::trim) {
            None | Some("") | Some("*") => true,
            Some(f) => text.to_lowercase().contains(&f.to_lowercase()),
        }
    }
}

/// One service in a search result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceSummary {
    /// `group/interface:version`.
    pub service_key: String,
    /// The interface.
    pub service: String,
    /// Its version.
    pub version: String,
    /// Its group.
    pub group: String,
    /// The applications providing it.
    pub applications: BTreeSet<String>,
    /// The protocols it is served over.
    pub protocols: BTreeSet<String>,
    /// How many provider addresses it has.
    pub providers: usize,
}

/// Every service of the catalog, one summary per service key.
pub fn services(catalog: &Catalog) -> Vec<ServiceSummary> {
    let mut by_key: BTreeMap<String, ServiceSummary> = BTreeMap::new();
    for p in &catalog.providers {
        let s = by_key
            .entry(p.service_key())
            .or_insert_with(|| ServiceSummary {
                service_key: p.service_key(),
                service: p.service.clone(),
                version: p.version.clone(),
                group: p.group.clone(),
                applications: BTreeSet::new(),
                protocols: BTreeSet::new(),
                providers: 0,
            });
        s.applications.insert(p.application.clone());
        s.protocols.insert(p.protocol.clone());
        s.providers += 1;
    }
    by_key.into_values().collect()
}

/// The services whose name (`pattern=service`, the default), application (`application`) or
/// provider address (`ip`) contains the search's `filter`.
pub fn find_services(catalog: &Catalog, q: &Search) -> Result<Vec<ServiceSummary>, AdminError> {
    let all = services(catalog);
    Ok(match q.pattern.as_deref().unwrap_or("service") {
        "service" => all
            .into_iter()
            .filter(|s| q.matches(&s.service_key))
            .collect(),
        "application" => all
            .into_iter()
            .filter(|s| s.applications.iter().any(|a| q.matches(a)))
            .collect(),
        "ip" => {
            let keys: BTreeSet<String> = catalog
                .providers
                .iter()
                .filter(|p| q.matches(&p.address))
                .map(ProviderEntry::service_key)
                .collect();
            all.into_iter()
                .filter(|s| keys.contains(&s.service_key))
                .collect()
        }
        other => {
            return Err(AdminError::BadRequest(format!(
                "pattern {other:?} is not service, application or ip"
            )))
        }
    })
}

/// `GET /api/v1/service`: a page of [`find_services`].
pub async fn search_services(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Query(q): Query<Search>,
) -> Result<Json<Page<ServiceSummary>>, AdminError> {
    let catalog = state.catalog().await?;
    Ok(Json(Page::of(find_services(&catalog, &q)?, q.page())))
}

/// The providers of `key` (`group/interface:version`), or a not-found error.
pub fn providers_of(catalog: &Catalog, key: &str) -> Result<Vec<ProviderEntry>, AdminError> {
    let found: Vec<ProviderEntry> = catalog
        .providers
        .iter()
        .filter(|p| p.service_key() == key)
        .cloned()
        .collect();
    if found.is_empty() {
        return Err(AdminError::NotFound(format!(
            "no provider of {key} is registered"
        )));
    }
    Ok(found)
}

/// The definitions published for `key`'s providers, each with its application; empty when
/// none was published (a provider that does not publish definitions still shows).
pub async fn definitions(state: &AdminState, key: &str) -> Vec<Value> {
    let (service, version, group) = catalog::split_service_key(key);
    let wanted = Wanted {
        service,
        version: Some(version),
        group: Some(group),
        app: None,
    };
    match describe::definitions(&state.ext, &state.registry_url, &wanted).await {
        Ok(found) => found
            .into_iter()
            .map(|f| json!({ "application": f.id.application, "definition": f.definition }))
            .collect(),
        Err(e) => {
            tracing::debug!(service = key, error = %e, "no service definition");
            Vec::new()
        }
    }
}

/// `GET /api/v1/service/{key}`: providers, consumers and definitions of one service.
pub async fn service_detail(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Path(key): Path<String>,
) -> Result<Json<Value>, AdminError> {
    let catalog = state.catalog().await?;
    let providers = providers_of(&catalog, &key)?;
    let (service, version, group) = catalog::split_service_key(&key);
    let consumers = catalog::consumers(&state.ext, &state.registry_url, &service)
        .await
        .unwrap_or_default();
    let definitions = definitions(&state, &key).await;
    Ok(Json(json!({
        "serviceKey": key,
        "service": service,
        "version": version,
        "group": group,
        "providers": providers,
        "consumers": consumers,
        "definitions": definitions,
    })))
}

/// The methods of the definitions of `key`: name, parameter and return types, and the
/// application whose definition lists it; one entry per distinct signature.
pub async fn methods_of(state: &AdminState, key: &str) -> Vec<Value> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for d in definitions(state, key).await {
        let app = d["application"].clone();
        let methods = d["definition"]["methods"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for m in methods {
            let sig = (m["name"].to_string(), m["parameterTypes"].to_string());
            if seen.insert(sig) {
                out.push(json!({
                    "name": m["name"],
                    "parameterTypes": m["parameterTypes"],
                    "returnType": m["returnType"],
                    "application": app,
                }));
            }
        }
    }
    out
}

/// `GET /api/v1/service/{key}/methods`.
pub async fn service_methods(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Path(key): Path<String>,
) -> Result<Json<Value>, AdminError> {
    let methods = methods_of(&state, &key).await;
    if methods.is_empty() {
        return Err(AdminError::NotFound(format!(
            "no provider of {key} published a service definition"
        )));
    }
    Ok(Json(Value::Array(methods)))
}

/// One application in a search result.
#[derive(Debug, Clone, Serialize)]
pub struct AppSummary {
    /// The name.
    pub application: String,
    /// Its instances.
    pub instances: usize,
    /// The service keys it provides.
    pub services: BTreeSet<String>,
}

fn app_entry<'a>(m: &'a mut BTreeMap<String, AppSummary>, name: &str) -> &'a mut AppSummary {
    m.entry(name.to_owned()).or_insert_with(|| AppSummary {
        application: name.to_owned(),
        instances: 0,
        services: BTreeSet::new(),
    })
}

fn applications(catalog: &Catalog) -> Vec<AppSummary> {
    let mut by_name: BTreeMap<String, AppSummary> = BTreeMap::new();
    for i in &catalog.instances {
        app_entry(&mut by_name, &i.application).instances += 1;
    }
    for p in &catalog.providers {
        app_entry(&mut by_name, &p.application)
            .services
            .insert(p.service_key());
    }
    by_name.into_values().collect()
}

/// `GET /api/v1/applications`.
pub async fn search_applications(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Query(q): Query<Search>,
) -> Result<Json<Page<AppSummary>>, AdminError> {
    let catalog = state.catalog().await?;
    let apps = applications(&catalog)
        .into_iter()
        .filter(|a| q.matches(&a.application))
        .collect();
    Ok(Json(Page::of(apps, q.page())))
}

/// `GET /api/v1/application/{name}`: its instances and the services it provides.
pub async fn application_detail(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Path(name): Path<String>,
) -> Result<Json<Value>, AdminError> {
    let catalog = state.catalog().await?;
    let instances: Vec<&InstanceEntry> = catalog
        .instances
        .iter()
        .filter(|i| i.application == name)
        .collect();
    let providers: Vec<&ProviderEntry> = catalog
        .providers
        .iter()
        .filter(|p| p.application == name)
        .collect();
    if instances.is_empty() && providers.is_empty() {
        return Err(AdminError::NotFound(format!(
            "no application {name} is registered"
        )));
    }
    Ok(Json(
        json!({ "application": name, "instances": instances, "providers": providers }),
    ))
}

/// `GET /api/v1/instances`: instances whose application or address contains `filter`.
pub async fn search_instances(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Query(q): Query<Search>,
) -> Result<Json<Page<InstanceEntry>>, AdminError> {
    let catalog = state.catalog().await?;
    let found = catalog
        .instances
        .iter()
        .filter(|i| q.matches(&i.application) || q.matches(&i.id))
        .cloned()
        .collect();
    Ok(Json(Page::of(found, q.page())))
}

/// The instance `id` names.
pub fn instance(catalog: &Catalog, id: &str) -> Result<InstanceEntry, AdminError> {
    catalog
        .instances
        .iter()
        .find(|i| {
            i.id == id
                || i.ports
                    .values()
                    .any(|p| catalog::address(&i.host, *p) == id)
        })
        .cloned()
        .ok_or_else(|| AdminError::NotFound(format!("no instance {id} is registered")))
}

/// `GET /api/v1/instance/{id}`.
pub async fn instance_detail(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Path(id): Path<String>,
) -> Result<Json<Value>, AdminError> {
    let catalog = state.catalog().await?;
    let i = instance(&catalog, &id)?;
    let providers: Vec<&ProviderEntry> = catalog
        .providers
        .iter()
        .filter(|p| {
            p.application == i.application
                && i.ports
                    .values()
                    .any(|port| p.address == catalog::address(&i.host, *port))
        })
        .collect();
    Ok(Json(json!({ "instance": i, "providers": providers })))
}

/// `GET /api/v1/instance/{id}/metrics`: the `dubbo_` samples of the instance's QoS `/metrics`.
pub async fn instance_metrics(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Path(id): Path<String>,
) -> Result<Json<Value>, AdminError> {
    let catalog = state.catalog().await?;
    let i = instance(&catalog, &id)?;
    let text = crate::qos_metrics::fetch(&i.qos_address).await?;
    let samples = crate::qos_metrics::parse(&text, "dubbo_");
    Ok(Json(json!({
        "instance": i.id,
        "qosAddress": i.qos_address,
        "time": crate::session::now_seconds(),
        "samples": samples,
    })))
}

/// `GET /api/v1/prometheus/sd`: every instance's QoS address in `http_sd_configs` format.
pub async fn prometheus_sd(
    State(state): State<Arc<AdminState>>,
) -> Result<Json<Value>, AdminError> {
    let catalog = state.catalog().await?;
    Ok(Json(crate::sd::targets(&catalog.instances)))
}
