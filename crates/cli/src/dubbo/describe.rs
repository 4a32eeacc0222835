//! `dubbo describe SERVICE`: the methods and types of a service, from the service definitions
//! its providers published to the metadata report (Java's `FullServiceDefinition`).

use std::collections::BTreeSet;

use dubbo_core::{Extensions, ServiceDefinition};
use dubbo_registry::DefinitionId;
use dubbo_url::Url;
use serde_json::json;

use crate::dubbo::app_level;
use crate::dubbo::connect;
use crate::dubbo::instance_metadata::InstanceMetadata;
use crate::dubbo::ls::interface_providers;
use crate::dubbo::output::{self, Format, Table};
use crate::dubbo::tls::TlsFlags;
use crate::dubbo::CliError;

/// Which service to describe.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wanted {
    /// The interface.
    pub service: String,
    /// Only this version, when given.
    pub version: Option<String>,
    /// Only this group, when given.
    pub group: Option<String>,
    /// Only this application's definition, when given.
    pub app: Option<String>,
}

/// One definition found, with where it was found.
#[derive(Debug, Clone)]
pub struct Found {
    /// Which definition it is.
    pub id: DefinitionId,
    /// The definition.
    pub definition: ServiceDefinition,
}

/// The definitions of `wanted` published by its providers' applications: those registered at
/// interface level and those the service-name mapping names. Without `--version` and
/// `--group`, the versions and groups a mapped application provides are those its instances'
/// metadata names (so a provider registered at application level only is found whatever its
/// version).
pub async fn definitions(
    ext: &Extensions,
    registry_url: &Url,
    wanted: &Wanted,
) -> Result<Vec<Found>, CliError> {
    definitions_with(ext, registry_url, wanted, &TlsFlags::default()).await
}

/// As [`definitions`], asking mapped applications' MetadataService with `tls` (the instances'
/// metadata is behind it when it is not in the report).
pub async fn definitions_with(
    ext: &Extensions,
    registry_url: &Url,
    wanted: &Wanted,
    tls: &TlsFlags,
) -> Result<Vec<Found>, CliError> {
    let mut candidates: BTreeSet<(String, String, String)> = BTreeSet::new();
    for p in interface_providers(ext, registry_url).await? {
        if p.service == wanted.service {
            candidates.insert((p.version, p.group, p.application));
        }
    }
    let report = connect::report(ext, registry_url).await?;
    let mapped: Vec<String> = report
        .mapping(&wanted.service)
        .await
        .unwrap_or_default()
        .into_iter()
        .collect();
    let mut resolved = BTreeSet::new();
    if (wanted.version.is_none() || wanted.group.is_none()) && !mapped.is_empty() {
        for (version, group, app) in mapped_services(
            ext,
            registry_url,
            &report,
            mapped.clone(),
            &wanted.service,
            tls,
        )
        .await
        {
            resolved.insert(app.clone());
            candidates.insert((version, group, app));
        }
    }
    for app in mapped {
        if resolved.contains(&app) {
            continue;
        }
        let version = wanted.version.clone().unwrap_or_default();
        let group = wanted.group.clone().unwrap_or_default();
        candidates.insert((version, group, app));
    }
    let mut found = Vec::new();
    for (version, group, app) in candidates {
        let matches = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        if !matches(&wanted.version, &version)
            || !matches(&wanted.group, &group)
            || !matches(&wanted.app, &app)
        {
            continue;
        }
        let id = DefinitionId::provider(&wanted.service, &version, &group, &app);
        if found.iter().any(|f: &Found| f.id == id) {
            continue;
        }
        let Some(text) = report.definition(&id).await? else {
            continue;
        };
        let definition: ServiceDefinition = serde_json::from_str(&text).map_err(|e| {
            CliError::Registry(dubbo_registry::RegistryError::BadData {
                path: id.path_key(),
                reason: format!("not a service definition: {e}"),
            })
        })?;
        found.push(Found { id, definition });
    }
    if found.is_empty() {
        return Err(CliError::NotFound(format!(
            "no provider of {} published a service definition to the metadata report",
            wanted.service
        )));
    }
    Ok(found)
}

/// The (version, group, application) of every provider of `service` among the instances of
/// the applications `apps`, from their revisions' metadata (the report's, else the instances'
/// MetadataService); nothing where it cannot be read.
async fn mapped_services(
    ext: &Extensions,
    registry_url: &Url,
    report: &std::sync::Arc<dyn dubbo_registry::MetadataReport>,
    apps: Vec<String>,
    service: &str,
    tls: &TlsFlags,
) -> BTreeSet<(String, String, String)> {
    let Ok(apps) = app_level::instances_of(ext, registry_url, Some(apps)).await else {
        return BTreeSet::new();
    };
    let fetched = InstanceMetadata::new("dubbo-cli").with_ssl(tls.ssl());
    let metadata = app_level::revision_metadata(Some(report.clone()), &apps, &fetched).await;
    fetched.shutdown().await;
    metadata
        .iter()
        .flat_map(|((app, _), info)| {
            info.services
                .values()
                .filter(|s| s.name == service)
                .map(move |s| {
                    (
                        s.version.clone().unwrap_or_default(),
                        s.group.clone().unwrap_or_default(),
                        app.clone(),
                    )
                })
        })
        .collect()
}

/// Names without the package: `java.util.List<java.lang.String>` → `List<String>`.
pub fn short(type_name: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(word.rsplit('.').next().unwrap_or(word));
        word.clear();
    };
    for c in type_name.chars() {
        if c.is_alphanumeric() || c == '.' || c == '_' || c == '$' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Runs `dubbo describe`, asking mapped applications' MetadataService with `tls`.
pub async fn run(
    ext: &Extensions,
    registry_url: &Url,
    wanted: &Wanted,
    tls: &TlsFlags,
    format: Format,
) -> Result<(), CliError> {
    let found = definitions_with(ext, registry_url, wanted, tls).await?;
    match format {
        Format::Json => output::print_json(&json!({
            "definitions": found.iter().map(|f| json!({
                "application": f.id.application,
                "version": f.id.version,
                "group": f.id.group,
                "definition": f.definition,
            })).collect::<Vec<_>>()
        })),
        Format::Table => {
            let mut text = String::new();
            for f in &found {
                let d = &f.definition;
                text.push_str(&format!(
                    "{} (application {}, version {:?}, group {:?}, from {})\n\n",
                    d.canonical_name, f.id.application, f.id.version, f.id.group, d.code_source
                ));
                let mut methods = Table::new(&["METHOD", "PARAMETERS", "RETURNS"]);
                for m in &d.methods {
                    let params: Vec<String> = m.parameter_types.iter().map(|t| short(t)).collect();
                    methods.row(vec![
                        m.name.clone(),
                        params.join(", "),
                        short(&m.return_type),
                    ]);
                }
                text.push_str(&methods.render());
                let classes: Vec<_> = d
                    .types
                    .iter()
                    .filter(|t| !t.properties.is_empty())
                    .collect();
                if !classes.is_empty() {
                    let mut types = Table::new(&["TYPE", "PROPERTY", "PROPERTY TYPE"]);
                    for t in classes {
                        for (name, ty) in &t.properties {
                            types.row(vec![t.type_name.clone(), name.clone(), short(ty)]);
                        }
                    }
                    text.push('\n');
                    text.push_str(&types.render());
                }
                text.push('\n');
            }
            output::print(&text)
        }
    }
}

/// Runs `dubbo describe SERVICE --url tri://…`: the methods and messages gRPC reflection
/// describes (plaintext).
pub async fn run_reflection(target: &str, service: &str, format: Format) -> Result<(), CliError> {
    run_reflection_with(target, service, &TlsFlags::default(), format).await
}

/// Runs `dubbo describe SERVICE --url tri://…`, dialling with `tls`.
pub async fn run_reflection_with(
    target: &str,
    service: &str,
    tls: &TlsFlags,
    format: Format,
) -> Result<(), CliError> {
    crate::dubbo::schema::run(target, service, tls, format).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_are_dropped() {
        assert_eq!(
            short("java.util.Map<java.lang.String,java.lang.Integer>"),
            "Map<String,Integer>"
        );
        assert_eq!(short("int"), "int");
        assert_eq!(short("byte[]"), "byte[]");
    }
}
