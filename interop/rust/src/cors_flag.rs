//! `--cors KEY=VALUE` (repeatable): the CORS settings of the provider's REST forms, under
//! Java Dubbo 3.3's keys (`dubbo.protocols.tri.triple.rest.cors.KEY`: `allowed-origins`,
//! `allowed-methods`, `allowed-headers`, `exposed-headers`, `allow-credentials`, `max-age`;
//! lists separated by commas). They are read as the YAML configuration reads them, so a bad
//! key or value stops the provider with the configuration's own error naming the full key.

use dubbo_rs::config::{DubboConfig, ProtocolConfig};

use crate::args::Args;

/// The tri protocol on `port` with the `--cors` settings, or `None` without the flag.
pub fn tri_protocol(args: &Args, port: u16) -> Result<Option<ProtocolConfig>, String> {
    let pairs = args.pairs("cors")?;
    if pairs.is_empty() {
        return Ok(None);
    }
    let quote = |s: &str| format!("'{}'", s.replace('\'', "''"));
    let mut yaml = String::from("protocols:\n  tri:\n    triple:\n      rest:\n        cors:\n");
    for (k, v) in pairs {
        yaml.push_str(&format!("          {}: {}\n", quote(k), quote(v)));
    }
    let config = DubboConfig::from_yaml(&yaml).map_err(|e| format!("--cors: {e}"))?;
    let triple = config.protocols.get("tri").and_then(|p| p.triple.clone());
    Ok(Some(ProtocolConfig {
        name: Some("tri".into()),
        port: Some(i32::from(port)),
        triple,
        ..Default::default()
    }))
}
