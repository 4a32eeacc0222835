//! [`ConfigCenter`]: the application's connection to its config centre, made on first use.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dubbo_config_center::{ConfigCenterError, DynamicConfiguration, DynamicConfigurationFactory};
use dubbo_core::Extensions;
use dubbo_url::Url;
use tokio::sync::OnceCell;

use crate::config::{ConfigError, DubboConfig};
use crate::registry::AppRegistry;
use crate::sync::lock;

/// How long after a failed connection the next attempt is made; callers in between get the
/// same error at once.
const RECONNECT_AFTER: Duration = Duration::from_secs(3);

/// The config centre of one application: its URL, and the connection once made.
pub(crate) struct ConfigCenter {
    pub(crate) url: Url,
    connected: OnceCell<Arc<dyn DynamicConfiguration>>,
    failed: Mutex<Option<(Instant, ConfigCenterError)>>,
}

impl ConfigCenter {
    fn new(url: Url) -> Self {
        Self {
            url,
            connected: OnceCell::new(),
            failed: Mutex::new(None),
        }
    }

    /// What counts the changes heard from this centre for application `app`.
    pub(crate) fn change_counter(
        &self,
        framework: &crate::Framework,
        app: &str,
    ) -> super::watcher::ChangeCounter {
        super::watcher::ChangeCounter {
            events: framework.event_metrics().clone(),
            app: app.to_owned(),
            center: self.url.protocol().unwrap_or_default().to_owned(),
        }
    }

    /// Connects on first use; later calls share the connection.
    pub(crate) async fn connect(
        &self,
        ext: &Extensions,
    ) -> Result<Arc<dyn DynamicConfiguration>, ConfigCenterError> {
        if let Some(c) = self.connected.get() {
            return Ok(c.clone());
        }
        if let Some((at, e)) = lock(&self.failed).as_ref() {
            if at.elapsed() < RECONNECT_AFTER {
                return Err(e.clone());
            }
        }
        let result = self
            .connected
            .get_or_try_init(|| async {
                let scheme = self.url.protocol().unwrap_or_default();
                let factory = ext
                    .get::<dyn DynamicConfigurationFactory>(scheme)
                    .ok_or_else(|| ConfigCenterError::UnknownScheme {
                        scheme: scheme.to_owned(),
                    })?;
                factory.create(&self.url).await
            })
            .await;
        match result {
            Ok(c) => Ok(c.clone()),
            Err(e) => {
                *lock(&self.failed) = Some((Instant::now(), e.clone()));
                Err(e)
            }
        }
    }

    /// The connection, or `None` (logged) while the config centre cannot be reached; rules
    /// are read once it can.
    pub(crate) async fn reach(&self, ext: &Extensions) -> Option<Arc<dyn DynamicConfiguration>> {
        match self.connect(ext).await {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::debug!(center = %self.url, code = e.code(), error = %e, "config centre unreachable; rules are read once it is back");
                None
            }
        }
    }

    /// Ends the connection, if one was made (the last step of shutdown).
    pub(crate) async fn close(&self) {
        if let Some(c) = self.connected.get() {
            c.close().await;
        }
    }
}

/// The application's config centre: `dubbo.config-center` if set (`N/A`: none), else the first
/// registry that can serve as one (its scheme has a config centre) and does not say
/// `use-as-config-center: false`, as Java Dubbo uses its registry.
pub(crate) fn from_config(
    config: &DubboConfig,
    app: &str,
    ext: &Extensions,
    registries: &[Arc<AppRegistry>],
) -> Result<Option<Arc<ConfigCenter>>, ConfigError> {
    const KEY: &str = "dubbo.config-center";
    if let Some(cc) = &config.config_center {
        let address = cc.address.as_deref().unwrap_or("").trim();
        if address.eq_ignore_ascii_case("N/A") {
            return Ok(None);
        }
        if address.is_empty() {
            return Err(ConfigError::invalid(
                format!("{KEY}.address"),
                "is missing; write it as zookeeper://host:port, or N/A for no config centre",
            ));
        }
        let text = match (address.contains("://"), cc.protocol.as_deref()) {
            (true, _) => address.to_owned(),
            (false, Some(p)) => format!("{p}://{address}"),
            (false, None) => {
                return Err(ConfigError::invalid(
                    format!("{KEY}.address"),
                    format!(
                        "{address:?} names no config centre; write it as zookeeper://host:port"
                    ),
                ))
            }
        };
        let mut url = Url::parse(&text).map_err(|e| {
            ConfigError::invalid(format!("{KEY}.address"), format!("{text:?}: {e}"))
        })?;
        let settings = [
            ("namespace", cc.namespace.clone()),
            ("group", cc.group.clone()),
            ("timeout", cc.timeout.map(|t| t.to_string())),
        ];
        for (k, v) in settings.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))) {
            url = url.with_parameter(k, &v);
        }
        for (k, v) in &cc.parameters {
            url = url.with_parameter(k, v);
        }
        url = url.with_parameter("application", app);
        let scheme = url.protocol().unwrap_or_default().to_owned();
        if ext
            .get::<dyn DynamicConfigurationFactory>(&scheme)
            .is_none()
        {
            let known = ext.names::<dyn DynamicConfigurationFactory>();
            return Err(ConfigError::invalid(
                format!("{KEY}.address"),
                format!("no config centre is known for scheme {scheme:?} (known: {known:?})"),
            ));
        }
        return Ok(Some(Arc::new(ConfigCenter::new(url))));
    }
    let usable = config.all_registries();
    for r in registries {
        let declined = usable
            .iter()
            .any(|(id, rc)| *id == r.id && rc.use_as_config_center == Some(false));
        let scheme = r.url.protocol().unwrap_or_default();
        if !declined && ext.get::<dyn DynamicConfigurationFactory>(scheme).is_some() {
            return Ok(Some(Arc::new(ConfigCenter::new(r.url.clone()))));
        }
    }
    Ok(None)
}
