//! Starts an application's tracer when `dubbo.tracing.enabled` is true: installed in the
//! framework for the tracing filters to find, with its exporter as a background task.

use std::sync::Arc;

use dubbo_tracing::Tracer;

use crate::application::Application;
use crate::config::{tracer_config, ConfigError};
use crate::lifecycle::ShutdownPhase;

const ENDPOINT_KEY: &str = "dubbo.tracing.tracing-exporter.otlp-config.endpoint";

/// Installs `app`'s tracer if its configuration enables tracing. The exporter stops with the
/// application's background tasks, after sending what is queued; the tracer is removed while
/// the protocols drain, so later spans are not offered to a stopped exporter.
pub(crate) fn start(app: &Application) -> Result<(), ConfigError> {
    let Some(mut config) = tracer_config(app.config())? else {
        return Ok(());
    };
    config.application = app.name().to_owned();
    let (tracer, exporter) =
        Tracer::new(config).map_err(|e| ConfigError::invalid(ENDPOINT_KEY, e.to_string()))?;
    if let Some(exporter) = exporter {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(ConfigError::invalid(
                ENDPOINT_KEY,
                "spans are exported by a Tokio task: build the application inside a Tokio runtime",
            ));
        }
        app.tasks().spawn("tracing-export", move |cancel| {
            exporter.run(async move { cancel.cancelled().await })
        });
    }
    let tracer = Arc::new(tracer);
    let tracers = app.framework().tracers().clone();
    tracers.install(tracer.clone());
    app.on_shutdown(ShutdownPhase::Drain, move || async move {
        tracers.remove(&tracer);
    });
    Ok(())
}
