//! Registries inside an application: providers register their exports, the application's
//! instance and metadata; references are fed by registry pushes.
//!
//! The layer is created with the application when its configuration names a registry, and
//! owned by it: a registration task (in export order), one connection per registry, the
//! MetadataService's state, and the metadata consumers fetched.

mod app_resolver;
mod consumer;
mod definitions;
mod handoff;
mod hooks;
mod instance_metadata;
mod metadata_service;
mod migration;
pub mod modes;
mod online;
mod provider;
mod registries;
mod sources;

use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot};

pub(crate) use app_resolver::{MetadataCache, ReferFn};
pub(crate) use consumer::{subscribe, SubscribeContext, Subscription};
pub(crate) use hooks::install;
pub(crate) use metadata_service::{
    java_service_key, MetadataServiceHandler, MetadataState, INTERFACE, VERSION,
};
pub(crate) use migration::Mode;
pub use modes::{MigrationStep, RegisterMode};
pub(crate) use online::Switch;
pub(crate) use provider::{
    colon_key, without_credentials, Event, ExportWatcher, OverrideScope, Registrar, UNREGISTER_WAIT,
};
pub(crate) use registries::{from_config, AppRegistry};

use crate::sync::lock;
use crate::tasks::BackgroundTasks;

/// The provider URL parameter naming the registries a service registers with (from
/// `dubbo.services.<id>.registries`); never registered itself.
pub(crate) const REGISTRY_IDS: &str = "registry-ids";

/// The application's registry layer.
pub(crate) struct RegistryLayer {
    pub(crate) registries: Vec<Arc<AppRegistry>>,
    pub(crate) metadata: Arc<MetadataState>,
    pub(crate) cache: Arc<MetadataCache>,
    pub(crate) step: MigrationStep,
    pub(crate) threshold: f64,
    events: mpsc::UnboundedSender<Event>,
    /// The registration task, until it is started (on the first use inside a runtime).
    pending: Mutex<Option<Registrar>>,
    receiver: Mutex<Option<mpsc::UnboundedReceiver<Event>>>,
}

impl RegistryLayer {
    pub(crate) fn new(
        app: &str,
        framework: Arc<crate::Framework>,
        registries: Vec<Arc<AppRegistry>>,
        remote_metadata: bool,
        step: MigrationStep,
        threshold: f64,
    ) -> Self {
        let metadata = Arc::new(MetadataState::new(app));
        let (events, receiver) = mpsc::unbounded_channel();
        let registrar = Registrar::new(
            app,
            framework,
            registries.clone(),
            remote_metadata,
            metadata.clone(),
        );
        Self {
            registries,
            metadata,
            cache: Arc::new(MetadataCache::default()),
            step,
            threshold,
            events,
            pending: Mutex::new(Some(registrar)),
            receiver: Mutex::new(Some(receiver)),
        }
    }

    /// The listener of exports that feeds the registration task.
    pub(crate) fn watcher(&self) -> ExportWatcher {
        ExportWatcher {
            events: self.events.clone(),
        }
    }

    /// Starts the registration task if it is not running yet (needs a Tokio runtime).
    pub(crate) fn start(&self, tasks: &BackgroundTasks) {
        let registrar = lock(&self.pending).take();
        let receiver = lock(&self.receiver).take();
        if let (Some(registrar), Some(receiver)) = (registrar, receiver) {
            tasks.spawn("registration", move |stop| async move {
                tokio::select! {
                    _ = stop.cancelled() => {}
                    _ = registrar.run(receiver) => {}
                }
            });
        }
    }

    /// Whether the application registers an instance anywhere (and so serves a
    /// MetadataService).
    pub(crate) fn instance_level(&self) -> bool {
        self.registries
            .iter()
            .any(|r| r.register && r.mode.instance_level())
    }

    pub(crate) fn send(&self, event: Event) {
        let _ = self.events.send(event);
    }

    /// Sends an event that answers when handled, and waits for it.
    pub(crate) async fn request(&self, make: impl FnOnce(oneshot::Sender<()>) -> Event) {
        let (tx, rx) = oneshot::channel();
        if self.events.send(make(tx)).is_ok() {
            let _ = rx.await;
        }
    }

    /// Runs an `offline` / `online` switch in order with the other registration events, and
    /// waits until it is done.
    pub(crate) async fn set_online(&self, switch: Switch) {
        let (done, applied) = oneshot::channel();
        self.send(Event::SetOnline(switch, done));
        // Before the application is ready the task is not running yet; it applies the switch,
        // in order, once it starts.
        if lock(&self.pending).is_none() {
            let _ = applied.await;
        }
    }

    /// Closes every registry connection (the last step of shutdown).
    pub(crate) async fn close(&self) {
        for r in &self.registries {
            if let Some(c) = r.connected() {
                c.discovery.destroy().await;
                c.registry.destroy().await;
            }
        }
    }

    /// Whether anything at all may have been registered.
    pub(crate) fn any_registering(&self) -> bool {
        self.registries.iter().any(|r| r.register)
    }
}
