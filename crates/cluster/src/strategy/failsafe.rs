//! `failsafe`: a framework failure is logged and the call returns a null result.

use dubbo_core::{BoxFuture, Invocation, RpcResponse, RpcResult};

use super::{ClusterCall, ClusterStrategy};

/// One attempt; a failure of the framework (no provider, timeout, lost connection, ...) is
/// logged and swallowed: the caller gets a null result (Java's `FailsafeClusterInvoker`, for
/// calls whose failure does not matter, such as audit logging). A business exception is the
/// provider's answer and is returned as it is.
#[derive(Debug, Default, Clone, Copy)]
pub struct Failsafe;

impl ClusterStrategy for Failsafe {
    fn invoke(&self, call: ClusterCall, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(async move {
            let method = invocation.method_name().to_owned();
            let result = match call.select(&invocation, call.invokers(), &[]) {
                Ok(provider) => call.invoke_on(&provider, invocation).await,
                Err(e) => Err(e),
            };
            match result {
                Err(e) if !e.is_business() => {
                    tracing::error!(
                        service = call.service(),
                        method = %method,
                        error = %e,
                        "failsafe: call failed, returning a null result"
                    );
                    Ok(RpcResponse::default())
                }
                other => other,
            }
        })
    }
}
