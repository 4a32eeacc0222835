//! The application scope: one named application with its protocols, modules and lifecycle.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_core::Protocol;

use crate::config::{ConfigError, DubboConfig};
use crate::error::DubboError;
use crate::framework::Framework;
use crate::lifecycle::{HookFuture, ShutdownHooks, ShutdownPhase};
use crate::listeners::ServiceListener;
use crate::module::Module;
use crate::sync::lock;
use crate::tasks::BackgroundTasks;
use crate::view::{ExportedService, ReferredService};

/// How long graceful shutdown may take when the configuration does not say (Java's
/// `dubbo.service.shutdown.wait`).
pub const DEFAULT_SHUTDOWN_WAIT: Duration = Duration::from_millis(10_000);

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
    /// The CORS policy of the Triple ports' REST forms (`triple.rest.cors`), set at start.
    #[cfg(feature = "triple")]
    rest_cors: std::sync::OnceLock<Arc<dubbo_protocol_triple::CorsPolicy>>,
    /// Where the Triple ports' Swagger UI page takes Swagger UI from
    /// (`triple.rest.openapi.settings.swagger-ui`), set at start.
    #[cfg(feature = "triple")]
    swagger_ui: std::sync::OnceLock<Arc<dubbo_protocol_triple::SwaggerUi>>,
    /// `dubbo.ssl`, loaded at start.
    tls: crate::app_tls::AppTls,
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
    /// A new application over a checked configuration, with its default module. Started
    /// pieces (registries, governance, QoS, metrics) are added by the builder afterwards.
    pub(crate) fn new(
        name: String,
        framework: Arc<Framework>,
        config: DubboConfig,
        registry: Option<Arc<crate::registry::RegistryLayer>>,
        config_center: Option<Arc<crate::governance::ConfigCenter>>,
        tls: crate::app_tls::AppTls,
    ) -> Application {
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
            registry,
            config_center,
            listeners: Mutex::new(Vec::new()),
            ready: AtomicBool::new(false),
            ready_hooks: Mutex::new(Vec::new()),
            qos_address: std::sync::OnceLock::new(),
            #[cfg(feature = "triple")]
            triple: std::sync::OnceLock::new(),
            #[cfg(feature = "triple")]
            rest_cors: std::sync::OnceLock::new(),
            #[cfg(feature = "triple")]
            swagger_ui: std::sync::OnceLock::new(),
        });
        let app = Application { inner };
        let default_module = Module::new(app.clone(), "default");
        lock(&app.inner.modules).push(default_module);
        app
    }

    /// The registries and discovery of the application, when it has any.
    pub(crate) fn registry_layer(&self) -> Option<Arc<crate::registry::RegistryLayer>> {
        self.inner.registry.clone()
    }

    /// Where governance rules are read from, if anywhere.
    pub(crate) fn config_center(&self) -> Option<Arc<crate::governance::ConfigCenter>> {
        self.inner.config_center.clone()
    }

    /// Records where the QoS port listens (once, when it is opened).
    pub(crate) fn set_qos_address(&self, address: std::net::SocketAddr) {
        let _ = self.inner.qos_address.set(address);
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
    pub(crate) fn tls(&self) -> &crate::app_tls::AppTls {
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
        // The framework's factory builds it, with this application's TLS for the protocol.
        let tls = self.inner.tls.for_protocol(name);
        let p = self
            .inner
            .framework
            .create_protocol(name, &tls)
            .ok_or_else(|| {
                ConfigError::invalid(
                    "dubbo.protocols",
                    format!("no protocol named {name:?} is registered"),
                )
            })?;
        protocols.insert(name.to_owned(), p.clone());
        Ok(p)
    }

    /// Sets the CORS policy of the Triple ports (at start, before anything is exported).
    #[cfg(feature = "triple")]
    pub(crate) fn set_rest_cors(&self, policy: Option<Arc<dubbo_protocol_triple::CorsPolicy>>) {
        if let Some(p) = policy {
            let _ = self.inner.rest_cors.set(p);
        }
    }

    /// Sets the Swagger UI settings of the Triple ports (at start, before anything is
    /// exported).
    #[cfg(feature = "triple")]
    pub(crate) fn set_swagger_ui(&self, settings: Option<Arc<dubbo_protocol_triple::SwaggerUi>>) {
        if let Some(s) = settings {
            let _ = self.inner.swagger_ui.set(s);
        }
    }

    /// This application's Triple protocol, which also serves IDL (protobuf) services.
    #[cfg(feature = "triple")]
    pub(crate) fn triple(&self) -> Arc<dubbo_protocol_triple::TripleProtocol> {
        self.inner
            .triple
            .get_or_init(|| {
                Arc::new(crate::protocol_factory::new_triple(
                    &self.inner.tls.for_protocol("tri"),
                    self.inner.rest_cors.get().cloned(),
                    self.inner.swagger_ui.get().cloned().unwrap_or_default(),
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

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application")
            .field("name", &self.inner.name)
            .finish()
    }
}
