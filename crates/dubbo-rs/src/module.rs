//! The module scope: a group of exported services and references inside an application.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_core::filters::builtin_filters;
#[cfg(feature = "triple")]
use dubbo_core::Protocol;
use dubbo_core::{
    BoxFuture, Exporter, FilterChain, Invocation, Invoker, RpcResult, ServiceHandler,
    ServiceInvoker, ServiceKey, Side,
};
use dubbo_url::Url;

use crate::application::{lock, Application};
use crate::config::{ConfigError, ProtocolConfig};
use crate::error::DubboError;
use crate::options::{ReferenceOptions, ServiceOptions};

/// The dubbo:// protocol version every Java peer sends and expects.
const DUBBO_PROTOCOL_VERSION: &str = "2.0.2";

/// A module (Dubbo's `ModuleModel`): services and references that are started and stopped
/// together. Cloning gives another handle on the same module.
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

struct ModuleInner {
    name: String,
    app: Application,
    exporters: Mutex<Vec<Exporter>>,
    references: Mutex<Vec<Arc<dyn Invoker>>>,
}

impl Module {
    pub(crate) fn new(app: Application, name: &str) -> Self {
        Self {
            inner: Arc::new(ModuleInner {
                name: name.to_owned(),
                app,
                exporters: Mutex::new(Vec::new()),
                references: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The module name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The application the module belongs to.
    pub fn application(&self) -> &Application {
        &self.inner.app
    }

    /// Exports `handler` on the application's protocols and returns the URLs it is served at.
    ///
    /// Settings come from, in rising priority: `dubbo.provider`, the protocol,
    /// `dubbo.services.<interface>` in the configuration, and `options`.
    pub async fn export<H: ServiceHandler>(
        &self,
        handler: H,
        options: ServiceOptions,
    ) -> Result<Vec<Url>, DubboError> {
        let app = &self.inner.app;
        app.check_running()?;
        let config = app.config();
        let interface = options
            .interface
            .clone()
            .unwrap_or_else(|| handler.interface().to_owned());
        let service_config = config.services.get(&interface).cloned().unwrap_or_default();
        let mut protocol_ids = if options.protocols.is_empty() {
            service_config.protocols.clone()
        } else {
            options.protocols.clone()
        };
        let all = config.all_protocols();
        if protocol_ids.is_empty() {
            protocol_ids = all.iter().map(|(id, _)| id.clone()).collect();
        }
        let mut chosen: Vec<(String, ProtocolConfig)> = Vec::new();
        if protocol_ids.is_empty() {
            chosen.push(("dubbo".to_owned(), ProtocolConfig::default()));
        }
        for id in &protocol_ids {
            let pc = all
                .iter()
                .find(|(i, _)| i == id)
                .map(|(_, c)| c.clone())
                .ok_or_else(|| {
                    ConfigError::invalid(
                        format!("dubbo.services.{interface}.protocols"),
                        format!("no protocol with id {id:?} is configured"),
                    )
                })?;
            chosen.push((id.clone(), pc));
        }

        let mut methods: Vec<&str> = handler.methods().iter().map(|m| m.name()).collect();
        methods.sort_unstable();
        methods.dedup();
        let methods = methods.join(",");

        let mut params: BTreeMap<String, String> = BTreeMap::new();
        let provider = &config.provider;
        params.extend(provider.parameters.clone());
        put(
            &mut params,
            "timeout",
            provider.timeout.map(|t| t.to_string()),
        );
        put(&mut params, "version", provider.version.clone());
        put(&mut params, "group", provider.group.clone());
        put(&mut params, "filter", provider.filter.clone());
        put(
            &mut params,
            "retries",
            provider.retries.map(|t| t.to_string()),
        );
        put(&mut params, "loadbalance", provider.loadbalance.clone());
        put(
            &mut params,
            "weight",
            provider.weight.map(|t| t.to_string()),
        );
        put(&mut params, "token", provider.token.clone());
        put(
            &mut params,
            "executes",
            provider.executes.map(|t| t.to_string()),
        );
        params.extend(service_config.parameters.clone());
        put(&mut params, "version", service_config.version.clone());
        put(&mut params, "group", service_config.group.clone());
        put(
            &mut params,
            "timeout",
            service_config.timeout.map(|t| t.to_string()),
        );
        put(&mut params, "filter", service_config.filter.clone());
        put(&mut params, "token", service_config.token.clone());
        put(
            &mut params,
            "weight",
            service_config.weight.map(|t| t.to_string()),
        );
        params.extend(options.parameters.clone());
        put(&mut params, "version", options.version.clone());
        put(&mut params, "group", options.group.clone());
        put(
            &mut params,
            "timeout",
            options.timeout.map(|t| t.as_millis().to_string()),
        );
        params.insert("application".into(), app.name().to_owned());
        params.insert("interface".into(), interface.clone());
        params.insert("methods".into(), methods);
        params.insert("side".into(), "provider".into());
        params.insert("dubbo".into(), DUBBO_PROTOCOL_VERSION.into());
        params.insert("release".into(), crate::RELEASE.into());
        params.insert("pid".into(), std::process::id().to_string());
        // Java's ServiceConfig: `token=true|default` becomes a random token, `false` none.
        if let Some(setting) = params.remove("token") {
            if let Some(token) = dubbo_core::filters::resolve_token(&setting) {
                params.insert("token".into(), token);
            }
        }

        let handler = Arc::new(handler);
        let mut urls = Vec::new();
        for (id, pc) in chosen {
            let name = pc.protocol_name(&id).to_owned();
            let name = if name == "triple" {
                "tri".to_owned()
            } else {
                name
            };
            let protocol = app.protocol(&name)?;
            let mut p = params.clone();
            p.extend(pc.parameters.clone());
            put(&mut p, "threads", pc.threads.map(|t| t.to_string()));
            put(&mut p, "dispatcher", pc.dispatcher.clone());
            put(&mut p, "threadpool", pc.threadpool.clone());
            put(&mut p, "payload", pc.payload.map(|t| t.to_string()));
            put(&mut p, "heartbeat", pc.heartbeat.map(|t| t.to_string()));
            p.insert(
                "serialization".into(),
                pc.serialization
                    .clone()
                    .unwrap_or_else(|| "hessian2".into()),
            );
            p.insert(
                "prefer.serialization".into(),
                pc.prefer_serialization
                    .clone()
                    .unwrap_or_else(|| "hessian2".into()),
            );
            let host = pc.host.clone().unwrap_or_else(|| "0.0.0.0".to_owned());
            if host == "0.0.0.0" {
                p.insert("anyhost".into(), "true".into());
            }
            let port = match pc.port {
                Some(port) if port >= 0 => port as u16,
                _ => protocol.default_port(),
            };
            let url = build_url(&name, &host, port, &interface, &p)?;
            let invoker: Arc<dyn Invoker> =
                Arc::new(ServiceInvoker::new(handler.clone(), url.clone()));
            let exporter = protocol.export(url, invoker).await?;
            let url = exporter.url().clone();
            tracing::info!(application = %app.name(), url = %url, "exported service");
            lock(&self.inner.exporters).push(exporter);
            urls.push(url);
        }
        Ok(urls)
    }

    /// Serves an IDL (protobuf) service generated by `dubbo-build` over Triple, on the
    /// application's `tri` protocol (or on the protocol id given in `options`), and returns the
    /// URL it is served at.
    #[cfg(feature = "triple")]
    pub async fn export_idl<S: dubbo_protocol_triple::IdlService>(
        &self,
        service: S,
        options: ServiceOptions,
    ) -> Result<Url, DubboError> {
        let app = &self.inner.app;
        app.check_running()?;
        let name = service.service_name().to_owned();
        let all = app.config().all_protocols();
        let chosen = match options.protocols.first() {
            Some(id) => all.iter().find(|(i, _)| i == id),
            None => all
                .iter()
                .find(|(id, c)| matches!(c.protocol_name(id), "tri" | "triple")),
        };
        let (id, pc) = chosen.cloned().ok_or_else(|| {
            ConfigError::invalid(
                "dubbo.protocols",
                format!("IDL service {name} needs a tri protocol, and none is configured"),
            )
        })?;
        if !matches!(pc.protocol_name(&id), "tri" | "triple") {
            return Err(ConfigError::invalid(
                format!("dubbo.protocols.{id}.name"),
                format!("IDL service {name} can only be served over tri"),
            )
            .into());
        }
        let triple = app.triple();
        let host = pc.host.clone().unwrap_or_else(|| "0.0.0.0".to_owned());
        let port = match pc.port {
            Some(port) if port >= 0 => port as u16,
            _ => triple.default_port(),
        };
        let mut params = BTreeMap::new();
        params.insert("application".to_owned(), app.name().to_owned());
        params.insert("interface".to_owned(), name.clone());
        params.insert("side".to_owned(), "provider".to_owned());
        if host == "0.0.0.0" {
            params.insert("anyhost".to_owned(), "true".to_owned());
        }
        let url = build_url("tri", &host, port, &name, &params)?;
        // Registering the protocol with the application makes shutdown drain this server too.
        app.protocol("tri")?;
        let server = triple.server_for(&url).await?;
        server.add_idl_service(service);
        tracing::info!(application = %app.name(), url = %url, "exported IDL service");
        Ok(url)
    }

    /// Refers to a remote service and returns the invoker that typed clients and
    /// [`GenericClient`](crate::GenericClient) call through.
    ///
    /// Settings come from `dubbo.consumer` and then `options`. Every call made through the
    /// returned invoker is addressed to the reference's interface, group and version.
    pub async fn refer(&self, options: ReferenceOptions) -> Result<Reference, DubboError> {
        let app = &self.inner.app;
        app.check_running()?;
        let config = app.config();
        let consumer = &config.consumer;
        let address = options.url.clone().ok_or_else(|| {
            ConfigError::invalid(
                format!("dubbo.references.{}.url", options.interface),
                "a direct url is required (registries are not available yet)",
            )
        })?;
        let targets: Vec<&str> = address
            .split(';')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let target = match targets.as_slice() {
            [one] => *one,
            _ => {
                return Err(ConfigError::invalid(
                    format!("dubbo.references.{}.url", options.interface),
                    "exactly one direct address is supported until the cluster layer lands",
                )
                .into())
            }
        };
        let parsed = Url::parse(target).map_err(|e| DubboError::Url {
            url: target.to_owned(),
            reason: e.to_string(),
        })?;
        let scheme = options
            .protocol
            .clone()
            .unwrap_or_else(|| parsed.protocol().unwrap_or("dubbo").to_owned());
        let scheme = if scheme == "triple" {
            "tri".to_owned()
        } else {
            scheme
        };
        let protocol = app.protocol(&scheme)?;

        let mut params: BTreeMap<String, String> = BTreeMap::new();
        params.extend(consumer.parameters.clone());
        put(
            &mut params,
            "timeout",
            consumer.timeout.map(|t| t.to_string()),
        );
        put(
            &mut params,
            "retries",
            consumer.retries.map(|t| t.to_string()),
        );
        put(&mut params, "loadbalance", consumer.loadbalance.clone());
        put(&mut params, "cluster", consumer.cluster.clone());
        put(&mut params, "check", consumer.check.map(|t| t.to_string()));
        put(&mut params, "filter", consumer.filter.clone());
        put(
            &mut params,
            "connections",
            consumer.connections.map(|t| t.to_string()),
        );
        put(&mut params, "lazy", consumer.lazy.map(|t| t.to_string()));
        params.extend(options.parameters.clone());
        put(&mut params, "version", options.version.clone());
        put(&mut params, "group", options.group.clone());
        put(
            &mut params,
            "timeout",
            options.timeout.map(|t| t.as_millis().to_string()),
        );
        params.insert("interface".into(), options.interface.clone());
        params.insert("application".into(), app.name().to_owned());
        params.insert("side".into(), "consumer".into());
        params.insert("dubbo".into(), DUBBO_PROTOCOL_VERSION.into());
        params.insert("release".into(), crate::RELEASE.into());

        let port = parsed.port();
        let port = if port == 0 {
            protocol.default_port()
        } else {
            port
        };
        let host = parsed.host().ok_or_else(|| DubboError::Url {
            url: target.to_owned(),
            reason: "no host".to_owned(),
        })?;
        let url = build_url(&scheme, host, port, &options.interface, &params)?;
        let remote = protocol.refer(url.clone()).await?;
        let chain: Arc<dyn Invoker> = Arc::new(FilterChain::build(
            &builtin_filters(),
            Side::Consumer,
            &url,
            remote,
        ));
        let key = ServiceKey::new(
            options.interface.as_str(),
            options.group.as_deref(),
            options.version.as_deref(),
        );
        let reference = Reference {
            inner: Arc::new(ReferenceInvoker { key, next: chain }),
        };
        lock(&self.inner.references).push(reference.inner.clone());
        Ok(reference)
    }

    /// Withdraws every service of this module and releases its references; the rest of the
    /// application keeps running.
    pub fn release(&self) {
        for e in lock(&self.inner.exporters).drain(..) {
            e.unexport();
        }
        for r in lock(&self.inner.references).drain(..) {
            r.destroy();
        }
    }

    /// Waits until in-flight work of this module's services is likely done, then releases it.
    pub async fn shutdown(&self, grace: Duration) {
        let _ = grace;
        self.release();
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("name", &self.inner.name)
            .finish()
    }
}

/// A referred remote service: an [`Invoker`] to build clients on.
#[derive(Clone)]
pub struct Reference {
    inner: Arc<ReferenceInvoker>,
}

impl Reference {
    /// The invoker, for typed clients (`FooClient::new(reference.invoker())`).
    pub fn invoker(&self) -> Arc<dyn Invoker> {
        self.inner.clone()
    }

    /// The service the reference calls.
    pub fn service_key(&self) -> &ServiceKey {
        &self.inner.key
    }
}

impl std::fmt::Debug for Reference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reference")
            .field("service", &self.inner.key)
            .finish()
    }
}

struct ReferenceInvoker {
    key: ServiceKey,
    next: Arc<dyn Invoker>,
}

impl Invoker for ReferenceInvoker {
    fn invoke(&self, mut invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        invocation.set_service(self.key.clone());
        self.next.invoke(invocation)
    }

    fn url(&self) -> &Url {
        self.next.url()
    }

    fn is_available(&self) -> bool {
        self.next.is_available()
    }

    fn destroy(&self) {
        self.next.destroy()
    }
}

fn put(params: &mut BTreeMap<String, String>, key: &str, value: Option<String>) {
    if let Some(v) = value.filter(|v| !v.is_empty()) {
        params.insert(key.to_owned(), v);
    }
}

fn build_url(
    scheme: &str,
    host: &str,
    port: u16,
    interface: &str,
    params: &BTreeMap<String, String>,
) -> Result<Url, DubboError> {
    let query: Vec<String> = params
        .iter()
        // Java's URL keeps parameter values as they are (only `&` would need care; Dubbo's own
        // values never contain it).
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let text = format!("{scheme}://{host}:{port}/{interface}?{}", query.join("&"));
    Url::parse(&text).map_err(|e| DubboError::Url {
        url: text.clone(),
        reason: e.to_string(),
    })
}
