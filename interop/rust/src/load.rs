//! Load mode of the interop client (CONTRACT.md section 4): many `sayHello("load")` calls from
//! several callers through one reference, counted per provider.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use dubbo_rs::core::{CallReport, Invocation, MethodSignature, Value};
use dubbo_rs::prelude::*;

use crate::cases::interop_reference;
use crate::reference_flags::ReferenceFlags;

/// What a load run asks for.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    /// Calls in all.
    pub calls: usize,
    /// Callers running at once.
    pub concurrency: usize,
    /// `loadbalance`, when given.
    pub loadbalance: Option<String>,
    /// `cluster`, when given.
    pub cluster: Option<String>,
    /// `retries`, when given.
    pub retries: Option<String>,
    /// Stop starting calls after this long even if `calls` are not all made (a load that
    /// spans a restart or an outage of known length).
    pub duration: Option<std::time::Duration>,
    /// The `dubbo.tag` attachment every call carries (tag routing), when given.
    pub tag: Option<String>,
}

/// When one provider answered during a load run, since the callers started.
#[derive(Debug, Default, Clone, Copy)]
pub struct Answered {
    /// Its first answer.
    pub first: Duration,
    /// Its last answer.
    pub last: Duration,
    /// The longest time between two of its answers (a provider out of use and back).
    pub longest_gap: Duration,
    /// When that longest gap ended: the first answer after it.
    pub gap_end: Duration,
}

impl Answered {
    fn at(first: Duration) -> Self {
        Self {
            first,
            last: first,
            longest_gap: Duration::ZERO,
            gap_end: first,
        }
    }

    fn record(&mut self, at: Duration) {
        let gap = at.saturating_sub(self.last);
        if gap > self.longest_gap {
            self.longest_gap = gap;
            self.gap_end = at;
        }
        self.last = at;
    }
}

/// What a load run saw.
#[derive(Debug, Default)]
pub struct LoadResult {
    /// Calls answered correctly.
    pub passed: usize,
    /// Calls that failed or answered wrongly.
    pub failed: usize,
    /// Calls answered, by the provider (`HOST:PORT`) that answered.
    pub by_provider: BTreeMap<String, usize>,
    /// When each provider answered, since the callers started.
    pub answered: BTreeMap<String, Answered>,
    /// When the callers started, as the system clock saw it (to set the figures above against
    /// events outside this process).
    pub started: Option<SystemTime>,
    /// The first few failures, for the log.
    pub errors: Vec<String>,
}

/// Runs `plan` against the providers of `url` (one or several, `;`-separated), with the
/// client's reference flags (token, timeout, parameters).
pub async fn run_load(
    app: &Application,
    url: &str,
    flags: &ReferenceFlags,
    plan: &LoadPlan,
) -> Result<LoadResult, DubboError> {
    let mut options = interop_reference(url, flags.token());
    for (key, value) in [
        ("loadbalance", &plan.loadbalance),
        ("cluster", &plan.cluster),
        ("retries", &plan.retries),
    ] {
        if let Some(v) = value {
            options = options.parameter(key, v);
        }
    }
    let reference = app.default_module().refer(flags.apply(options)).await?;
    let invoker = reference.invoker();
    let key = reference.service_key().clone();
    let method = Arc::new(MethodSignature::new(
        "sayHello",
        &["java.lang.String"],
        "java.lang.String",
    ));
    let next = Arc::new(AtomicUsize::new(0));
    let result = Arc::new(Mutex::new(LoadResult {
        started: Some(SystemTime::now()),
        ..LoadResult::default()
    }));
    let start = Instant::now();
    let mut callers = Vec::new();
    for _ in 0..plan.concurrency.max(1) {
        let (invoker, key, method, next, result) = (
            invoker.clone(),
            key.clone(),
            method.clone(),
            next.clone(),
            result.clone(),
        );
        let total = plan.calls;
        let tag = plan.tag.clone();
        let deadline = plan.duration.map(|d| start + d);
        callers.push(tokio::spawn(async move {
            while next.fetch_add(1, Ordering::Relaxed) < total
                && deadline.is_none_or(|d| Instant::now() < d)
            {
                let mut call = Invocation::new(key.clone(), method.clone(), vec!["load".into()]);
                if let Some(tag) = &tag {
                    call = call.with_attachment("dubbo.tag", tag.as_str());
                }
                let report = CallReport::attach(&mut call);
                let outcome = invoker.invoke(call).await;
                let provider = report
                    .last()
                    .map(|a| format!("{}:{}", a.provider.host().unwrap_or("?"), a.provider.port()));
                let mut r = result.lock().unwrap_or_else(|e| e.into_inner());
                match outcome {
                    Ok(resp) if resp.value == Value::String("Hello load".into()) => {
                        r.passed += 1;
                        let provider = provider.unwrap_or_else(|| "unknown".into());
                        let at = start.elapsed();
                        r.answered
                            .entry(provider.clone())
                            .and_modify(|a| a.record(at))
                            .or_insert_with(|| Answered::at(at));
                        *r.by_provider.entry(provider).or_default() += 1;
                    }
                    other => {
                        r.failed += 1;
                        if r.errors.len() < 10 {
                            r.errors.push(format!("{provider:?}: {other:?}"));
                        }
                    }
                }
            }
        }));
    }
    for c in callers {
        if c.await.is_err() {
            result.lock().unwrap_or_else(|e| e.into_inner()).failed += 1;
        }
    }
    let out = std::mem::take(&mut *result.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::Answered;
    use std::time::Duration;

    #[test]
    fn the_longest_gap_and_its_end_are_kept() {
        let ms = Duration::from_millis;
        let mut a = Answered::at(ms(5));
        for t in [6, 7, 4007, 4008, 4500, 4600] {
            a.record(ms(t));
        }
        assert_eq!(
            (a.first, a.last, a.longest_gap, a.gap_end),
            (ms(5), ms(4600), ms(4000), ms(4007))
        );
    }
}
