//! The background task each file registry object owns: it runs the object's tick every poll
//! period (or at once when woken) until cancelled or the object is gone.

use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::error::RegistryError;

/// Starts the loop. The task holds `target` weakly, so dropping the object ends it even
/// without cancelling; the tick runs on the blocking pool since it reads directories.
pub(crate) fn spawn<T: Send + Sync + 'static>(
    target: Weak<T>,
    period: Duration,
    wake: Arc<Notify>,
    cancel: CancellationToken,
    tick: fn(&T),
) -> Result<(), RegistryError> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| RegistryError::Config {
        key: "runtime".to_owned(),
        reason: "the file registry must be created inside a tokio runtime".to_owned(),
    })?;
    runtime.spawn(async move {
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = tokio::time::sleep(period) => {}
                _ = wake.notified() => {}
            }
            let Some(t) = target.upgrade() else { return };
            if let Err(e) = tokio::task::spawn_blocking(move || tick(&t)).await {
                tracing::error!(error = %e, "file registry poll failed");
            }
        }
    });
    Ok(())
}
