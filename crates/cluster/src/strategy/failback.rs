//! `failback`: a failed call returns a null result now and is retried in the background.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_core::{BoxFuture, Invocation, Invoker, RpcError, RpcResponse, RpcResult};
use dubbo_url::Url;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::failover::may_retry;
use super::{BackgroundWork, ClusterCall, ClusterStrategy};

/// How long a failed call waits before each retry (Java's `RETRY_FAILED_PERIOD`).
pub const RETRY_PERIOD: Duration = Duration::from_secs(5);

/// Retries of one failed call when the reference sets no positive `retries` (Java's
/// `DEFAULT_FAILBACK_TIMES`).
pub const DEFAULT_FAILBACK_RETRIES: u32 = 3;

/// Most failed calls waiting for a retry when the reference sets no `failbacktasks` (Java's
/// default); a failure beyond that is logged and dropped.
pub const DEFAULT_FAILBACK_TASKS: usize = 100;

/// A call that failed, waiting for its next retry.
struct Retry {
    call: ClusterCall,
    invocation: Invocation,
    last_provider: Option<Arc<dyn Invoker>>,
    retried: u32,
    due: Instant,
}

/// One attempt; when it fails in a way that may be retried, the caller gets a null result at
/// once and the call is queued to be sent again every 5 s, to another provider when there is
/// one, until it succeeds or has been retried `retries` times (default 3) (Java's
/// `FailbackClusterInvoker`, for notifications that must arrive eventually). What may be
/// retried is failover's rule: not a business exception (the provider's answer, returned as
/// it is), a cancelled call or refused credentials; and to a `rest://` provider only a
/// connection failure of an idempotent verb (a `POST` is never sent twice, an HTTP answer
/// never retried). Other failures are returned as they are. A call that no provider could
/// be chosen for is queued too.
///
/// The queue holds at most `failbacktasks` calls (default 100). Retries are sent by the work
/// [`background`](ClusterStrategy::background) hands out, which the reference's owner runs
/// until it cancels it; [`destroy`](ClusterStrategy::destroy) stops it too.
pub struct Failback {
    retries: u32,
    max_tasks: usize,
    period: Duration,
    queued: Arc<AtomicUsize>,
    sender: mpsc::UnboundedSender<Retry>,
    receiver: Mutex<Option<mpsc::UnboundedReceiver<Retry>>>,
    closed: CancellationToken,
}

impl Failback {
    /// A failback strategy with the settings of the consumer `url`.
    pub fn from_url(url: &Url) -> Self {
        let retries = url
            .parameter("retries")
            .and_then(|r| r.trim().parse::<i64>().ok())
            .and_then(|r| u32::try_from(r).ok())
            .filter(|r| *r > 0)
            .unwrap_or(DEFAULT_FAILBACK_RETRIES);
        let max_tasks = url
            .parameter("failbacktasks")
            .and_then(|r| r.trim().parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_FAILBACK_TASKS);
        Self::new(retries, max_tasks, RETRY_PERIOD)
    }

    /// A failback strategy retrying each failed call up to `retries` times, every `period`,
    /// with at most `max_tasks` calls waiting.
    pub fn new(retries: u32, max_tasks: usize, period: Duration) -> Self {
        let (sender, receiver) = mpsc::unbounded_channel();
        Self {
            retries: retries.max(1),
            max_tasks: max_tasks.max(1),
            period,
            queued: Arc::new(AtomicUsize::new(0)),
            sender,
            receiver: Mutex::new(Some(receiver)),
            closed: CancellationToken::new(),
        }
    }

    /// Calls waiting for a retry.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::Relaxed)
    }

    fn enqueue(&self, retry: Retry, error: &RpcError) {
        if self.queued.fetch_add(1, Ordering::Relaxed) >= self.max_tasks {
            self.queued.fetch_sub(1, Ordering::Relaxed);
            tracing::error!(
                service = retry.call.service(),
                method = retry.invocation.method_name(),
                error = %error,
                max = self.max_tasks,
                "failback: retry queue is full; the failed call is dropped"
            );
            return;
        }
        tracing::warn!(
            service = retry.call.service(),
            method = retry.invocation.method_name(),
            error = %error,
            "failback: call failed, returning a null result and retrying it later"
        );
        if self.sender.send(retry).is_err() {
            self.queued.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl ClusterStrategy for Failback {
    fn invoke(&self, call: ClusterCall, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(async move {
            let provider = call.select(&invocation, call.invokers(), &[]);
            let (provider, result) = match provider {
                Ok(p) => {
                    let r = call.invoke_on(&p, invocation.clone()).await;
                    (Some(p), r)
                }
                Err(e) => (None, Err(e)),
            };
            let retriable = |e: &RpcError| match &provider {
                Some(p) => may_retry(&**p, &invocation, e),
                None => !e.is_business(),
            };
            match result {
                Err(e) if retriable(&e) => {
                    let retry = Retry {
                        call,
                        invocation,
                        last_provider: provider,
                        retried: 0,
                        due: Instant::now() + self.period,
                    };
                    self.enqueue(retry, &e);
                    Ok(RpcResponse::default())
                }
                other => other,
            }
        })
    }

    fn background(&self) -> Option<BackgroundWork> {
        let receiver = self.receiver.lock().ok()?.take()?;
        let worker = Worker {
            receiver,
            queued: self.queued.clone(),
            retries: self.retries,
            period: self.period,
            closed: self.closed.clone(),
        };
        Some(Box::new(move |stop| Box::pin(worker.run(stop))))
    }

    fn destroy(&self) {
        self.closed.cancel();
    }
}

impl std::fmt::Debug for Failback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Failback")
            .field("retries", &self.retries)
            .field("max_tasks", &self.max_tasks)
            .field("queued", &self.queued())
            .finish()
    }
}

/// The retry timer of one failback reference.
struct Worker {
    receiver: mpsc::UnboundedReceiver<Retry>,
    queued: Arc<AtomicUsize>,
    retries: u32,
    period: Duration,
    closed: CancellationToken,
}

impl Worker {
    async fn run(mut self, stop: CancellationToken) {
        let mut waiting: Vec<Retry> = Vec::new();
        loop {
            let next_due = waiting.iter().map(|r| r.due).min();
            let sleep = async {
                match next_due {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = self.closed.cancelled() => break,
                received = self.receiver.recv() => match received {
                    Some(r) => waiting.push(r),
                    None => if waiting.is_empty() { break },
                },
                _ = sleep => {
                    let now = Instant::now();
                    let (due, later): (Vec<Retry>, Vec<Retry>) =
                        waiting.drain(..).partition(|r| r.due <= now);
                    waiting = later;
                    let outcomes = futures::future::join_all(due.into_iter().map(retry_once)).await;
                    for outcome in outcomes {
                        let Some(mut r) = outcome else {
                            self.queued.fetch_sub(1, Ordering::Relaxed);
                            continue;
                        };
                        r.retried += 1;
                        if r.retried >= self.retries {
                            tracing::error!(
                                service = r.call.service(),
                                method = r.invocation.method_name(),
                                retries = r.retried,
                                "failback: call still failing after its last retry; given up"
                            );
                            self.queued.fetch_sub(1, Ordering::Relaxed);
                        } else {
                            r.due = Instant::now() + self.period;
                            waiting.push(r);
                        }
                    }
                }
            }
        }
        let left = waiting.len();
        if left > 0 {
            tracing::warn!(
                left,
                "failback: stopped with calls still waiting for a retry"
            );
        }
    }
}

/// Sends a waiting call again; `None` when it succeeded (or got a business answer, which ends
/// it too), else the call to retry later.
async fn retry_once(mut r: Retry) -> Option<Retry> {
    let invokers = r.call.relist(&r.invocation);
    let avoid: Vec<Arc<dyn Invoker>> = r.last_provider.iter().cloned().collect();
    let provider = match r.call.select(&r.invocation, &invokers, &avoid) {
        Ok(p) => p,
        Err(_) => return Some(r),
    };
    let result = r.call.invoke_on(&provider, r.invocation.clone()).await;
    let retriable = matches!(&result, Err(e) if may_retry(&*provider, &r.invocation, e));
    r.last_provider = Some(provider);
    match result {
        Err(e) if retriable => {
            tracing::debug!(error = %e, "failback: retry failed");
            Some(r)
        }
        Err(e) if !e.is_business() => {
            tracing::warn!(
                service = r.call.service(),
                method = r.invocation.method_name(),
                error = %e,
                "failback: retry failed in a way that is not retried; given up"
            );
            None
        }
        _ => None,
    }
}
