//! `dubbo.tracing`: the configured keys turned into a tracer's settings, each value checked.

use std::time::Duration;

use dubbo_tracing::{OtlpConfig, TracerConfig};

use super::{ConfigError, DubboConfig};

const PROBABILITY: &str = "dubbo.tracing.sampling.probability";
const PROPAGATION: &str = "dubbo.tracing.propagation.type";
const OTLP: &str = "dubbo.tracing.tracing-exporter.otlp-config";

/// The tracer settings when `dubbo.tracing.enabled` is true, `None` when tracing is off.
pub fn tracer_config(config: &DubboConfig) -> Result<Option<TracerConfig>, ConfigError> {
    let Some(tracing) = &config.tracing else {
        return Ok(None);
    };
    if tracing.enabled != Some(true) {
        return Ok(None);
    }
    let mut out = TracerConfig::new(config.application.name.clone().unwrap_or_default());
    if let Some(p) = tracing
        .sampling
        .as_ref()
        .and_then(|s| s.probability.as_ref())
    {
        out.sampling_probability = p
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|p| (0.0..=1.0).contains(p))
            .ok_or_else(|| {
                ConfigError::invalid(PROBABILITY, format!("{p:?} is not a number from 0 to 1"))
            })?;
    }
    if let Some(kind) = tracing.propagation.as_ref().and_then(|p| p.kind.as_ref()) {
        if !kind.trim().eq_ignore_ascii_case("W3C") {
            return Err(ConfigError::invalid(
                PROPAGATION,
                format!("{kind:?} is not supported (W3C only)"),
            ));
        }
    }
    let otlp = tracing
        .tracing_exporter
        .as_ref()
        .and_then(|e| e.otlp_config.as_ref());
    if let Some(otlp) = otlp {
        if let Some(method) = &otlp.compression_method {
            if !method.trim().eq_ignore_ascii_case("none") {
                return Err(ConfigError::invalid(
                    format!("{OTLP}.compression-method"),
                    format!("{method:?} is not supported (none only)"),
                ));
            }
        }
        if let Some(endpoint) = otlp.endpoint.as_ref().filter(|e| !e.trim().is_empty()) {
            let mut exporter = OtlpConfig::new(endpoint.trim());
            if let Some(t) = &otlp.timeout {
                exporter.timeout = parse_timeout(t).ok_or_else(|| {
                    ConfigError::invalid(
                        format!("{OTLP}.timeout"),
                        format!("{t:?} is not a duration (milliseconds, or e.g. 500ms, 10s)"),
                    )
                })?;
            }
            exporter.headers = otlp
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            out.otlp = Some(exporter);
        }
    }
    Ok(Some(out))
}

/// `1500`, `1500ms` or `10s`; never zero.
fn parse_timeout(text: &str) -> Option<Duration> {
    let t = text.trim();
    let d = if let Some(ms) = t.strip_suffix("ms") {
        Duration::from_millis(ms.trim().parse().ok()?)
    } else if let Some(s) = t.strip_suffix('s') {
        Duration::from_secs(s.trim().parse().ok()?)
    } else {
        Duration::from_millis(t.parse().ok()?)
    };
    (!d.is_zero()).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<Option<TracerConfig>, ConfigError> {
        let config = DubboConfig::from_yaml_with_env(yaml, Vec::<(String, String)>::new())?;
        tracer_config(&config)
    }

    #[test]
    fn java_keys_build_the_tracer_settings() {
        let t = parse(
            "dubbo:\n  application:\n    name: demo\n  tracing:\n    enabled: true\n    \
             sampling:\n      probability: 0.5\n    propagation:\n      type: W3C\n    \
             tracing-exporter:\n      otlp-config:\n        endpoint: http://127.0.0.1:4318\n        \
             timeout: 3s\n        headers:\n          x-tenant: a\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(t.application, "demo");
        assert_eq!(t.sampling_probability, 0.5);
        let otlp = t.otlp.unwrap();
        assert_eq!(otlp.endpoint, "http://127.0.0.1:4318");
        assert_eq!(otlp.timeout, Duration::from_secs(3));
        assert_eq!(otlp.headers, vec![("x-tenant".into(), "a".into())]);
    }

    #[test]
    fn the_environment_turns_it_on() {
        let env = [
            ("DUBBO_TRACING_ENABLED", "true"),
            ("DUBBO_TRACING_SAMPLING_PROBABILITY", "1"),
            (
                "DUBBO_TRACING_TRACING_EXPORTER_OTLP_CONFIG_ENDPOINT",
                "http://127.0.0.1:4318",
            ),
        ];
        let config =
            DubboConfig::from_yaml_with_env("dubbo:\n  application:\n    name: e\n", env).unwrap();
        let t = tracer_config(&config).unwrap().unwrap();
        assert_eq!(t.sampling_probability, 1.0);
        assert_eq!(t.otlp.unwrap().endpoint, "http://127.0.0.1:4318");
    }

    #[test]
    fn off_unless_enabled() {
        assert_eq!(
            parse("dubbo:\n  tracing:\n    enabled: false\n").unwrap(),
            None
        );
        assert_eq!(
            parse("dubbo:\n  application:\n    name: x\n").unwrap(),
            None
        );
        let on = parse("dubbo:\n  tracing:\n    enabled: true\n")
            .unwrap()
            .unwrap();
        assert_eq!(on.sampling_probability, 0.1);
        assert_eq!(on.otlp, None);
    }

    #[test]
    fn bad_values_and_unknown_keys_name_the_key() {
        for (yaml, key) in [
            ("sampling:\n      probability: 2", PROBABILITY),
            ("propagation:\n      type: B3", PROPAGATION),
            (
                "tracing-exporter:\n      otlp-config:\n        endpoint: http://h:1\n        timeout: soon",
                "dubbo.tracing.tracing-exporter.otlp-config.timeout",
            ),
            (
                "tracing-exporter:\n      otlp-config:\n        compression-method: gzip",
                "dubbo.tracing.tracing-exporter.otlp-config.compression-method",
            ),
            ("baggage:\n      enabled: true", "dubbo.tracing"),
        ] {
            let yaml = format!("dubbo:\n  tracing:\n    enabled: true\n    {yaml}\n");
            let err = parse(&yaml).unwrap_err().to_string();
            assert!(err.contains(key), "{err}");
        }
    }

    #[test]
    fn timeouts() {
        assert_eq!(parse_timeout("1500"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_timeout("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_timeout("10s"), Some(Duration::from_secs(10)));
        assert_eq!(parse_timeout("0"), None);
        assert_eq!(parse_timeout("x"), None);
    }
}
