//! The provider side of governance: the override rules of the application
//! (`{app}.configurators`) and of each exported service (`{service}.configurators`), handed to
//! the registration task, which registers the exports again as the rules configure them.

use std::sync::Arc;

use dubbo_cluster::configurator::Configurators;
use dubbo_config_center::{DynamicConfiguration, RuleKey, RuleKind};
use tokio::sync::mpsc;

use super::center::ConfigCenter;
use super::reference::RETRY;
use super::watcher::RuleWatcher;
use crate::application::Application;
use crate::listeners::ServiceListener;
use crate::registry::{colon_key, Event, OverrideScope, RegistryLayer};
use crate::view::ExportedService;

/// Tells the rule task which services are exported.
struct Exports(mpsc::UnboundedSender<(String, bool)>);

impl ServiceListener for Exports {
    fn exported(&self, service: &ExportedService) {
        let _ = self.0.send((colon_key(&service.url), true));
    }

    fn unexported(&self, service: &ExportedService) {
        let _ = self.0.send((colon_key(&service.url), false));
    }
}

/// Follows the provider-side override rules of `app` until it stops: from now on inside a
/// runtime, else once the application is ready (exports made before are caught up then).
pub(crate) fn follow_provider(
    app: &Application,
    center: Arc<ConfigCenter>,
    layer: Arc<RegistryLayer>,
) {
    let (tx, exports) = mpsc::unbounded_channel();
    app.add_service_listener(Arc::new(Exports(tx)));
    if tokio::runtime::Handle::try_current().is_ok() {
        spawn(app, center, layer, exports);
    } else {
        let ready_app = app.clone();
        app.on_ready(move || async move { spawn(&ready_app, center, layer, exports) });
    }
}

fn spawn(
    app: &Application,
    center: Arc<ConfigCenter>,
    layer: Arc<RegistryLayer>,
    mut exports: mpsc::UnboundedReceiver<(String, bool)>,
) {
    let framework = app.framework().clone();
    let name = app.name().to_owned();
    app.tasks().spawn("provider override rules", move |stop| async move {
        let (mut watcher, mut rx) = RuleWatcher::new(center.change_counter(&framework, &name));
        watcher.want(
            OverrideScope::Application,
            RuleKey::application(&name, RuleKind::Configurators),
        );
        let mut center_conn: Option<Arc<dyn DynamicConfiguration>> = None;
        let mut counts: std::collections::HashMap<String, usize> = Default::default();
        loop {
            if center_conn.is_none() {
                center_conn = center.reach(framework.extensions()).await;
            }
            let pending = match &center_conn {
                Some(c) => {
                    let (now, pending) = watcher.arm(c).await;
                    for (scope, key, content) in now {
                        apply(&layer, scope, &key, content);
                    }
                    pending
                }
                None => true,
            };
            tokio::select! {
                _ = stop.cancelled() => break,
                Some((scope, key, content)) = rx.recv() => {
                    if watcher.is_current(&scope, &key) {
                        apply(&layer, scope, &key, content);
                    }
                }
                Some((service, exported)) = exports.recv() => {
                    // A service exported over several protocols is watched once.
                    let n = counts.entry(service.clone()).or_default();
                    if exported {
                        *n += 1;
                    } else {
                        *n = n.saturating_sub(1);
                    }
                    let scope = OverrideScope::Service(service.clone());
                    if *n == 0 {
                        counts.remove(&service);
                        watcher.unwant(&scope);
                    } else {
                        let (iface, rest) = service.split_once(':').unwrap_or((&service, ":"));
                        let (version, group) = rest.split_once(':').unwrap_or((rest, ""));
                        watcher.want(scope, RuleKey::service(iface, version, group, RuleKind::Configurators));
                    }
                }
                _ = tokio::time::sleep(RETRY), if pending => {}
            }
        }
        if let Some(c) = center_conn {
            watcher.disarm(&c).await;
        }
    });
}

/// Hands the rule read at `key` to the registration task; a rule that does not parse is
/// refused and the rule in force stays.
fn apply(layer: &RegistryLayer, scope: OverrideScope, key: &str, content: Option<String>) {
    let content = content.filter(|c| !c.trim().is_empty());
    match content.as_deref().map(Configurators::from_yaml).transpose() {
        Ok(rules) => {
            tracing::info!(
                key,
                present = rules.is_some(),
                "provider override rule applied"
            );
            layer.send(Event::Overrides(scope, rules.unwrap_or_default()));
        }
        Err(e) => {
            tracing::warn!(key, code = e.code(), reason = %e, "rule refused; the rule in force stays")
        }
    }
}
