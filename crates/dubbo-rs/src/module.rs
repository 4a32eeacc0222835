//! The module scope: a group of exported services and references inside an application.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_cluster::router::RouterChain;
use dubbo_cluster::ClusterInvoker;
#[cfg(feature = "triple")]
use dubbo_core::Protocol;
use dubbo_core::{
    BoxFuture, Directory, ErrorCode, Exporter, FilterChain, Invocation, Invoker, MeasuredInvoker,
    MethodSignature, RpcError, RpcResult, ServiceHandler, ServiceInvoker, ServiceKey, Stage,
    StaticDirectory,
};
use dubbo_url::Url;

use crate::address::{self, ProviderAddress};
use crate::application::Application;
use crate::config::{ConfigError, ConsumerConfig, ProtocolConfig, ReferenceConfig, ServiceConfig};
use crate::error::DubboError;
use crate::options::{ReferenceOptions, ServiceOptions};
use crate::sync::lock;

mod params;
mod streams;

use params::*;

/// How long a registry-based reference with `check=true` waits for its first provider.
const REGISTRY_CHECK_WAIT: Duration = Duration::from_secs(5);

/// A module (Dubbo's `ModuleModel`): services and references that are started and stopped
/// together. Cloning gives another handle on the same module.
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

struct ModuleInner {
    name: String,
    app: Application,
    exporters: Mutex<Vec<Served>>,
    references: Mutex<Vec<Arc<ReferenceInvoker>>>,
}

/// One export and the provider chain it serves, kept together so the chain can be called
/// in-process (QoS `invoke`) for as long as the export lasts.
struct Served {
    exporter: Exporter,
    chain: Arc<dyn Invoker>,
    methods: Arc<[Arc<MethodSignature>]>,
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
        if let Some(layer) = &app.inner.registry {
            layer.start(app.tasks());
        }
        let config = app.config();
        let interface = options
            .interface
            .clone()
            .unwrap_or_else(|| handler.interface().to_owned());
        let (service_id, service_config) = match config.service_for(&interface)? {
            Some((id, c)) => (id, c),
            None => (interface.clone(), ServiceConfig::default()),
        };
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
                        format!("dubbo.services.{service_id}.protocols"),
                        format!("no protocol with id {id:?} is configured"),
                    )
                })?;
            chosen.push((id.clone(), pc));
        }

        let methods = streams::method_list(&handler);

        let mut params = provider_params(app, self.name(), &interface, &service_config, &options);
        params.insert("methods".into(), methods);
        if !service_config.registries.is_empty() {
            params.insert(
                crate::registry::REGISTRY_IDS.into(),
                service_config.registries.join(","),
            );
        }

        if let (Some(layer), Some(definition)) = (&app.inner.registry, handler.definition()) {
            let text = |k: &str| params.get(k).map(String::as_str).unwrap_or_default();
            let key = crate::registry::java_service_key(&interface, text("group"), text("version"));
            lock(&layer.metadata.definitions).insert(key, Arc::new(definition));
        }
        let handler = Arc::new(handler);
        let mut urls = Vec::new();
        for (id, pc) in chosen {
            let name = pc.protocol_name(&id).to_owned();
            let protocol = app.protocol(&name)?;
            let mut p = params.clone();
            p.extend(pc.parameters.clone());
            put(&mut p, "threads", pc.threads.map(|t| t.to_string()));
            put(&mut p, "dispatcher", pc.dispatcher.clone());
            put(&mut p, "threadpool", pc.threadpool.clone());
            put(&mut p, "payload", pc.payload.map(|t| t.to_string()));
            put(&mut p, "heartbeat", pc.heartbeat.map(|t| t.to_string()));
            put(&mut p, "accepts", pc.accepts.map(|t| t.to_string()));
            put(&mut p, "ssl-enabled", pc.ssl_enabled.map(|t| t.to_string()));
            // The protocol's serializations, unless the service's own parameters name them
            // (as a Java service's override its protocol's); by default what Java 3.3
            // advertises: both, Hessian 2 first.
            p.entry("serialization".into()).or_insert_with(|| {
                pc.serialization
                    .clone()
                    .unwrap_or_else(|| "hessian2".into())
            });
            p.entry("prefer.serialization".into()).or_insert_with(|| {
                pc.prefer_serialization
                    .clone()
                    .unwrap_or_else(|| "hessian2,fastjson2".into())
            });
            let address = resolve_address(app, &id, &name, &pc, protocol.default_port())?;
            put_address(&mut p, &address);
            let url = build_url(
                &name,
                &address.advertised_host,
                address.advertised_port.unwrap_or(address.bind_port),
                &interface,
                &p,
            )?;
            let invoker: Arc<dyn Invoker> =
                Arc::new(ServiceInvoker::new(handler.clone(), url.clone()));
            let chain = self.provider_chain(&url, invoker);
            let exporter = protocol.export(url.clone(), chain.clone()).await?;
            let exporter = self
                .with_streams(protocol.name(), &url, exporter, &*handler)
                .await?;
            if let Some(rest) = handler.rest() {
                if let Err(e) = protocol.export_rest(&url, rest).await {
                    // A mapping that cannot be served withdraws its export (`#[cross_origin]`).
                    exporter.unexport();
                    return Err(e.into());
                }
            }
            let url = advertised_url(exporter.url());
            tracing::info!(application = %app.name(), url = %url, "exported service");
            let record = self.export_record(&exporter);
            lock(&self.inner.exporters).push(Served {
                exporter,
                chain,
                methods: handler.methods().to_vec().into(),
            });
            app.notify(|l| l.exported(&record));
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
            None => all.iter().find(|(id, c)| c.protocol_name(id) == "tri"),
        };
        let (id, pc) = chosen.cloned().ok_or_else(|| {
            ConfigError::invalid(
                "dubbo.protocols",
                format!("IDL service {name} needs a tri protocol, and none is configured"),
            )
        })?;
        if pc.protocol_name(&id) != "tri" {
            return Err(ConfigError::invalid(
                format!("dubbo.protocols.{id}.name"),
                format!("IDL service {name} can only be served over tri"),
            )
            .into());
        }
        let triple = app.triple();
        let address = resolve_address(app, &id, "tri", &pc, triple.default_port())?;
        let service_config = match app.config().service_for(&name)? {
            Some((_, c)) => c,
            None => ServiceConfig::default(),
        };
        let mut params = provider_params(app, self.name(), &name, &service_config, &options);
        put_address(&mut params, &address);
        if !service_config.registries.is_empty() {
            params.insert(
                crate::registry::REGISTRY_IDS.into(),
                service_config.registries.join(","),
            );
        }
        let url = build_url(
            "tri",
            &address.advertised_host,
            address.advertised_port.unwrap_or(address.bind_port),
            &name,
            &params,
        )?;
        // Registering the protocol with the application makes shutdown drain this server too.
        app.protocol("tri")?;
        let server = triple.server_for(&url).await?;
        let url = dubbo_core::protocol::bound_url(url, server.local_addr().port());
        let service: Arc<dyn dubbo_protocol_triple::IdlService> = Arc::new(service);
        let invoker: Arc<dyn Invoker> = Arc::new(dubbo_protocol_triple::server::IdlInvoker::new(
            service.clone(),
            url.clone(),
        ));
        let chain = self.provider_chain(&url, invoker);
        let exporter = server.export_idl(service, chain.clone(), url);
        let url = advertised_url(exporter.url());
        tracing::info!(application = %app.name(), url = %url, "exported IDL service");
        let record = self.export_record(&exporter);
        lock(&self.inner.exporters).push(Served {
            exporter,
            chain,
            methods: Arc::new([]),
        });
        app.notify(|l| l.exported(&record));
        Ok(url)
    }

    /// `invoker` wrapped in the provider filters the framework has and `url` selects.
    fn provider_chain(&self, url: &Url, invoker: Arc<dyn Invoker>) -> Arc<dyn Invoker> {
        let filters = self.inner.app.framework().filters();
        Arc::new(FilterChain::build(&filters, Stage::Provider, url, invoker))
    }

    /// The consumer's path to one provider, once per attempt: the measuring stage that records
    /// per-provider statistics and call reports, around the per-provider consumer filters,
    /// around the protocol's invoker.
    fn provider_chain_consumer(&self, url: &Url, remote: Arc<dyn Invoker>) -> Arc<dyn Invoker> {
        let framework = self.inner.app.framework();
        let filters = framework.filters();
        // Never empty unless the URL removes every consumer filter (`consumercontext` is on
        // by default), so it is not special-cased: an empty chain only forwards.
        let chain = FilterChain::build(&filters, Stage::Consumer, url, remote);
        Arc::new(MeasuredInvoker::new(
            Arc::new(chain),
            framework.stats().clone(),
        ))
    }

    /// The consumer's path for one call: the cluster-level filters (once per call) around the
    /// cluster invoker, which routes, balances and applies the reference's fault-tolerance
    /// strategy over `providers`. A strategy's background work (failback's retries) becomes
    /// one of the application's tasks.
    fn cluster_chain(
        &self,
        url: &Url,
        directory: Arc<dyn Directory>,
        routers: Arc<RouterChain>,
    ) -> Result<Arc<dyn Invoker>, DubboError> {
        let app = &self.inner.app;
        let framework = app.framework();
        let cluster = ClusterInvoker::new(directory, routers, framework.extensions())?;
        if let Some(work) = cluster.background() {
            let name = format!(
                "cluster retries of {}",
                url.parameter("interface").unwrap_or("")
            );
            app.tasks().spawn(name, work);
        }
        let filters = framework.filters();
        Ok(Arc::new(FilterChain::build(
            &filters,
            Stage::Cluster,
            url,
            Arc::new(cluster),
        )))
    }

    /// Refers to a remote service and returns the invoker that typed clients and
    /// [`GenericClient`](crate::GenericClient) call through.
    ///
    /// Settings come from, in rising priority: `dubbo.consumer`, the `dubbo.references.<id>`
    /// entry for the interface (keyed by it, or naming it in `interface`), and `options`. Every
    /// call made through the returned invoker is addressed to the reference's interface, group
    /// and version.
    ///
    /// With `check` (the default, as in Java) the provider must be reachable now, else this
    /// fails; with `check: false` the reference is returned anyway and calls fail until the
    /// provider is up.
    pub async fn refer(&self, options: ReferenceOptions) -> Result<Reference, DubboError> {
        let app = &self.inner.app;
        app.check_running()?;
        let config = app.config();
        let consumer = config.consumer_for(self.name());
        let consumer = consumer.as_ref();
        let (reference_id, rc) = match config.reference_for(&options.interface)? {
            Some((id, c)) => (id, c),
            None => (options.interface.clone(), ReferenceConfig::default()),
        };
        let key = format!("dubbo.references.{reference_id}");
        let options = ReferenceOptions {
            url: options.url.or(rc.url.clone()),
            version: options.version.or(rc.version.clone()),
            group: options.group.or(rc.group.clone()),
            timeout: options.timeout.or(rc.timeout.map(Duration::from_millis)),
            ..options
        };
        if let Some(layer) = &app.inner.registry {
            layer.start(app.tasks());
        }
        let address = match (options.url.clone(), app.inner.registry.clone()) {
            (Some(url), _) => url,
            (None, Some(layer)) => {
                let params = reference_params(app, self.name(), &options, &rc);
                return self.refer_registry(layer, options, rc, params).await;
            }
            (None, None) => {
                return Err(ConfigError::invalid(
                    format!("{key}.url"),
                    "a direct url or a registry (dubbo.registry.address) is required",
                )
                .into())
            }
        };
        let targets: Vec<&str> = address
            .split(';')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if targets.is_empty() {
            return Err(ConfigError::invalid(format!("{key}.url"), "no address given").into());
        }
        let params = reference_params(app, self.name(), &options, &rc);

        // Java's `;`-separated direct URLs: one provider each, behind one cluster invoker.
        // With several, each is referred without `check` and the reference checks that one
        // is reachable; a single one keeps the protocol's own check.
        let several = targets.len() > 1;
        let mut urls = Vec::with_capacity(targets.len());
        let mut providers: Vec<Arc<dyn Invoker>> = Vec::with_capacity(targets.len());
        for target in &targets {
            let scheme = reference_scheme(&key, target, &options, &rc, consumer)?;
            let target = if target.contains("://") {
                (*target).to_owned()
            } else {
                format!("{scheme}://{target}")
            };
            let parsed = Url::parse(&target).map_err(|e| DubboError::Url {
                url: target.clone(),
                reason: e.to_string(),
            })?;
            let protocol = app.protocol(&scheme)?;
            let port = parsed.port();
            let port = if port == 0 {
                protocol.default_port()
            } else {
                port
            };
            let host = parsed.host().ok_or_else(|| DubboError::Url {
                url: target.clone(),
                reason: "no host".to_owned(),
            })?;
            let url = build_url(&scheme, host, port, &options.interface, &params)?;
            // Java merges a direct URL with the reference's parameters as it merges a
            // provider's (`ClusterUtils.mergeUrl`), which leaves the consumer's `timestamp`
            // out: it is not the provider's start, and on a provider's URL it would put every
            // direct provider in warm-up for the consumer's first ten minutes.
            let mut url = url.with_params(url.params().without(dubbo_url::keys::TIMESTAMP));
            // The direct URL's own parameters (`rest://h:p?contextpath=/api`) apply where
            // the reference sets none, as Java merges a direct URL with the reference's.
            for (k, v) in parsed.params().iter() {
                url = url.with_parameter_if_absent(k, v);
            }
            let refer_url = if several {
                url.with_parameter("check", "false")
            } else {
                url.clone()
            };
            let remote = protocol.refer(refer_url).await?;
            providers.push(self.provider_chain_consumer(&url, remote));
            urls.push(url);
        }
        let Some(url) = urls.first().cloned() else {
            return Err(ConfigError::invalid(format!("{key}.url"), "no address given").into());
        };
        if several
            && url.parameter_bool_or("check", true)
            && !providers.iter().any(|p| p.is_available())
        {
            let addresses: Vec<String> = urls.iter().map(|u| u.address()).collect();
            return Err(RpcError::framework(
                ErrorCode::NoProvider,
                format!(
                    "no provider of {} is reachable at {} (check=true)",
                    options.interface,
                    addresses.join(", ")
                ),
            )
            .into());
        }
        // Java's default state routers: the tag router is always there; condition rules are
        // added through `Reference::routers`.
        let routers = Arc::new(RouterChain::for_consumer(url.clone()));
        let directory = Arc::new(StaticDirectory::new(url.clone(), providers));
        let chain = self.cluster_chain(&url, directory, routers.clone())?;
        Ok(self.keep_reference(&options, routers, chain, None))
    }

    /// A reference fed by the application's registries: a dynamic directory that follows
    /// the providers the registries push (interface level, application level, or both as the
    /// migration step says).
    async fn refer_registry(
        &self,
        layer: Arc<crate::registry::RegistryLayer>,
        options: ReferenceOptions,
        rc: ReferenceConfig,
        mut params: BTreeMap<String, String>,
    ) -> Result<Reference, DubboError> {
        let app = &self.inner.app;
        let wanted = options
            .protocol
            .as_deref()
            .or(rc.protocol.as_deref())
            .map(dubbo_url::canonical_protocol);
        if let Some(p) = wanted {
            params.insert("protocol".into(), p.to_owned());
        }
        params.insert("register.ip".into(), consumer_host(app, &layer));
        let url = build_url(
            "consumer",
            &consumer_host(app, &layer),
            0,
            &options.interface,
            &params,
        )?;

        let module = self.clone();
        // The directory hands over provider URLs already merged with the consumer's parameters
        // and the override rules (Java's precedence: rules, then consumer, then provider).
        let factory = move |merged: Url| {
            let module = module.clone();
            async move {
                let scheme = merged.protocol().unwrap_or("dubbo").to_owned();
                let protocol = module
                    .inner
                    .app
                    .protocol(&scheme)
                    .map_err(|e| RpcError::framework(ErrorCode::NoProvider, e.to_string()))?;
                let remote = protocol
                    .refer(merged.with_parameter("check", "false"))
                    .await?;
                Ok(module.provider_chain_consumer(&merged, remote))
            }
        };
        let routers = Arc::new(RouterChain::for_consumer(url.clone()));
        // Several registries, or zone settings: Java's zone-aware choice among them.
        if layer.registries.len() > 1 || layer.registries.iter().any(|r| r.zoned()) {
            routers.set_zone_router(Some(dubbo_cluster::router::ZoneRouter::for_zone(
                url.parameter("registry_zone").map(str::to_owned),
                url.parameter_bool_or("registry_zone_force", false),
            )));
        }
        let directory = Arc::new(
            dubbo_cluster::directory::DynamicDirectory::new(url.clone(), Arc::new(factory))
                .with_router_chain(routers.clone())
                .with_consumer_merge(true),
        );
        let chain = self.cluster_chain(&url, directory.clone(), routers.clone())?;

        let module = self.clone();
        let refer: crate::registry::ReferFn = Arc::new(move |target: Url| {
            let module = module.clone();
            Box::pin(async move {
                let scheme = target.protocol().unwrap_or("dubbo").to_owned();
                let protocol = module
                    .inner
                    .app
                    .protocol(&scheme)
                    .map_err(|e| RpcError::framework(ErrorCode::NoProvider, e.to_string()))?;
                protocol.refer(target).await
            })
        });
        let provided_by: Vec<String> = rc
            .provided_by
            .clone()
            .or_else(|| options.parameters.get("provided-by").cloned())
            .map(|s| {
                s.split(',')
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        // `registries` on the reference picks some of the application's registries.
        let registries: Vec<_> = layer
            .registries
            .iter()
            .filter(|r| rc.registries.is_empty() || rc.registries.contains(&r.id))
            .cloned()
            .collect();
        // Java's default proportion: the reference's `migration.promotion` parameter.
        let proportion = url
            .parameter("migration.promotion")
            .and_then(|p| p.trim().parse::<u32>().ok())
            .map_or(100, |p| p.min(100) as u8);
        let ctx = crate::registry::SubscribeContext {
            consumer: url.clone(),
            registries,
            framework: app.framework().clone(),
            mode: crate::registry::Mode {
                step: layer.step,
                threshold: layer.threshold,
                proportion,
            },
            routers: routers.clone(),
            provided_by,
            refer,
            cache: layer.cache.clone(),
            tasks: app.tasks_handle(),
        };
        let subscription = crate::registry::subscribe(ctx, directory.clone()).await?;
        lock(&layer.metadata.subscribed).push(url.to_full_string());
        let settled = if let Some(center) = app.inner.config_center.clone() {
            let rules = crate::governance::ReferenceRules {
                center,
                framework: app.framework().clone(),
                app: app.name().to_owned(),
                consumer: url.clone(),
                directory: directory.clone(),
                routers: routers.clone(),
                subscription: subscription.clone(),
                defaults: crate::governance::Migration {
                    step: layer.step,
                    threshold: layer.threshold,
                    force: false,
                    delay: Duration::ZERO,
                    proportion,
                },
            };
            Some(crate::governance::follow(
                rules,
                app.tasks(),
                subscription.closed(),
            ))
        } else {
            None
        };

        if url.parameter_bool_or("check", true) {
            let deadline = tokio::time::Instant::now() + REGISTRY_CHECK_WAIT;
            while directory.all().is_empty() && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            if directory.all().is_empty() {
                subscription.close();
                chain.destroy();
                return Err(RpcError::framework(
                    ErrorCode::NoProvider,
                    format!(
                        "no provider of {} was found in the registries within {} ms (check=true)",
                        options.interface,
                        REGISTRY_CHECK_WAIT.as_millis()
                    ),
                )
                .into());
            }
        }
        // The rules in force now apply from the first call on, as in Java.
        if let Some(settled) = settled {
            settled.wait(crate::governance::RULES_WAIT).await;
        }
        Ok(self.keep_reference(&options, routers, chain, Some(subscription)))
    }

    /// The reference over `chain`, recorded in the module and announced to the listeners:
    /// the common end of a direct and a registry-fed reference.
    fn keep_reference(
        &self,
        options: &ReferenceOptions,
        routers: Arc<RouterChain>,
        chain: Arc<dyn Invoker>,
        subscription: Option<Arc<crate::registry::Subscription>>,
    ) -> Reference {
        let key = ServiceKey::new(
            options.interface.as_str(),
            options.group.as_deref(),
            options.version.as_deref(),
        );
        let reference = Reference {
            routers,
            inner: Arc::new(ReferenceInvoker {
                key,
                next: chain,
                subscription,
            }),
        };
        let record = self.reference_record(&reference.inner);
        lock(&self.inner.references).push(reference.inner.clone());
        self.inner.app.notify(|l| l.referred(&record));
        reference
    }

    fn export_record(&self, e: &Exporter) -> ExportedService {
        ExportedService {
            module: self.inner.name.clone(),
            key: e.key().clone(),
            url: advertised_url(e.url()),
        }
    }

    fn reference_record(&self, r: &ReferenceInvoker) -> ReferredService {
        ReferredService {
            module: self.inner.name.clone(),
            key: r.key.clone(),
            url: r.next.url().clone(),
        }
    }

    /// The services this module serves, one entry per protocol, with the URLs they are
    /// served at.
    pub fn exported(&self) -> Vec<ExportedService> {
        lock(&self.inner.exporters)
            .iter()
            .map(|s| self.export_record(&s.exporter))
            .collect()
    }

    /// The services this module serves with their provider chains (filters around the
    /// implementation), one entry per protocol.
    pub(crate) fn provider_chains(&self) -> Vec<LocalService> {
        lock(&self.inner.exporters)
            .iter()
            .map(|s| LocalService {
                service: self.export_record(&s.exporter),
                chain: s.chain.clone(),
                methods: s.methods.clone(),
            })
            .collect()
    }

    /// The services this module refers to.
    pub fn referred(&self) -> Vec<ReferredService> {
        lock(&self.inner.references)
            .iter()
            .map(|r| self.reference_record(r))
            .collect()
    }

    /// Withdraws every service of this module and releases its references; the rest of the
    /// application keeps running.
    pub fn release(&self) {
        let app = &self.inner.app;
        let served: Vec<Served> = lock(&self.inner.exporters).drain(..).collect();
        for Served { exporter: e, .. } in served {
            e.unexport();
            let record = self.export_record(&e);
            app.notify(|l| l.unexported(&record));
        }
        let references: Vec<Arc<ReferenceInvoker>> =
            lock(&self.inner.references).drain(..).collect();
        for r in references {
            r.destroy();
            let record = self.reference_record(&r);
            app.notify(|l| l.released(&record));
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

use crate::view::LocalService;
pub use crate::view::{ExportedService, ReferredService};

/// A referred remote service: an [`Invoker`] to build clients on.
#[derive(Clone)]
pub struct Reference {
    inner: Arc<ReferenceInvoker>,
    routers: Arc<RouterChain>,
}

impl Reference {
    /// The reference's routers: set condition and tag rules here (from YAML with
    /// `set_condition_rule_yaml` / `set_tag_rule_yaml`); a rule that does not parse is refused
    /// and the rules in force stay.
    pub fn routers(&self) -> &Arc<RouterChain> {
        &self.routers
    }

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
    /// The registry subscription feeding a registry-based reference.
    subscription: Option<Arc<crate::registry::Subscription>>,
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
        if let Some(s) = &self.subscription {
            s.close();
        }
        self.next.destroy()
    }
}
