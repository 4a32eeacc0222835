//! `dubbo ls`: the services, applications and instances a registry holds.

use dubbo_core::Extensions;
use dubbo_registry::ServiceInstance;
use dubbo_url::Url;
use serde_json::json;

use crate::dubbo::app_level;
use crate::dubbo::connect;
use crate::dubbo::instance_metadata::InstanceMetadata;
use crate::dubbo::output::{self, Format, Table};
use crate::dubbo::tls::TlsFlags;
use crate::dubbo::CliError;

/// What `ls` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    /// Providers: one row per service, application, protocol and address, registered at
    /// interface level, found through an instance's metadata (application level), or both.
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
    /// The whole registered URL (interface level), else the one an application-level
    /// consumer resolves from the instance's metadata.
    pub url: Url,
    /// Where it was found: [`INTERFACE`] (a registered provider URL) and/or [`APPLICATION`]
    /// (an instance's metadata); empty when neither (a MetadataService's exported URLs).
    pub sources: Vec<&'static str>,
}

/// The source of a provider registered at interface level.
pub const INTERFACE: &str = "interface";
/// The source of a provider found through an application instance's metadata.
pub const APPLICATION: &str = "application";

impl ProviderRow {
    /// The row of a registered (or exported) URL.
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
            sources: Vec::new(),
        }
    }

    /// The row of a provider URL found in `source`.
    pub fn found_in(url: Url, source: &'static str) -> Self {
        let mut row = Self::from_url(url);
        row.sources.push(source);
        row
    }

    fn key(&self) -> (&str, &str, &str, &str, &str, &str) {
        (
            &self.service,
            &self.version,
            &self.group,
            &self.application,
            &self.protocol,
            &self.address,
        )
    }
}

/// Every provider, registered at interface level or found through application instances'
/// metadata (the report's, else the instance's MetadataService, dialled with `tls`), one row
/// per service, version, group, application, protocol and address, sorted.
pub async fn providers(
    ext: &Extensions,
    registry_url: &Url,
    tls: &TlsFlags,
) -> Result<Vec<ProviderRow>, CliError> {
    let mut rows = interface_providers(ext, registry_url).await?;
    rows.extend(application_providers(ext, registry_url, tls).await?);
    Ok(merge(rows))
}

/// Rows sorted, those of one provider found both ways made one with both sources.
fn merge(mut rows: Vec<ProviderRow>) -> Vec<ProviderRow> {
    rows.sort_by(|a, b| a.key().cmp(&b.key()));
    rows.dedup_by(|later, kept| {
        let same = later.key() == kept.key();
        if same {
            for s in later.sources.drain(..) {
                if !kept.sources.contains(&s) {
                    kept.sources.push(s);
                }
            }
        }
        same
    });
    rows
}

/// The providers application instances announce through their metadata revision.
pub async fn application_providers(
    ext: &Extensions,
    registry_url: &Url,
    tls: &TlsFlags,
) -> Result<Vec<ProviderRow>, CliError> {
    let apps = match app_level::instances(ext, registry_url).await {
        Ok(apps) => apps,
        // A registry with no application-level discovery has no such providers.
        Err(dubbo_registry::RegistryError::UnknownScheme { .. }) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    if apps.is_empty() {
        return Ok(Vec::new());
    }
    let report = connect::report(ext, registry_url).await.ok();
    let fetched = InstanceMetadata::new("dubbo-cli").with_ssl(tls.ssl());
    let metadata = app_level::revision_metadata(report, &apps, &fetched).await;
    fetched.shutdown().await;
    Ok(app_level::provider_urls(&apps, &metadata)
        .into_iter()
        .map(|url| ProviderRow::found_in(url, APPLICATION))
        .collect())
}

/// Every provider registered at interface level, service by service.
pub async fn interface_providers(
    ext: &Extensions,
    registry_url: &Url,
) -> Result<Vec<ProviderRow>, CliError> {
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
        rows.extend(
            urls.into_iter()
                .filter(|u| u.protocol() != Some("empty"))
                .map(|u| ProviderRow::found_in(u, INTERFACE)),
        );
    }
    registry.destroy().await;
    Ok(merge(rows))
}

/// Every application and its instances.
pub async fn instances(
    ext: &Extensions,
    registry_url: &Url,
) -> Result<Vec<(String, Vec<ServiceInstance>)>, CliError> {
    Ok(app_level::instances(ext, registry_url).await?)
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

/// Prints provider rows: a table, or `{"services": [...]}` with each whole URL; rows with
/// sources have a `SOURCES` column (`sources` in JSON).
pub fn print_providers(rows: Vec<ProviderRow>, format: Format) -> Result<(), CliError> {
    let with_sources = rows.iter().any(|r| !r.sources.is_empty());
    match format {
        Format::Json => output::print_json(&json!({
            "services": rows.iter().map(|r| {
                let mut row = json!({
                    "service": r.service,
                    "version": r.version,
                    "group": r.group,
                    "application": r.application,
                    "protocol": r.protocol,
                    "address": r.address,
                    "url": r.url.to_full_string(),
                });
                if with_sources {
                    row["sources"] = json!(r.sources);
                }
                row
            }).collect::<Vec<_>>()
        })),
        Format::Table => {
            let mut header = vec![
                "SERVICE",
                "VERSION",
                "GROUP",
                "APPLICATION",
                "PROTOCOL",
                "ADDRESS",
            ];
            if with_sources {
                header.push("SOURCES");
            }
            let mut t = Table::new(&header);
            for r in rows {
                let mut row = vec![
                    r.service,
                    r.version,
                    r.group,
                    r.application,
                    r.protocol,
                    r.address,
                ];
                if with_sources {
                    row.push(r.sources.join(","));
                }
                t.row(row);
            }
            output::print(&t.render())
        }
    }
}

/// Runs `dubbo ls --url dubbo://HOST:PORT --app APP`: what the provider's MetadataService
/// says it exports.
pub async fn run_exported(
    target: &str,
    app: Option<&str>,
    tls: &TlsFlags,
    format: Format,
) -> Result<(), CliError> {
    let Some(app) = app else {
        return Err(CliError::bad(
            "--app",
            "a dubbo:// provider is asked through its MetadataService, whose group is the provider's application name: give --app",
        ));
    };
    print_providers(
        crate::dubbo::exported::exported(target, app, tls).await?,
        format,
    )
}

/// Runs `dubbo ls --url tri://…`: the services the server's gRPC reflection lists.
pub async fn run_reflection(target: &str, format: Format) -> Result<(), CliError> {
    run_reflection_with(target, &TlsFlags::default(), format).await
}

/// Runs `dubbo ls --url tri://…`, dialling with `tls`.
pub async fn run_reflection_with(
    target: &str,
    tls: &TlsFlags,
    format: Format,
) -> Result<(), CliError> {
    let services = crate::dubbo::reflection::services_with(target, tls).await?;
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
    run_with(ext, registry_url, what, &TlsFlags::default(), format).await
}

/// Runs `dubbo ls`, dialling instances' MetadataService with `tls`.
pub async fn run_with(
    ext: &Extensions,
    registry_url: &Url,
    what: What,
    tls: &TlsFlags,
    format: Format,
) -> Result<(), CliError> {
    match what {
        What::Services => print_providers(providers(ext, registry_url, tls).await?, format),
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
