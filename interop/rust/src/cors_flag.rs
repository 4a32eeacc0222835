//! `--cors KEY=VALUE` (repeatable): the CORS settings of the provider's REST forms, under
//! Java Dubbo 3.3's keys (`dubbo.protocols.tri.triple.rest.cors.KEY`: `allowed-origins`,
//! `allowed-methods`, `allowed-headers`, `exposed-headers`, `allow-credentials`, `max-age`;
//! lists separated by commas). They are read as the YAML configuration reads them, so a bad
//! key or value stops the provider with the configuration's own error naming the full key.
//!
//! `--swagger-ui KEY=VALUE` (repeatable) does the same for the Swagger UI page
//! (`dubbo.protocols.tri.triple.rest.openapi.settings.swagger-ui.KEY`: `cdn`, `assets`,
//! `settings.NAME`).

use dubbo_rs::config::{DubboConfig, ProtocolConfig};

use crate::args::Args;

/// The tri protocol on `port` with the `--cors` settings, or `None` without the flag.
pub fn tri_protocol(args: &Args, port: u16) -> Result<Option<ProtocolConfig>, String> {
    let cors = args.pairs("cors")?;
    let swagger_ui = args.pairs("swagger-ui")?;
    if cors.is_empty() && swagger_ui.is_empty() {
        return Ok(None);
    }
    let quote = |s: &str| format!("'{}'", s.replace('\'', "''"));
    let mut yaml = String::from("protocols:\n  tri:\n    triple:\n      rest:\n");
    if !cors.is_empty() {
        yaml.push_str("        cors:\n");
        for (k, v) in cors {
            yaml.push_str(&format!("          {}: {}\n", quote(k), quote(v)));
        }
    }
    if !swagger_ui.is_empty() {
        yaml.push_str("        openapi:\n          settings:\n            swagger-ui:\n");
        let mut options = Vec::new();
        for (k, v) in swagger_ui {
            match k.strip_prefix("settings.") {
                Some(name) => options.push((name, v)),
                None => yaml.push_str(&format!("              {}: {}\n", quote(k), quote(v))),
            }
        }
        if !options.is_empty() {
            yaml.push_str("              settings:\n");
            for (k, v) in options {
                yaml.push_str(&format!("                {}: {}\n", quote(k), quote(v)));
            }
        }
    }
    let config = DubboConfig::from_yaml(&yaml).map_err(|e| format!("--cors/--swagger-ui: {e}"))?;
    let triple = config.protocols.get("tri").and_then(|p| p.triple.clone());
    Ok(Some(ProtocolConfig {
        name: Some("tri".into()),
        port: Some(i32::from(port)),
        triple,
        ..Default::default()
    }))
}
