//! `dubbo ls`: the services, applications and instances a registry holds.

use dubbo_core::Extensions;
use dubbo_registry::{RegistryError, ServiceInstance};
use dubbo_url::Url;
use serde_json::json;

use crate::dubbo::connect;
use crate::dubbo::output::{self, Format, Table};
use crate::dubbo::CliError;

/// What `ls` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    /// Interface-level registrations: one row per provider URL.
    Services,
    /// Applications registered at instance level, with their instance counts.
    Apps,
    /// Application instances: address, revision, protocols.
    Instances,
}

impl What {
    /// `services`, `apps` or `instances`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "services" => Some(What::Services),
            "apps" | "applications" => Some(What::Apps),
            "instances" => Some(What::Instances),
            _ => None,
        }
    }
}

/// One registered provider of a service.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderRow {
    /// The interface.
    pub service: String,
    /// Its version, empty for none.
    pub version: String,
    /// Its group, empty for none.
    pub group: String,
    /// The application that registered it.
    pub application: String,
    /// `dubbo`, `tri`, ...
    pub protocol: String,
    /// `host:port` as registered.
    pub address: String,
    /// The whole registered URL.
    pub url: Url,
}

impl ProviderRow {
    /// The row of one registered provider URL.
    pub fn from_url(url: Url) -> Self {
        let text = |v: Option<&str>| v.unwrap_or_default().to_owned();
        Self {
            service: text(url.service_interface()),
            version: text(url.version()),
            group: text(url.group()),
            application: text(url.application()),
            protocol: text(url.protocol()),
            address: url.address(),
            url,
        }
    }
}

/// Every provider registered at interface level, service by service.
pub async fn providers(ext: &Extensions, registry_url: &Url) -> Result<Vec<ProviderRow>, CliError> {
    let registry = connect::registry(ext, registry_url).await?;
    let mut rows = Vec::new();
    let services = registry.services().await;
    let services = match services {
        Ok(s) => s,
        Err(e) => {
            registry.destroy().await;
            return Err(e.into());
        }
    };
    for service in services {
        let urls = registry
            .lookup(&connect::any_provider_of(&service)?)
            .await?;
        rows.extend(urls.into_iter().map(ProviderRow::from_url));
    }
    registry.destroy().await;
    rows.sort_by(|a, b| {
        (&a.service, &a.application, &a.protocol, &a.address).cmp(&(
            &b.service,
            &b.application,
            &b.protocol,
            &b.address,
        ))
    });
    Ok(rows)
}

/// Every application and its instances.
pub async fn instances(
    ext: &Extensions,
    registry_url: &Url,
) -> Result<Vec<(String, Vec<ServiceInstance>)>, CliError> {
    let discovery = connect::discovery(ext, registry_url).await?;
    let result: Result<Vec<_>, RegistryError> = async {
        let mut out = Vec::new();
        for app in discovery.applications().await? {
            let instances = discovery.instances(&app).await?;
            out.push((app, instances));
        }
        Ok(out)
    }
    .await;
    discovery.destroy().await;
    Ok(result?)
}

fn endpoints(instance: &ServiceInstance) -> String {
    let mut endpoints: Vec<String> = instance
        .endpoints()
        .iter()
        .map(|e| format!("{}:{}", e.protocol, e.port))
        .collect();
    if endpoints.is_empty() {
        endpoints.push(instance.port.to_string());
    }
    endpoints.join(",")
}

/// Runs `dubbo ls --url tri://…`: the services the server's gRPC reflection lists.
pub async fn run_reflection(target: &str, format: Format) -> Result<(), CliError> {
    let services = crate::dubbo::reflection::services(target).await?;
    match format {
        Format::Json => output::print_json(&json!({
            "services": services.iter().map(|s| json!({ "service": s })).collect::<Vec<_>>()
        })),
        Format::Table => {
            let mut t = Table::new(&["SERVICE"]);
            for s in services {
                t.row(vec![s]);
            }
            output::print(&t.render())
        }
    }
}

/// Runs `dubbo ls`.
pub async fn run(
    ext: &Extensions,
    registry_url: &Url,
    what: What,
    format: Format,
) -> Result<(), CliError> {
    match what {
        What::Services => {
            let rows = providers(ext, registry_url).await?;
            match format {
                Format::Json => output::print_json(&json!({
                    "services": rows.iter().map(|r| json!({
                        "service": r.service,
                        "version": r.version,
                        "group": r.group,
                        "application": r.application,
                        "protocol": r.protocol,
                        "address": r.address,
                        "url": r.url.to_full_string(),
                    })).collect::<Vec<_>>()
                })),
                Format::Table => {
                    let mut t = Table::new(&[
                        "SERVICE",
                        "VERSION",
                        "GROUP",
                        "APPLICATION",
                        "PROTOCOL",
                        "ADDRESS",
                    ]);
                    for r in rows {
                        t.row(vec![
                            r.service,
                            r.version,
                            r.group,
                            r.application,
                            r.protocol,
                            r.address,
                        ]);
                    }
                    output::print(&t.render())
                }
            }
        }
        What::Apps => {
            let apps = instances(ext, registry_url).await?;
            match format {
                Format::Json => output::print_json(&json!({
                    "applications": apps.iter().map(|(app, list)| json!({
                        "application": app,
                        "instances": list.len(),
                    })).collect::<Vec<_>>()
                })),
                Format::Table => {
                    let mut t = Table::new(&["APPLICATION", "INSTANCES"]);
                    for (app, list) in apps {
                        t.row(vec![app, list.len().to_string()]);
                    }
                    output::print(&t.render())
                }
            }
        }
        What::Instances => {
            let apps = instances(ext, registry_url).await?;
            match format {
                Format::Json => output::print_json(&json!({
                    "instances": apps.iter().flat_map(|(app, list)| list.iter().map(move |i| json!({
                        "application": app,
                        "address": i.address(),
                        "revision": i.revision(),
                        "endpoints": i.endpoints().iter().map(|e| json!({
                            "protocol": e.protocol, "port": e.port,
                        })).collect::<Vec<_>>(),
                        "metadata": i.metadata.iter().collect::<std::collections::BTreeMap<_, _>>(),
                    }))).collect::<Vec<_>>()
                })),
                Format::Table => {
                    let mut t = Table::new(&["APPLICATION", "ADDRESS", "REVISION", "ENDPOINTS"]);
                    for (app, list) in apps {
                        for i in list {
                            t.row(vec![
                                app.clone(),
                                i.address(),
                                i.revision().to_owned(),
                                endpoints(&i),
                            ]);
                        }
                    }
                    output::print(&t.render())
                }
            }
        }
    }
}
