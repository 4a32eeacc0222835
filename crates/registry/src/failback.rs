//! [`FailbackRegistry`]: remembers registrations and subscriptions that failed for a reason
//! that may pass (an unreachable server, a conflict) and retries them in the background (Java
//! `FailbackRegistry`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dubbo_core::BoxFuture;
use dubbo_url::Url;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::error::RegistryError;
use crate::registry::{NotifyListener, Registry};

/// Registry URL parameter: the first retry delay in milliseconds (Java's `retry.period`).
pub const RETRY_PERIOD_KEY: &str = "retry.period";
/// Java's default retry period.
pub const DEFAULT_RETRY_PERIOD: Duration = Duration::from_millis(5000);
/// Registry URL parameter: the longest delay between two retries, in milliseconds.
pub const RETRY_MAX_PERIOD_KEY: &str = "retry.max-period";
/// The default longest delay between two retries.
pub const DEFAULT_RETRY_MAX_PERIOD: Duration = Duration::from_millis(60_000);

/// How failed operations are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailbackConfig {
    /// The delay before the first retry; each failed retry doubles it.
    pub period: Duration,
    /// The cap of the doubling.
    pub max_period: Duration,
}

impl FailbackConfig {
    /// From the registry URL's `retry.period` and `retry.max-period` (milliseconds); absent or
    /// unreadable values keep the defaults.
    pub fn from_url(url: &Url) -> Self {
        let ms = |key: &str, default: Duration| {
            url.parameter_u64(key)
                .ok()
                .flatten()
                .filter(|&v| v > 0)
                .map(Duration::from_millis)
                .unwrap_or(default)
        };
        let period = ms(RETRY_PERIOD_KEY, DEFAULT_RETRY_PERIOD);
        Self {
            period,
            max_period: ms(RETRY_MAX_PERIOD_KEY, DEFAULT_RETRY_MAX_PERIOD).max(period),
        }
    }
}

/// A registry that retries what failed.
///
/// When an operation fails with a [retryable](RegistryError::is_retryable) error, the rule of
/// Java's `FailbackRegistry` decides:
///
/// - if `check` is on — the registry URL's `check` (default `true`) and the operation URL's
///   `check` (default `true`) are both true, and for register/unregister the URL has a port —
///   the error is returned and nothing is remembered: the caller wanted to know at once;
/// - otherwise the operation is remembered and the call returns `Ok`. A background task owned
///   by this registry retries it after `retry.period`, doubling the delay after each failure up
///   to `retry.max-period` (Java retries at a fixed period and gives up after `retry.times`; a
///   provider that stays unregistered forever is worse than a slower retry, so this one never
///   gives up).
///
/// A later successful register of a URL cancels a pending unregister of it and the other way
/// round (likewise subscribe and unsubscribe of one URL and listener). Errors that are not
/// retryable are always returned. [`destroy`](Registry::destroy) or dropping stops the task.
pub struct FailbackRegistry {
    shared: Arc<Shared>,
}

#[derive(Clone)]
enum Op {
    Register(Url),
    Unregister(Url),
    Subscribe(Url, Arc<dyn NotifyListener>),
    Unsubscribe(Url, Arc<dyn NotifyListener>),
}

impl Op {
    fn key(&self) -> Key {
        match self {
            Op::Register(u) | Op::Unregister(u) => Key::Url(u.to_full_string()),
            Op::Subscribe(u, l) | Op::Unsubscribe(u, l) => {
                Key::Subscription(u.to_full_string(), Arc::as_ptr(l) as *const () as usize)
            }
        }
    }

    fn url(&self) -> &Url {
        match self {
            Op::Register(u) | Op::Unregister(u) | Op::Subscribe(u, _) | Op::Unsubscribe(u, _) => u,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Op::Register(_) => "register",
            Op::Unregister(_) => "unregister",
            Op::Subscribe(..) => "subscribe",
            Op::Unsubscribe(..) => "unsubscribe",
        }
    }
}

/// Register and unregister of one URL share a key, so one replaces the other; so do
/// subscribe and unsubscribe of one URL with one listener.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Url(String),
    Subscription(String, usize),
}

struct Pending {
    op: Op,
    due: Instant,
    delay: Duration,
    /// Tells a retry's result apart from a newer operation queued meanwhile under the key.
    generation: u64,
}

struct Shared {
    inner: Arc<dyn Registry>,
    config: FailbackConfig,
    check: bool,
    pending: Mutex<HashMap<Key, Pending>>,
    generation: AtomicU64,
    wake: Notify,
    task_started: AtomicBool,
    cancel: CancellationToken,
}

impl FailbackRegistry {
    /// Wraps `inner`, configured from its URL (`retry.period`, `retry.max-period`, `check`).
    pub fn new(inner: Arc<dyn Registry>) -> Self {
        let config = FailbackConfig::from_url(inner.url());
        Self::with_config(inner, config)
    }

    /// Wraps `inner` with explicit retry settings (`check` still comes from its URL).
    pub fn with_config(inner: Arc<dyn Registry>, config: FailbackConfig) -> Self {
        let check = inner.url().parameter_bool("check").unwrap_or(true);
        Self {
            shared: Arc::new(Shared {
                inner,
                config,
                check,
                pending: Mutex::default(),
                generation: AtomicU64::new(0),
                wake: Notify::new(),
                task_started: AtomicBool::new(false),
                cancel: CancellationToken::new(),
            }),
        }
    }

    /// How many operations wait for a retry.
    pub fn pending_count(&self) -> usize {
        self.shared.lock().len()
    }

    async fn run(&self, op: Op) -> Result<(), RegistryError> {
        let s = &self.shared;
        if s.cancel.is_cancelled() {
            return Err(RegistryError::Closed {
                address: s.inner.url().address(),
            });
        }
        // Whatever was pending under this key is superseded by this newer call.
        s.lock().remove(&op.key());
        match s.execute(&op).await {
            Ok(()) => Ok(()),
            Err(e) if !e.is_retryable() => Err(e),
            Err(e) => {
                let url = op.url();
                let mut check = s.check && url.parameter_bool("check").unwrap_or(true);
                if matches!(op, Op::Register(_) | Op::Unregister(_)) {
                    check = check && url.port() != 0;
                }
                if check {
                    return Err(e);
                }
                tracing::warn!(operation = op.name(), url = %url, code = e.code(), error = %e, "registry operation failed; will retry in the background");
                Shared::queue(s, op);
                Ok(())
            }
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    async fn execute(&self, op: &Op) -> Result<(), RegistryError> {
        match op {
            Op::Register(u) => self.inner.register(u).await,
            Op::Unregister(u) => self.inner.unregister(u).await,
            Op::Subscribe(u, l) => self.inner.subscribe(u, l.clone()).await,
            Op::Unsubscribe(u, l) => self.inner.unsubscribe(u, l).await,
        }
    }

    fn queue(this: &Arc<Self>, op: Op) {
        let generation = this.generation.fetch_add(1, Ordering::Relaxed);
        let delay = this.config.period;
        this.lock().insert(
            op.key(),
            Pending {
                op,
                due: Instant::now() + delay,
                delay,
                generation,
            },
        );
        if this.task_started.load(Ordering::Acquire) {
            this.wake.notify_one();
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // Polled outside tokio: the retry stays queued and the next call made inside a
            // runtime starts the task.
            tracing::warn!("no tokio runtime to retry registry operations in");
            return;
        };
        if !this.task_started.swap(true, Ordering::AcqRel) {
            let shared = Arc::clone(this);
            runtime.spawn(async move { shared.retry_loop().await });
        }
    }

    async fn retry_loop(self: Arc<Self>) {
        loop {
            let next = self.lock().values().map(|p| p.due).min();
            let sleep = async {
                match next {
                    Some(due) => tokio::time::sleep_until(due).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = self.cancel.cancelled() => return,
                _ = self.wake.notified() => continue,
                _ = sleep => {}
            }
            let now = Instant::now();
            let due: Vec<(Key, Op, u64)> = self
                .lock()
                .iter()
                .filter(|(_, p)| p.due <= now)
                .map(|(k, p)| (k.clone(), p.op.clone(), p.generation))
                .collect();
            for (key, op, generation) in due {
                let result = tokio::select! {
                    _ = self.cancel.cancelled() => return,
                    r = self.execute(&op) => r,
                };
                let mut pending = self.lock();
                let Some(p) = pending.get_mut(&key).filter(|p| p.generation == generation) else {
                    continue; // replaced by a newer call meanwhile
                };
                match result {
                    Ok(()) => {
                        tracing::info!(operation = op.name(), url = %op.url(), "registry operation succeeded on retry");
                        pending.remove(&key);
                    }
                    Err(e) if !e.is_retryable() => {
                        tracing::warn!(operation = op.name(), url = %op.url(), code = e.code(), error = %e, "registry operation failed for good; no more retries");
                        pending.remove(&key);
                    }
                    Err(e) => {
                        p.delay = (p.delay * 2).min(self.config.max_period);
                        p.due = Instant::now() + p.delay;
                        tracing::debug!(operation = op.name(), url = %op.url(), code = e.code(), next_in_ms = p.delay.as_millis() as u64, "registry retry failed");
                    }
                }
            }
        }
    }
}

impl Drop for FailbackRegistry {
    fn drop(&mut self) {
        self.shared.cancel.cancel();
    }
}

impl Registry for FailbackRegistry {
    fn url(&self) -> &Url {
        self.shared.inner.url()
    }

    fn register(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
        Box::pin(self.run(Op::Register(url.clone())))
    }

    fn unregister(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
        Box::pin(self.run(Op::Unregister(url.clone())))
    }

    fn subscribe(
        &self,
        consumer: &Url,
        listener: Arc<dyn NotifyListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        Box::pin(self.run(Op::Subscribe(consumer.clone(), listener)))
    }

    fn unsubscribe(
        &self,
        consumer: &Url,
        listener: &Arc<dyn NotifyListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        Box::pin(self.run(Op::Unsubscribe(consumer.clone(), listener.clone())))
    }

    fn lookup(&self, consumer: &Url) -> BoxFuture<'_, Result<Vec<Url>, RegistryError>> {
        self.shared.inner.lookup(consumer)
    }

    fn is_available(&self) -> bool {
        self.shared.inner.is_available()
    }

    fn destroy(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.shared.cancel.cancel();
            self.shared.lock().clear();
            self.shared.inner.destroy().await;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Notification;

    /// A scripted registry: each operation name fails with the given error the given number
    /// of times, then succeeds; every call is recorded with its (paused) time.
    struct Scripted {
        url: Url,
        failures: Mutex<HashMap<&'static str, (u32, RegistryError)>>,
        calls: Mutex<Vec<(&'static str, Duration)>>,
        start: Instant,
    }

    impl Scripted {
        fn new(registry_url: &str) -> Arc<Self> {
            Arc::new(Self {
                url: Url::parse(registry_url).unwrap(),
                failures: Mutex::default(),
                calls: Mutex::default(),
                start: Instant::now(),
            })
        }
        fn fail(&self, op: &'static str, times: u32) {
            self.fail_with(op, times, unreachable());
        }
        fn fail_with(&self, op: &'static str, times: u32, e: RegistryError) {
            self.failures.lock().unwrap().insert(op, (times, e));
        }
        fn call(&self, op: &'static str) -> Result<(), RegistryError> {
            self.calls.lock().unwrap().push((op, self.start.elapsed()));
            let mut f = self.failures.lock().unwrap();
            match f.get_mut(op) {
                Some((n, e)) if *n > 0 => {
                    *n -= 1;
                    Err(e.clone())
                }
                _ => Ok(()),
            }
        }
        fn calls_of(&self, op: &str) -> Vec<u64> {
            self.calls
                .lock()
                .unwrap()
                .iter()
                .filter(|(o, _)| *o == op)
                .map(|(_, t)| t.as_millis() as u64)
                .collect()
        }
    }

    fn unreachable() -> RegistryError {
        RegistryError::Unreachable {
            address: "x".into(),
            reason: "down".into(),
        }
    }

    impl Registry for Scripted {
        fn url(&self) -> &Url {
            &self.url
        }
        fn register(&self, _: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
            Box::pin(async move { self.call("register") })
        }
        fn unregister(&self, _: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
            Box::pin(async move { self.call("unregister") })
        }
        fn subscribe(
            &self,
            _: &Url,
            _: Arc<dyn NotifyListener>,
        ) -> BoxFuture<'_, Result<(), RegistryError>> {
            Box::pin(async move { self.call("subscribe") })
        }
        fn unsubscribe(
            &self,
            _: &Url,
            _: &Arc<dyn NotifyListener>,
        ) -> BoxFuture<'_, Result<(), RegistryError>> {
            Box::pin(async move { self.call("unsubscribe") })
        }
        fn lookup(&self, _: &Url) -> BoxFuture<'_, Result<Vec<Url>, RegistryError>> {
            Box::pin(async { Ok(vec![]) })
        }
        fn is_available(&self) -> bool {
            true
        }
        fn destroy(&self) -> BoxFuture<'_, ()> {
            Box::pin(async {})
        }
    }

    fn provider() -> Url {
        Url::parse("dubbo://10.0.0.1:20880/org.Foo?interface=org.Foo&side=provider").unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_register_is_retried_with_doubling_delays_until_it_succeeds() {
        let fake = Scripted::new("mock://r:1?check=false&retry.period=1000&retry.max-period=3000");
        fake.fail("register", 4);
        let r = FailbackRegistry::new(fake.clone());
        r.register(&provider()).await.unwrap();
        assert_eq!(r.pending_count(), 1);
        tokio::time::sleep(Duration::from_secs(30)).await;
        // Fails at 0; retries after 1 s, 2 s, 3 s (capped) fail; the one 3 s later succeeds.
        assert_eq!(fake.calls_of("register"), vec![0, 1000, 3000, 6000, 9000]);
        assert_eq!(r.pending_count(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_later_unregister_cancels_the_pending_register() {
        let fake = Scripted::new("mock://r:1?check=false");
        fake.fail("register", 100);
        let r = FailbackRegistry::new(fake.clone());
        r.register(&provider()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(5500)).await;
        assert_eq!(fake.calls_of("register"), vec![0, 5000]);
        r.unregister(&provider()).await.unwrap();
        assert_eq!(r.pending_count(), 0);
        tokio::time::sleep(Duration::from_secs(120)).await;
        assert_eq!(fake.calls_of("register").len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_unregister_is_replaced_by_a_later_register() {
        let fake = Scripted::new("mock://r:1?check=false");
        fake.fail("unregister", 100);
        let r = FailbackRegistry::new(fake.clone());
        r.unregister(&provider()).await.unwrap();
        r.register(&provider()).await.unwrap();
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(fake.calls_of("unregister"), vec![0]);
    }

    #[tokio::test(start_paused = true)]
    async fn check_true_returns_the_error_and_remembers_nothing() {
        let fake = Scripted::new("mock://r:1");
        fake.fail("register", 1);
        let r = FailbackRegistry::new(fake.clone());
        let e = r.register(&provider()).await.unwrap_err();
        assert_eq!(e.code(), "REGISTRY_UNREACHABLE");
        assert_eq!(r.pending_count(), 0);
        // The operation URL can turn check off on its own.
        fake.fail("register", 1);
        r.register(&provider().with_parameter("check", "false"))
            .await
            .unwrap();
        assert_eq!(r.pending_count(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn errors_that_cannot_pass_are_returned() {
        let fake = Scripted::new("mock://r:1?check=false");
        fake.fail_with(
            "register",
            1,
            RegistryError::Config {
                key: "k".into(),
                reason: "r".into(),
            },
        );
        let r = FailbackRegistry::new(fake.clone());
        assert_eq!(
            r.register(&provider()).await.unwrap_err().code(),
            "REGISTRY_CONFIG"
        );
        assert_eq!(r.pending_count(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn subscriptions_are_retried_and_destroy_stops_retrying() {
        let fake = Scripted::new("mock://r:1?check=false&retry.period=100");
        fake.fail("subscribe", 100);
        let r = FailbackRegistry::new(fake.clone());
        let l: Arc<dyn NotifyListener> = Arc::new(|_: Notification| {});
        let consumer = Url::parse("consumer://10.0.0.2/org.Foo?interface=org.Foo").unwrap();
        r.subscribe(&consumer, l.clone()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(350)).await;
        assert_eq!(fake.calls_of("subscribe"), vec![0, 100, 300]);
        r.destroy().await;
        tokio::time::sleep(Duration::from_secs(10)).await;
        assert_eq!(fake.calls_of("subscribe").len(), 3);
        assert_eq!(
            r.register(&provider()).await.unwrap_err().code(),
            "REGISTRY_CLOSED"
        );
    }
}
