//! The provider side: registering exported services (interface level), the application's
//! instance and metadata (application level), the service-name mapping, taking services out
//! of them and back on demand (QoS `offline` / `online`), and withdrawing all of it first at
//! shutdown.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dubbo_cluster::configurator::Configurators;
use dubbo_registry::{
    Endpoint, MetadataInfo, ServiceInfo, ServiceInstance, ENDPOINTS_KEY,
    METADATA_SERVICE_PARAMS_KEY, METADATA_VERSION_KEY, REVISION_KEY, STORAGE_TYPE_KEY,
};
use dubbo_url::Url;
use tokio::sync::{mpsc, oneshot};

use super::metadata_service::{self, MetadataState};
use super::modes::RegisterMode;
use super::online::{Export, Switch};
use super::registries::AppRegistry;
use super::REGISTRY_IDS;
use crate::listeners::ServiceListener;
use crate::sync::lock;
use crate::view::ExportedService;

/// Parameters that describe where a provider binds or manages itself, never registered
/// (Java's `RegistryProtocol#getUrlToRegistry`).
const NOT_REGISTERED: &[&str] = &[
    "bind.ip",
    "bind.port",
    "monitor",
    "qos.enable",
    "qos.host",
    "qos.port",
    "qos.accept.foreign.ip",
    "validation",
    "interfaces",
];

/// The parameters of the MetadataService URL that go into `dubbo.metadata-service.url-params`
/// (Java keeps its default register keys, then adds port and protocol).
const METADATA_URL_PARAMS: &[&str] = &[
    "version",
    "dubbo",
    "release",
    "side",
    "serialization",
    "prefer.serialization",
    "timeout",
    "codec",
];

pub(crate) enum Event {
    Exported(Url),
    Unexported(Url),
    /// The MetadataService is served at this URL.
    MetadataService(Url),
    /// Publish the instance (the application is ready); answers when done.
    Publish(oneshot::Sender<()>),
    /// Withdraw everything (shutdown); answers when done.
    Withdraw(oneshot::Sender<()>),
    /// Take exports offline or put them back online (QoS `offline`, `online`); answers when
    /// done.
    SetOnline(Switch, oneshot::Sender<()>),
    /// The provider-side override rules of the application or of one service changed.
    Overrides(OverrideScope, Configurators),
}

/// Which override rules an [`Event::Overrides`] replaces.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum OverrideScope {
    /// `{app}.configurators`.
    Application,
    /// `{interface}:{version}:{group}.configurators`, by that colon-separated service key.
    Service(String),
}

/// The colon-separated key of the service `url` serves (`interface:version:group`, empty
/// parts kept), which service-scope rules are stored under.
pub(crate) fn colon_key(url: &Url) -> String {
    format!(
        "{}:{}:{}",
        url.service_interface().unwrap_or_default(),
        url.parameter("version").unwrap_or_default(),
        url.parameter("group").unwrap_or_default()
    )
}

/// The [`ServiceListener`] that feeds exports to the registration task.
pub(crate) struct ExportWatcher {
    pub(crate) events: mpsc::UnboundedSender<Event>,
}

impl ServiceListener for ExportWatcher {
    fn exported(&self, service: &ExportedService) {
        let _ = self.events.send(Event::Exported(service.url.clone()));
    }

    fn unexported(&self, service: &ExportedService) {
        let _ = self.events.send(Event::Unexported(service.url.clone()));
    }
}

/// The registration task's state: what is registered where.
pub(crate) struct Registrar {
    app: String,
    framework: Arc<crate::Framework>,
    registries: Vec<Arc<AppRegistry>>,
    remote_metadata: bool,
    metadata: Arc<MetadataState>,
    /// Exported services, in export order, with the levels they are offered at.
    exported: Vec<Export>,
    /// Per registry: the URLs registered at interface level.
    registered: BTreeMap<usize, Vec<Url>>,
    metadata_service: Option<Url>,
    /// Per registry: exports made while it could not be connected, registered once it can.
    unreachable: BTreeMap<usize, Vec<Url>>,
    /// The instance last published, per registry.
    published: BTreeMap<usize, ServiceInstance>,
    /// Provider-side override rules: the application's, and each service's by colon key.
    app_rules: Configurators,
    service_rules: HashMap<String, Configurators>,
    ready: bool,
    withdrawn: bool,
}

impl Registrar {
    pub(crate) fn new(
        app: &str,
        framework: Arc<crate::Framework>,
        registries: Vec<Arc<AppRegistry>>,
        remote_metadata: bool,
        metadata: Arc<MetadataState>,
    ) -> Self {
        Self {
            app: app.to_owned(),
            framework,
            registries,
            remote_metadata,
            metadata,
            exported: Vec::new(),
            registered: BTreeMap::new(),
            metadata_service: None,
            unreachable: BTreeMap::new(),
            published: BTreeMap::new(),
            app_rules: Configurators::default(),
            service_rules: HashMap::new(),
            ready: false,
            withdrawn: false,
        }
    }

    /// Handles events in the order they were sent, until every sender is gone.
    pub(crate) async fn run(mut self, mut events: mpsc::UnboundedReceiver<Event>) {
        let mut retry = tokio::time::interval(REPUBLISH_PERIOD);
        retry.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let event = tokio::select! {
                event = events.recv() => event,
                _ = retry.tick() => {
                    // An instance that could not be registered (registry down) is tried
                    // again until it is.
                    if !self.withdrawn {
                        self.register_unreachable().await;
                        if self.ready {
                            self.publish().await;
                        }
                    }
                    continue;
                }
            };
            let Some(event) = event else { break };
            match event {
                Event::Exported(url) => self.exported(url).await,
                Event::Unexported(url) => self.unexported(url).await,
                Event::MetadataService(url) => self.metadata_service = Some(url),
                Event::Publish(done) => {
                    self.ready = true;
                    self.publish().await;
                    let _ = done.send(());
                }
                Event::Withdraw(done) => {
                    self.withdraw().await;
                    let _ = done.send(());
                }
                Event::SetOnline(switch, done) => {
                    self.set_online(&switch).await;
                    let _ = done.send(());
                }
                Event::Overrides(scope, rules) => self.overrides(scope, rules).await,
            }
        }
    }

    fn is_metadata_service(url: &Url) -> bool {
        url.service_interface() == Some(metadata_service::INTERFACE)
    }

    async fn exported(&mut self, url: Url) {
        if self.withdrawn || Self::is_metadata_service(&url) {
            return;
        }
        lock(&self.metadata.exported).push(url.to_full_string());
        let mut export = Export::new(url.clone());
        export.effective = self.configured(&url);
        let levels = export.levels();
        self.exported.push(export);
        let Some(levels) = levels else { return };
        let all: Vec<usize> = (0..self.registries.len()).collect();
        self.register_export(&url, &all, levels).await;
        super::definitions::publish(&self.registries, &self.metadata, &self.app, &url).await;
        self.update_metadata();
        if self.ready {
            self.publish().await;
        }
    }

    /// Registers the exports kept back while their registry could not be connected.
    async fn register_unreachable(&mut self) {
        let waiting = std::mem::take(&mut self.unreachable);
        for (i, urls) in waiting {
            for url in urls {
                let levels = self.export(&url).and_then(Export::levels);
                if let Some(levels) = levels {
                    self.register_export(&url, &[i], levels).await;
                }
            }
        }
    }

    /// The export served at `url`, if it is one.
    fn export(&self, url: &Url) -> Option<&Export> {
        self.exported.iter().find(|e| e.url == *url)
    }

    /// Registers one export with the registries at `indexes`, at the `levels` it is offered
    /// at: its URL in interface-level registries, its interface in the service-name mapping
    /// of instance-level ones.
    async fn register_export(&mut self, url: &Url, indexes: &[usize], levels: RegisterMode) {
        let effective = self
            .export(url)
            .map_or_else(|| url.clone(), |e| e.effective.clone());
        for &i in indexes {
            let Some(r) = self.registries.get(i).cloned() else {
                continue;
            };
            if !r.register || !registers_with(url, &r.id) {
                continue;
            }
            let Ok(conn) = r.connect(self.framework.extensions()).await.inspect_err(|e| {
                tracing::warn!(registry = %r.url, error = %e, "cannot register {url}; will retry");
            }) else {
                self.unreachable.entry(i).or_default().push(url.clone());
                continue;
            };
            let registered = registered_url(&effective);
            let already = self
                .registered
                .get(&i)
                .is_some_and(|urls| urls.contains(&registered));
            if r.mode.interface_level() && levels.interface_level() && !already {
                let started = Instant::now();
                let result = conn.registry.register(&registered).await;
                self.framework.event_metrics().service_registered(
                    &self.app,
                    &registered.service_key().unwrap_or_default(),
                    &r.id,
                    result.is_ok(),
                    started.elapsed(),
                );
                match result {
                    Ok(()) => {
                        tracing::info!(registry = %r.url, url = %registered, "registered");
                        self.registered.entry(i).or_default().push(registered);
                    }
                    Err(e) => tracing::warn!(registry = %r.url, error = %e, "cannot register"),
                }
            }
            if r.mode.instance_level() && levels.instance_level() {
                if let (Some(report), Some(iface)) = (&conn.report, url.service_interface()) {
                    if let Err(e) = report.register_mapping(iface, &self.app).await {
                        tracing::warn!(registry = %r.url, error = %e, "cannot map {iface}");
                    }
                }
            }
        }
    }

    async fn unexported(&mut self, url: Url) {
        if Self::is_metadata_service(&url) {
            return;
        }
        let full = url.to_full_string();
        lock(&self.metadata.exported).retain(|u| *u != full);
        self.unregister_export(&url).await;
        self.exported.retain(|e| e.url != url);
        self.update_metadata();
        if self.ready && !self.withdrawn {
            self.publish().await;
        }
    }

    /// Removes one export's interface-level registrations. A retry still pending for it
    /// registers only at the levels the export is still offered at.
    async fn unregister_export(&mut self, url: &Url) {
        let effective = self
            .export(url)
            .map_or_else(|| url.clone(), |e| e.effective.clone());
        let registered = registered_url(&effective);
        for (i, r) in self.registries.iter().enumerate() {
            let Some(conn) = r.connected() else { continue };
            if let Some(urls) = self.registered.get_mut(&i) {
                if let Some(pos) = urls.iter().position(|u| *u == registered) {
                    urls.remove(pos);
                    if let Err(e) = conn.registry.unregister(&registered).await {
                        tracing::warn!(registry = %r.url, error = %e, "cannot unregister");
                    } else {
                        tracing::info!(registry = %r.url, url = %registered, "unregistered");
                    }
                }
            }
        }
    }

    /// Takes the exports `switch` names offline, or puts them back online, at its levels.
    /// Nothing is put back once shutdown has withdrawn the registrations.
    async fn set_online(&mut self, switch: &Switch) {
        if switch.online && self.withdrawn {
            return;
        }
        let all: Vec<usize> = (0..self.registries.len()).collect();
        let mut metadata_changed = false;
        for url in &switch.urls {
            let Some(export) = self.exported.iter_mut().find(|e| e.url == *url) else {
                continue;
            };
            let Some(changed) = export.set_online(switch.online, switch.levels) else {
                continue;
            };
            metadata_changed |= changed.instance_level();
            if switch.online {
                self.register_export(url, &all, changed).await;
            } else if changed.interface_level() {
                self.unregister_export(url).await;
            }
        }
        if metadata_changed {
            self.update_metadata();
            if self.ready {
                self.publish().await;
            }
        }
    }

    /// `url` as the provider-side override rules in force configure it: the application's
    /// rules, then its service's (Java's provider and service configuration listeners).
    fn configured(&self, url: &Url) -> Url {
        let host = url.host().unwrap_or_default();
        let url = self.app_rules.configure(url, host);
        match self.service_rules.get(&colon_key(&url)) {
            Some(rules) => rules.configure(&url, host),
            None => url,
        }
    }

    /// Puts new override rules in force: every export whose offered URL changes is
    /// registered again under the new URL (the old one withdrawn first) and the metadata
    /// carries it, so consumers see the new parameters (a weight, `disabled`, a timeout).
    async fn overrides(&mut self, scope: OverrideScope, rules: Configurators) {
        match scope {
            OverrideScope::Application => self.app_rules = rules,
            OverrideScope::Service(key) if rules.is_empty() => {
                self.service_rules.remove(&key);
            }
            OverrideScope::Service(key) => {
                self.service_rules.insert(key, rules);
            }
        }
        if self.withdrawn {
            return;
        }
        let all: Vec<usize> = (0..self.registries.len()).collect();
        let mut changed = false;
        for n in 0..self.exported.len() {
            let (url, before) = match self.exported.get(n) {
                Some(e) => (e.url.clone(), e.effective.clone()),
                None => continue,
            };
            let after = self.configured(&url);
            if after == before {
                continue;
            }
            tracing::info!(service = %url, now = %after, "override rules changed what is offered");
            changed = true;
            let interface = self.exported.get(n).is_some_and(|e| e.interface);
            if interface {
                self.unregister_export(&url).await;
            }
            if let Some(e) = self.exported.get_mut(n) {
                e.effective = after;
            }
            if interface {
                self.register_export(&url, &all, RegisterMode::Interface)
                    .await;
            }
        }
        if changed {
            self.update_metadata();
            if self.ready {
                self.publish().await;
            }
        }
    }

    /// Recomputes the application's metadata from the exports.
    fn update_metadata(&self) {
        let mut info = MetadataInfo::new(self.app.clone());
        for export in &self.exported {
            if export.instance {
                let url = export.effective.without_parameter(REGISTRY_IDS);
                info.add_service(ServiceInfo::from_url(&url));
            }
        }
        self.metadata.current.store(Arc::new(info));
    }

    /// Registers (or updates) the instance in every registry that takes instances; withdraws
    /// it instead once every service it would carry was taken offline.
    async fn publish(&mut self) {
        if self.withdrawn {
            return;
        }
        if Export::all_taken_offline(&self.exported) {
            self.unpublish().await;
            return;
        }
        let info = self.metadata.current.load_full();
        let Some(instance) = self.instance(&info) else {
            return;
        };
        for (i, r) in self.registries.iter().enumerate() {
            if !r.register || !r.mode.instance_level() {
                continue;
            }
            let Ok(conn) = r.connect(self.framework.extensions()).await else {
                continue;
            };
            if self.published.get(&i) == Some(&instance) {
                continue;
            }
            let events = self.framework.event_metrics();
            if self.remote_metadata {
                if let Some(report) = &conn.report {
                    let started = Instant::now();
                    let result = report.publish_app_metadata(&info).await;
                    events.metadata_pushed(&self.app, result.is_ok(), started.elapsed());
                    if let Err(e) = result {
                        tracing::warn!(registry = %r.url, error = %e, "cannot publish metadata");
                    }
                }
            }
            let started = Instant::now();
            let result = conn.discovery.register(&instance).await;
            events.registered(&self.app, &r.id, result.is_ok(), started.elapsed());
            match result {
                Ok(()) => {
                    tracing::info!(
                        registry = %r.url,
                        instance = %instance.id(),
                        revision = %instance.revision(),
                        "registered instance"
                    );
                    self.published.insert(i, instance.clone());
                }
                Err(e) => tracing::warn!(registry = %r.url, error = %e, "cannot register instance"),
            }
        }
    }

    /// The instance to publish: host and port of the first dubbo export (else the first
    /// export), its endpoints, revision and MetadataService parameters.
    fn instance(&self, info: &MetadataInfo) -> Option<ServiceInstance> {
        let main = self
            .exported
            .iter()
            .map(|e| &e.url)
            .find(|u| u.protocol() == Some("dubbo"))
            .or_else(|| self.exported.first().map(|e| &e.url))?;
        let host = main
            .host()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let mut instance = ServiceInstance::new(self.app.clone(), host, main.port());
        instance.registration_time = main
            .parameter("timestamp")
            .and_then(|t| t.parse().ok())
            .unwrap_or(0);
        let mut endpoints: Vec<Endpoint> = Vec::new();
        for u in self.exported.iter().map(|e| &e.url) {
            let protocol = u.protocol().unwrap_or("dubbo").to_owned();
            if !endpoints.iter().any(|e| e.protocol == protocol) {
                endpoints.push(Endpoint {
                    port: u.port(),
                    protocol,
                });
            }
        }
        let m = &mut instance.metadata;
        m.insert(REVISION_KEY.into(), info.revision.clone());
        m.insert(
            STORAGE_TYPE_KEY.into(),
            if self.remote_metadata {
                "remote"
            } else {
                "local"
            }
            .into(),
        );
        m.insert(
            ENDPOINTS_KEY.into(),
            serde_json::to_string(&endpoints).unwrap_or_default(),
        );
        if let Some(ms) = &self.metadata_service {
            let mut params: BTreeMap<String, String> = METADATA_URL_PARAMS
                .iter()
                .filter_map(|k| Some(((*k).to_owned(), ms.parameter(k)?.to_owned())))
                .collect();
            params.insert("port".into(), ms.port().to_string());
            params.insert(
                "protocol".into(),
                ms.protocol().unwrap_or("dubbo").to_owned(),
            );
            m.insert(
                METADATA_SERVICE_PARAMS_KEY.into(),
                serde_json::to_string(&params).unwrap_or_default(),
            );
        }
        m.insert(
            METADATA_VERSION_KEY.into(),
            metadata_service::VERSION.into(),
        );
        if let Some(t) = main.parameter("timestamp") {
            m.insert("timestamp".into(), t.to_owned());
        }
        Some(instance)
    }

    /// Withdraws every registration (shutdown's first phase).
    async fn withdraw(&mut self) {
        if self.withdrawn {
            return;
        }
        self.withdrawn = true;
        for (i, r) in self.registries.iter().enumerate() {
            let Some(conn) = r.connected() else { continue };
            for url in self.registered.remove(&i).unwrap_or_default() {
                if let Err(e) = conn.registry.unregister(&url).await {
                    tracing::warn!(registry = %r.url, error = %e, "cannot unregister {url}");
                }
            }
        }
        self.unpublish().await;
    }

    /// Unregisters the instance from every registry it was published in.
    async fn unpublish(&mut self) {
        for (i, instance) in std::mem::take(&mut self.published) {
            let Some(r) = self.registries.get(i) else {
                continue;
            };
            let Some(conn) = r.connected() else { continue };
            match conn.discovery.unregister(&instance).await {
                Ok(()) => tracing::info!(
                    registry = %r.url,
                    instance = %instance.id(),
                    "unregistered instance"
                ),
                Err(e) => {
                    tracing::warn!(registry = %r.url, error = %e, "cannot unregister instance")
                }
            }
        }
    }
}

/// Whether the export `url` goes to the registry with id `id`: every registry, unless the
/// service names some (`dubbo.services.<id>.registries`).
fn registers_with(url: &Url, id: &str) -> bool {
    match url.parameter(REGISTRY_IDS) {
        Some(ids) => ids.split(',').any(|i| i.trim() == id),
        None => true,
    }
}

/// The URL registered for an export: Java's registered form, without where the provider binds.
pub(crate) fn registered_url(url: &Url) -> Url {
    let url = without_credentials(url)
        .without_parameters(NOT_REGISTERED.iter().copied())
        .without_parameter(REGISTRY_IDS);
    url.with_parameter_if_absent("dynamic", "true")
        .with_parameter_if_absent("deprecated", "false")
        .with_parameter_if_absent("generic", "false")
        .with_parameter_if_absent("service-name-mapping", "true")
}

/// `url` without credentials, which never leave the process: Java's hidden keys
/// (`.accessKeyId`, `.secretAccessKey`, any key starting with `.`) and the HTTP Basic
/// `password`.
pub(crate) fn without_credentials(url: &Url) -> Url {
    let hidden: Vec<&str> = url
        .params()
        .keys()
        .filter(|k| k.starts_with('.') || *k == dubbo_core::filters::auth::PASSWORD_KEY)
        .collect();
    if hidden.is_empty() {
        return url.clone();
    }
    url.without_parameters(hidden.iter().copied())
}

/// How often an instance that failed to register is tried again.
const REPUBLISH_PERIOD: Duration = Duration::from_secs(5);

/// How long consumers get to see a withdrawal before the provider stops taking calls.
pub(crate) const UNREGISTER_WAIT: Duration = Duration::from_millis(1500);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_never_registered() {
        let url = Url::parse(
            "dubbo://127.0.0.1:20880/a.B?interface=a.B&auth=true&authenticator=accesskey&.accessKeyId=ak&.secretAccessKey=sk&username=u&password=pw&timeout=3",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let registered = registered_url(&url).to_full_string();
        for gone in [".accessKeyId", ".secretAccessKey", "password", "=sk", "=pw"] {
            assert!(!registered.contains(gone), "{gone} in {registered}");
        }
        // What consumers need to sign is still there (as in Java), the secret is not.
        for kept in [
            "auth=true",
            "authenticator=accesskey",
            "username=u",
            "timeout=3",
        ] {
            assert!(
                registered.contains(kept),
                "{kept} missing from {registered}"
            );
        }
    }
}
