//! The application's registries: read from configuration, connected on first use, shared by
//! every module of the application.

use std::sync::Arc;

use dubbo_core::Extensions;
use dubbo_registry::{
    CachingRegistry, FailbackRegistry, MetadataReport, MetadataReportFactory, Registry,
    RegistryCacheFile, RegistryError, RegistryFactory, ServiceDiscovery, ServiceDiscoveryFactory,
};
use dubbo_url::Url;
use tokio::sync::OnceCell;

use super::modes::RegisterMode;
use crate::config::{ConfigError, DubboConfig, RegistryConfig};

/// One configured registry and, once connected, its three faces.
pub(crate) struct AppRegistry {
    /// The configuration id (`default` for `dubbo.registry`).
    pub(crate) id: String,
    /// The registry URL: scheme, address, and the settings as parameters.
    pub(crate) url: Url,
    /// Whether providers register here (`register: false`: subscribe only).
    pub(crate) register: bool,
    /// How providers register here.
    pub(crate) mode: RegisterMode,
    /// Whether it also stores metadata and the service-name mapping.
    pub(crate) metadata_center: bool,
    /// The zone it serves (`zone`), carried by its providers as `registry.zone`.
    pub(crate) zone: Option<String>,
    /// Whether its providers come first (`preferred`).
    pub(crate) preferred: bool,
    connected: OnceCell<Connected>,
    /// The last failed connection: callers within [`RECONNECT_AFTER`] of it get its error at
    /// once instead of each waiting out another connection timeout.
    failed: std::sync::Mutex<Option<(std::time::Instant, RegistryError)>>,
}

/// How long after a failed connection the next attempt is made.
const RECONNECT_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

/// A connected registry.
#[derive(Clone)]
pub(crate) struct Connected {
    pub(crate) registry: Arc<dyn Registry>,
    pub(crate) discovery: Arc<dyn ServiceDiscovery>,
    pub(crate) report: Option<Arc<dyn MetadataReport>>,
}

impl AppRegistry {
    /// Connects on first use; later calls share the connection. A failed connection is tried
    /// again by the next caller.
    pub(crate) async fn connect(&self, ext: &Extensions) -> Result<Connected, RegistryError> {
        if let Some(c) = self.connected.get() {
            return Ok(c.clone());
        }
        if let Some((at, e)) = crate::sync::lock(&self.failed).as_ref() {
            if at.elapsed() < RECONNECT_AFTER {
                return Err(e.clone());
            }
        }
        let result = self.try_connect(ext).await;
        if let Err(e) = &result {
            *crate::sync::lock(&self.failed) = Some((std::time::Instant::now(), e.clone()));
        }
        result
    }

    async fn try_connect(&self, ext: &Extensions) -> Result<Connected, RegistryError> {
        self.connected
            .get_or_try_init(|| async {
                let scheme = self.url.protocol().unwrap_or_default();
                let unknown = || RegistryError::UnknownScheme {
                    scheme: scheme.to_owned(),
                };
                let raw = ext
                    .get::<dyn RegistryFactory>(scheme)
                    .ok_or_else(unknown)?
                    .create(&self.url)
                    .await?;
                // Last-known providers survive a registry outage and a restart; what failed
                // is retried in the background.
                let cached: Arc<dyn Registry> = match RegistryCacheFile::path_for(&self.url) {
                    Some(path) => {
                        Arc::new(CachingRegistry::new(raw, RegistryCacheFile::open(path)))
                    }
                    None => raw,
                };
                let registry: Arc<dyn Registry> = Arc::new(FailbackRegistry::new(cached));
                let discovery = ext
                    .get::<dyn ServiceDiscoveryFactory>(scheme)
                    .ok_or_else(unknown)?
                    .create(&self.url)
                    .await?;
                let report = match (
                    self.metadata_center,
                    ext.get::<dyn MetadataReportFactory>(scheme),
                ) {
                    (true, Some(f)) => Some(f.create(&self.url).await?),
                    _ => None,
                };
                tracing::info!(registry = %self.url, id = %self.id, "connected to registry");
                Ok(Connected {
                    registry,
                    discovery,
                    report,
                })
            })
            .await
            .cloned()
    }

    /// `url` as read from this registry: marked with the registry's zone and preference, for
    /// the zone router.
    pub(crate) fn mark(&self, url: Url) -> Url {
        let url = match &self.zone {
            Some(zone) => url.with_parameter(dubbo_cluster::router::zone::REGISTRY_ZONE_KEY, zone),
            None => url,
        };
        if self.preferred {
            url.with_parameter(dubbo_cluster::router::zone::REGISTRY_PREFERRED_KEY, "true")
        } else {
            url
        }
    }

    /// Whether the zone router has anything to act on for this registry.
    pub(crate) fn zoned(&self) -> bool {
        self.zone.is_some() || self.preferred
    }

    /// The connection, if one was made.
    pub(crate) fn connected(&self) -> Option<&Connected> {
        self.connected.get()
    }
}

/// The default coalescing window of registry pushes, in ms: short, so a withdrawn provider
/// leaves consumers' lists promptly, yet a burst (a rolling restart) is applied once.
const DEFAULT_NOTIFY_WINDOW_MS: &str = "100";

/// The registries of `config` (none when it has none, or only `N/A` ones), checked against the
/// schemes `ext` knows.
pub(crate) fn from_config(
    config: &DubboConfig,
    app: &str,
    ext: &Extensions,
) -> Result<Vec<Arc<AppRegistry>>, ConfigError> {
    let app_mode = config.application.register_mode.as_deref();
    let mut out = Vec::new();
    for (id, rc) in config.all_registries() {
        let key = config.registry_key(&id);
        let address = rc.address.as_deref().unwrap_or("").trim();
        if address.eq_ignore_ascii_case("N/A") {
            continue;
        }
        let url = registry_url(&key, address, &rc, app)?;
        let scheme = url.protocol().unwrap_or_default().to_owned();
        if ext.get::<dyn RegistryFactory>(&scheme).is_none() {
            let known = ext.names::<dyn RegistryFactory>();
            return Err(ConfigError::invalid(
                format!("{key}.address"),
                format!("no registry is known for scheme {scheme:?} (known: {known:?})"),
            ));
        }
        // The registry's own setting, else its address's `register-mode` parameter (Java
        // reads registry URL parameters the same way), else the application's.
        let mode = rc
            .register_mode
            .as_deref()
            .or(url.parameter("register-mode"))
            .or(app_mode)
            .and_then(RegisterMode::parse)
            .unwrap_or(RegisterMode::All);
        out.push(Arc::new(AppRegistry {
            id,
            url,
            register: rc.register.unwrap_or(true),
            mode,
            metadata_center: rc.use_as_metadata_center.unwrap_or(true),
            zone: rc.zone.clone().filter(|z| !z.trim().is_empty()),
            preferred: rc.preferred.unwrap_or(false),
            connected: OnceCell::new(),
            failed: std::sync::Mutex::new(None),
        }));
    }
    Ok(out)
}

/// `zookeeper://127.0.0.1:2181` from the configured address (with or without a scheme), with
/// the registry's settings as parameters, as Java builds its registry URL.
fn registry_url(
    key: &str,
    address: &str,
    rc: &RegistryConfig,
    app: &str,
) -> Result<Url, ConfigError> {
    let with_scheme = if address.contains("://") {
        address.to_owned()
    } else {
        let scheme = rc.protocol.as_deref().ok_or_else(|| {
            ConfigError::invalid(
                format!("{key}.address"),
                format!("{address:?} names no registry; write it as zookeeper://host:port"),
            )
        })?;
        format!("{scheme}://{address}")
    };
    let url = Url::parse(&with_scheme)
        .map_err(|e| ConfigError::invalid(format!("{key}.address"), format!("{address:?}: {e}")))?;
    // Registrations are retried in the background rather than failing the export (Java's
    // `check=false`), and pushes are coalesced over a short window.
    let mut url = url
        .with_parameter_if_absent("application", app)
        .with_parameter_if_absent("check", "false")
        .with_parameter_if_absent("delay-notification", DEFAULT_NOTIFY_WINDOW_MS);
    if let Some(t) = rc.timeout {
        url = url.with_parameter("timeout", &t.to_string());
    }
    if let Some(g) = &rc.group {
        url = url.with_parameter("group", g);
    }
    for (k, v) in &rc.parameters {
        url = url.with_parameter(k, v);
    }
    Ok(url)
}
