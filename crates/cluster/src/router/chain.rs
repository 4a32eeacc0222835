//! The router chain: every router of a reference, in priority order, with results cached per
//! provider snapshot.

use std::sync::Arc;

use arc_swap::ArcSwap;
use dubbo_core::{Invocation, Invoker, InvokerList, Router};
use dubbo_url::{Url, UrlAddress, UrlParams};

use super::cache::{Lookup, Outcome, RouteCache};
use super::condition::{ConditionRouter, ConditionRule, RuleScope};
use super::migration::MigrationSplitRouter;
use super::tag::{TagRouter, TagRule};
use super::zone::ZoneRouter;
use super::{RouteError, RuleError};

/// The routers as configured: set through the API, rebuilt into a [`State`] on every change.
#[derive(Clone, Default)]
struct Config {
    custom: Vec<Arc<dyn Router>>,
    service_rule: Option<Arc<ConditionRouter>>,
    provider_app_rule: Option<Arc<ConditionRouter>>,
    app_rule: Option<Arc<ConditionRouter>>,
    tag: Option<Arc<TagRouter>>,
    zone: Option<Arc<ZoneRouter>>,
    migration: Option<Arc<MigrationSplitRouter>>,
}

/// The routers in force, sorted by priority, and the results cached for them: one value
/// behind one swap, so that a call loads it once. A cache change replaces the state with the
/// same routers (shared) and the new cache.
#[derive(Default)]
struct State {
    routers: Arc<[Arc<dyn Router>]>,
    cache: RouteCache,
}

impl Config {
    fn state(&self) -> State {
        let mut routers: Vec<Arc<dyn Router>> = self.custom.clone();
        if let Some(tag) = &self.tag {
            routers.push(Arc::clone(tag) as Arc<dyn Router>);
        }
        if let Some(zone) = &self.zone {
            routers.push(Arc::clone(zone) as Arc<dyn Router>);
        }
        if let Some(split) = &self.migration {
            routers.push(Arc::clone(split) as Arc<dyn Router>);
        }
        let rules = [&self.service_rule, &self.provider_app_rule, &self.app_rule];
        for rule in rules.into_iter().flatten() {
            routers.push(Arc::clone(rule) as Arc<dyn Router>);
        }
        // Stable: routers of equal priority keep the order they were given in.
        routers.sort_by_key(|r| r.priority());
        State {
            routers: routers.into(),
            cache: RouteCache::default(),
        }
    }
}

/// The routers of one reference, applied in priority order (lower first) to the directory's
/// snapshot.
///
/// # Caching
///
/// Routing is not repeated on every call. Each router says, per call, whether its result
/// depends only on the snapshot and on a key it builds from the call
/// ([`Router::cache_key`]: the method name, a tag attachment...). The routers at the head of
/// the chain that say so are evaluated once per (snapshot, key) and their result is reused
/// until the directory hands over another snapshot (another `Arc`) or the routers or rules
/// change; the routers after the first that does not (a rule reading arguments, a `runtime`
/// rule, a weighted v3.1 rule) run on every call, on the cached result. A new snapshot is
/// also announced to every router ([`Router::notify`]) before it is routed.
///
/// When no router removes a provider (no rule and no tag applies), the result is the
/// snapshot itself, not a copy: every key shares it, and balancers that keep per-list state
/// recognise it by its allocation ([`LoadBalance::select`]).
///
/// [`LoadBalance::select`]: dubbo_core::LoadBalance::select
///
/// Rules and routers are swapped atomically; the call path only loads them, takes no lock,
/// and allocates one key string.
pub struct RouterChain {
    consumer: Url,
    config: ArcSwap<Config>,
    state: ArcSwap<State>,
}

impl Default for RouterChain {
    fn default() -> Self {
        Self::new()
    }
}

impl RouterChain {
    /// A chain with no routers: every provider passes. Condition and tag rules set later are
    /// seen from an empty consumer URL; use [`for_consumer`](Self::for_consumer) for a
    /// reference.
    pub fn new() -> Self {
        Self::with_config(
            Url::from_parts(UrlAddress::default(), UrlParams::new()),
            Config::default(),
        )
    }

    /// The chain of a reference whose consumer URL is `consumer`, with Java Dubbo's default
    /// routers: the tag router (static `dubbo.tag` of providers until a tag rule is set).
    /// Condition rules are read against `consumer` (`application`, `host`, `$param`...).
    pub fn for_consumer(consumer: Url) -> Self {
        let config = Config {
            tag: Some(Arc::new(TagRouter::new(consumer.clone()))),
            ..Config::default()
        };
        Self::with_config(consumer, config)
    }

    fn with_config(consumer: Url, config: Config) -> Self {
        let state = config.state();
        Self {
            consumer,
            config: ArcSwap::from_pointee(config),
            state: ArcSwap::from_pointee(state),
        }
    }

    /// The consumer URL rules are read against.
    pub fn consumer(&self) -> &Url {
        &self.consumer
    }

    fn update(&self, change: impl Fn(&mut Config)) {
        let mut installed = None;
        self.config.rcu(|old| {
            let mut config = Config::clone(old);
            change(&mut config);
            installed = Some(config.clone());
            config
        });
        if let Some(config) = installed {
            self.state.store(Arc::new(config.state()));
        }
    }

    /// Installs (or, with `None`, removes) the zone router that chooses among the providers
    /// of several registries ([`ZoneRouter`]); the other routers stay.
    pub fn set_zone_router(&self, router: Option<ZoneRouter>) {
        let router = router.map(Arc::new);
        self.update(|c| c.zone = router.clone());
    }

    /// Sends `promotion` percent of calls to application-level providers and the rest to
    /// the interface-level ones while both are in the list ([`MigrationSplitRouter`]);
    /// `None` or 100 removes the split. Setting the split in force again changes nothing.
    pub fn set_migration_split(&self, promotion: Option<u8>) {
        let wanted = promotion
            .map(MigrationSplitRouter::new)
            .filter(|r| r.promotion() < 100);
        let current = self.config.load().migration.as_deref().copied();
        if current == wanted {
            return;
        }
        let router = wanted.map(Arc::new);
        self.update(|c| c.migration = router.clone());
    }

    /// Replaces the routers added through the API (the rule routers stay).
    pub fn set_routers(&self, routers: Vec<Arc<dyn Router>>) {
        self.update(|c| c.custom = routers.clone());
    }

    /// Installs a condition rule from its YAML text, in the slot of its `scope` (one service
    /// rule and one application rule at a time, as Java's `ServiceStateRouter` and
    /// `AppStateRouter`). On error nothing changes.
    pub fn set_condition_rule_yaml(&self, yaml: &str) -> Result<(), RuleError> {
        self.set_condition_rule(ConditionRule::from_yaml(yaml)?);
        Ok(())
    }

    /// Installs a parsed condition rule in the slot of its scope.
    pub fn set_condition_rule(&self, rule: ConditionRule) {
        let scope = rule.scope;
        let router = Arc::new(ConditionRouter::new(rule, self.consumer.clone()));
        self.update(|c| match scope {
            RuleScope::Service => c.service_rule = Some(Arc::clone(&router)),
            RuleScope::ProviderApplication => c.provider_app_rule = Some(Arc::clone(&router)),
            RuleScope::Application => c.app_rule = Some(Arc::clone(&router)),
        });
    }

    /// Removes the condition rule of `scope`.
    pub fn clear_condition_rule(&self, scope: RuleScope) {
        self.update(|c| match scope {
            RuleScope::Service => c.service_rule = None,
            RuleScope::ProviderApplication => c.provider_app_rule = None,
            RuleScope::Application => c.app_rule = None,
        });
    }

    /// Installs a tag rule from its YAML text (adding the tag router if the chain has none).
    /// On error nothing changes.
    pub fn set_tag_rule_yaml(&self, yaml: &str) -> Result<(), RuleError> {
        self.set_tag_rule(Some(TagRule::from_yaml(yaml)?));
        Ok(())
    }

    /// Replaces the tag rule; `None` goes back to providers' static tags.
    pub fn set_tag_rule(&self, rule: Option<TagRule>) {
        let existing = self.config.load().tag.clone();
        let tag = existing.unwrap_or_else(|| Arc::new(TagRouter::new(self.consumer.clone())));
        tag.set_rule(rule);
        self.update(|c| c.tag = Some(Arc::clone(&tag)));
    }

    /// Tells every router of a new provider snapshot and drops results cached for earlier
    /// ones. Directories may call it when their list changes; [`route`](Self::route) also
    /// does on the first call with a new snapshot.
    pub fn notify(&self, snapshot: &InvokerList) {
        let state = self.state.load();
        for r in state.routers.iter() {
            r.notify(snapshot);
        }
        self.change_cache(&state.routers, |c| c.reset(snapshot));
    }

    /// Replaces the cache with what `change` makes of it, unless the routers it was made for
    /// (`routers`) were replaced meanwhile (their new state starts with a cache of its own)
    /// or `change` leaves it as it is.
    fn change_cache(
        &self,
        routers: &Arc<[Arc<dyn Router>]>,
        change: impl Fn(&RouteCache) -> Option<RouteCache>,
    ) {
        self.state.rcu(|old| {
            if !Arc::ptr_eq(&old.routers, routers) {
                return Arc::clone(old);
            }
            match change(&old.cache) {
                Some(cache) => Arc::new(State {
                    routers: Arc::clone(&old.routers),
                    cache,
                }),
                None => Arc::clone(old),
            }
        });
    }

    /// The providers of `invokers` (the directory's snapshot) that `invocation` may go to.
    ///
    /// An empty `invokers` gives an empty list. A router that leaves no provider of a
    /// non-empty list is an error naming the service and that router.
    pub fn route(
        &self,
        invokers: &InvokerList,
        invocation: &Invocation,
    ) -> Result<InvokerList, RouteError> {
        let state = self.state.load();
        let routers = &state.routers;
        if routers.is_empty() || invokers.is_empty() {
            return Ok(InvokerList::clone(invokers));
        }
        // Room for the usual key (the tag router's two parts) up front: growing from empty
        // reallocated it on most calls.
        let mut key = String::with_capacity(32);
        let mut cached = 0;
        for r in routers.iter() {
            let len = key.len();
            if !r.cache_key(invocation, &mut key) {
                key.truncate(len);
                break;
            }
            cached += 1;
        }
        let lookup = match state.cache.lookup(invokers, &key) {
            Lookup::NewSnapshot => {
                for r in routers.iter() {
                    r.notify(invokers);
                }
                self.change_cache(routers, |c| c.reset(invokers));
                Lookup::Miss
            }
            other => other,
        };
        let head = match lookup {
            Lookup::Hit(outcome) => outcome,
            miss_or_stale => {
                let outcome = Arc::new(run(&routers[..cached], invokers, invocation, 0));
                if cached > 0 && matches!(miss_or_stale, Lookup::Miss) {
                    self.change_cache(routers, |c| c.with(invokers, &key, &outcome));
                }
                outcome
            }
        };
        let outcome = match head.emptied_by {
            None if cached < routers.len() => {
                run(&routers[cached..], &head.invokers, invocation, cached)
            }
            _ => Outcome::clone(&head),
        };
        match outcome.emptied_by {
            Some(at) => {
                let router = routers.get(at);
                Err(RouteError::Emptied {
                    service: invocation.service().to_string(),
                    router: router.map_or_else(|| "?".to_owned(), |r| r.name().to_owned()),
                    before: invokers.len(),
                    reason: router.and_then(|r| r.explain_empty(invocation)),
                })
            }
            None => Ok(outcome.invokers),
        }
    }
}

/// Runs `routers` in order on `invokers`; `first` is the index of `routers[0]` in the chain.
fn run(
    routers: &[Arc<dyn Router>],
    invokers: &InvokerList,
    invocation: &Invocation,
    first: usize,
) -> Outcome {
    let mut current: Option<Vec<Arc<dyn Invoker>>> = None;
    for (at, r) in routers.iter().enumerate() {
        let input: &[Arc<dyn Invoker>] = current.as_deref().unwrap_or(invokers);
        let next = r.route(input, invocation);
        // A router that kept everyone leaves the list as it was: with no rule narrowing it,
        // the routed list is the snapshot's own `Arc`, which every route key shares and the
        // balancers recognise by its allocation.
        if next.len() == input.len()
            && next
                .iter()
                .zip(input)
                .all(|(a, b)| std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b)))
        {
            continue;
        }
        if next.is_empty() {
            return Outcome {
                invokers: InvokerList::from(Vec::new()),
                emptied_by: Some(first + at),
            };
        }
        current = Some(next);
    }
    Outcome {
        invokers: current.map_or_else(|| InvokerList::clone(invokers), InvokerList::from),
        emptied_by: None,
    }
}

impl std::fmt::Debug for RouterChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.state.load();
        let names: Vec<&str> = state.routers.iter().map(|r| r.name()).collect();
        f.debug_struct("RouterChain")
            .field("routers", &names)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_change_made_for_replaced_routers_is_dropped() {
        let chain =
            RouterChain::for_consumer(Url::from_parts(UrlAddress::default(), UrlParams::new()));
        let snapshot = InvokerList::from(Vec::new());
        let stale = Arc::clone(&chain.state.load().routers);
        chain.set_routers(Vec::new());
        chain.change_cache(&stale, |c| c.reset(&snapshot));
        let state = chain.state.load();
        assert!(matches!(
            state.cache.lookup(&snapshot, "k"),
            Lookup::NewSnapshot
        ));
        let current = Arc::clone(&state.routers);
        drop(state);
        chain.change_cache(&current, |c| c.reset(&snapshot));
        assert!(matches!(
            chain.state.load().cache.lookup(&snapshot, "k"),
            Lookup::Miss
        ));
    }
}
