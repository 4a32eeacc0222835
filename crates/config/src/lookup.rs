//! Finding the `dubbo.services.<id>` or `dubbo.references.<id>` entry that configures an
//! interface: by id, or by the `interface` the entry names (as Java matches a service or
//! reference config by id or interface).

use super::{ConfigError, DubboConfig, ReferenceConfig, ServiceConfig};

impl DubboConfig {
    /// The `dubbo.services.<id>` entry for `interface`, with its id: the entry whose id is
    /// `interface` (and names no other interface), else the one entry whose `interface` is
    /// `interface`. Several such entries are an error naming them.
    pub fn service_for(
        &self,
        interface: &str,
    ) -> Result<Option<(String, ServiceConfig)>, ConfigError> {
        find(
            "dubbo.services",
            interface,
            self.services
                .iter()
                .map(|(id, c)| (id, c.interface.as_deref(), c)),
        )
    }

    /// The `dubbo.references.<id>` entry for `interface`, with its id, matched as
    /// [`service_for`](Self::service_for) matches services.
    pub fn reference_for(
        &self,
        interface: &str,
    ) -> Result<Option<(String, ReferenceConfig)>, ConfigError> {
        find(
            "dubbo.references",
            interface,
            self.references
                .iter()
                .map(|(id, c)| (id, c.interface.as_deref(), c)),
        )
    }
}

fn find<'a, C: Clone + 'a>(
    section: &str,
    interface: &str,
    entries: impl Iterator<Item = (&'a String, Option<&'a str>, &'a C)>,
) -> Result<Option<(String, C)>, ConfigError> {
    let mut by_interface = Vec::new();
    for (id, named, config) in entries {
        match named {
            Some(named) if named == interface => by_interface.push((id, config)),
            None if id == interface => return Ok(Some((id.clone(), config.clone()))),
            _ => {}
        }
    }
    // An entry keyed by the interface itself wins over entries that name it.
    if let Some((id, config)) = by_interface.iter().find(|(id, _)| id.as_str() == interface) {
        return Ok(Some(((*id).clone(), (*config).clone())));
    }
    match by_interface.as_slice() {
        [] => Ok(None),
        [(id, config)] => Ok(Some(((*id).clone(), (*config).clone()))),
        many => {
            let ids: Vec<&str> = many.iter().map(|(id, _)| id.as_str()).collect();
            Err(ConfigError::invalid(
                format!("{section}.{}.interface", ids[0]),
                format!(
                    "{} entries ({}) configure interface {interface}; keep one",
                    ids.len(),
                    ids.join(", ")
                ),
            ))
        }
    }
}
