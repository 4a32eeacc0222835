//! Adaptive flow control: provider-side concurrency limits that set themselves, Java's
//! `flowcontrol=heuristicSmoothingFlowControl` and `flowcontrol=autoConcurrencyLimier`.

mod auto_concurrency;
mod cpu_usage;
mod heuristic;
mod window;

pub use cpu_usage::{CpuUsage, CPU_SAMPLE_PERIOD};

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use dubbo_url::Url;

use crate::error::{ErrorCode, RpcError};
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

/// The URL parameter (also `<method>.flowcontrol`) naming a service's adaptive limit.
pub const FLOW_CONTROL_KEY: &str = "flowcontrol";
/// The bound recomputed after every call from the last second's rate and latencies.
pub const HEURISTIC_SMOOTHING: &str = "heuristicSmoothingFlowControl";
/// The bound re-estimated once per sampling window, exploring spare room (Java's spelling).
pub const AUTO_CONCURRENCY_LIMIER: &str = "autoConcurrencyLimier";
/// Every name `flowcontrol` takes.
pub const FLOW_CONTROL_NAMES: [&str; 2] = [HEURISTIC_SMOOTHING, AUTO_CONCURRENCY_LIMIER];
/// CPU usage at and above which a call over the bound is refused; below it every call runs.
pub const BUSY_CPU: f64 = 0.5;
/// The bound before the first estimate.
pub(crate) const INITIAL_MAX_CONCURRENCY: usize = 40;

/// A computed bound as a count of calls: rounded up, at least one.
pub(crate) fn to_bound(v: f64) -> usize {
    // Rounding noise (12.999999… or 13.000001 for 13) must not cost or add a call.
    let v = v - 1e-6;
    if v.is_finite() && v >= 1.0 {
        // Bounded above so that a runaway figure cannot overflow the conversion.
        v.ceil().min(1e9) as usize
    } else {
        1
    }
}

/// One way of computing the bound from the calls that completed.
pub(crate) trait Algorithm: Send + Sync + Debug + 'static {
    /// The bound now.
    fn max_concurrency(&self) -> usize;
    /// A call admitted by the bound completed at `now` after `latency`; `cpu` is the
    /// machine's usage then.
    fn completed(&self, latency: Duration, now: Instant, cpu: f64);
}

/// Whether `name` is a `flowcontrol` value this filter knows, for checking a configuration
/// before it is used (`""` and `false` mean none and are accepted too).
pub fn is_flow_control_name(name: &str) -> bool {
    is_none(name) || FLOW_CONTROL_NAMES.contains(&name)
}

fn is_none(name: &str) -> bool {
    name.is_empty() || name == "false"
}

/// The adaptive limit of concurrent calls, Java's `FlowControlFilter`.
///
/// Active when the provider URL has `flowcontrol` (or `<method>.flowcontrol`) naming one of
/// [`FLOW_CONTROL_NAMES`]. Each service on a protocol (and each method with its own
/// `<method>.flowcontrol`) keeps a bound on its calls in progress, computed from the calls it
/// served, and a call that would go over the bound is refused at once with
/// [`ErrorCode::LimitExceeded`], but only while the machine's CPUs are at least
/// [`BUSY_CPU`] busy ([`CpuUsage`]): with idle CPUs no call is refused. The bound starts at 40.
/// A value that names no algorithm fails every call of the service with [`ErrorCode::Config`]
/// naming it, so a typo is seen at the first call rather than ignored.
///
/// The CPU sampler starts with the first chain that needs it and is shared by this instance's
/// chains; the bounds live in the chains (one per exported service), or in this instance for
/// calls made on it directly. Nothing is global.
#[derive(Debug, Default)]
pub struct FlowControlFilter {
    cpu: OnceLock<Arc<CpuUsage>>,
    /// Limits for calls made on this filter directly (a chain built without `for_chain`), by
    /// the target URL's text.
    direct: Mutex<HashMap<String, Arc<ServiceLimits>>>,
}

impl FlowControlFilter {
    /// A filter whose CPU sampler starts when a chain first needs it.
    pub fn new() -> Self {
        Self::default()
    }

    /// A filter gated by `cpu` instead of its own sampler (a fixed figure in tests, or a
    /// sampler shared with something else).
    pub fn with_cpu_usage(cpu: Arc<CpuUsage>) -> Self {
        let filter = Self::default();
        let _ = filter.cpu.set(cpu);
        filter
    }

    fn cpu(&self) -> Arc<CpuUsage> {
        self.cpu.get_or_init(CpuUsage::start).clone()
    }

    fn limits_for(&self, url: &Url) -> Arc<ServiceLimits> {
        let mut direct = self.direct.lock().unwrap_or_else(PoisonError::into_inner);
        direct
            .entry(url.to_string())
            .or_insert_with(|| Arc::new(ServiceLimits::of(url, self.cpu())))
            .clone()
    }
}

impl Filter for FlowControlFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let limits = self.limits_for(next.url());
        limits.run(invocation, next)
    }

    fn for_chain(&self, url: &Url) -> Option<Arc<dyn Filter>> {
        Some(Arc::new(ChainFlowControl {
            limits: Arc::new(ServiceLimits::of(url, self.cpu())),
        }))
    }
}

/// The filter in one service's chain, with the service's limits resolved.
#[derive(Debug)]
struct ChainFlowControl {
    limits: Arc<ServiceLimits>,
}

impl Filter for ChainFlowControl {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        self.limits.run(invocation, next)
    }
}

/// A service's limit, and those of its methods that name their own.
#[derive(Debug)]
struct ServiceLimits {
    service: Limit,
    methods: HashMap<String, Limit>,
    cpu: Arc<CpuUsage>,
}

/// What a `flowcontrol` value asks for.
#[derive(Debug)]
enum Limit {
    On(Arc<Bound>),
    /// `""` or `false`: no limit (on a method, exempt from the service's).
    Off,
    /// A name that is no algorithm.
    Unknown(String),
}

/// One bound and the calls it counts.
#[derive(Debug)]
struct Bound {
    algorithm: Box<dyn Algorithm>,
    in_flight: AtomicUsize,
}

impl Limit {
    /// The limit `value` names.
    fn named(value: &str, now: Instant) -> Self {
        let value = value.trim();
        let algorithm: Box<dyn Algorithm> = match value {
            v if is_none(v) => return Self::Off,
            HEURISTIC_SMOOTHING => Box::new(heuristic::HeuristicSmoothing::new(now)),
            AUTO_CONCURRENCY_LIMIER => Box::new(auto_concurrency::AutoConcurrency::new(now)),
            other => return Self::Unknown(other.to_owned()),
        };
        Self::On(Arc::new(Bound {
            algorithm,
            in_flight: AtomicUsize::new(0),
        }))
    }
}

impl ServiceLimits {
    fn of(url: &Url, cpu: Arc<CpuUsage>) -> Self {
        let now = Instant::now();
        let service = url
            .parameter(FLOW_CONTROL_KEY)
            .map_or(Limit::Off, |v| Limit::named(v, now));
        let suffix = format!(".{FLOW_CONTROL_KEY}");
        let methods = url
            .params()
            .iter()
            .filter_map(|(k, v)| {
                let method = k.strip_suffix(&suffix)?;
                Some((method.to_owned(), Limit::named(v, now)))
            })
            .collect();
        Self {
            service,
            methods,
            cpu,
        }
    }

    fn run<'a>(&self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let method = invocation.method_name();
        let bound = match self.methods.get(method).unwrap_or(&self.service) {
            Limit::Off => return next.run(invocation),
            Limit::Unknown(name) => {
                let message = format!(
                    "flowcontrol={name} of {} names no flow control (known: {})",
                    invocation.service(),
                    FLOW_CONTROL_NAMES.join(", ")
                );
                return Box::pin(
                    async move { Err(RpcError::framework(ErrorCode::Config, message)) },
                );
            }
            Limit::On(b) => b.clone(),
        };
        let running = bound.in_flight.fetch_add(1, Ordering::AcqRel) + 1;
        let max = bound.algorithm.max_concurrency();
        if running > max && self.cpu.get() >= BUSY_CPU {
            bound.in_flight.fetch_sub(1, Ordering::AcqRel);
            let message = format!(
                "Failed to invoke method {method} in provider {}, cause: The service using threads greater than FlowControl limited. The max concurrency is {max}",
                next.url()
            );
            return Box::pin(
                async move { Err(RpcError::framework(ErrorCode::LimitExceeded, message)) },
            );
        }
        let cpu = self.cpu.clone();
        let started = Instant::now();
        Box::pin(async move {
            // Counted out also when the call's future is dropped before it completes.
            let _in_flight = InFlight(&bound);
            let result = next.run(invocation).await;
            // A refusal further in says nothing of how long the service takes.
            let refused = matches!(&result, Err(e) if e.code() == Some(ErrorCode::LimitExceeded));
            if !refused {
                let now = Instant::now();
                bound
                    .algorithm
                    .completed(now.saturating_duration_since(started), now, cpu.get());
            }
            result
        })
    }
}

struct InFlight<'a>(&'a Bound);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn names() {
        assert!(is_flow_control_name(HEURISTIC_SMOOTHING));
        assert!(is_flow_control_name(AUTO_CONCURRENCY_LIMIER));
        assert!(is_flow_control_name(""));
        assert!(is_flow_control_name("false"));
        assert!(!is_flow_control_name("autoConcurrencyLimiter"));
    }

    #[test]
    fn service_and_method_limits_from_the_url() {
        let url = Url::parse(
            "dubbo://127.0.0.1:20880/org.example.Greeter?flowcontrol=autoConcurrencyLimier&slow.flowcontrol=heuristicSmoothingFlowControl&ping.flowcontrol=false&odd.flowcontrol=nope",
        )
        .unwrap();
        let l = ServiceLimits::of(&url, Arc::new(CpuUsage::fixed(0.0)));
        assert!(matches!(l.service, Limit::On(_)));
        assert!(matches!(l.methods.get("slow"), Some(Limit::On(_))));
        assert!(matches!(l.methods.get("ping"), Some(Limit::Off)));
        assert!(matches!(l.methods.get("odd"), Some(Limit::Unknown(n)) if n == "nope"));
        assert_eq!(l.methods.len(), 3);
    }
}
