//! The read side of the API (`/api/v1`): services, applications and instances, searched and
//! paginated as Java's Dubbo Admin answers; a service's providers, consumers and methods (from
//! the published `FullServiceDefinition`); an instance's metrics; Prometheus discovery.

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::Json;
use dubbo_cli::dubbo::describe::{self, Wanted};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::LoggedIn;
use crate::catalog::{self, Catalog, InstanceEntry, ProviderEntry};
pub use crate::catalog_index::{AppSummary, ServiceSummary};
use crate::consumers;
use crate::error::AdminError;
use crate::page::{Page, PageRequest};
use crate::provider_urls;
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

    /// The filter in lower case; `None` for everything.
    fn filter(&self) -> Option<String> {
        match self.filter.as_deref().map(str::trim) {
            None | Some("") | Some("*") => None,
            Some(f) => Some(f.to_lowercase()),
        }
    }
}

/// Every service of the catalog, one summary per service key.
pub fn services(catalog: &Catalog) -> &[ServiceSummary] {
    catalog.index().services()
}

/// The positions (in [`services`]) of the services whose name (`pattern=service`, the
/// default), application (`application`) or provider address (`ip`) contains the search's
/// `filter`.
pub fn find_services(catalog: &Catalog, q: &Search) -> Result<Vec<usize>, AdminError> {
    let filter = q.filter();
    let filter = filter.as_deref();
    let index = catalog.index();
    Ok(match q.pattern.as_deref().unwrap_or("service") {
        "service" => index.services_named(filter),
        "application" => index.services_of_apps(filter),
        "ip" => index.services_at(filter),
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
    let all = services(&catalog);
    let page = Page::of(find_services(&catalog, &q)?, q.page());
    Ok(Json(page.map(|s| all[s].clone())))
}

/// The providers of `key` (`group/interface:version`), or a not-found error.
pub fn providers_of(catalog: &Catalog, key: &str) -> Result<Vec<ProviderEntry>, AdminError> {
    let index = catalog.index();
    match index.service(key) {
        Some(s) => Ok(catalog.providers[index.providers_of(s)].to_vec()),
        None => Err(AdminError::NotFound(format!(
            "no provider of {key} is registered"
        ))),
    }
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
    match describe::definitions_with(
        &state.ext,
        &state.registry_url,
        &wanted,
        &state.settings.tls,
    )
    .await
    {
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
    let consumers =
        consumers::consumers(&state.ext, &state.registry_url, &service, &version, &group).await;
    let definitions = definitions(&state, &key).await;
    let providers = provider_urls::with_urls(&state, &providers).await;
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

/// `GET /api/v1/applications`.
pub async fn search_applications(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Query(q): Query<Search>,
) -> Result<Json<Page<AppSummary>>, AdminError> {
    let catalog = state.catalog().await?;
    let index = catalog.index();
    let found = index.applications_named(q.filter().as_deref());
    let all = index.applications();
    Ok(Json(Page::of(found, q.page()).map(|a| all[a].clone())))
}

/// `GET /api/v1/application/{name}`: its instances and the services it provides.
pub async fn application_detail(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Path(name): Path<String>,
) -> Result<Json<Value>, AdminError> {
    let catalog = state.catalog().await?;
    let index = catalog.index();
    let Some(a) = index.application(&name) else {
        return Err(AdminError::NotFound(format!(
            "no application {name} is registered"
        )));
    };
    let instances: &[InstanceEntry] = &catalog.instances[index.app_instances(a)];
    let providers = index
        .app_providers(a)
        .iter()
        .map(|&p| &catalog.providers[p as usize]);
    let providers = provider_urls::with_urls(&state, providers).await;
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
    let found = catalog.index().instances_matching(q.filter().as_deref());
    Ok(Json(
        Page::of(found, q.page()).map(|i| catalog.instances[i].clone()),
    ))
}

/// The instance `id` names.
pub fn instance(catalog: &Catalog, id: &str) -> Result<InstanceEntry, AdminError> {
    catalog
        .index()
        .instance(id)
        .and_then(|i| catalog.instances.get(i))
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
    let index = catalog.index();
    let of_app = index.application(&i.application).unwrap_or(usize::MAX);
    let providers = index
        .app_providers(of_app)
        .iter()
        .map(|&p| &catalog.providers[p as usize])
        .filter(|p| {
            i.ports
                .values()
                .any(|port| *p.address == catalog::address(&i.host, port))
        });
    let providers = provider_urls::with_urls(&state, providers).await;
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

/// `?minutes=` of a metrics range (default 15).
#[derive(Debug, Clone, Deserialize)]
pub struct RangeQuery {
    /// How many minutes back from now.
    pub minutes: Option<u64>,
}

/// The configured Prometheus server's base URL; not found when none is configured.
fn prometheus_base(state: &AdminState) -> Result<String, AdminError> {
    state.settings.prometheus.clone().ok_or_else(|| {
        AdminError::NotFound(
            "no Prometheus server is configured (prometheus: in the configuration, or --prometheus)"
                .to_owned(),
        )
    })
}

/// `GET /api/v1/instance/{id}/metrics/range?minutes=N`: the instance's requests per second by
/// method over the last N minutes, from the configured Prometheus server
/// ([`crate::prometheus_range`]); 404 when none is configured.
pub async fn instance_metrics_range(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Path(id): Path<String>,
    Query(q): Query<RangeQuery>,
) -> Result<Json<Value>, AdminError> {
    let base = prometheus_base(&state)?;
    let catalog = state.catalog().await?;
    let i = instance(&catalog, &id)?;
    let mut answer = crate::prometheus_range::request_rates(
        &base,
        &i.qos_address,
        q.minutes.unwrap_or(15),
        crate::session::now_seconds(),
    )
    .await?;
    answer["instance"] = json!(i.id);
    answer["qosAddress"] = json!(i.qos_address);
    Ok(Json(answer))
}

/// `GET /api/v1/service/{key}/metrics/range?minutes=N`: the service's requests/s, failed
/// requests/s and average response time summed over its providers over the last N minutes,
/// from the configured Prometheus server ([`crate::prometheus_range::service_rates`]); 404
/// when none is configured or nobody provides the service.
pub async fn service_metrics_range(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
    Path(key): Path<String>,
    Query(q): Query<RangeQuery>,
) -> Result<Json<Value>, AdminError> {
    let base = prometheus_base(&state)?;
    let catalog = state.catalog().await?;
    let providers = providers_of(&catalog, &key)?;
    let (service, version, group) = catalog::split_service_key(&key);
    let mut answer = crate::prometheus_range::service_rates(
        &base,
        &service,
        &version,
        &group,
        q.minutes.unwrap_or(15),
        crate::session::now_seconds(),
    )
    .await?;
    answer["serviceKey"] = json!(key);
    answer["providers"] = json!(providers.len());
    Ok(Json(answer))
}

/// `GET /api/v1/prometheus/sd`: every instance's QoS address in `http_sd_configs` format.
pub async fn prometheus_sd(
    State(state): State<Arc<AdminState>>,
) -> Result<Json<Value>, AdminError> {
    let catalog = state.catalog().await?;
    Ok(Json(crate::sd::targets(&catalog.instances)))
}

/// `GET /api/v1/catalog`: how the catalog is kept: `live` (from the registry's pushes) or
/// not (re-read), how many whole reads and how many updates from pushes made it, and its size.
pub async fn catalog_status(
    State(state): State<Arc<AdminState>>,
    _user: LoggedIn,
) -> Result<Json<Value>, AdminError> {
    let catalog = state.catalog().await?;
    let (live, full_reads, updates) = state.catalog_counts();
    Ok(Json(json!({
        "live": live,
        "fullReads": full_reads,
        "updates": updates,
        "providers": catalog.providers.len(),
        "instances": catalog.instances.len(),
    })))
}
