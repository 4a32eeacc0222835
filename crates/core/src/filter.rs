//! Filters: layers around an invoker, ordered, for the provider side, the consumer side or both.

use std::sync::Arc;

use dubbo_url::Url;

use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, Invoker, RpcResult};

/// Which side of a call a filter runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// Runs in the provider, between the protocol and the service implementation.
    Provider,
    /// Runs in the consumer, between the cluster layer and the protocol.
    Consumer,
}

impl Side {
    /// `"provider"` or `"consumer"`, as in the URL's `side` parameter.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Provider => "provider",
            Side::Consumer => "consumer",
        }
    }
}

/// A layer around an invoker. It may change the invocation, short-circuit with its own result,
/// or call [`Next::run`] and inspect what comes back.
pub trait Filter: Send + Sync + 'static {
    /// Handles one call.
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult>;

    /// The filter to put into a chain whose target's URL is `url`, when it differs from this
    /// one: a filter that would otherwise read the URL on every call (the side, the
    /// application) can resolve it once here. `None`, the default, puts this filter itself.
    fn for_chain(&self, url: &Url) -> Option<Arc<dyn Filter>> {
        let _ = url;
        None
    }
}

/// The rest of the chain after the current filter.
pub struct Next<'a> {
    filters: &'a [Arc<dyn Filter>],
    target: &'a dyn Invoker,
}

impl<'a> Next<'a> {
    /// Passes the call on to the next filter, or to the target invoker after the last one.
    pub fn run(self, invocation: Invocation) -> BoxFuture<'a, RpcResult> {
        match self.filters.split_first() {
            Some((first, rest)) => first.invoke(
                invocation,
                Next {
                    filters: rest,
                    target: self.target,
                },
            ),
            None => self.target.invoke(invocation),
        }
    }

    /// The URL of the invoker at the end of the chain.
    pub fn url(&self) -> &'a Url {
        self.target.url()
    }
}

/// Where in the call path a filter runs.
///
/// A consumer's call passes two chains: the [`Cluster`](Stage::Cluster) chain once per call,
/// before a provider is chosen (Java's `ClusterFilter`), then the [`Consumer`](Stage::Consumer)
/// chain of the chosen provider, once per attempt (Java's consumer `Filter`). A provider runs
/// its [`Provider`](Stage::Provider) chain between the protocol and the implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// In the provider, between the protocol and the service implementation.
    Provider,
    /// In the consumer, once per call, before routing and load balancing.
    Cluster,
    /// In the consumer, around each provider's invoker, once per attempt.
    Consumer,
}

impl Stage {
    /// The side this stage runs on.
    pub fn side(self) -> Side {
        match self {
            Stage::Provider => Side::Provider,
            Stage::Cluster | Stage::Consumer => Side::Consumer,
        }
    }

    /// The URL parameter that selects filters for this stage, before the shared `filter`.
    pub fn url_key(self) -> &'static str {
        match self {
            Stage::Provider => "service.filter",
            Stage::Cluster | Stage::Consumer => "reference.filter",
        }
    }
}

/// A filter with its activation data, the Rust form of Dubbo's `@Activate`. Register it in
/// the framework's extension table under its name
/// (`framework.extensions().register::<FilterSpec>(name, Arc::new(spec))`); every chain is
/// built from that table.
#[derive(Clone)]
pub struct FilterSpec {
    /// The name used in the URL's `filter` parameter (`filter=-echo` removes it).
    pub name: &'static str,
    /// Lower orders run first (outermost).
    pub order: i32,
    /// The stages it runs at when selected.
    pub stages: &'static [Stage],
    /// Whether it is in a chain unless the URL removes it; otherwise the URL's `filter`
    /// parameter must name it.
    pub default_active: bool,
    /// When not empty, a default filter is only active on URLs that have one of these
    /// parameters (or a `<method>.<key>` form of one), like `@Activate(value = "token")`.
    pub url_keys: &'static [&'static str],
    /// The filter itself.
    pub filter: Arc<dyn Filter>,
}

impl FilterSpec {
    /// A filter active by default at `stages`.
    pub fn new(
        name: &'static str,
        order: i32,
        stages: &'static [Stage],
        filter: Arc<dyn Filter>,
    ) -> Self {
        Self {
            name,
            order,
            stages,
            default_active: true,
            url_keys: &[],
            filter,
        }
    }

    /// A filter that runs only where a URL's `filter` parameter names it.
    pub fn on_request(mut self) -> Self {
        self.default_active = false;
        self
    }

    /// Active by default only on URLs carrying one of `keys`.
    pub fn when_url_has(mut self, keys: &'static [&'static str]) -> Self {
        self.url_keys = keys;
        self
    }

    fn url_activates(&self, url: &Url) -> bool {
        self.url_keys.is_empty()
            || self.url_keys.iter().any(|k| {
                url.parameter(k)
                    .is_some_and(|v| !v.is_empty() && v != "false")
                    || url.params().keys().any(|name| {
                        name.strip_suffix(k)
                            .is_some_and(|method| method.ends_with('.'))
                    })
            })
    }
}

impl std::fmt::Debug for FilterSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilterSpec")
            .field("name", &self.name)
            .field("order", &self.order)
            .field("stages", &self.stages)
            .field("default_active", &self.default_active)
            .finish()
    }
}

/// Picks, in order, the filters of `specs` that run at `stage` for `url`.
///
/// The URL's `service.filter` (provider) or `reference.filter` (consumer) parameter, else
/// `filter`, follows Dubbo: a comma-separated list where a name adds a registered filter that
/// is not active by default, `-name` removes one, `-default` removes every default filter, and
/// `default` marks where the defaults go among the named ones (named filters otherwise run
/// after the defaults, in the order given).
pub fn select_filters(specs: &[Arc<FilterSpec>], stage: Stage, url: &Url) -> Vec<Arc<dyn Filter>> {
    let param = url
        .parameter(stage.url_key())
        .or_else(|| url.parameter("filter"))
        .unwrap_or("");
    let words: Vec<&str> = param
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    let removed = |name: &str| words.iter().any(|w| w.strip_prefix('-') == Some(name));
    let no_defaults = words.contains(&"-default");
    let at_stage = |s: &&Arc<FilterSpec>| s.stages.contains(&stage);
    let mut defaults: Vec<&Arc<FilterSpec>> = if no_defaults {
        Vec::new()
    } else {
        specs
            .iter()
            .filter(at_stage)
            .filter(|s| s.default_active && s.url_activates(url) && !removed(s.name))
            .filter(|s| !words.contains(&s.name))
            .collect()
    };
    defaults.sort_by_key(|s| s.order);
    let mut chosen: Vec<Arc<dyn Filter>> = Vec::new();
    let mut defaults_placed = false;
    for w in &words {
        if *w == "default" {
            chosen.extend(defaults.iter().map(|s| s.filter.clone()));
            defaults_placed = true;
        } else if !w.starts_with('-') {
            if let Some(s) = specs.iter().filter(at_stage).find(|s| s.name == *w) {
                if !removed(s.name) {
                    chosen.push(s.filter.clone());
                }
            }
        }
    }
    if !defaults_placed {
        let named = chosen;
        chosen = defaults.iter().map(|s| s.filter.clone()).collect();
        chosen.extend(named);
    }
    chosen
}

/// An invoker wrapped by an ordered list of filters.
pub struct FilterChain {
    filters: Arc<[Arc<dyn Filter>]>,
    target: Arc<dyn Invoker>,
}

impl FilterChain {
    /// Wraps `target` in `filters`; the first filter is the outermost.
    pub fn new(filters: Vec<Arc<dyn Filter>>, target: Arc<dyn Invoker>) -> Self {
        Self {
            filters: filters.into(),
            target,
        }
    }

    /// Wraps `target` in the filters of `specs` that [`select_filters`] picks for `stage`
    /// and `url`, each as [`Filter::for_chain`] makes it for the target's URL.
    pub fn build(
        specs: &[Arc<FilterSpec>],
        stage: Stage,
        url: &Url,
        target: Arc<dyn Invoker>,
    ) -> Self {
        let target_url = target.url();
        let filters = select_filters(specs, stage, url)
            .into_iter()
            .map(|f| f.for_chain(target_url).unwrap_or(f))
            .collect();
        Self::new(filters, target)
    }

    /// The invoker at the end of the chain.
    pub fn target(&self) -> &Arc<dyn Invoker> {
        &self.target
    }

    /// Number of filters in the chain.
    pub fn len(&self) -> usize {
        self.filters.len()
    }

    /// Whether the chain has no filters.
    pub fn is_empty(&self) -> bool {
        self.filters.is_empty()
    }
}

impl Invoker for FilterChain {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Next {
            filters: &self.filters,
            target: &*self.target,
        }
        .run(invocation)
    }

    fn url(&self) -> &Url {
        self.target.url()
    }

    fn is_available(&self) -> bool {
        self.target.is_available()
    }

    fn destroy(&self) {
        self.target.destroy()
    }
}
