use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::error::{ErrorCode, RpcError};
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

/// The URL parameter that limits the calls a service accepts per interval.
pub const TPS_KEY: &str = "tps";

/// The URL parameter giving that interval in milliseconds ([`DEFAULT_TPS_INTERVAL`] when
/// absent).
pub const TPS_INTERVAL_KEY: &str = "tps.interval";

/// The interval of a `tps` limit when the URL gives no `tps.interval`: one minute, as in Java.
pub const DEFAULT_TPS_INTERVAL: Duration = Duration::from_millis(60_000);

/// The provider-side rate limit, Java's `TpsLimitFilter` with its `DefaultTPSLimiter`.
///
/// Active when the provider URL's `tps` is above zero: a service (its `group/interface:version`,
/// all methods together) accepts at most `tps` calls per `tps.interval` milliseconds. The window
/// is fixed, as Java's `StatItem` keeps it: it starts with `tps` permits at the first call, and
/// the first call after the interval has passed refills them and starts a new window. A call
/// that finds no permit left is refused at once with [`ErrorCode::LimitExceeded`] and Java's
/// message. A window whose `tps` or `tps.interval` changed is replaced by a fresh one.
///
/// The windows live in this instance; every framework creates its own.
#[derive(Debug, Default)]
pub struct TpsLimitFilter {
    windows: Mutex<HashMap<String, Window>>,
}

/// One service's permits in the current window.
#[derive(Debug)]
struct Window {
    rate: u64,
    interval: Duration,
    started: Instant,
    left: u64,
}

impl Window {
    fn new(rate: u64, interval: Duration, now: Instant) -> Self {
        Self {
            rate,
            interval,
            started: now,
            left: rate,
        }
    }

    /// Takes a permit if one is left, after refilling when the window has run out.
    fn try_take(&mut self, now: Instant) -> bool {
        if now.saturating_duration_since(self.started) > self.interval {
            self.started = now;
            self.left = self.rate;
        }
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        true
    }
}

impl TpsLimitFilter {
    /// A filter with no windows yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a call of the service `key` may run now under `rate` calls per `interval`; a
    /// `rate` of `None` (no limit) forgets the service's window.
    fn allows(&self, key: &str, rate: Option<u64>, interval: Duration, now: Instant) -> bool {
        let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(rate) = rate else {
            windows.remove(key);
            return true;
        };
        let window = windows
            .entry(key.to_owned())
            .or_insert_with(|| Window::new(rate, interval, now));
        if window.rate != rate || window.interval != interval {
            *window = Window::new(rate, interval, now);
        }
        window.try_take(now)
    }
}

impl Filter for TpsLimitFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let url = next.url();
        // Java reads both as service-level parameters (`getParameter`, not per method); a
        // value that is not a number means "no limit" / the default interval, as there.
        let rate = url
            .parameter(TPS_KEY)
            .and_then(|v| v.trim().parse::<i64>().ok())
            .filter(|r| *r > 0)
            .map(|r| r.unsigned_abs());
        let interval = url
            .parameter(TPS_INTERVAL_KEY)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TPS_INTERVAL);
        let key = invocation.service().to_string();
        if self.allows(&key, rate, interval, Instant::now()) {
            return next.run(invocation);
        }
        let message = format!(
            "Failed to invoke service {}.{} because exceed max service tps.",
            invocation.service().interface(),
            invocation.method_name()
        );
        Box::pin(async move { Err(RpcError::framework(ErrorCode::LimitExceeded, message)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_allows_rate_calls_then_refills_after_the_interval() {
        let f = TpsLimitFilter::new();
        let t0 = Instant::now();
        let second = Duration::from_secs(1);
        assert!(f.allows("a", Some(2), second, t0));
        assert!(f.allows("a", Some(2), second, t0));
        assert!(!f.allows("a", Some(2), second, t0 + Duration::from_millis(500)));
        // Another service has its own window.
        assert!(f.allows("b", Some(2), second, t0));
        // Exactly at the interval the window still holds (Java: `now > last + interval`).
        assert!(!f.allows("a", Some(2), second, t0 + second));
        assert!(f.allows("a", Some(2), second, t0 + Duration::from_millis(1001)));
    }

    #[test]
    fn a_changed_setting_starts_a_new_window_and_no_limit_forgets_it() {
        let f = TpsLimitFilter::new();
        let t0 = Instant::now();
        let minute = DEFAULT_TPS_INTERVAL;
        assert!(f.allows("a", Some(1), minute, t0));
        assert!(!f.allows("a", Some(1), minute, t0));
        assert!(f.allows("a", Some(2), minute, t0));
        assert!(f.allows("a", None, minute, t0));
        assert!(f.allows("a", Some(2), minute, t0));
        assert!(f.allows("a", Some(2), minute, t0));
        assert!(!f.allows("a", Some(2), minute, t0));
    }
}
