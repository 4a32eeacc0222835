//! Building an application: the builder's settings laid over a configuration, the checks that
//! configuration must pass, and the start of every piece the configuration asks for
//! (registries, governance, QoS, the Pushgateway, tracing, `MetricsService`). The application
//! itself knows none of these pieces' starting; this file is the one place that wires them.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::application::Application;
use crate::config::{ConfigError, DubboConfig, ProtocolConfig};
use crate::error::DubboError;
use crate::framework::Framework;
use crate::lifecycle::ShutdownPhase;

/// Builds an [`Application`] from code, a configuration, or both.
///
/// Builder calls are recorded and applied at [`build`](Self::build), so their order does not
/// matter. Precedence, from lowest to highest:
///
/// 1. the configuration given to [`config`](Self::config) (or an empty one);
/// 2. the protocols added with [`protocol`](Self::protocol) and
///    [`protocol_config`](Self::protocol_config), in call order: `protocol` sets the name and
///    port of the protocol with that id and keeps its other configured settings,
///    `protocol_config` replaces the whole entry;
/// 3. [`host`](Self::host), which applies to every protocol, configured or added;
/// 4. [`env`](Self::env), which replaces the deployment variables.
///
/// The name given to [`Application::builder`] is used when the configuration names no
/// application. Without [`env`](Self::env), the deployment variables (`DUBBO_IP_TO_REGISTRY`,
/// ...) are those the configuration was loaded with, or the process environment's when no
/// configuration is given.
pub struct ApplicationBuilder {
    framework: Option<Arc<Framework>>,
    name: String,
    config: Option<DubboConfig>,
    protocols: Vec<(String, ProtocolSetting)>,
    host: Option<String>,
    env: Option<BTreeMap<String, String>>,
    registries: Vec<String>,
    migration: Option<String>,
    qos_port: Option<u16>,
    pushgateway: Option<crate::config::PushgatewayConfig>,
    metrics_service: bool,
    ssl: Option<crate::config::SslConfig>,
}

/// A protocol added from code.
enum ProtocolSetting {
    Port(u16),
    Full(Box<ProtocolConfig>),
}

impl ApplicationBuilder {
    fn new(name: String, config: Option<DubboConfig>) -> Self {
        ApplicationBuilder {
            framework: None,
            name,
            config,
            protocols: Vec::new(),
            host: None,
            env: None,
            registries: Vec::new(),
            migration: None,
            qos_port: None,
            pushgateway: None,
            metrics_service: false,
            ssl: None,
        }
    }

    /// Adds a registry by address (`zookeeper://127.0.0.1:2181`, `file:///tmp/registry`):
    /// providers register there and references without a `url` find their providers there.
    pub fn registry(mut self, address: &str) -> Self {
        self.registries.push(address.to_owned());
        self
    }

    /// How references discover providers: `FORCE_INTERFACE`, `APPLICATION_FIRST` (the
    /// default) or `FORCE_APPLICATION` (`dubbo.application.migration.step`).
    pub fn migration_step(mut self, step: &str) -> Self {
        self.migration = Some(step.to_owned());
        self
    }

    /// Opens the QoS port (`/metrics`, `/live`, `/ready`, `/startup`, `/ls`) on
    /// `127.0.0.1:port` (`0` picks a free port; see [`Application::qos_address`]), as
    /// `qos-enable: true` with `qos-port: port` would.
    pub fn qos_port(mut self, port: u16) -> Self {
        self.qos_port = Some(port);
        self
    }

    /// Pushes the metrics to the Prometheus Pushgateway at `base_url` (`host:port` or
    /// `http://host:port`) under `job` every `push_interval_seconds`, as
    /// `dubbo.metrics.prometheus.pushgateway` with `enabled: true` would.
    pub fn pushgateway(mut self, base_url: &str, job: &str, push_interval_seconds: u64) -> Self {
        self.pushgateway = Some(crate::config::PushgatewayConfig {
            enabled: Some(true),
            base_url: Some(base_url.to_owned()),
            job: Some(job.to_owned()),
            push_interval: Some(push_interval_seconds),
            username: None,
            password: None,
        });
        self
    }

    /// Serves the metrics over RPC as Java's `MetricsService` once the application is ready, as
    /// `dubbo.metrics.export-metrics-service: true` would.
    pub fn metrics_service(mut self) -> Self {
        self.metrics_service = true;
        self
    }

    /// TLS for the application's ports and connections, as `dubbo.ssl` would set it
    /// (replacing a configured `dubbo.ssl`).
    pub fn ssl(mut self, ssl: crate::config::SslConfig) -> Self {
        self.ssl = Some(ssl);
        self
    }

    /// Uses `framework` instead of a private one, so several applications share its extensions.
    pub fn framework(mut self, framework: Arc<Framework>) -> Self {
        self.framework = Some(framework);
        self
    }

    /// Starts from a loaded configuration; the other builder calls override it, whatever their
    /// order. Calling it again replaces the earlier configuration.
    pub fn config(mut self, config: DubboConfig) -> Self {
        self.config = Some(config);
        self
    }

    /// Adds a protocol with id and name `name` on `port`, or sets the name and port of the
    /// configured protocol with that id. Port `0` binds a free port.
    pub fn protocol(mut self, name: &str, port: u16) -> Self {
        self.protocols
            .push((name.to_owned(), ProtocolSetting::Port(port)));
        self
    }

    /// Adds a fully specified protocol under `id`, replacing any configured one.
    pub fn protocol_config(mut self, id: &str, config: ProtocolConfig) -> Self {
        self.protocols
            .push((id.to_owned(), ProtocolSetting::Full(Box::new(config))));
        self
    }

    /// The host every protocol binds to and advertises, whether it was configured or added
    /// before or after this call. Without it, a protocol binds `0.0.0.0` and advertises the
    /// machine's address (see [`Module::export`](crate::Module::export)).
    pub fn host(mut self, host: &str) -> Self {
        self.host = Some(host.to_owned());
        self
    }

    /// The deployment variables (`DUBBO_IP_TO_REGISTRY`, `DUBBO_PORT_TO_BIND`, ...) to read
    /// instead of the environment: pairs such as `("DUBBO_IP_TO_REGISTRY", "10.0.0.5")`.
    pub fn env<K, V>(mut self, env: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        self.env = Some(crate::config::deployment_vars(env));
        self
    }

    /// The configuration the application will run with: the given one with every builder
    /// setting applied, validated.
    fn resolved_config(self) -> Result<(Option<Arc<Framework>>, DubboConfig), ConfigError> {
        let given = self.config.is_some();
        let mut config = self.config.unwrap_or_default();
        if config.application.name.is_none() {
            config.application.name = Some(self.name);
        }
        for (id, setting) in self.protocols {
            match setting {
                ProtocolSetting::Port(port) => {
                    let entry = config.protocols.entry(id.clone()).or_default();
                    entry.name = Some(id);
                    entry.port = Some(i32::from(port));
                }
                ProtocolSetting::Full(pc) => {
                    config.protocols.insert(id, *pc);
                }
            }
        }
        if let Some(host) = &self.host {
            for p in config.protocols.values_mut() {
                p.host = Some(host.clone());
            }
            if let Some(p) = config.protocol.as_mut() {
                p.host = Some(host.clone());
            }
        }
        for (i, address) in self.registries.into_iter().enumerate() {
            let id = if i == 0 && config.registry.is_none() && config.registries.is_empty() {
                "default".to_owned()
            } else {
                format!("registry-{i}")
            };
            config.registries.insert(
                id,
                crate::config::RegistryConfig {
                    address: Some(address),
                    ..Default::default()
                },
            );
        }
        if let Some(step) = self.migration {
            config
                .application
                .migration
                .get_or_insert_with(Default::default)
                .step = Some(step);
        }
        if let Some(port) = self.qos_port {
            config.application.qos_enable = Some(true);
            config.application.qos_port = Some(port);
        }
        if let Some(gateway) = self.pushgateway {
            config.metrics.prometheus.pushgateway = gateway;
        }
        if self.metrics_service {
            config.metrics.export_metrics_service = Some(true);
        }
        if let Some(ssl) = self.ssl {
            config.ssl = Some(ssl);
        }
        if let Some(env) = self.env {
            config.environment = env;
        } else if !given {
            config.environment = crate::config::deployment_vars(std::env::vars());
        }
        crate::config::validate(&config)?;
        crate::config::refuse_unimplemented(&config)?;
        crate::config::refuse_unhonoured(&config)?;
        Ok((self.framework, config))
    }

    /// Creates the application, after checking the configuration: every key is valid, no key
    /// asks for something not implemented yet (a registry, QoS, registration) or that its
    /// protocol does not honour, and every configured `filter` names a filter of the framework.
    /// The error names the key. Nothing is opened until a service is exported or referred.
    ///
    /// It reads nothing from a config centre: [`build_async`](Self::build_async) also reads
    /// the external configuration kept there.
    pub fn build(self) -> Result<Application, DubboError> {
        let (framework, config) = self.resolved_config()?;
        let framework = framework.unwrap_or_else(Framework::new);
        Self::assemble(framework, config)
    }

    /// Like [`build`](Self::build), after reading the external configuration from the config
    /// centre, as Java Dubbo does at start: `dubbo.properties` (the key is
    /// `dubbo.config-center.config-file`) in the centre's group (default `dubbo`) and in the
    /// group named after the application. Their keys override the configuration given here;
    /// `DUBBO_*` environment variables still override them, and the application's own text
    /// overrides the global one. The centre is `dubbo.config-center`, else the first registry
    /// that can serve as one.
    ///
    /// An unknown or invalid key in either text stops the start with an error naming the key
    /// and the text; so does an unreachable `dubbo.config-center` unless its `check` is
    /// `false`.
    pub async fn build_async(self) -> Result<Application, DubboError> {
        let (framework, config) = self.resolved_config()?;
        let framework = framework.unwrap_or_else(Framework::new);
        let name = config.application.name.clone().unwrap_or_default();
        let external =
            crate::governance::read_external(&config, &name, framework.extensions()).await?;
        let config = if external.is_empty() {
            config
        } else {
            let merged = crate::config::apply_external(&config, &external)?;
            crate::config::refuse_unimplemented(&merged)?;
            crate::config::refuse_unhonoured(&merged)?;
            merged
        };
        Self::assemble(framework, config)
    }

    fn assemble(framework: Arc<Framework>, config: DubboConfig) -> Result<Application, DubboError> {
        let specs = framework.filters();
        let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
        crate::config::refuse_unknown_filters(&config, &names)?;
        let name = config
            .application
            .name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .ok_or_else(|| ConfigError::invalid("dubbo.application.name", "is required"))?;
        let registry_layer = registry_layer(&config, &name, &framework)?;
        let config_center = crate::governance::from_config(
            &config,
            &name,
            framework.extensions(),
            registry_layer
                .as_ref()
                .map_or(&[][..], |l| l.registries.as_slice()),
        )?;
        let tls = crate::app_tls::AppTls::load(&config)?;
        #[cfg_attr(not(feature = "triple"), allow(unused_variables))]
        let rest_cors = crate::rest_cors::policy(&config)?;
        #[cfg_attr(not(feature = "triple"), allow(unused_variables))]
        let swagger_ui = crate::rest_swagger_ui::settings(&config)?;
        let app = Application::new(
            name,
            framework,
            config,
            registry_layer,
            config_center,
            tls.clone(),
        );
        #[cfg(feature = "triple")]
        app.set_rest_cors(rest_cors);
        #[cfg(feature = "triple")]
        app.set_swagger_ui(swagger_ui);
        tls.watch(&app);
        if let Some(layer) = app.registry_layer() {
            crate::registry::install(&app, layer);
        }
        if let (Some(center), Some(layer)) = (app.config_center(), app.registry_layer()) {
            crate::governance::follow_provider(&app, center, layer);
        }
        if let Some(center) = app.config_center() {
            app.on_shutdown(ShutdownPhase::Close, move || async move {
                center.close().await;
            });
        }
        if let Some(qos) = crate::qos::settings(app.config())? {
            let addr = crate::qos::start(&app, qos)?;
            app.set_qos_address(addr);
        }
        if let Some(target) = crate::config::pushgateway_target(app.config())? {
            if tokio::runtime::Handle::try_current().is_err() {
                return Err(ConfigError::invalid(
                    "dubbo.metrics.prometheus.pushgateway.enabled",
                    "pushes are made by a Tokio task: build the application inside a Tokio runtime",
                )
                .into());
            }
            crate::pushgateway::start(&app, target);
        }
        crate::tracing_setup::start(&app)?;
        crate::metrics_service::install(&app)?;
        Ok(app)
    }
}

impl Application {
    /// Starts building an application called `name` (used when a configuration given to the
    /// builder names none).
    pub fn builder(name: impl Into<String>) -> ApplicationBuilder {
        ApplicationBuilder::new(name.into(), None)
    }

    /// An application entirely described by `config`.
    pub fn from_config(config: DubboConfig) -> Result<Application, DubboError> {
        ApplicationBuilder::new(String::new(), Some(config)).build()
    }
}

/// The registry layer of an application whose configuration names registries.
fn registry_layer(
    config: &DubboConfig,
    name: &str,
    framework: &Arc<Framework>,
) -> Result<Option<Arc<crate::registry::RegistryLayer>>, ConfigError> {
    use crate::registry::{MigrationStep, RegistryLayer};
    let registries = crate::registry::from_config(config, name, framework.extensions())?;
    if registries.is_empty() {
        return Ok(None);
    }
    let app = &config.application;
    let migration = app.migration.clone().unwrap_or_default();
    let step = migration
        .step
        .as_deref()
        .and_then(MigrationStep::parse)
        .unwrap_or(MigrationStep::ApplicationFirst);
    let threshold = migration
        .threshold
        .as_deref()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0.0);
    Ok(Some(Arc::new(RegistryLayer::new(
        name,
        framework.clone(),
        registries,
        app.metadata_type.as_deref() == Some("remote"),
        step,
        threshold,
    ))))
}
