//! The configured `filter` lists must name filters that exist: a filter chain skips names it
//! does not know, so a misspelt or unregistered filter would otherwise be silently left out.

use super::{ConfigError, DubboConfig};

/// Refuses a `filter` list (`dubbo.provider`, `dubbo.consumer`, `dubbo.services.<id>`,
/// `dubbo.references.<id>`) naming a filter that is not in `known`. `default`, removals
/// (`-name`, `-default`) and empty entries are always accepted.
pub fn refuse_unknown_filters(config: &DubboConfig, known: &[&str]) -> Result<(), ConfigError> {
    let mut lists: Vec<(String, &str)> = Vec::new();
    if let Some(f) = &config.provider.filter {
        lists.push(("dubbo.provider.filter".to_owned(), f));
    }
    if let Some(f) = &config.consumer.filter {
        lists.push(("dubbo.consumer.filter".to_owned(), f));
    }
    for (name, m) in &config.modules {
        if let Some(f) = m.provider.as_ref().and_then(|p| p.filter.as_ref()) {
            lists.push((format!("dubbo.modules.{name}.provider.filter"), f));
        }
        if let Some(f) = m.consumer.as_ref().and_then(|c| c.filter.as_ref()) {
            lists.push((format!("dubbo.modules.{name}.consumer.filter"), f));
        }
    }
    for (id, s) in &config.services {
        if let Some(f) = &s.filter {
            lists.push((format!("dubbo.services.{id}.filter"), f));
        }
    }
    for (id, r) in &config.references {
        if let Some(f) = &r.filter {
            lists.push((format!("dubbo.references.{id}.filter"), f));
        }
    }
    for (key, list) in lists {
        let unknown = list
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty() && *w != "default" && !w.starts_with('-'))
            .find(|w| !known.contains(w));
        if let Some(name) = unknown {
            let mut names = known.to_vec();
            names.sort_unstable();
            return Err(ConfigError::invalid(
                key,
                format!(
                    "no filter named {name:?} is registered (have {names:?}); register it with \
                     Framework::register_filter before building the application"
                ),
            ));
        }
    }
    Ok(())
}
