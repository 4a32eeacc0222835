//! The rules one registry-fed reference reads from the config centre, and where each goes:
//! override rules into its directory, condition and tag rules into its router chain, the
//! migration rule into its subscription.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use dubbo_cluster::configurator::{ConfiguratorSource, Configurators};
use dubbo_cluster::directory::DynamicDirectory;
use dubbo_cluster::router::{ConditionRule, RouterChain, RuleScope, TagRule};
use dubbo_config_center::{DynamicConfiguration, RuleKey, RuleKind};
use dubbo_url::Url;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::center::ConfigCenter;
use super::migration_rule::{Migration, MigrationRule};
use super::watcher::RuleWatcher;
use crate::registry::Subscription;
use crate::tasks::BackgroundTasks;

/// How often keys that could not be watched (config centre unreachable) are tried again.
pub(crate) const RETRY: Duration = Duration::from_secs(2);

/// Where a rule goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Slot {
    /// `{consumer app}.configurators`.
    AppOverride,
    /// `{interface}:{version}:{group}.configurators`.
    ServiceOverride,
    /// `{consumer app}.condition-router`.
    AppCondition,
    /// `{interface}:{version}:{group}.condition-router`.
    ServiceCondition,
    /// `{provider app}.condition-router` (Java's `ProviderAppStateRouter`).
    ProviderAppCondition,
    /// `{provider app}.tag-router`.
    Tag,
    /// `{consumer app}.migration`.
    Migration,
}

/// What a reference needs to follow its rules.
pub(crate) struct ReferenceRules {
    pub(crate) center: Arc<ConfigCenter>,
    pub(crate) framework: Arc<crate::Framework>,
    /// The consumer's application.
    pub(crate) app: String,
    pub(crate) consumer: Url,
    pub(crate) directory: Arc<DynamicDirectory>,
    pub(crate) routers: Arc<RouterChain>,
    pub(crate) subscription: Arc<Subscription>,
    /// The migration settings when no rule says otherwise.
    pub(crate) defaults: Migration,
}

/// The watching task's state.
struct Follower {
    rules: ReferenceRules,
    migration: Option<MigrationRule>,
    provider_app: Option<String>,
}

/// Starts following the rules of one reference until `cancel` (the reference is released) or
/// the application stops.
pub(crate) fn follow(
    rules: ReferenceRules,
    tasks: &BackgroundTasks,
    cancel: CancellationToken,
) -> Settled {
    let (settled_tx, settled) = watch::channel(Progress::default());
    let settled = Settled {
        progress: settled,
        provider_app: rules.subscription.provider_app.clone(),
    };
    let name = format!(
        "rules of {}",
        rules.consumer.service_interface().unwrap_or_default()
    );
    tasks.spawn(name, move |stop| async move {
        let counter = rules.center.change_counter(&rules.framework, &rules.app);
        let (mut watcher, mut rx) = RuleWatcher::new(counter);
        for (slot, key) in static_keys(&rules.app, &rules.consumer) {
            watcher.want(slot, key);
        }
        let mut overrides = rules.subscription.overrides.clone();
        let mut provider_app = rules.subscription.provider_app.clone();
        let mut f = Follower {
            rules,
            migration: None,
            provider_app: None,
        };
        let mut center: Option<Arc<dyn DynamicConfiguration>> = None;
        loop {
            if center.is_none() {
                center = f.rules.center.reach(f.rules.framework.extensions()).await;
            }
            let pending = match &center {
                Some(c) => {
                    let (now, pending) = watcher.arm(c).await;
                    for (slot, key, content) in now {
                        f.apply(slot, &key, content).await;
                    }
                    pending
                }
                None => true,
            };
            settled_tx.send_replace(Progress {
                unreachable: center.is_none(),
                armed: !pending,
                provider_app: f.provider_app.clone(),
            });
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = cancel.cancelled() => break,
                Some((slot, key, content)) = rx.recv() => {
                    if watcher.is_current(&slot, &key) {
                        f.apply(slot, &key, content).await;
                    }
                }
                changed = overrides.changed() => {
                    if changed.is_err() { break }
                    let urls = overrides.borrow_and_update().clone();
                    f.rules
                        .directory
                        .set_configurators(ConfiguratorSource::Registry, Configurators::from_override_urls(&urls))
                        .await;
                }
                changed = provider_app.changed() => {
                    if changed.is_err() { break }
                    let app = provider_app.borrow_and_update().clone();
                    if let Some(app) = f.provider_app_changed(app).await {
                        watcher.want(Slot::Tag, RuleKey::application(&app, RuleKind::TagRouter));
                        // The consumer's own application rule already covers its own
                        // providers, so Java reads this key only for another application.
                        if app != f.rules.app {
                            watcher.want(
                                Slot::ProviderAppCondition,
                                RuleKey::application(&app, RuleKind::ConditionRouter),
                            );
                        } else {
                            watcher.unwant(&Slot::ProviderAppCondition);
                            f.rules.routers.clear_condition_rule(RuleScope::ProviderApplication);
                        }
                    }
                }
                _ = tokio::time::sleep(RETRY), if pending => {}
            }
        }
        if let Some(c) = center {
            watcher.disarm(&c).await;
        }
    });
    settled
}

/// How far a reference's rule task has come, after each pass over its keys.
#[derive(Debug, Clone, Default, PartialEq)]
struct Progress {
    /// The config centre could not be reached: there is nothing to wait for.
    unreachable: bool,
    /// Every wanted key is watched and its value applied.
    armed: bool,
    /// The providers' application whose tag rule was wanted in that pass.
    provider_app: Option<String>,
}

/// Tells when the rules in force at the time a reference is made have been applied to it.
pub(crate) struct Settled {
    progress: watch::Receiver<Progress>,
    provider_app: watch::Receiver<Option<String>>,
}

impl Settled {
    /// Waits, at most `bound`, until the rules read when the reference was made are in force
    /// (Java reads them before its first call), including the tag rule of the providers'
    /// application once the providers are known.
    pub(crate) async fn wait(mut self, bound: Duration) {
        let provider_app = self.provider_app.borrow().clone();
        let done = |p: &Progress| {
            p.unreachable || (p.armed && (provider_app.is_none() || p.provider_app == provider_app))
        };
        let _ = tokio::time::timeout(bound, self.progress.wait_for(done)).await;
    }
}

/// The keys known from the start: everything but the tag rule, which is the providers'
/// application's.
fn static_keys(app: &str, consumer: &Url) -> HashMap<Slot, RuleKey> {
    let iface = consumer.service_interface().unwrap_or_default();
    let version = consumer.parameter("version").unwrap_or_default();
    let group = consumer.parameter("group").unwrap_or_default();
    HashMap::from([
        (
            Slot::AppOverride,
            RuleKey::application(app, RuleKind::Configurators),
        ),
        (
            Slot::ServiceOverride,
            RuleKey::service(iface, version, group, RuleKind::Configurators),
        ),
        (
            Slot::AppCondition,
            RuleKey::application(app, RuleKind::ConditionRouter),
        ),
        (
            Slot::ServiceCondition,
            RuleKey::service(iface, version, group, RuleKind::ConditionRouter),
        ),
        (
            Slot::Migration,
            RuleKey::application(app, RuleKind::Migration),
        ),
    ])
}

impl Follower {
    /// Notes the providers' application; answers it when it is new (its tag rule is then
    /// the one to watch).
    async fn provider_app_changed(&mut self, app: Option<String>) -> Option<String> {
        let app = app?;
        if self.provider_app.as_deref() == Some(app.as_str()) {
            return None;
        }
        self.provider_app = Some(app.clone());
        // Application entries of the migration rule are about provider applications.
        self.migrate().await;
        Some(app)
    }

    /// Puts the rule `content` of `slot` (read at `key`) in force; `None` (the rule was
    /// deleted) takes it away. A rule that does not parse leaves the rule in force as it was.
    async fn apply(&mut self, slot: Slot, key: &str, content: Option<String>) {
        let content = content.filter(|c| !c.trim().is_empty());
        let refused = |reason: String| {
            tracing::warn!(key, reason = %reason, "rule refused; the rule in force stays");
        };
        match slot {
            Slot::AppOverride | Slot::ServiceOverride => {
                let source = if slot == Slot::AppOverride {
                    ConfiguratorSource::Application
                } else {
                    ConfiguratorSource::Service
                };
                let parsed = content.as_deref().map(Configurators::from_yaml).transpose();
                match parsed {
                    Ok(c) => {
                        self.rules
                            .directory
                            .set_configurators(source, c.unwrap_or_default())
                            .await;
                        tracing::info!(key, present = content.is_some(), "override rule applied");
                    }
                    Err(e) => refused(e.to_string()),
                }
            }
            Slot::AppCondition | Slot::ServiceCondition | Slot::ProviderAppCondition => {
                let scope = match slot {
                    Slot::AppCondition => RuleScope::Application,
                    Slot::ProviderAppCondition => RuleScope::ProviderApplication,
                    _ => RuleScope::Service,
                };
                match content.as_deref().map(ConditionRule::from_yaml).transpose() {
                    Ok(Some(mut rule)) => {
                        // The key decides the slot, as Java's service and application
                        // routers each read their own key.
                        rule.scope = scope;
                        self.rules.routers.set_condition_rule(rule);
                        tracing::info!(key, "condition rule applied");
                    }
                    Ok(None) => self.rules.routers.clear_condition_rule(scope),
                    Err(e) => refused(e.to_string()),
                }
            }
            Slot::Tag => match content.as_deref().map(TagRule::from_yaml).transpose() {
                Ok(rule) => {
                    tracing::info!(key, present = rule.is_some(), "tag rule applied");
                    self.rules.routers.set_tag_rule(rule);
                }
                Err(e) => refused(e.to_string()),
            },
            Slot::Migration => match content.as_deref().map(MigrationRule::from_yaml).transpose() {
                Ok(rule) => {
                    self.migration = rule;
                    self.migrate().await;
                }
                Err(reason) => refused(reason),
            },
        }
    }

    /// Moves the reference to the step the migration rule in force gives it.
    async fn migrate(&mut self) {
        let target = match &self.migration {
            Some(rule) => {
                let consumer = &self.rules.consumer;
                let iface = consumer.service_interface().unwrap_or_default().to_owned();
                let mut keys = vec![iface.clone()];
                if let Some(v) = consumer.parameter("version").filter(|v| !v.is_empty()) {
                    keys.push(format!("{iface}:{v}"));
                }
                keys.extend(consumer.service_key());
                let apps: Vec<String> = self.provider_app.iter().cloned().collect();
                rule.resolve(&keys, &apps, self.rules.defaults)
            }
            None => self.rules.defaults,
        };
        self.rules
            .subscription
            .migrate(
                crate::registry::Mode {
                    step: target.step,
                    threshold: target.threshold,
                    proportion: target.proportion,
                },
                target.force,
                target.delay,
            )
            .await;
    }
}
