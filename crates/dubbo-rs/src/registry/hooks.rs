//! How the registry layer hooks into the application: it listens to exports, publishes the
//! instance when the application is ready, and withdraws everything first at shutdown.

use std::sync::Arc;

use super::{Event, MetadataServiceHandler, RegistryLayer, INTERFACE, UNREGISTER_WAIT, VERSION};
use crate::application::Application;
use crate::lifecycle::ShutdownPhase;
use crate::options::ServiceOptions;

/// Installs `layer`'s hooks on `app` (once, when the application is built).
pub(crate) fn install(app: &Application, layer: Arc<RegistryLayer>) {
    app.add_service_listener(Arc::new(layer.watcher()));

    let ready_app = app.clone();
    let ready_layer = layer.clone();
    app.on_ready(move || async move {
        ready_layer.start(ready_app.tasks());
        if ready_layer.instance_level() {
            export_metadata_service(&ready_app, &ready_layer).await;
        }
        ready_layer.request(Event::Publish).await;
    });

    let unregister_layer = layer.clone();
    let grace = app
        .config()
        .application
        .shutdown_wait
        .map(std::time::Duration::from_millis)
        .unwrap_or(crate::DEFAULT_SHUTDOWN_WAIT);
    app.on_shutdown(ShutdownPhase::Unregister, move || async move {
        if !unregister_layer.any_registering() {
            return;
        }
        unregister_layer.request(Event::Withdraw).await;
        // Consumers learn of the withdrawal through their registry's push; give them that
        // long before the provider stops taking calls.
        tokio::time::sleep(UNREGISTER_WAIT.min(grace)).await;
    });

    app.on_shutdown(ShutdownPhase::Close, move || async move {
        layer.close().await;
    });
}

/// Serves the MetadataService (group = application name, version 1.0.0) on the
/// application's dubbo protocol (else its first protocol), unregistered.
async fn export_metadata_service(app: &Application, layer: &Arc<RegistryLayer>) {
    let protocols = app.config().all_protocols();
    let id = protocols
        .iter()
        .find(|(id, c)| c.protocol_name(id) == "dubbo")
        .or_else(|| protocols.first())
        .map(|(id, _)| id.clone());
    let mut options = ServiceOptions::new()
        .interface(INTERFACE)
        .group(app.name())
        .version(VERSION)
        .parameter("register", "false");
    if let Some(id) = id {
        options = options.protocol(id);
    }
    let handler = MetadataServiceHandler::new(app.name(), layer.metadata.clone());
    match app.module("metadata").export(handler, options).await {
        Ok(urls) => {
            let url = urls
                .iter()
                .find(|u| u.protocol() == Some("dubbo"))
                .or_else(|| urls.first());
            if let Some(url) = url {
                layer.send(Event::MetadataService(url.clone()));
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot serve the MetadataService"),
    }
}
