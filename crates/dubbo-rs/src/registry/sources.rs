//! Both provider lists of one registry-fed reference (interface-level pushes and
//! application-level instances, by registry) and the one the migration step chooses from them.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use dubbo_url::Url;
use tokio::sync::watch;

use super::migration::{choose, provider_list, Mode};
use super::modes::MigrationStep;
use super::registries::AppRegistry;
use crate::sync::lock;

/// Both address lists of one reference and where the chosen one goes.
pub(super) struct Sources {
    /// The migration settings in force (a migration rule changes them live).
    pub(super) mode: Mutex<Mode>,
    /// Interface-level addresses by registry, as the registry notified them when it can be
    /// (see [`Sources::lists`]).
    pub(super) interface: Mutex<BTreeMap<usize, Arc<[Url]>>>,
    /// Application-level addresses by registry and application.
    pub(super) application: Mutex<BTreeMap<(usize, String), Vec<Url>>>,
    /// Shared with the directory, which keeps the list it was handed: neither copies it.
    pub(super) chosen: watch::Sender<Option<Arc<[Url]>>>,
    /// The `override://` URLs each registry pushes in the `configurators` category.
    pub(super) overrides: Mutex<BTreeMap<usize, Vec<Url>>>,
    pub(super) overrides_out: watch::Sender<Vec<Url>>,
    /// The application of the first provider chosen (where tag rules are read from).
    pub(super) provider_app: watch::Sender<Option<String>>,
    pub(super) protocol: Option<String>,
    pub(super) routers: Arc<dubbo_cluster::router::RouterChain>,
}

impl Sources {
    /// Whether the reference calls `url`'s protocol (its own, else dubbo:// or Triple).
    pub(super) fn accepts(&self, url: &Url) -> bool {
        let p = dubbo_url::canonical_protocol(url.protocol().unwrap_or_default());
        match &self.protocol {
            Some(wanted) => p == dubbo_url::canonical_protocol(wanted),
            None => matches!(p, "dubbo" | "tri"),
        }
    }

    /// Both lists, flattened: interface-level and application-level.
    ///
    /// A reference fed by one registry passes that registry's list on as it is, so a large
    /// service's change reaches the directory with no copy of its URLs.
    pub(super) fn lists(&self) -> (Arc<[Url]>, Vec<Url>) {
        let interface: Arc<[Url]> = {
            let lists = lock(&self.interface);
            match (lists.len(), lists.values().next()) {
                (1, Some(only)) => Arc::clone(only),
                _ => lists.values().flat_map(|l| l.iter().cloned()).collect(),
            }
        };
        let application: Vec<Url> = lock(&self.application)
            .values()
            .flatten()
            .cloned()
            .collect();
        (interface, application)
    }

    /// `urls` as this reference takes them from registry `r`: only the protocols it calls,
    /// marked with the registry's zone. The list itself when that changes nothing.
    ///
    /// `previous` is what this returned for the registry's last push: a URL that is the
    /// same `Url` at the same position was accepted then, so a push that changes a few
    /// providers of a large service reads only those.
    pub(super) fn taken(
        &self,
        r: &AppRegistry,
        urls: Arc<[Url]>,
        previous: Option<&[Url]>,
    ) -> Arc<[Url]> {
        let accepted = match previous {
            Some(previous) if previous.len() == urls.len() => urls
                .iter()
                .zip(previous)
                .all(|(u, p)| Url::ptr_eq(u, p) || self.accepts(u)),
            _ => urls.iter().all(|u| self.accepts(u)),
        };
        if !r.zoned() && accepted {
            return urls;
        }
        urls.iter()
            .filter(|u| self.accepts(u))
            .map(|u| {
                if r.zoned() {
                    r.mark(u.clone())
                } else {
                    u.clone()
                }
            })
            .collect()
    }

    /// Whether `step` would give the reference any provider now.
    pub(super) fn has_providers(&self, step: MigrationStep, threshold: f64) -> bool {
        let (interface, application) = self.lists();
        !choose(step, threshold, &interface, &application).is_empty()
    }

    /// Chooses the provider list from both lists by the migration mode in force and hands
    /// it to the directory (and the split between models to the routers).
    pub(super) fn recompute(&self) {
        let (interface, application) = self.lists();
        let mode = *lock(&self.mode);
        let (mut chosen, split) = provider_list(mode, &interface, &application);
        // Before the list: a call never sees both models without the split that tells them
        // apart.
        if split.is_some() {
            self.routers.set_migration_split(split);
        }
        let app = chosen
            .iter()
            .find_map(|u| u.parameter("application"))
            .map(str::to_owned);
        if app.is_some() && *self.provider_app.borrow() != app {
            self.provider_app.send_replace(app);
        }
        if chosen.is_empty() {
            // Every source pushed (registries say `empty://`, discoveries an empty instance
            // list): the service has no provider left, which clears the directory. A registry
            // that goes away pushes nothing, so the known providers stay.
            if let Ok(empty) = Url::parse("empty://0.0.0.0/") {
                chosen = Arc::from(vec![empty.with_parameter("category", "providers")]);
            }
        }
        self.chosen.send_replace(Some(chosen));
        if split.is_none() {
            self.routers.set_migration_split(None);
        }
    }

    /// Records registry `i`'s `override://` URLs and publishes all registries' together.
    pub(super) fn set_overrides(&self, i: usize, urls: Vec<Url>) {
        let all: Vec<Url> = {
            let mut overrides = lock(&self.overrides);
            overrides.insert(i, urls);
            overrides.values().flatten().cloned().collect()
        };
        self.overrides_out.send_replace(all);
    }
}
