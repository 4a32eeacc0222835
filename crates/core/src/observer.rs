//! Observers: filters that only watch calls, run by the chain around the rest of it.

use std::any::Any;
use std::sync::Arc;

use crate::call::Call;
use crate::filter::Next;
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

/// What an [`Observer`] keeps about one call between [`begin`](Observer::begin) and
/// [`end`](Observer::end) or [`abandon`](Observer::abandon). Its meaning is the observer's.
#[derive(Default)]
pub struct Observation {
    /// A number of the observer's choosing, such as the time the call began.
    pub start: u64,
    /// Another, such as where the observer keeps the call's counters.
    pub slot: usize,
    /// Anything else the observer must keep alive for the call; `None` costs nothing.
    pub held: Option<Arc<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for Observation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observation")
            .field("start", &self.start)
            .field("slot", &self.slot)
            .field("held", &self.held.is_some())
            .finish()
    }
}

/// The form of a [`Filter`](crate::Filter) that neither changes a call nor its outcome, only
/// watches it (metrics, for one). A filter offers it through
/// [`Filter::observer`](crate::Filter::observer); a [`FilterChain`](crate::FilterChain) then
/// calls these hooks around the rest of the chain instead of the filter's `invoke`, which saves
/// the filter's own future and a move of the invocation on every call.
pub trait Observer: Send + Sync {
    /// A call is about to run the rest of the chain. `None` leaves this call unobserved:
    /// neither `end` nor `abandon` follows.
    fn begin(&self, invocation: &Invocation) -> Option<Observation>;

    /// The call observed by `observation` completed with `result`.
    fn end(&self, observation: Observation, result: &RpcResult);

    /// The call observed by `observation` was dropped before it completed.
    fn abandon(&self, observation: Observation);
}

/// Runs `next` with `invocation` under `observer`: what a chain does for an observing filter,
/// and what such a filter's [`Filter::invoke`](crate::Filter::invoke) should do so that both
/// paths behave alike.
pub fn observe<'a>(
    observer: &'a dyn Observer,
    invocation: Invocation,
    next: Next<'a>,
) -> BoxFuture<'a, RpcResult> {
    observe_with(observer, invocation, |inv| next.run(inv))
}

/// [`observe`] with the rest of the chain started by `rest`.
#[inline(always)]
pub(crate) fn observe_with<'a>(
    observer: &'a dyn Observer,
    invocation: Invocation,
    rest: impl FnOnce(Invocation) -> BoxFuture<'a, RpcResult>,
) -> BoxFuture<'a, RpcResult> {
    match observer.begin(&invocation) {
        Some(observation) => Box::pin(Call::observed(rest(invocation), observer, observation)),
        None => rest(invocation),
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::{pin, Pin};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    use std::task::Waker;
    use std::task::{Context, Poll};

    use dubbo_url::Url;

    use super::*;
    use crate::error::{ErrorCode, RpcError};
    use crate::filter::{Filter, FilterChain, FilterSpec, Stage};
    use crate::invoker::{invoker_fn, Invoker};
    use crate::method::MethodSignature;
    use crate::service_key::ServiceKey;
    use crate::{RpcResponse, Value};

    /// Writes what it sees into a log: `begin`, `end ok`, `end err`, `abandon`.
    struct Log {
        name: &'static str,
        log: Arc<Mutex<Vec<String>>>,
        /// Calls of `begin` that return `None` (every other one when set).
        skip_odd: bool,
        begins: AtomicUsize,
    }

    impl Log {
        fn push(&self, what: String) {
            self.log
                .lock()
                .unwrap()
                .push(format!("{} {what}", self.name));
        }
    }

    impl Observer for Log {
        fn begin(&self, invocation: &Invocation) -> Option<Observation> {
            let n = self.begins.fetch_add(1, Ordering::Relaxed);
            if self.skip_odd && n % 2 == 1 {
                return None;
            }
            self.push(format!("begin {}", invocation.method_name()));
            Some(Observation {
                start: n as u64,
                ..Observation::default()
            })
        }
        fn end(&self, observation: Observation, result: &RpcResult) {
            let outcome = if result.is_ok() { "ok" } else { "err" };
            self.push(format!("end {} {outcome}", observation.start));
        }
        fn abandon(&self, observation: Observation) {
            self.push(format!("abandon {}", observation.start));
        }
    }

    impl Filter for Log {
        fn invoke<'a>(
            &'a self,
            invocation: Invocation,
            next: Next<'a>,
        ) -> BoxFuture<'a, RpcResult> {
            observe(self, invocation, next)
        }
        fn observer(&self) -> Option<&dyn Observer> {
            Some(self)
        }
    }

    /// An ordinary filter that logs around the call.
    struct Plain(Arc<Mutex<Vec<String>>>);

    impl Filter for Plain {
        fn invoke<'a>(
            &'a self,
            invocation: Invocation,
            next: Next<'a>,
        ) -> BoxFuture<'a, RpcResult> {
            self.0.lock().unwrap().push("plain in".into());
            let log = self.0.clone();
            let rest = next.run(invocation);
            Box::pin(async move {
                let r = rest.await;
                log.lock().unwrap().push("plain out".into());
                r
            })
        }
    }

    fn url() -> Url {
        Url::parse("dubbo://127.0.0.1:20880/a.B").unwrap()
    }

    fn call(method: &str) -> Invocation {
        Invocation::new(
            ServiceKey::new("a.B", None, None),
            Arc::new(MethodSignature::new(method, &[] as &[&str], "void")),
            Vec::new(),
        )
    }

    fn log_filter(name: &'static str, log: &Arc<Mutex<Vec<String>>>, skip_odd: bool) -> Arc<Log> {
        Arc::new(Log {
            name,
            log: log.clone(),
            skip_odd,
            begins: AtomicUsize::new(0),
        })
    }

    /// A target that fails the method `bad` and answers the others.
    fn target() -> Arc<dyn Invoker> {
        Arc::new(invoker_fn(url(), |inv: Invocation| async move {
            if inv.method_name() == "bad" {
                Err(RpcError::framework(ErrorCode::Unknown, "bad"))
            } else {
                Ok(RpcResponse::new(Value::Null))
            }
        }))
    }

    fn poll_once<F: Future>(f: Pin<&mut F>) -> Poll<F::Output> {
        f.poll(&mut Context::from_waker(Waker::noop()))
    }

    fn run(chain: &FilterChain, method: &str) -> RpcResult {
        match poll_once(pin!(chain.invoke(call(method)))) {
            Poll::Ready(r) => r,
            Poll::Pending => panic!("the test target never waits"),
        }
    }

    #[test]
    fn a_chain_runs_an_observer_around_the_rest_in_order() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let filters: Vec<Arc<dyn Filter>> = vec![
            Arc::new(Plain(log.clone())),
            log_filter("a", &log, false),
            log_filter("b", &log, false),
            Arc::new(Plain(log.clone())),
        ];
        let chain = FilterChain::new(filters, target());
        assert!(run(&chain, "m").is_ok());
        assert!(run(&chain, "bad").is_err());
        let got = log.lock().unwrap().clone();
        assert_eq!(
            got,
            [
                "plain in",
                "a begin m",
                "b begin m",
                "plain in",
                "plain out",
                "b end 0 ok",
                "a end 0 ok",
                "plain out",
                "plain in",
                "a begin bad",
                "b begin bad",
                "plain in",
                "plain out",
                "b end 1 err",
                "a end 1 err",
                "plain out",
            ]
        );
    }

    #[test]
    fn a_dropped_call_is_abandoned_and_an_unobserved_one_is_not_reported() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let pending: Arc<dyn Invoker> =
            Arc::new(invoker_fn(url(), |_| std::future::pending::<RpcResult>()));
        let chain = FilterChain::new(vec![log_filter("a", &log, true)], pending);
        {
            let mut f = pin!(chain.invoke(call("m")));
            assert!(poll_once(f.as_mut()).is_pending());
        }
        // The second call is not observed: dropping it reports nothing.
        drop(chain.invoke(call("n")));
        assert_eq!(*log.lock().unwrap(), ["a begin m", "a abandon 0"]);
    }

    #[test]
    fn an_observer_called_through_invoke_behaves_as_through_the_chain() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let observer = log_filter("a", &log, false);
        // A spec's filter goes through `observer()`; a wrapper hiding it goes through `invoke`.
        struct Hidden(Arc<Log>);
        impl Filter for Hidden {
            fn invoke<'a>(
                &'a self,
                invocation: Invocation,
                next: Next<'a>,
            ) -> BoxFuture<'a, RpcResult> {
                self.0.invoke(invocation, next)
            }
        }
        let direct = FilterChain::new(vec![observer.clone()], target());
        let hidden = FilterChain::new(vec![Arc::new(Hidden(observer))], target());
        assert!(run(&direct, "bad").is_err());
        let first = std::mem::take(&mut *log.lock().unwrap());
        assert!(run(&hidden, "bad").is_err());
        let second = log.lock().unwrap().clone();
        assert_eq!(first, ["a begin bad", "a end 0 err"]);
        assert_eq!(second, ["a begin bad", "a end 1 err"]);
    }

    fn run_inline(chain: &FilterChain, method: &str) -> RpcResult {
        match poll_once(pin!(chain.invoke_inline(call(method)))) {
            Poll::Ready(r) => r,
            Poll::Pending => panic!("the test target never waits"),
        }
    }

    #[test]
    fn an_inline_call_is_observed_as_a_boxed_one() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let filters: Vec<Arc<dyn Filter>> = vec![
            log_filter("a", &log, false),
            log_filter("b", &log, false),
            Arc::new(Plain(log.clone())),
        ];
        let chain = FilterChain::new(filters, target());
        assert!(run(&chain, "m").is_ok());
        let boxed = std::mem::take(&mut *log.lock().unwrap());
        assert!(run_inline(&chain, "m").is_ok());
        let inline = std::mem::take(&mut *log.lock().unwrap());
        let renumbered: Vec<String> = boxed.iter().map(|l| l.replace(" 0 ", " 1 ")).collect();
        assert_eq!(inline, renumbered);
        assert!(run_inline(&chain, "bad").is_err());
        assert_eq!(
            *log.lock().unwrap(),
            [
                "a begin bad",
                "b begin bad",
                "plain in",
                "plain out",
                "b end 2 err",
                "a end 2 err"
            ]
        );
        // Without filters the target answers directly.
        let empty = FilterChain::new(Vec::new(), target());
        assert!(run_inline(&empty, "m").is_ok());
        assert!(run_inline(&empty, "bad").is_err());
    }

    #[test]
    fn a_dropped_inline_call_is_abandoned_and_an_unobserved_one_is_not_reported() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let pending: Arc<dyn Invoker> =
            Arc::new(invoker_fn(url(), |_| std::future::pending::<RpcResult>()));
        let chain = FilterChain::new(vec![log_filter("a", &log, true)], pending);
        {
            let mut f = pin!(chain.invoke_inline(call("m")));
            assert!(poll_once(f.as_mut()).is_pending());
        }
        drop(chain.invoke_inline(call("n")));
        // Through the blanket `Arc` impl too, as protocols hold their invokers.
        let shared: Arc<dyn Invoker> = Arc::new(chain);
        drop(shared.invoke_inline(call("o")));
        assert_eq!(
            *log.lock().unwrap(),
            ["a begin m", "a abandon 0", "a begin o", "a abandon 2"]
        );
    }

    #[test]
    fn filter_selection_removes_an_observer_like_any_filter() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let spec = Arc::new(FilterSpec::new(
            "log",
            0,
            &[Stage::Consumer],
            log_filter("a", &log, false),
        ));
        let removed = Url::parse("dubbo://127.0.0.1:20880/a.B?reference.filter=-log").unwrap();
        let chain = FilterChain::build(
            std::slice::from_ref(&spec),
            Stage::Consumer,
            &removed,
            target(),
        );
        assert!(chain.is_empty());
        assert!(run(&chain, "m").is_ok());
        assert!(log.lock().unwrap().is_empty());
        let chain = FilterChain::build(&[spec], Stage::Consumer, &url(), target());
        assert_eq!(chain.len(), 1);
        assert!(run(&chain, "m").is_ok());
        assert_eq!(*log.lock().unwrap(), ["a begin m", "a end 0 ok"]);
    }
}
