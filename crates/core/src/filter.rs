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

/// A filter with its activation data, the Rust form of Dubbo's `@Activate`.
#[derive(Clone)]
pub struct FilterSpec {
    /// The name used in the URL's `filter` parameter (`filter=-echo` removes it).
    pub name: &'static str,
    /// Lower orders run first (outermost).
    pub order: i32,
    /// The sides it is active on by default.
    pub sides: &'static [Side],
    /// The filter itself.
    pub filter: Arc<dyn Filter>,
}

impl std::fmt::Debug for FilterSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilterSpec")
            .field("name", &self.name)
            .field("order", &self.order)
            .field("sides", &self.sides)
            .finish()
    }
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

    /// Picks the filters active on `side` for `url` and wraps `target` in them.
    ///
    /// The URL's `filter` parameter follows Dubbo: a comma-separated list where a name adds a
    /// registered filter that is not active by default, `-name` removes one, and `-default`
    /// removes every default filter.
    pub fn build(specs: &[FilterSpec], side: Side, url: &Url, target: Arc<dyn Invoker>) -> Self {
        let key = match side {
            Side::Provider => "service.filter",
            Side::Consumer => "reference.filter",
        };
        let param = url
            .parameter(key)
            .or_else(|| url.parameter("filter"))
            .unwrap_or("");
        let words: Vec<&str> = param
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .collect();
        let no_defaults = words.contains(&"-default");
        let mut chosen: Vec<&FilterSpec> = specs
            .iter()
            .filter(|s| {
                let removed = words.iter().any(|w| w.strip_prefix('-') == Some(s.name));
                let added = words.contains(&s.name);
                !removed && (added || (!no_defaults && s.sides.contains(&side)))
            })
            .collect();
        chosen.sort_by_key(|s| s.order);
        Self::new(
            chosen.into_iter().map(|s| s.filter.clone()).collect(),
            target,
        )
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
