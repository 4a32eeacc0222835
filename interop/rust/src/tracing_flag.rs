//! `--otlp URL`: the interop programs trace every call and export the spans to an OTLP/HTTP
//! receiver, as `dubbo.tracing` with probability 1 would configure them.

use dubbo_rs::config::{
    DubboConfig, TracingConfig, TracingExporterConfig, TracingOtlpConfig, TracingSamplingConfig,
};
use dubbo_rs::ApplicationBuilder;

use crate::args::Args;

/// `builder` tracing every call to the receiver named by `--otlp`, if the flag was given.
pub fn with_otlp_flag(builder: ApplicationBuilder, args: &Args) -> ApplicationBuilder {
    match args.get("otlp") {
        // A given configuration stops the builder reading the process environment by itself.
        Some(endpoint) => builder
            .config(traced_config(endpoint))
            .env(std::env::vars()),
        None => builder,
    }
}

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
