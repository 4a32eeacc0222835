//! The rules one registry-fed reference reads from the config centre, and where each goes:
//! override rules into its directory, condition and tag rules into its router chain, the
//! migration rule into its subscription.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use dubbo_cluster::configurator::{ConfiguratorSource, Configurators};
use dubbo_cluster::directory::DynamicDirectory;
use dubbo_cluster::router::{ConditionRule, RouterChain, RuleScope, TagRule};
use dubbo_config_center::{
    ConfigChangedEvent, ConfigListener, DynamicConfiguration, RuleKey, RuleKind,
};
use dubbo_url::Url;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::center::ConfigCenter;
use super::migration_rule::{Migration, MigrationRule};
use crate::registry::Subscription;
use crate::tasks::BackgroundTasks;

/// How often keys that could not be watched (config centre unreachable) are tried again.
const RETRY: Duration = Duration::from_secs(2);

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

/// A key being watched: the listener to remove when it changes or the reference goes.
struct Armed {
    key: RuleKey,
    listener: Arc<dyn ConfigListener>,
}

/// The watching task's state.
struct Follower {
    rules: ReferenceRules,
    wanted: HashMap<Slot, RuleKey>,
    armed: HashMap<Slot, Armed>,
    events: mpsc::UnboundedSender<(Slot, String, Option<String>)>,
    migration: Option<MigrationRule>,
    provider_app: Option<String>,
}

/// Starts following the rules of one reference until `cancel` (the reference is released) or
/// the application stops.
pub(crate) fn follow(rules: ReferenceRules, tasks: &BackgroundTasks, cancel: CancellationToken) {
    let name = format!(
        "rules of {}",
        rules.consumer.service_interface().unwrap_or_default()
    );
    tasks.spawn(name, move |stop| async move {
        let (events, mut rx) = mpsc::unbounded_channel();
        let mut overrides = rules.subscription.overrides.clone();
        let mut provider_app = rules.subscription.provider_app.clone();
        let mut f = Follower {
            wanted: static_keys(&rules.app, &rules.consumer),
            rules,
            armed: HashMap::new(),
            events,
            migration: None,
            provider_app: None,
        };
        let mut center: Option<Arc<dyn DynamicConfiguration>> = None;
        loop {
            if center.is_none() {
                match f.rules.center.connect(f.rules.framework.extensions()).await {
                    Ok(c) => center = Some(c),
                    Err(e) => tracing::debug!(
                        center = %f.rules.center.url, code = e.code(), error = %e,
                        "config centre unreachable; rules are read once it is back"
                    ),
                }
            }
            let pending = match &center {
                Some(c) => f.arm(c).await,
                None => true,
            };
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = cancel.cancelled() => break,
                Some((slot, key, content)) = rx.recv() => {
                    if f.armed.get(&slot).is_some_and(|a| a.key.key == key) {
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
                    f.provider_app_changed(app).await;
                }
                _ = tokio::time::sleep(RETRY), if pending => {}
            }
        }
        if let Some(c) = center {
            for (_, a) in f.armed.drain() {
                let _ = c.remove_listener(&a.key.key, a.key.group, &a.listener).await;
            }
        }
    });
}

/// The keys known from the start: everything but the tag rule, which is the providers'
/// application's.
fn static_keys(app: &str, consumer: &Url) -> HashMap<Slot, RuleKey> {
    let iface = consumer.service_interface().unwrap_or_default();
    let version = consumer.parameter("version").unwrap_or_default();
    let group = consumer.parameter("group").unwrap_or_default();
    HashMap::from([
        (Slot::AppOverride, RuleKey::application(app, RuleKind::Configurators)),
        (
            Slot::ServiceOverride,
            RuleKey::service(iface, version, group, RuleKind::Configurators),
        ),
        (Slot::AppCondition, RuleKey::application(app, RuleKind::ConditionRouter)),
        (
            Slot::ServiceCondition,
            RuleKey::service(iface, version, group, RuleKind::ConditionRouter),
        ),
        (Slot::Migration, RuleKey::application(app, RuleKind::Migration)),
    ])
}

impl Follower {
    /// Watches every wanted key not watched yet (or watched under an older key), applying the
    /// value each has now. Returns whether some could not be watched.
    async fn arm(&mut self, center: &Arc<dyn DynamicConfiguration>) -> bool {
        let mut pending = false;
        let todo: Vec<(Slot, RuleKey)> = self
            .wanted
            .iter()
            .filter(|(slot, key)| self.armed.get(slot).is_none_or(|a| a.key != **key))
            .map(|(s, k)| (*s, k.clone()))
            .collect();
        for (slot, key) in todo {
            if let Some(old) = self.armed.remove(&slot) {
                let _ = center
                    .remove_listener(&old.key.key, old.key.group, &old.listener)
                    .await;
            }
            let events = self.events.clone();
            let listener: Arc<dyn ConfigListener> = Arc::new(move |e: &ConfigChangedEvent| {
                let _ = events.send((slot, e.key.clone(), e.content.clone()));
            });
            match center
                .add_listener(&key.key, key.group, listener.clone())
                .await
            {
                Ok(now) => {
                    self.armed.insert(
                        slot,
                        Armed {
                            key: key.clone(),
                            listener,
                        },
                    );
                    self.apply(slot, &key.key, now).await;
                }
                Err(e) => {
                    pending = true;
                    tracing::warn!(key = %key.key, group = key.group, code = e.code(), error = %e, "cannot watch a rule; trying again");
                }
            }
        }
        pending
    }

    async fn provider_app_changed(&mut self, app: Option<String>) {
        let Some(app) = app else { return };
        if self.provider_app.as_deref() == Some(app.as_str()) {
            return;
        }
        self.provider_app = Some(app.clone());
        self.wanted
            .insert(Slot::Tag, RuleKey::application(&app, RuleKind::TagRouter));
        // Application entries of the migration rule are about provider applications.
        self.migrate().await;
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
                let parsed = content
                    .as_deref()
                    .map(Configurators::from_yaml)
                    .transpose();
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
            Slot::AppCondition | Slot::ServiceCondition => {
                let scope = if slot == Slot::AppCondition {
                    RuleScope::Application
                } else {
                    RuleScope::Service
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
            .migrate(target.step, target.threshold, target.force)
            .await;
    }
}
