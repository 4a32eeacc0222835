//! Provider weights: the URL's `weight` (or `<method>.weight`) with Dubbo's warm-up ramp.
//!
//! A provider that started less than `warmup` milliseconds ago (its URL's `timestamp`, in ms
//! since the Unix epoch) takes a share of its weight that grows linearly with its uptime, so
//! a freshly started process (cold caches, JIT) is not flooded. The numbers follow Java
//! Dubbo's `AbstractLoadBalance` so mixed Java and Rust consumers spread load alike.

use std::time::{SystemTime, UNIX_EPOCH};

use dubbo_url::Url;

/// The URL parameter holding a provider's weight.
pub const WEIGHT_KEY: &str = "weight";
/// The weight of a provider whose URL sets none.
pub const DEFAULT_WEIGHT: u32 = 100;
/// The URL parameter holding the provider's start time, in ms since the Unix epoch.
pub const TIMESTAMP_KEY: &str = "timestamp";
/// The URL parameter holding the warm-up period, in ms.
pub const WARMUP_KEY: &str = "warmup";
/// The warm-up period of a provider whose URL sets none: ten minutes.
pub const DEFAULT_WARMUP_MS: u64 = 10 * 60 * 1000;

/// The weight of a provider `uptime_ms` into a warm-up of `warmup_ms`: proportional to the
/// uptime, never below 1 nor above `weight`.
pub fn warmup_weight(uptime_ms: u64, warmup_ms: u64, weight: u32) -> u32 {
    if warmup_ms == 0 || weight == 0 {
        return weight;
    }
    // Same arithmetic as Java (a float step, truncated), so both sides agree on the ramp.
    let step = warmup_ms as f32 / weight as f32;
    let ramped = (uptime_ms as f32 / step) as u64;
    ramped.clamp(1, u64::from(weight)) as u32
}

/// The configured weight of `url` for `method`, before warm-up: `<method>.weight`, else
/// `weight`, else [`DEFAULT_WEIGHT`]. A value that is not a number counts as the default; a
/// negative one as 0.
pub fn configured_weight(url: &Url, method: &str) -> u32 {
    match url.method_parameter(method, WEIGHT_KEY) {
        None => DEFAULT_WEIGHT,
        Some(v) => match v.trim().parse::<i64>() {
            Ok(w) => w.clamp(0, i64::from(u32::MAX)) as u32,
            Err(_) => DEFAULT_WEIGHT,
        },
    }
}

/// The effective weight of `url` for `method` at `now_ms` (ms since the Unix epoch): the
/// configured weight, ramped while the provider warms up. A provider whose start time lies
/// in the future (clock skew) gets 1.
pub fn weight_at(url: &Url, method: &str, now_ms: u64) -> u32 {
    let weight = configured_weight(url, method);
    if weight == 0 {
        return 0;
    }
    let Some(start) = start_time_ms(url) else {
        return weight;
    };
    if now_ms < start {
        return 1;
    }
    let uptime = now_ms - start;
    let warmup = warmup_ms(url);
    if uptime > 0 && uptime < warmup {
        warmup_weight(uptime, warmup, weight)
    } else {
        weight
    }
}

/// When the weight of `url` stops changing with time: the end of its warm-up, or `None` when
/// it is not warming up at `now_ms`.
pub fn warm_until(url: &Url, now_ms: u64) -> Option<u64> {
    let start = start_time_ms(url)?;
    let end = start.saturating_add(warmup_ms(url));
    (now_ms <= end).then_some(end)
}

/// Whether any provider URL sets a weight or a start time, i.e. whether weights can differ
/// at all. Java looks at the first provider only; so does this, to keep the common
/// unweighted case free of a scan.
pub fn may_be_weighted(url: &Url, method: &str) -> bool {
    url.method_parameter(method, WEIGHT_KEY)
        .is_some_and(|v| !v.is_empty())
        || url.parameter(TIMESTAMP_KEY).is_some_and(|v| !v.is_empty())
}

/// Milliseconds since the Unix epoch now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn start_time_ms(url: &Url) -> Option<u64> {
    url.parameter(TIMESTAMP_KEY)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&t| t > 0)
}

fn warmup_ms(url: &Url) -> u64 {
    url.parameter(WARMUP_KEY)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_WARMUP_MS)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn warmup_ramp_is_linear_and_bounded() {
        let ten_min = DEFAULT_WARMUP_MS;
        assert_eq!(warmup_weight(0, ten_min, 100), 1, "never below 1");
        assert_eq!(warmup_weight(ten_min / 2, ten_min, 100), 50);
        assert_eq!(warmup_weight(ten_min / 4, ten_min, 100), 25);
        assert_eq!(warmup_weight(ten_min * 2, ten_min, 100), 100, "never above");
        assert_eq!(warmup_weight(6_000, ten_min, 100), 1);
        assert_eq!(warmup_weight(12_000, ten_min, 100), 2);
    }

    #[test]
    fn weight_reads_method_then_service_and_ramps_from_timestamp() {
        let now = 1_700_000_000_000u64;
        let url = Url::parse(&format!(
            "dubbo://h:1/a.B?weight=200&hello.weight=40&timestamp={}",
            now - 5 * 60 * 1000
        ))
        .unwrap();
        assert_eq!(configured_weight(&url, "hello"), 40);
        assert_eq!(configured_weight(&url, "bye"), 200);
        assert_eq!(weight_at(&url, "bye", now), 100, "half way through warm-up");
        assert_eq!(weight_at(&url, "hello", now), 20);
        assert_eq!(weight_at(&url, "bye", now + 10 * 60 * 1000), 200, "warm");
        assert_eq!(
            weight_at(&url, "bye", now - 6 * 60 * 1000),
            1,
            "future start"
        );
        assert!(warm_until(&url, now).is_some());
        assert!(warm_until(&url, now + 10 * 60 * 1000).is_none());
        let short = Url::parse(&format!(
            "dubbo://h:1/a.B?warmup=1000&timestamp={}",
            now - 250
        ))
        .unwrap();
        assert_eq!(weight_at(&short, "m", now), 25);
        let plain = Url::parse("dubbo://h:1/a.B").unwrap();
        assert_eq!(weight_at(&plain, "m", now), DEFAULT_WEIGHT);
        assert!(!may_be_weighted(&plain, "m"));
        assert!(may_be_weighted(&url, "m"));
        let zero = Url::parse("dubbo://h:1/a.B?weight=-5").unwrap();
        assert_eq!(weight_at(&zero, "m", now), 0);
    }
}
