//! `--otlp URL`: the interop programs trace every call and export the spans to an OTLP/HTTP
//! receiver, as `dubbo.tracing` with probability 1 would configure them.

use dubbo_rs::config::{
    DubboConfig, TracingConfig, TracingExporterConfig, TracingOtlpConfig, TracingSamplingConfig,
};

/// A configuration tracing every call and exporting to `endpoint` (`http://host:port`).
pub fn traced_config(endpoint: &str) -> DubboConfig {
    DubboConfig {
        tracing: Some(TracingConfig {
            enabled: Some(true),
            sampling: Some(TracingSamplingConfig {
                probability: Some("1.0".into()),
            }),
            tracing_exporter: Some(TracingExporterConfig {
                otlp_config: Some(TracingOtlpConfig {
                    endpoint: Some(endpoint.into()),
                    ..Default::default()
                }),
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}
