//! The outermost scope: extension tables shared by the applications created from it.

use std::sync::Arc;

use dubbo_core::filters::register_builtin_filters;
use dubbo_core::{Extensions, FilterSpec, Protocol, Stage, StatsStore};
use dubbo_metrics::{EventMetrics, MetricsFilter, MetricsStore, METRICS_FILTER_NAME};
use dubbo_tracing::{
    Tracers, TracingFilter, CLIENT_TRACING_FILTER_NAME, SERVER_TRACING_FILTER_NAME,
};

use crate::protocol_factory::{ProtocolFactory, ProtocolTls};

/// The framework scope (Dubbo's `FrameworkModel`): the extension tables from which applications
/// pick protocols, filters and, later, load balancers and registries by name.
///
/// There is no process-wide instance: create one with [`Framework::new`] and build applications
/// from it, or let [`Application::builder`](crate::Application::builder) create a private one.
///
/// It also owns the per-provider call statistics ([`StatsStore`]) that load balancers and
/// limits read, so two frameworks never mix their numbers, and the call metrics
/// ([`MetricsStore`]) that the `metrics` filter records and the QoS port's `/metrics` renders,
/// with the registry, metadata and config-centre metrics ([`EventMetrics`]),
/// and the [`Tracers`] of its applications that have `dubbo.tracing.enabled`.
#[derive(Debug)]
pub struct Framework {
    extensions: Extensions,
    stats: Arc<StatsStore>,
    metrics: Arc<MetricsStore>,
    events: Arc<EventMetrics>,
    tracers: Arc<Tracers>,
}

/// The `metrics` filter's order: Java's `Integer.MIN_VALUE + 100`, so it is the outermost
/// filter and a call's response time includes every other filter.
const METRICS_FILTER_ORDER: i32 = i32::MIN + 100;

/// The tracing filters' order: Java's `-1` for both observation filters, inside `metrics`.
const TRACING_FILTER_ORDER: i32 = -1;

impl Framework {
    /// A framework with the built-in protocols `dubbo` and `tri` (alias `triple`), as far as
    /// their cargo features are enabled, the built-in filters, the built-in fault-tolerance
    /// strategies (`cluster=failover`, `failfast`, ...) and load balancers
    /// (`loadbalance=random`, `roundrobin`, `leastactive`, ...), and the registries `file`
    /// (embedded), `zookeeper` and `etcd3` (alias `etcd`).
    pub fn new() -> Arc<Self> {
        let extensions = Extensions::new();
        let stats = Arc::new(StatsStore::new());
        let metrics = Arc::new(MetricsStore::default());
        register_builtin_filters(&extensions);
        // Active by default on both sides, as Java's metrics filters. The consumer side counts
        // at the cluster stage: once per call, whatever the retries, as Java's consumer metrics.
        extensions.register::<FilterSpec>(
            METRICS_FILTER_NAME,
            Arc::new(FilterSpec::new(
                METRICS_FILTER_NAME,
                METRICS_FILTER_ORDER,
                &[Stage::Provider, Stage::Cluster],
                Arc::new(MetricsFilter::new(metrics.clone())),
            )),
        );
        // Always in the chains, recording only for applications that install a tracer. The
        // client span is per call, at the cluster stage, as Java's observation sender is a
        // cluster filter: retries are one span, and the trace context is set before routing.
        let tracers = Arc::new(Tracers::new());
        let tracing: Arc<TracingFilter> = Arc::new(TracingFilter::new(tracers.clone()));
        for (name, stage) in [
            (CLIENT_TRACING_FILTER_NAME, &[Stage::Cluster]),
            (SERVER_TRACING_FILTER_NAME, &[Stage::Provider]),
        ] {
            extensions.register::<FilterSpec>(
                name,
                Arc::new(FilterSpec::new(
                    name,
                    TRACING_FILTER_ORDER,
                    stage,
                    tracing.clone(),
                )),
            );
        }
        dubbo_cluster::strategy::register_strategies(&extensions);
        dubbo_cluster::merger::register_mergers(&extensions);
        dubbo_cluster::loadbalance::register_load_balancers(&extensions, stats.clone());
        #[cfg(feature = "dubbo")]
        extensions.register::<dyn ProtocolFactory>(
            "dubbo",
            Arc::new(crate::protocol_factory::DubboFactory),
        );
        #[cfg(feature = "triple")]
        {
            extensions.register::<dyn ProtocolFactory>(
                "tri",
                Arc::new(crate::protocol_factory::TripleFactory),
            );
            // HTTP services called with the REST mapping of a service trait (`https` with the
            // application's client TLS).
            extensions.register::<dyn ProtocolFactory>(
                "rest",
                Arc::new(crate::protocol_factory::RestFactory),
            );
        }
        // Registries by scheme: the embedded file registry needs no server.
        #[cfg(unix)]
        dubbo_registry::register_file(&extensions);
        #[cfg(feature = "zookeeper")]
        dubbo_registry_zookeeper::register_zookeeper(&extensions);
        #[cfg(feature = "etcd")]
        dubbo_registry_etcd::register_etcd(&extensions);
        Arc::new(Self {
            extensions,
            stats,
            metrics,
            events: Arc::new(EventMetrics::default()),
            tracers,
        })
    }

    /// The extension tables; register your own protocols, filters, ... here.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dubbo_rs::core::{BoxFuture, Filter, FilterSpec, Invocation, Next, RpcResult, Stage};
    ///
    /// /// Counts calls.
    /// struct Audit(std::sync::atomic::AtomicU64);
    /// impl Filter for Audit {
    ///     fn invoke<'a>(&'a self, call: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
    ///         self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ///         next.run(call)
    ///     }
    /// }
    ///
    /// let framework = dubbo_rs::Framework::new();
    /// // Runs wherever a URL says `filter=audit`, on both sides.
    /// let spec = FilterSpec::new("audit", 0, &[Stage::Provider, Stage::Consumer], Arc::new(Audit(Default::default())))
    ///     .on_request();
    /// framework.register_filter(spec);
    /// ```
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// Adds (or replaces) a filter under its name; chains built after this include it where
    /// its spec and the URLs' `filter` parameters say.
    pub fn register_filter(&self, spec: FilterSpec) {
        self.extensions
            .register::<FilterSpec>(spec.name, Arc::new(spec));
    }

    /// Every registered filter.
    pub fn filters(&self) -> Vec<Arc<FilterSpec>> {
        self.extensions.all::<FilterSpec>()
    }

    /// The statistics of every provider this framework's consumers call.
    pub fn stats(&self) -> &Arc<StatsStore> {
        &self.stats
    }

    /// The call metrics of every application built from this framework.
    pub fn metrics(&self) -> &Arc<MetricsStore> {
        &self.metrics
    }

    /// The registry, metadata and config-centre metrics of every application built from this
    /// framework.
    pub fn event_metrics(&self) -> &Arc<EventMetrics> {
        &self.events
    }

    /// The tracers of the applications built from this framework that trace their calls.
    pub fn tracers(&self) -> &Arc<Tracers> {
        &self.tracers
    }

    /// A new protocol instance by name (`triple` is `tri`) using `tls` (an application's
    /// `dubbo.ssl` for that protocol; default: plaintext), if a factory is registered.
    pub fn create_protocol(&self, name: &str, tls: &ProtocolTls) -> Option<Arc<dyn Protocol>> {
        self.extensions
            .get::<dyn ProtocolFactory>(dubbo_url::canonical_protocol(name))
            .map(|f| f.create(tls))
    }
}
