//! The application scope: one named application with its protocols, modules and lifecycle.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_core::Protocol;

use crate::config::{ConfigError, DubboConfig, ProtocolConfig};
use crate::error::DubboError;
use crate::framework::Framework;
use crate::lifecycle::{HookFuture, ShutdownHooks, ShutdownPhase};
use crate::listeners::ServiceListener;
use crate::module::Module;
use crate::tasks::BackgroundTasks;
use crate::view::{ExportedService, ReferredService};

/// How long graceful shutdown may take when the configuration does not say (Java's
/// `dubbo.service.shutdown.wait`).
pub const DEFAULT_SHUTDOWN_WAIT: Duration = Duration::from_millis(10_000);

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
        crate::config::validate::validate(&config)?;
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
        let tls = crate::config::ssl::AppTls::load(&config)?;
        let inner = Arc::new(AppInner {
            tls,
            name,
            framework,
            config,
            protocols: Mutex::new(HashMap::new()),
            modules: Mutex::new(Vec::new()),
            shut_down: AtomicBool::new(false),
            hooks: ShutdownHooks::default(),
            tasks: Arc::new(BackgroundTasks::default()),
            registry: registry_layer,
            config_center,
            listeners: Mutex::new(Vec::new()),
            ready: AtomicBool::new(false),
            ready_hooks: Mutex::new(Vec::new()),
            qos_address: std::sync::OnceLock::new(),
            #[cfg(feature = "triple")]
            triple: std::sync::OnceLock::new(),
        });
        let app = Application { inner };
        let default_module = Module::new(app.clone(), "default");
        lock(&app.inner.modules).push(default_module);
        if let Some(layer) = app.inner.registry.clone() {
            crate::registry::install(&app, layer);
        }
        if let (Some(center), Some(layer)) =
            (app.inner.config_center.clone(), app.inner.registry.clone())
        {
            crate::governance::follow_provider(&app, center, layer);
        }
        if let Some(center) = app.inner.config_center.clone() {
            app.on_shutdown(ShutdownPhase::Close, move || async move {
                center.close().await;
            });
        }
        if let Some(qos) = crate::qos::settings(&app.inner.config)? {
            let addr = crate::qos::start(&app, qos)?;
            let _ = app.inner.qos_address.set(addr);
        }
        if let Some(target) = crate::pushgateway::settings(&app.inner.config)? {
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

pub(crate) struct AppInner {
    pub(crate) name: String,
    pub(crate) framework: Arc<Framework>,
    pub(crate) config: DubboConfig,
    protocols: Mutex<HashMap<String, Arc<dyn Protocol>>>,
    modules: Mutex<Vec<Module>>,
    shut_down: AtomicBool,
    hooks: ShutdownHooks,
    tasks: Arc<BackgroundTasks>,
    pub(crate) registry: Option<Arc<crate::registry::RegistryLayer>>,
    /// Where governance rules are read from, if anywhere.
    pub(crate) config_center: Option<Arc<crate::governance::ConfigCenter>>,
    listeners: Mutex<Vec<Arc<dyn ServiceListener>>>,
    ready: AtomicBool,
    ready_hooks: Mutex<Vec<Box<dyn FnOnce() -> HookFuture + Send>>>,
    qos_address: std::sync::OnceLock<std::net::SocketAddr>,
    #[cfg(feature = "triple")]
    triple: std::sync::OnceLock<Arc<dubbo_protocol_triple::TripleProtocol>>,
    /// `dubbo.ssl`, loaded at start.
    tls: crate::config::ssl::AppTls,
}

/// An application (Dubbo's `ApplicationModel`): a name, its protocols and servers, and modules
/// that export and refer to services. Cloning gives another handle on the same application.
///
/// Two applications in one process are independent: each has its own servers, connections and
/// settings, and shutting one down leaves the other serving.
#[derive(Clone)]
pub struct Application {
    pub(crate) inner: Arc<AppInner>,
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

    /// The application name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The configuration in force.
    pub fn config(&self) -> &DubboConfig {
        &self.inner.config
    }

    /// The framework the application belongs to.
    pub fn framework(&self) -> &Arc<Framework> {
        &self.inner.framework
    }

    /// The module every service goes to unless another is named.
    pub fn default_module(&self) -> Module {
        lock(&self.inner.modules)[0].clone()
    }

    /// A new module of this application, with its own services and references.
    pub fn module(&self, name: &str) -> Module {
        let module = Module::new(self.clone(), name);
        lock(&self.inner.modules).push(module.clone());
        module
    }

    /// Every service the application's modules serve, one entry per protocol.
    pub fn exported(&self) -> Vec<ExportedService> {
        let modules: Vec<Module> = lock(&self.inner.modules).clone();
        modules.iter().flat_map(Module::exported).collect()
    }

    /// Every service the application's modules serve, with its provider chain: what the QoS
    /// `invoke` command calls in-process.
    pub(crate) fn provider_chains(&self) -> Vec<crate::view::LocalService> {
        let modules: Vec<Module> = lock(&self.inner.modules).clone();
        modules.iter().flat_map(Module::provider_chains).collect()
    }

    /// The application's protocols opened so far (by exports and references).
    pub(crate) fn protocols(&self) -> Vec<Arc<dyn Protocol>> {
        lock(&self.inner.protocols).values().cloned().collect()
    }

    /// Every remote service the application's modules refer to.
    pub fn referred(&self) -> Vec<ReferredService> {
        let modules: Vec<Module> = lock(&self.inner.modules).clone();
        modules.iter().flat_map(Module::referred).collect()
    }

    /// Adds a listener of exports and references. It is told at once of everything already
    /// exported and referred, then of every change, so a listener added late (a registry
    /// connected after the first exports) misses nothing.
    pub fn add_service_listener(&self, listener: Arc<dyn ServiceListener>) {
        // Registered before the replay: a change made meanwhile reaches it twice rather than
        // never, and listeners treat a repeated export as the same export.
        lock(&self.inner.listeners).push(listener.clone());
        for e in self.exported() {
            listener.exported(&e);
        }
        for r in self.referred() {
            listener.referred(&r);
        }
    }

    pub(crate) fn notify(&self, event: impl Fn(&dyn ServiceListener)) {
        let listeners: Vec<Arc<dyn ServiceListener>> = lock(&self.inner.listeners).clone();
        for l in listeners {
            event(&*l);
        }
    }

    /// Marks the application ready: its services are exported and its references made (what
    /// Kubernetes' readiness probe and instance registration wait for). Runs the
    /// [`on_ready`](Self::on_ready) hooks once, in the order they were added.
    /// [`run_until_signal`](Self::run_until_signal) calls it first.
    pub async fn ready(&self) {
        if self.inner.ready.swap(true, Ordering::AcqRel) {
            return;
        }
        let hooks: Vec<_> = lock(&self.inner.ready_hooks).drain(..).collect();
        for hook in hooks {
            hook().await;
        }
        tracing::info!(application = %self.inner.name, "application ready");
    }

    /// Whether [`ready`](Self::ready) was called and shutdown has not begun.
    pub fn is_ready(&self) -> bool {
        self.inner.ready.load(Ordering::Acquire) && !self.is_shut_down()
    }

    /// Whether [`ready`](Self::ready) was ever called: the application has finished starting
    /// (the QoS `/startup` probe), even if it is shutting down now.
    pub fn has_started(&self) -> bool {
        self.inner.ready.load(Ordering::Acquire)
    }

    /// The address of the QoS port (`/metrics`, `/live`, `/ready`, `/startup`, `/ls`), when
    /// the configuration turns QoS on (`qos-enable: true`, or a `qos-port` without
    /// `qos-enable: false`). With `qos-port: 0` this says which port was picked.
    pub fn qos_address(&self) -> Option<std::net::SocketAddr> {
        self.inner.qos_address.get().copied()
    }

    /// Runs `hook` when the application becomes [`ready`](Self::ready); at once, as a
    /// background task, if it already is.
    pub fn on_ready<F, Fut>(&self, hook: F)
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let mut hooks = lock(&self.inner.ready_hooks);
        if self.inner.ready.load(Ordering::Acquire) {
            drop(hooks);
            self.inner.tasks.spawn("ready hook", move |_| hook());
        } else {
            hooks.push(Box::new(move || -> HookFuture { Box::pin(hook()) }));
        }
    }

    /// Runs `hook` once during [`shutdown`](Self::shutdown), at `phase` (see
    /// [`ShutdownPhase`] for the order). Hooks of one phase run one after the other, in the
    /// order they were added.
    pub fn on_shutdown<F, Fut>(&self, phase: ShutdownPhase, hook: F)
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        self.inner
            .hooks
            .add(phase, Box::new(move || -> HookFuture { Box::pin(hook()) }));
    }

    /// The application's background tasks, stopped (newest first) when it shuts down.
    pub fn tasks(&self) -> &BackgroundTasks {
        &self.inner.tasks
    }

    /// The background tasks as a shared handle, for work that starts more work later.
    pub(crate) fn tasks_handle(&self) -> Arc<BackgroundTasks> {
        self.inner.tasks.clone()
    }

    /// Whether [`shutdown`](Self::shutdown) has begun.
    pub fn is_shut_down(&self) -> bool {
        self.inner.shut_down.load(Ordering::Acquire)
    }

    pub(crate) fn check_running(&self) -> Result<(), DubboError> {
        if self.is_shut_down() {
            Err(DubboError::ShutDown(self.inner.name.clone()))
        } else {
            Ok(())
        }
    }

    /// The TLS loaded from `dubbo.ssl` at start.
    pub(crate) fn tls(&self) -> &crate::config::ssl::AppTls {
        &self.inner.tls
    }

    /// This application's instance of protocol `name`, created on first use.
    pub(crate) fn protocol(&self, name: &str) -> Result<Arc<dyn Protocol>, DubboError> {
        let name = dubbo_url::canonical_protocol(name);
        let mut protocols = lock(&self.inner.protocols);
        if let Some(p) = protocols.get(name) {
            return Ok(p.clone());
        }
        #[cfg(feature = "triple")]
        if name == "tri" {
            // The application keeps the concrete Triple protocol too, because IDL services are
            // added to its servers directly (see `Module::export_idl`).
            let tri = self.triple();
            protocols.insert(name.to_owned(), tri.clone());
            return Ok(tri);
        }
        #[cfg(feature = "dubbo")]
        if name == "dubbo"
            && (self.inner.tls.dubbo_server.is_some() || self.inner.tls.dubbo_client.is_some())
        {
            // With `dubbo.ssl`, the built-in dubbo:// carries the application's TLS.
            let p: Arc<dyn Protocol> = Arc::new(dubbo_protocol_dubbo::DubboProtocol::with_tls(
                self.inner.tls.dubbo_server.clone(),
                self.inner.tls.dubbo_client.clone(),
            ));
            protocols.insert(name.to_owned(), p.clone());
            return Ok(p);
        }
        let p = self.inner.framework.create_protocol(name).ok_or_else(|| {
            ConfigError::invalid(
                "dubbo.protocols",
                format!("no protocol named {name:?} is registered"),
            )
        })?;
        protocols.insert(name.to_owned(), p.clone());
        Ok(p)
    }

    /// This application's Triple protocol, which also serves IDL (protobuf) services.
    #[cfg(feature = "triple")]
    pub(crate) fn triple(&self) -> Arc<dubbo_protocol_triple::TripleProtocol> {
        self.inner
            .triple
            .get_or_init(|| {
                Arc::new(dubbo_protocol_triple::TripleProtocol::new(
                    dubbo_protocol_triple::TripleConfig {
                        server_tls: self.inner.tls.tri_server.clone(),
                        client_tls: self.inner.tls.tri_client.clone(),
                        ..Default::default()
                    },
                ))
            })
            .clone()
    }

    /// Graceful shutdown, in the phases of [`ShutdownPhase`]: registries are told first, then
    /// consumers; each protocol refuses new calls and lets in-flight calls finish within the
    /// configured wait (default 10 s), then closes; references are released and background
    /// tasks stopped. Calling it again does nothing.
    pub async fn shutdown(&self) {
        if self.inner.shut_down.swap(true, Ordering::AcqRel) {
            return;
        }
        let grace = self
            .inner
            .config
            .application
            .shutdown_wait
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_SHUTDOWN_WAIT);
        let hooks = &self.inner.hooks;
        // Health probes see the instance go before registries withdraw it.
        #[cfg(feature = "triple")]
        if let Some(triple) = self.inner.triple.get() {
            triple.set_serving(false).await;
        }
        hooks.run(ShutdownPhase::Unregister).await;
        hooks.run(ShutdownPhase::Notify).await;
        let protocols = self.protocols();
        // Each protocol sends read-only / GOAWAY, drains and closes its servers; the exports
        // stay in place until then so in-flight calls are answered.
        futures::future::join_all(protocols.iter().map(|p| p.shutdown(grace))).await;
        hooks.run(ShutdownPhase::Drain).await;
        let modules: Vec<Module> = lock(&self.inner.modules).clone();
        for m in modules {
            m.release();
        }
        self.inner.tasks.stop_all(grace).await;
        hooks.run(ShutdownPhase::Close).await;
        tracing::info!(application = %self.inner.name, "application shut down");
    }

    /// Marks the application [`ready`](Self::ready), waits for SIGINT or SIGTERM, then shuts down
    /// gracefully.
    pub async fn run_until_signal(&self) {
        self.ready().await;
        wait_for_signal().await;
        self.shutdown().await;
    }
}

/// Resolves on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
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

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("name", &self.inner.name)
            .finish()
    }
}
