//! The live catalog: once the catalog has been read, the admin subscribes to every service's
//! providers (`Registry::subscribe`: ZooKeeper's child watches, etcd's watches, the file
//! registry's notifications) and watches every application's instances
//! (`ServiceDiscovery::watch`), and applies each push to the one service or application it
//! concerns, instead of reading the whole registry again. Services and applications that
//! appear later are found by listing the names alone every [`LIST_EVERY`] and are subscribed
//! in turn. The parts changed are merged into a new catalog at most every [`SETTLE`] after a
//! change, with the metadata of new revisions read then. A whole re-read every
//! [`SAFETY_READ`] catches anything a watch missed.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use dubbo_cli::dubbo::app_level::IN_FLIGHT;
use dubbo_cli::dubbo::connect;
use dubbo_registry::{
    Category, InstancesListener, Notification, NotifyListener, Registry, RegistryError,
    ServiceDiscovery, ServiceInstance,
};
use dubbo_url::Url;
use futures::stream::{self, StreamExt};
use tokio::sync::mpsc;

use crate::catalog_read::{self, Parts};
use crate::interner::Interner;
use crate::state::{AdminState, READ_SPACING};

/// How often the names of services and applications are listed, to subscribe new ones (at
/// least [`READ_SPACING`] times as long as the last listing took).
pub const LIST_EVERY: Duration = Duration::from_secs(1);

/// How long changes are gathered after the first before the catalog is made again.
pub const SETTLE: Duration = Duration::from_millis(100);

/// How often the whole registry is read again, whatever the watches said.
pub const SAFETY_READ: Duration = Duration::from_secs(600);

/// One push from the registry.
enum Change {
    /// A service's providers: the complete current list.
    Providers(String, Arc<[Url]>),
    /// An application's instances: the complete current list.
    Instances(String, Vec<ServiceInstance>),
}

/// Puts one push into `parts`: the service's providers or the application's instances it
/// lists replace those there were; an empty list (`empty://` alone, or no instance) removes
/// them.
fn apply(parts: &mut Parts, change: Change, texts: &Mutex<Interner>) {
    match change {
        Change::Providers(service, urls) => {
            let list = catalog_read::providers_of_urls(&urls, texts);
            if list.is_empty() {
                parts.interface.remove(&service);
            } else {
                parts.interface.insert(service, list);
            }
        }
        Change::Instances(app, list) => {
            if list.is_empty() {
                parts.apps.remove(&app);
            } else {
                parts.apps.insert(app, list);
            }
        }
    }
}

/// Starts keeping `state`'s catalog current from `parts` (just read) and the registry's
/// pushes. Answers whether it started: when the registry cannot be subscribed to, the caller
/// keeps re-reading it instead.
pub(crate) async fn start(state: &Arc<AdminState>, parts: Parts) -> bool {
    let registry = match connect::registry(&state.ext, &state.registry_url).await {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(error = %e, "cannot subscribe to the registry; re-reading it instead");
            return false;
        }
    };
    let discovery = match connect::discovery(&state.ext, &state.registry_url).await {
        Ok(d) => d,
        Err(e) => {
            tracing::warn!(error = %e, "cannot watch the discovery; re-reading it instead");
            registry.destroy().await;
            return false;
        }
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let live = Live {
        state: Arc::downgrade(state),
        registry,
        discovery,
        tx,
        services: HashSet::new(),
        apps: HashSet::new(),
        parts,
    };
    tokio::spawn(live.run(rx));
    true
}

/// The live task's state: its own registry connections, what it subscribed to, the parts.
struct Live {
    state: Weak<AdminState>,
    registry: Arc<dyn Registry>,
    discovery: Arc<dyn ServiceDiscovery>,
    tx: mpsc::UnboundedSender<Change>,
    /// Services subscribed to.
    services: HashSet<String>,
    /// Applications watched.
    apps: HashSet<String>,
    parts: Parts,
}

impl Live {
    /// Applies pushes, lists names and re-reads until the admin stops.
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Change>) {
        let services: Vec<String> = self.parts.interface.keys().cloned().collect();
        let apps: Vec<String> = self.parts.apps.keys().cloned().collect();
        self.subscribe(services, apps).await;
        let mut next_list = tokio::time::Instant::now() + LIST_EVERY;
        let mut safety =
            tokio::time::interval_at(tokio::time::Instant::now() + SAFETY_READ, SAFETY_READ);
        let stop = match self.state.upgrade() {
            Some(s) => s.stopping(),
            None => return,
        };
        loop {
            tokio::select! {
                _ = stop.notified() => break,
                change = rx.recv() => {
                    let Some(change) = change else { break };
                    self.apply(change);
                    tokio::time::sleep(SETTLE).await;
                    while let Ok(change) = rx.try_recv() {
                        self.apply(change);
                    }
                    if !self.rebuild().await {
                        break;
                    }
                }
                _ = tokio::time::sleep_until(next_list) => {
                    // Listing a registry that takes long to list takes a fifth of the time at most.
                    let started = tokio::time::Instant::now();
                    self.list_new().await;
                    next_list = tokio::time::Instant::now()
                        + LIST_EVERY.max(started.elapsed() * READ_SPACING);
                }
                _ = safety.tick() => {
                    if !self.read_again().await {
                        break;
                    }
                }
            }
        }
        self.registry.destroy().await;
        self.discovery.destroy().await;
    }

    /// Puts one push into the parts.
    fn apply(&mut self, change: Change) {
        if let Some(state) = self.state.upgrade() {
            apply(&mut self.parts, change, &state.texts);
        }
    }

    /// Makes the catalog of the parts (new revisions' metadata read first) and puts it in
    /// place. False once the admin is gone.
    async fn rebuild(&mut self) -> bool {
        let Some(state) = self.state.upgrade() else {
            return false;
        };
        let started = Instant::now();
        catalog_read::refresh_metadata(
            &mut self.parts,
            &state.ext,
            &state.registry_url,
            &state.texts,
            &state.fetched,
        )
        .await;
        let qos = |app: &str| state.settings.qos_port_of(app);
        let catalog = catalog_read::build(&self.parts, &qos, &state.texts);
        tracing::debug!(
            providers = catalog.providers.len(),
            instances = catalog.instances.len(),
            ms = started.elapsed().as_millis() as u64,
            "catalog updated from the registry's pushes"
        );
        state.install(Arc::new(catalog), started);
        true
    }

    /// Subscribes to the services and applications listed now that are not yet.
    async fn list_new(&mut self) {
        let services = match self.registry.services().await {
            Ok(list) => list,
            Err(RegistryError::Unsupported { .. }) => Vec::new(),
            Err(e) => {
                tracing::debug!(error = %e, "cannot list the services");
                Vec::new()
            }
        };
        let apps = match self.discovery.applications().await {
            Ok(list) => list,
            Err(RegistryError::Unsupported { .. }) => Vec::new(),
            Err(e) => {
                tracing::debug!(error = %e, "cannot list the applications");
                Vec::new()
            }
        };
        self.subscribe(services, apps).await;
    }

    /// Reads the whole registry again and subscribes to what is new. False once the admin
    /// is gone.
    async fn read_again(&mut self) -> bool {
        let Some(state) = self.state.upgrade() else {
            return false;
        };
        let started = Instant::now();
        match catalog_read::read_parts(
            &state.ext,
            &state.registry_url,
            &state.texts,
            &state.fetched,
        )
        .await
        {
            Ok(parts) => {
                self.parts = parts;
                let services: Vec<String> = self.parts.interface.keys().cloned().collect();
                let apps: Vec<String> = self.parts.apps.keys().cloned().collect();
                self.subscribe(services, apps).await;
                let qos = |app: &str| state.settings.qos_port_of(app);
                let catalog = catalog_read::build(&self.parts, &qos, &state.texts);
                state.install(Arc::new(catalog), started);
                state.count_full_read();
            }
            Err(e) => {
                tracing::warn!(error = %e, "reading the registry again failed; keeping the catalog")
            }
        }
        true
    }

    /// Subscribes to each service of `services` and watches each application of `apps` not
    /// subscribed to yet; their first pushes come through the channel.
    async fn subscribe(&mut self, services: Vec<String>, apps: Vec<String>) {
        let new_services: Vec<String> = services
            .into_iter()
            .filter(|s| !self.services.contains(s))
            .collect();
        let new_apps: Vec<String> = apps
            .into_iter()
            .filter(|a| !self.apps.contains(a))
            .collect();
        let done: Vec<Option<String>> = stream::iter(new_services)
            .map(|service| {
                let registry = Arc::clone(&self.registry);
                let tx = self.tx.clone();
                async move {
                    let url = connect::any_provider_of(&service).ok()?;
                    let name = service.clone();
                    let listener: Arc<dyn NotifyListener> = Arc::new(move |n: Notification| {
                        if n.category == Category::Providers {
                            let _ = tx.send(Change::Providers(name.clone(), n.urls));
                        }
                    });
                    match registry.subscribe(&url, listener).await {
                        Ok(()) => Some(service),
                        Err(e) => {
                            tracing::debug!(service = %service, error = %e, "cannot subscribe");
                            None
                        }
                    }
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        self.services.extend(done.into_iter().flatten());
        let done: Vec<Option<String>> = stream::iter(new_apps)
            .map(|app| {
                let discovery = Arc::clone(&self.discovery);
                let tx = self.tx.clone();
                async move {
                    let listener: Arc<dyn InstancesListener> =
                        Arc::new(move |app: &str, list: Vec<ServiceInstance>| {
                            let _ = tx.send(Change::Instances(app.to_owned(), list));
                        });
                    match discovery.watch(&app, listener).await {
                        Ok(()) => Some(app),
                        Err(e) => {
                            tracing::debug!(app = %app, error = %e, "cannot watch");
                            None
                        }
                    }
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        self.apps.extend(done.into_iter().flatten());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(texts: &[&str]) -> Arc<[Url]> {
        texts.iter().map(|t| Url::parse(t).unwrap()).collect()
    }

    /// Pushes replace one service's providers or one application's instances; `empty://` and
    /// an empty instance list remove them; the catalog made from the parts shows just that.
    #[test]
    fn pushes_replace_and_remove_one_part_each() {
        let texts = Mutex::new(Interner::new());
        let mut parts = Parts::default();
        let a = "dubbo://127.0.0.1:20880/org.A?interface=org.A&application=one&side=provider";
        let b = "dubbo://127.0.0.1:20881/org.B?interface=org.B&application=two&side=provider";
        apply(
            &mut parts,
            Change::Providers("org.A".into(), urls(&[a])),
            &texts,
        );
        apply(
            &mut parts,
            Change::Providers("org.B".into(), urls(&[b])),
            &texts,
        );
        apply(
            &mut parts,
            Change::Instances(
                "three".into(),
                vec![ServiceInstance::new("three", "127.0.0.1", 20990)],
            ),
            &texts,
        );
        let shared = Arc::new(texts);
        let qos = |_: &str| 22222;
        let catalog = catalog_read::build(&parts, &qos, &shared);
        assert_eq!(catalog.providers.len(), 2);
        assert_eq!(catalog.instances.len(), 3, "{:?}", catalog.instances);

        apply(
            &mut parts,
            Change::Providers(
                "org.A".into(),
                urls(&["empty://127.0.0.1/org.A?category=providers"]),
            ),
            &shared,
        );
        apply(
            &mut parts,
            Change::Instances("three".into(), Vec::new()),
            &shared,
        );
        let catalog = catalog_read::build(&parts, &qos, &shared);
        let services: Vec<&str> = catalog.providers.iter().map(|p| &*p.service).collect();
        assert_eq!(services, vec!["org.B"]);
        let apps: Vec<&str> = catalog.instances.iter().map(|i| &*i.application).collect();
        assert_eq!(apps, vec!["two"]);
    }
}
