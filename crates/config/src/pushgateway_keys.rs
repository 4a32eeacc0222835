//! The Pushgateway keys (`dubbo.metrics.prometheus.pushgateway.*`, as Java Dubbo 3.3 reads
//! them): where the application pushes its metrics, how often, and with which credentials.
//! Checked with the rest of the configuration, so a bad base URL fails the build of the
//! application, not the first push.

use std::time::Duration;

use base64::Engine;

use super::{ConfigError, DubboConfig};

/// Java's job name when none is configured.
pub const DEFAULT_JOB: &str = "default_dubbo_job";

/// Java's interval between pushes when none is configured, in seconds.
pub const DEFAULT_PUSH_INTERVAL_SECONDS: u64 = 30;

/// Where and how often to push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushTarget {
    /// `host:port` to connect to.
    pub authority: String,
    /// The request path: the base URL's path, then `/metrics/job/{job}`.
    pub path: String,
    /// The `Authorization` header's value, when a user is configured.
    pub authorization: Option<String>,
    /// How long between two pushes.
    pub interval: Duration,
}

const KEY: &str = "dubbo.metrics.prometheus.pushgateway";

/// The push settings of `config`: `None` unless `enabled: true`.
pub fn pushgateway_target(config: &DubboConfig) -> Result<Option<PushTarget>, ConfigError> {
    let gw = &config.metrics.prometheus.pushgateway;
    if gw.enabled != Some(true) {
        return Ok(None);
    }
    let base = gw
        .base_url
        .as_deref()
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .ok_or_else(|| {
            ConfigError::invalid(
                format!("{KEY}.base-url"),
                "is required when the Pushgateway is enabled (e.g. localhost:9091)",
            )
        })?;
    let (authority, prefix) = split_base_url(base)?;
    let job = gw
        .job
        .as_deref()
        .map(str::trim)
        .filter(|j| !j.is_empty())
        .unwrap_or(DEFAULT_JOB);
    let seconds = gw.push_interval.unwrap_or(DEFAULT_PUSH_INTERVAL_SECONDS);
    if seconds == 0 {
        return Err(ConfigError::invalid(
            format!("{KEY}.push-interval"),
            "must be at least 1 (seconds)",
        ));
    }
    let authorization = gw
        .username
        .as_deref()
        .filter(|u| !u.trim().is_empty())
        .map(|user| {
            let pair = format!("{user}:{}", gw.password.as_deref().unwrap_or(""));
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            )
        });
    Ok(Some(PushTarget {
        authority,
        path: format!("{prefix}/metrics/job{}", job_segment(job)),
        authorization,
        interval: Duration::from_secs(seconds),
    }))
}

/// `host:port` and the path prefix (without a trailing `/`) of a base URL given as Java takes
/// it (`host:port`) or with an `http://` scheme.
fn split_base_url(base: &str) -> Result<(String, String), ConfigError> {
    let invalid = |why: &str| ConfigError::invalid(format!("{KEY}.base-url"), why.to_owned());
    let rest = match base.split_once("://") {
        None => base,
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
        Some(_) => {
            return Err(invalid(
                "only http:// is supported (or host:port, as Java takes it)",
            ))
        }
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.is_empty() || authority.contains('@') {
        return Err(invalid(
            "needs host:port (credentials go in username and password)",
        ));
    }
    let authority = if authority.rsplit_once(':').is_some_and(|(h, p)| {
        !h.is_empty() && !h.ends_with(':') && p.chars().all(|c| c.is_ascii_digit())
    }) && !authority.ends_with(']')
    {
        authority.to_owned()
    } else {
        // The Pushgateway's own default port.
        format!("{authority}:9091")
    };
    Ok((authority, path.trim_end_matches('/').to_owned()))
}

/// The job's path segment: `/{job}` percent-encoded, or `@base64/{base64url}` when it holds
/// a `/`, which the Pushgateway would read as a label separator.
fn job_segment(job: &str) -> String {
    if job.contains('/') {
        return format!(
            "@base64/{}",
            base64::engine::general_purpose::URL_SAFE.encode(job)
        );
    }
    let mut out = String::from("/");
    for b in job.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The configuration as parsed, before the checks that [`settings`] is part of.
    fn cfg(yaml: &str) -> DubboConfig {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    #[test]
    fn settings_follow_java_keys_and_defaults() {
        assert_eq!(
            pushgateway_target(&cfg("application:\n  name: a\n")).unwrap(),
            None
        );
        let t = pushgateway_target(&cfg(
            "metrics:\n  prometheus:\n    pushgateway:\n      enabled: true\n      base-url: localhost:9091\n",
        ))
        .unwrap()
        .unwrap();
        assert_eq!(t.authority, "localhost:9091");
        assert_eq!(t.path, "/metrics/job/default_dubbo_job");
        assert_eq!(t.interval, Duration::from_secs(30));
        assert_eq!(t.authorization, None);
        let t = pushgateway_target(&cfg(
            "metrics:\n  prometheus:\n    pushgateway:\n      enabled: true\n      base-url: http://gw/prefix/\n      job: a b/c\n      push-interval: 5\n      username: u\n      password: p\n",
        ))
        .unwrap()
        .unwrap();
        assert_eq!(t.authority, "gw:9091");
        assert_eq!(t.path, "/prefix/metrics/job@base64/YSBiL2M=");
        assert_eq!(t.interval, Duration::from_secs(5));
        assert_eq!(t.authorization.as_deref(), Some("Basic dTpw"));
        assert_eq!(job_segment("a b"), "/a%20b");
        for bad in [
            "      enabled: true\n",
            "      enabled: true\n      base-url: https://gw:9091\n",
            "      enabled: true\n      base-url: gw:1\n      push-interval: 0\n",
        ] {
            let yaml = format!("metrics:\n  prometheus:\n    pushgateway:\n{bad}");
            assert!(pushgateway_target(&cfg(&yaml)).is_err(), "{bad}");
            assert!(DubboConfig::from_yaml(&yaml).is_err(), "{bad}");
        }
        assert!(DubboConfig::from_yaml("metrics:\n  prometheus:\n    unknown: 1\n").is_err());
    }
}
