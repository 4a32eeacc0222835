//! The streaming methods of a `#[dubbo_rs::service]` trait, served next to its unary methods on
//! each tri:// port the service is exported on.

use std::sync::Arc;

use dubbo_core::{Exporter, ServiceHandler};
use dubbo_url::Url;

use super::Module;
use crate::error::DubboError;

/// The `methods` parameter of `handler`'s URLs: its method names, streaming ones included (as
/// Java lists a service's `StreamObserver` methods), sorted, each once.
pub(super) fn method_list(handler: &dyn ServiceHandler) -> String {
    let mut methods: Vec<String> = handler
        .methods()
        .iter()
        .map(|m| m.name().to_owned())
        .collect();
    #[cfg(feature = "triple")]
    if let Some(streams) = handler.streams() {
        use dubbo_protocol_triple::server::interface_stream::StreamingInterface;
        if let Some(streams) = streams.downcast_ref::<StreamingInterface>() {
            methods.extend(streams.method_names().map(str::to_owned));
        }
    }
    methods.sort_unstable();
    methods.dedup();
    methods.join(",")
}

impl Module {
    /// `exporter` (of `handler`, exported at `url` over `protocol`), joined by the service's
    /// streaming methods when it has any: on tri://, they are served through the provider's
    /// filters like an IDL service, and withdrawn with the service. Other protocols do not
    /// stream (as in Java), so there the service answers its unary methods only.
    pub(super) async fn with_streams(
        &self,
        protocol: &str,
        url: &Url,
        exporter: Exporter,
        handler: &dyn ServiceHandler,
    ) -> Result<Exporter, DubboError> {
        let Some(streams) = handler.streams() else {
            return Ok(exporter);
        };
        #[cfg(feature = "triple")]
        if protocol == "tri" {
            use dubbo_protocol_triple::server::interface_stream::StreamingInterface;
            use dubbo_protocol_triple::server::IdlInvoker;
            use dubbo_protocol_triple::IdlService;

            let Ok(streams) = streams.downcast::<StreamingInterface>() else {
                return Err(crate::config::ConfigError::invalid(
                    "dubbo.services",
                    format!(
                        "the streaming methods of {} are not a StreamingInterface",
                        handler.interface()
                    ),
                )
                .into());
            };
            let server = self.inner.app.triple().server_for(url).await?;
            let service: Arc<dyn IdlService> = streams;
            let bound = exporter.url().clone();
            let invoker = Arc::new(IdlInvoker::new(service.clone(), bound.clone()));
            let chain = self.provider_chain(&bound, invoker);
            let served = server.export_idl(service, chain, bound.clone());
            let key = exporter.key().clone();
            return Ok(Exporter::new(key, bound, move || {
                exporter.unexport();
                served.unexport();
            }));
        }
        let _ = streams;
        tracing::info!(
            service = handler.interface(),
            protocol,
            "streaming methods are served over tri:// only; not over this protocol"
        );
        Ok(exporter)
    }
}
